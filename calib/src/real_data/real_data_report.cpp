// The real-data report: Markdown tables and the SVG figures beside them
// (real_data_calibration.h, WriteRealDataReport).
#include <fmt/core.h>

#include <cmath>
#include <string>

#include "lidartwin/base/atomic_file.h"
#include "lidartwin/calib/real_data_calibration.h"
#include "report_figures.h"

namespace lt::calib {

namespace {

std::string ValueSd(const FitResult& fit, const std::string& name) {
  const FitParameter* p = fit.Find(name);
  return p ? fmt::format("{:.4g} ± {:.2g}", p->value, p->stddev) : "–";
}

std::string Rate(const DetectionSample& b) {
  return b.trials
             ? fmt::format("{:.3g} at {:.3g}", double(b.detections) / b.trials, b.expected_signal)
             : "–";
}

// A table cell may not hold a '|' or a line break.
std::string Cell(std::string text) {
  for (char& c : text)
    if (c == '|' || c == '\n') c = ' ';
  return text;
}

void Spectralon(const SpectralonResult& s, std::string& md) {
  md += "## Spectralon panel (spectralon-grit-lab)\n\n";
  md += fmt::format(
      "Files: `{}` (A(theta_i, lambda)), `{}` (Labsphere 8°/h calibration, rho and its "
      "uncertainty), `{}` (integrating sphere, 2023).\n\n",
      s.table_file, s.calibration_file, s.sphere_file);
  md +=
      "Response: I(theta) = 100 rho cos(theta) / A(theta, lambda), the monostatic reflectance "
      "factor of the normalised shape at its Lambertian base (spectralon.h). The table is a model "
      "output without noise, not a measurement: the fits estimate their sigmas from the "
      "residuals, so the ± below measure each shape's misfit, not an uncertainty, and no test "
      "applies (the residuals are the models' smooth misfit, not independent errors). The last "
      "column says which shape reproduces the response more closely.\n\n";
  md +=
      "| λ [nm] | rho (Labsphere) | rho (sphere) | points | lambert r0 | lambert RMS | "
      "lambert_specular r0 | specular_albedo | specular_exponent | lambert_specular RMS | "
      "closer to the response |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& w : s.wavelengths) {
    md += fmt::format(
        "| {:g} | {:.4f} ± {:.4f} | {:.4f} | {} | {} | {:.3f} | {} | {} | {} | {:.3f} | {} |\n",
        w.wavelength_nm, w.reflectance, w.reflectance_uncertainty, w.reflectance_sphere,
        w.lambert.points_used, ValueSd(w.lambert, "r0"), w.lambert.residual_rms,
        ValueSd(w.lambert_specular, "r0"), ValueSd(w.lambert_specular, "specular_albedo"),
        ValueSd(w.lambert_specular, "specular_exponent"), w.lambert_specular.residual_rms,
        w.CloserShape());
  }
  md += "\nRMS in percent of a white Lambertian target.\n\n";
}

void FitRow(const std::string& label, const std::string& reading, const FitOutcome& o, double chi2,
            bool chosen, std::string& md) {
  if (!o.fit) {
    md += fmt::format("| {} | {} | – | – | – | – | – | – | refused: {} |\n", label, reading,
                      Cell(o.refused));
    return;
  }
  md += fmt::format("| {} | {} | {} | {} | {} | {:.3g} | {:.3g} | {} | {} |\n", label, reading,
                    ValueSd(*o.fit, "link_constant"), ValueSd(*o.fit, "overlap_range_m"),
                    ValueSd(*o.fit, "overlap_sharpness"), o.fit->residual_rms, chi2,
                    o.fit->points_used, chosen ? "chosen (lower chi^2/dof)" : "");
}

void DetectionRow(const OusterUnitResult& u, const DetectionOutcome& d, std::string& md) {
  if (d.signal_unit.empty()) {
    md += fmt::format("| {} | – | – | – | – | – | – | {} |\n", u.short_label,
                      Cell(d.outcome.refused));
    return;
  }
  std::string fit;
  if (d.outcome.fit) {
    fit = fmt::format("threshold {}, noise_sigma {}, RMS {:.3g}",
                      ValueSd(*d.outcome.fit, "threshold"), ValueSd(*d.outcome.fit, "noise_sigma"),
                      d.outcome.fit->residual_rms);
  } else {
    fit = "refused: " + d.outcome.refused;
    // Under the probit a bin detected more often than not lies above T; its prediction, made
    // from returns that were detected, if anything overstates its signal.
    if (!d.bins.empty() && 2 * d.bins.front().detections > d.bins.front().trials)
      fit += fmt::format(" (T below {:.3g}, where the lowest bin is still detected at {:.2f})",
                         d.bins.front().expected_signal,
                         double(d.bins.front().detections) / d.bins.front().trials);
  }
  md += fmt::format("| {} | {} | {} | {} ({} missing) | {} / {} | {} | {} | {} |\n", u.short_label,
                    d.signal_unit, Cell(d.predictor), d.pixels, d.missing, d.population.off_surface,
                    d.without_prediction, d.bins.empty() ? "–" : Rate(d.bins.front()),
                    d.bins.empty() ? "–" : Rate(d.bins.back()), Cell(fit));
}

void Ouster(const std::vector<OusterUnitResult>& units, std::string& md) {
  md += "## Ouster captures (ouster-sdk)\n\n";
  md +=
      "| capture | product | profile | frames | signal photons | reflectivity | first returns "
      "| no normal | grazing | reflectivity outside 1..100 | range-intensity samples |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& u : units) {
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} (max {:g}) | {} | {} | {} | {} | {} |\n", u.short_label,
        Cell(u.label), u.profile, u.frames, u.has_signal ? "yes" : "no",
        u.calibrated_reflectivity ? "calibrated" : "uncalibrated", u.max_reflectivity_pct,
        u.population.returns, u.population.without_incidence, u.population.grazing,
        u.population.reflectivity_outside, u.population.samples.size());
  }
  md += "\n### Range-intensity: S = K rho cos(theta) / (4 R^2) O(R)\n\n";
  md +=
      "Reading `rho cos` takes the reported reflectivity as rho cos(theta) (what the sensor "
      "can know); `rho` multiplies it by the estimated cos(theta) once more. Standard "
      "deviations are scaled by sqrt(chi^2/dof) where that exceeds 1 (sigmas: Poisson and "
      "the reflectivity's rounding).\n\n";
  md +=
      "| capture | reading | link_constant [photons m^2] | overlap_range_m | overlap_sharpness "
      "| RMS [photons] | chi^2/dof | points | |\n";
  md += "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& u : units) {
    FitRow(u.short_label, "rho cos", u.includes_cosine, u.chi2_includes,
           u.chosen == ReflectivityReading::kIncludesCosine, md);
    FitRow(u.short_label, "rho", u.excludes_cosine, u.chi2_excludes,
           u.chosen == ReflectivityReading::kExcludesCosine, md);
  }
  for (const auto& u : units) {
    const auto bins = RangeBins(u);
    if (bins.empty()) continue;
    md += fmt::format("\n{}: the chosen fit by range (apparent K = S 4 R^2 / (rho cos theta))\n\n",
                      u.short_label);
    md +=
        "| median range [m] | samples | apparent K, quartiles | fit K O(R) | median (S − "
        "fit)/fit |\n|---|---|---|---|---|\n";
    for (const auto& b : bins) {
      md += fmt::format("| {:.3g} | {} | {:.3g} / {:.3g} / {:.3g} | {:.3g} | {:+.3f} |\n",
                        b.range_m, b.count, b.k25, b.k50, b.k75, b.model, b.residual50);
    }
    md += fmt::format("\nMedian |S − fit| / fit over all {} samples: {:.3f}.\n",
                      u.population.samples.size(), MedianAbsoluteResidual(u));
    md += fmt::format("\n{}: median (S − fit)/fit by incidence angle, both readings\n\n",
                      u.short_label);
    md += "| incidence [deg] | samples | rho cos | rho |\n|---|---|---|---|\n";
    const auto with = IncidenceBins(u, ReflectivityReading::kIncludesCosine);
    const auto without = IncidenceBins(u, ReflectivityReading::kExcludesCosine);
    for (size_t k = 0; k < with.size() && k < without.size(); ++k) {
      md += fmt::format("| {:g} | {} | {:+.3f} | {:+.3f} |\n", with[k].incidence_deg, with[k].count,
                        with[k].residual50, without[k].residual50);
    }
  }
  md += "\n### Detection: p(S) = Phi((S − T) / sigma) against the predicted signal\n\n";
  md +=
      "Population: pixels of seen columns whose nearest returns left and right in the same "
      "row lie within the gap limit and on one surface; the prediction comes from those two "
      "returns only, for returned and missing pixels alike. Bins hold equal counts.\n\n";
  md +=
      "| capture | signal unit | predicted from | pixels | off surface / no prediction | "
      "lowest bin: rate at signal | highest bin | fit |\n";
  md += "|---|---|---|---|---|---|---|---|\n";
  for (const auto& u : units) {
    DetectionRow(u, u.detection_photons, md);
    DetectionRow(u, u.detection_link, md);
  }
  md += "\nSensitivity to the gap limit (lowest and highest bins; rate at predicted signal)\n\n";
  md +=
      "| capture | signal unit | gap [columns] | pixels (missing) | lowest bin | highest bin "
      "| fit |\n|---|---|---|---|---|---|---|\n";
  for (const auto& u : units) {
    for (const DetectionOutcome* d : {&u.detection_photons, &u.detection_link}) {
      for (const auto& g : d->gap_sensitivity) {
        md += fmt::format(
            "| {} | {} | {} | {} ({}) | {} | {} | {} |\n", u.short_label, d->signal_unit,
            g.max_gap_columns, g.pixels, g.missing, Rate(g.lowest), Rate(g.highest),
            g.outcome.fit ? fmt::format("T {}, sigma {}", ValueSd(*g.outcome.fit, "threshold"),
                                        ValueSd(*g.outcome.fit, "noise_sigma"))
                          : Cell("refused: " + g.outcome.refused));
      }
    }
  }
  md += "\n";
}

}  // namespace

