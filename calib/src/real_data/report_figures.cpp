// Binned summaries and SVG plots of the real-data report (report_figures.h).
#include "report_figures.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "lidartwin/physics/units.h"
#include "lidartwin/reports/svg_plot.h"

namespace lt::calib {

namespace {

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const double x = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(x);
  const double w = x - static_cast<double>(i);
  return i + 1 < v.size() ? (1 - w) * v[i] + w * v[i + 1] : v[i];
}

const FitResult* ChosenFit(const OusterUnitResult& u) {
  if (!u.chosen) return nullptr;
  const FitOutcome& o =
      *u.chosen == ReflectivityReading::kIncludesCosine ? u.includes_cosine : u.excludes_cosine;
  return o.fit ? &*o.fit : nullptr;
}

// The sample's rho cos(theta), the factor the apparent link constant divides out.
double RhoCos(const RangeIntensitySample& s) {
  return s.reflectance * std::cos(s.incidence_deg * physics::kDegToRad);
}

std::string Slug(const std::string& label) {
  std::string out;
  for (char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

reports::Series DetectionSeries(const std::string& name, const DetectionOutcome& d) {
  reports::Series s{name, {}, {}, {}, true};
  for (const auto& b : d.bins) {
    const double p = static_cast<double>(b.detections) / b.trials;
    s.x.push_back(std::log10(b.expected_signal));
    s.y.push_back(p);
    s.err.push_back(std::sqrt(std::max(p * (1 - p), 0.25 / b.trials) / b.trials));  // binomial
  }
  return s;
}

}  // namespace

std::vector<RangeBin> RangeBins(const OusterUnitResult& u) {
  std::vector<RangeBin> out;
  const FitResult* fit = ChosenFit(u);
  if (!fit) return out;
  std::map<int, std::vector<const RangeIntensitySample*>> bins;
  for (const auto& s : u.population.samples)
    bins[static_cast<int>(std::floor(3 * std::log2(s.range_m)))].push_back(&s);
  for (const auto& [key, members] : bins) {
    std::vector<double> k, r, res;
    for (const auto* s : members) {
      const double m = ModelSignal(*fit, s->range_m, s->reflectance, s->incidence_deg);
      k.push_back(s->signal * 4 * s->range_m * s->range_m / RhoCos(*s));
      r.push_back(s->range_m);
      res.push_back((s->signal - m) / m);
    }
    RangeBin b;
    b.count = members.size();
    b.range_m = Quantile(r, 0.5);
    b.k25 = Quantile(k, 0.25);
    b.k50 = Quantile(k, 0.5);
    b.k75 = Quantile(k, 0.75);
    // K O(R) of a target with rho cos(theta) = 1, i.e. the model over the link term.
    b.model = ModelSignal(*fit, b.range_m, 1.0, 0.0) * 4 * b.range_m * b.range_m;
    b.residual50 = Quantile(res, 0.5);
    out.push_back(b);
  }
  return out;
}

double MedianAbsoluteResidual(const OusterUnitResult& u) {
  const FitResult* fit = ChosenFit(u);
  if (!fit) return std::nan("");
  std::vector<double> res;
  for (const auto& s : u.population.samples) {
    const double m = ModelSignal(*fit, s.range_m, s.reflectance, s.incidence_deg);
    res.push_back(std::fabs(s.signal - m) / m);
  }
  return Quantile(res, 0.5);
}

std::vector<IncidenceBin> IncidenceBins(const OusterUnitResult& u, ReflectivityReading reading) {
  std::vector<IncidenceBin> out;
  const FitOutcome& o =
      reading == ReflectivityReading::kIncludesCosine ? u.includes_cosine : u.excludes_cosine;
  if (!o.fit) return out;
  std::map<int, std::vector<double>> bins;
  for (const auto& s : u.population.samples) {
    // The population holds the chosen reading's samples; rebuild the other reading's from
    // the same reflectivity (rho cos(theta) = reflectivity / 100 under kIncludesCosine).
    double rho = s.reflectance;
    const double c = std::cos(s.incidence_deg * physics::kDegToRad);
    if (u.chosen == ReflectivityReading::kIncludesCosine && reading != *u.chosen) rho *= c;
    if (u.chosen == ReflectivityReading::kExcludesCosine && reading != *u.chosen) rho /= c;
    const double m = ModelSignal(*o.fit, s.range_m, rho, s.incidence_deg);
    bins[static_cast<int>(s.incidence_deg / 10)].push_back((s.signal - m) / m);
  }
  for (const auto& [key, res] : bins)
    out.push_back({10.0 * key + 5, res.size(), Quantile(res, 0.5)});
  return out;
}

std::vector<Figure> RealDataFigures(const RealDataCalibration& r) {
  std::vector<Figure> out;
  // Spectralon: one plot per wavelength (data and both fits), one of the residuals.
  reports::PlotSpec residual_spec{"Spectralon: residuals of the Lambert + specular fit",
                                  "incidence angle [deg]", "data - fit [percent of white]"};
  std::vector<reports::Series> residuals;
  for (const SpectralonAtWavelength& w : r.spectralon.wavelengths) {
    reports::Series data{"data 100 rho cos/A", {}, {}, {}, false};
    reports::Series lambert{"lambert", {}, {}, {}, true};
    reports::Series lobe{"lambert_specular", {}, {}, {}, true};
    reports::Series res{fmt::format("{:g} nm", w.wavelength_nm), {}, {}, {}, true};
    for (const auto& s : w.response) {
      data.x.push_back(s.incidence_deg);
      data.y.push_back(s.intensity);
      lambert.x.push_back(s.incidence_deg);
      lambert.y.push_back(ModelIntensity(w.lambert, s.incidence_deg));
      lobe.x.push_back(s.incidence_deg);
      lobe.y.push_back(ModelIntensity(w.lambert_specular, s.incidence_deg));
      res.x.push_back(s.incidence_deg);
      res.y.push_back(s.intensity - ModelIntensity(w.lambert_specular, s.incidence_deg));
    }
    residuals.push_back(std::move(res));
    reports::PlotSpec spec{
        fmt::format("Spectralon at {:g} nm: monostatic response", w.wavelength_nm),
        "incidence angle [deg]", "I [percent of a white Lambertian target]"};
    out.push_back({fmt::format("spectralon_{:g}nm.svg", w.wavelength_nm),
                   fmt::format("Spectralon at {:g} nm: I(theta) = 100 rho cos(theta) / A(theta) "
                               "and the two fits",
                               w.wavelength_nm),
                   reports::LinePlotSvg(spec, {data, lambert, lobe})});
  }
  if (!residuals.empty()) {
    out.push_back({"spectralon_residuals.svg",
                   "Spectralon: residuals of the Lambert + specular fit at every wavelength",
                   reports::LinePlotSvg(residual_spec, residuals)});
  }
  // Ouster range-intensity: the apparent link constant against range, with the fit.
  for (const OusterUnitResult& u : r.ouster) {
    const auto bins = RangeBins(u);
    if (bins.empty()) continue;
    reports::Series data{"median S 4R^2/(rho cos) (bars: quartiles)", {}, {}, {}, false};
    reports::Series model{"fit K O(R)", {}, {}, {}, true};
    for (const auto& b : bins) {
      data.x.push_back(std::log10(b.range_m));
      data.y.push_back(b.k50);
      data.err.push_back(0.5 * (b.k75 - b.k25));
      model.x.push_back(std::log10(b.range_m));
      model.y.push_back(b.model);
    }
    reports::PlotSpec spec{u.label + ": range-intensity", "log10 range [m]",
                           "apparent link constant [photons m^2]"};
    out.push_back({"ouster_" + Slug(u.label) + "_range_intensity.svg",
                   u.label + ": signal x 4 R^2 / (rho cos theta) against range, and the fitted "
                             "K O(R)",
                   reports::LinePlotSvg(spec, {data, model})});
  }
  // Ouster detection: rate against predicted signal, per unit, in each unit of signal.
  for (const char* unit : {"photons", "1/m^2"}) {
    std::vector<reports::Series> series;
    for (const OusterUnitResult& u : r.ouster) {
      const DetectionOutcome& d =
          std::string(unit) == "photons" ? u.detection_photons : u.detection_link;
      if (!d.bins.empty()) series.push_back(DetectionSeries(u.short_label, d));
    }
    if (series.empty()) continue;
    const bool photons = std::string(unit) == "photons";
    reports::PlotSpec spec{
        photons ? "Ouster drop-outs: detection rate against predicted signal"
                : "Ouster drop-outs: detection rate against the unit-link power",
        photons ? "log10 predicted signal [photons]" : "log10 rho cos(theta) / (4 R^2) [1/m^2]",
        "detection rate (bars: binomial 1 sigma)", 960, 400};
    out.push_back({photons ? "ouster_detection_photons.svg" : "ouster_detection_unit_link.svg",
                   spec.title, reports::LinePlotSvg(spec, series)});
  }
  return out;
}

}  // namespace lt::calib
