#include "lidartwin/calib/calibration_report.h"

#include <cmath>
#include <cstdio>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/calib/goodness_of_fit.h"
#include "lidartwin/reports/svg_plot.h"

namespace lt::calib {

namespace {

std::string EscapeCell(std::string s) {
  for (size_t at = s.find('|'); at != std::string::npos; at = s.find('|', at + 2))
    s.replace(at, 1, "\\|");
  return s;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

struct Page {
  std::string md, html;
  void Heading(int level, const std::string& text) {
    md += std::string(static_cast<size_t>(level), '#') + " " + text + "\n\n";
    html += "<h" + std::to_string(level) + ">" + reports::EscapeXml(text) + "</h" +
            std::to_string(level) + ">\n";
  }
  void Paragraph(const std::string& text) {
    md += text + "\n\n";
    html += "<p>" + reports::EscapeXml(text) + "</p>\n";
  }
  void Table(const std::vector<std::string>& head,
             const std::vector<std::vector<std::string>>& rows) {
    md += "|";
    html += "<table>\n<tr>";
    for (const auto& h : head) {
      md += " " + h + " |";
      html += "<th>" + reports::EscapeXml(h) + "</th>";
    }
    md += "\n|";
    html += "</tr>\n";
    for (size_t i = 0; i < head.size(); ++i)
      md += " --- |";
    md += "\n";
    for (const auto& r : rows) {
      md += "|";
      html += "<tr>";
      for (const auto& c : r) {
        md += " " + EscapeCell(c) + " |";
        html += "<td>" + reports::EscapeXml(c) + "</td>";
      }
      md += "\n";
      html += "</tr>\n";
    }
    md += "\n";
    html += "</table>\n";
  }
};

// At most 2000 points per plotted series (every k-th), so a long table stays a small page.
reports::Series Thin(reports::Series s) {
  const size_t n = s.x.size(), step = n > 2000 ? (n + 1999) / 2000 : 1;
  if (step == 1) return s;
  reports::Series out{s.name, {}, {}, {}, s.lines};
  for (size_t i = 0; i < n; i += step) {
    out.x.push_back(s.x[i]);
    out.y.push_back(s.y[i]);
    if (!s.err.empty()) out.err.push_back(s.err[i]);
  }
  return out;
}

}  // namespace

CalibrationReport RenderCalibrationReport(const Calibration& c, const LabFolder& lab,
                                          const std::string& base_profile,
                                          const std::string& out_profile) {
  Page p;
  p.Heading(1, "Calibration of " + c.profile.name);
  p.Paragraph("Lab folder " + c.profile.calibration.lab + " (SHA-256 " + lab.checksum + "), unit " +
              (lab.sensor_serial.empty() ? "(no serial)" : lab.sensor_serial) + "; base profile " +
              base_profile + "; calibrated profile " + out_profile + "; " +
              c.profile.calibration.date_utc + ".");
  if (!c.warnings.empty()) {
    p.Heading(2, "Warnings: poor fits kept as accepted");
    for (const auto& w : c.warnings)
      p.Paragraph("WARNING: " + w);
  }
  p.Heading(2, "Profile keys changed");
  std::vector<std::vector<std::string>> rows;
  for (const auto& u : c.updates)
    rows.push_back({u.key, Num(u.before), Num(u.after), Num(u.stddev), u.fit});
  p.Table({"key", "base", "calibrated", "1 sigma", "fit"}, rows);
  if (!c.materials.empty()) {
    p.Heading(2, "Fitted quantities that are not profile keys (materials, kernel components)");
    rows.clear();
    for (const auto& u : c.materials)
      rows.push_back({u.key, Num(u.after), Num(u.stddev), u.fit});
    p.Table({"quantity", "fitted", "1 sigma", "fit"}, rows);
  }
  p.Heading(2, "Fits");
  for (const auto& f : c.fits) {
    const FitResult& r = f.result;
    p.Heading(3, f.kind + ": " + r.model + " (" + f.file + ")");
    p.Paragraph(std::string(r.converged ? "converged" : "NOT converged") + "; " +
                std::to_string(r.points_used) + " points used, " +
                std::to_string(r.points_rejected) + " rejected; residual RMS " +
                Num(r.residual_rms) + (r.solver_report.empty() ? "" : "; " + r.solver_report));
    // Against the measurements' sigmas (goodness_of_fit.h).
    p.Paragraph("Goodness of fit: " + GoodnessText(r.goodness) +
                (IsPoorFit(r.goodness)
                     ? " (POOR: uncertainties scaled by " + Num(BirgeRatio(r.goodness)) + ")"
                     : ""));
    rows.clear();
    for (const auto& q : r.parameters)
      rows.push_back({q.name, Num(q.value), Num(q.stddev)});
    p.Table({"parameter", "value", "1 sigma"}, rows);
    for (const auto& plot : f.plots) {
      reports::PlotSpec spec{plot.title, plot.x_label, plot.y_label};
      const reports::Series data = Thin({"measured", plot.x, plot.y, plot.err, false});
      const reports::Series model{"fit", plot.model_x, plot.model_y, {}, true};
      p.html += "<figure>" + reports::LinePlotSvg(spec, {model, data}) + "</figure>\n";
      reports::PlotSpec rs{plot.title + ": residuals", plot.x_label, "measured - fit"};
      const reports::Series res = Thin({"residual", plot.x, plot.residual, plot.err, false});
      p.html += "<figure>" + reports::LinePlotSvg(rs, {res}) + "</figure>\n";
      double rss = 0;
      for (double v : plot.residual)
        rss += v * v;
      p.md += "- " + plot.title + ": " + std::to_string(plot.x.size()) + " points, residual RMS " +
              Num(plot.residual.empty() ? 0 : std::sqrt(rss / plot.residual.size())) +
              " (plots in report.html)\n\n";
    }
  }
  CalibrationReport out;
  out.markdown = p.md;
  out.html =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>lidartwin calibration</title>"
      "<style>body{font-family:sans-serif;max-width:60em;margin:auto}table{border-collapse:"
      "collapse}td,th{border:1px solid #ccc;padding:2px 6px}figure{margin:1em 0}</style>"
      "</head><body>\n" +
      p.html + "</body></html>\n";
  return out;
}

Status WriteCalibrationReport(const Calibration& c, const LabFolder& lab,
                              const std::string& base_profile, const std::string& out_profile,
                              const std::filesystem::path& dir) {
  const CalibrationReport r = RenderCalibrationReport(c, lab, base_profile, out_profile);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{dir.string() + ": cannot create the report folder (" + ec.message() + ")"};
  if (auto s = WriteTextFileAtomically(dir / "report.md", r.markdown); !s.ok()) return s;
  return WriteTextFileAtomically(dir / "report.html", r.html);
}

}  // namespace lt::calib