Status WriteRealDataReport(const RealDataCalibration& result, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{dir.string() + ": cannot create: " + ec.message()};
  std::string md = "# Real measurements: lidartwin calibrate-real\n\n";
  Spectralon(result.spectralon, md);
  Ouster(result.ouster, md);
  md += "## Figures\n\n";
  for (const Figure& f : RealDataFigures(result)) {
    if (Status s = WriteTextFileAtomically(dir / f.file, f.svg); !s.ok()) return s;
    md += fmt::format("![{}]({})\n\n", f.caption, f.file);
  }
  return WriteTextFileAtomically(dir / "real_data_report.md", md);
}

std::string RealDataSummaryText(const RealDataCalibration& result) {
  std::string out;
  for (const auto& w : result.spectralon.wavelengths) {
    out += fmt::format(
        "Spectralon {:g} nm: lambert r0 {:.4f} (RMS {:.2f}), lambert_specular RMS {:.2f}: {} "
        "closer to the response (a model output: misfit, no test)\n",
        w.wavelength_nm, w.lambert.Find("r0")->value, w.lambert.residual_rms,
        w.lambert_specular.residual_rms, w.CloserShape());
  }
  for (const auto& u : result.ouster) {
    out += fmt::format(
        "{}: range-intensity {}, detection {}\n", u.label, u.chosen ? "fitted" : "not fitted",
        u.detection_photons.outcome.fit || u.detection_link.outcome.fit ? "fitted" : "refused");
  }
  return out;
}

}  // namespace lt::calib
