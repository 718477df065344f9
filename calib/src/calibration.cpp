#include "lidartwin/calib/calibration.h"

#include <algorithm>
#include <cmath>

#include "lidartwin/base/cancellation.h"
#include "lidartwin/calib/beam_kernel_fit.h"
#include "lidartwin/calib/goodness_of_fit.h"
#include "lidartwin/calib/jitter_fit.h"
#include "lidartwin/calib/model_comparison.h"
#include "lidartwin/physics/capability.h"
#include "lidartwin/physics/detection_probability.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/units.h"

namespace lt::calib {

namespace {

using physics::kDegToRad;
using physics::kPi;

const FitParameter& Param(const FitResult& r, const std::string& name) {
  const FitParameter* p = r.Find(name);
  LT_CHECK(p != nullptr);
  return *p;
}

void Update(Calibration& c, const std::string& key, double before, const FitParameter& p,
            const std::string& fit, double scale = 1) {
  c.updates.push_back({key, before, p.value * scale, p.stddev * scale, fit});
}

// A fit judged against its measurements' sigmas (goodness_of_fit.h): a poor one fails the run,
// or, accepted, keeps its values with standard deviations scaled by the Birge ratio
// sqrt(chi^2 / dof) and a warning. `where`: the measurement file(s).
Status Judge(FitResult& fit, const std::string& what, const std::string& where,
             const CalibrationOptions& o, Calibration& c) {
  if (!IsPoorFit(fit.goodness)) return {};
  const double birge = BirgeRatio(fit.goodness);
  // An infinite chi^2 (a point the model cannot reach) has no scale to accept.
  if (!o.accept_poor_fits || !std::isfinite(birge)) {
    return Error{where + ": the " + what +
                 " fit does not describe the measurements within their sigmas: " +
                 GoodnessText(fit.goodness) +
                 ". Check that point (a glint, a moved target, a sigma too small) and the fit's "
                 "declared settings (its model, a declared overlap), and measure again; accepted "
                 "as a poor fit, its uncertainties would be scaled by " +
                 NumberText(birge)};
  }
  // The parameters the chi^2 covers (values the fit derives otherwise, as a waveform's thermal
  // noise from the pretrigger, keep their own uncertainty).
  for (size_t i = 0; i < fit.parameters.size() && i < fit.goodness.parameters; ++i)
    fit.parameters[i].stddev *= birge;
  for (double& v : fit.covariance)
    v *= birge * birge;
  c.warnings.push_back(where + ": the " + what + " fit is poor (" + GoodnessText(fit.goodness) +
                       "); kept as accepted, its standard deviations scaled by " +
                       NumberText(birge));
  return {};
}

std::vector<double> Spaced(double lo, double hi, int n, bool log) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / (n - 1);
    v.push_back(log ? lo * std::pow(hi / lo, t) : lo + (hi - lo) * t);
  }
  return v;
}

Status FitBeam(const LabFolder& lab, Calibration& c) {
  if (lab.beam_kernels.empty()) return {};
  if (lab.beam_kernels.size() > 1) {
    return Error{lab.dir.string() + ": more than one beam_kernel measurement (one per lab)"};
  }
  const CollectorSlice* hs = nullptr;
  const CollectorSlice* vs = nullptr;
  for (const auto& s : lab.collector_slices)
    (s.horizontal ? hs : vs) = &s;
  if (!hs || !vs) {
    return Error{lab.dir.string() +
                 ": a beam_kernel measurement needs both collector_sensitivity "
                 "slices (axis: horizontal and axis: vertical)"};
  }
  const BeamKernelImages& images = lab.beam_kernels[0];
  auto emitter = FitEmitter(images);
  if (!emitter.ok()) return emitter.error();
  auto h = FitCollector(*hs);
  if (!h.ok()) return h.error();
  auto v = FitCollector(*vs);
  if (!v.ok()) return v.error();
  // Plots: cuts through the brightest pixel, in log10 (six decades).
  FitRecord er{"beam_kernel", images.file, emitter->result, {}};
  const KernelPixel* peak = &emitter->data.pixels[0];
  for (const auto& p : emitter->data.pixels)
    if (p.value > peak->value) peak = &p;
  for (bool along_h : {true, false}) {
    FitPlot plot{
        std::string("Emitter, ") + (along_h ? "horizontal" : "vertical") + " cut through the peak",
        along_h ? "h [mrad]" : "v [mrad]",
        "log10 counts / us",
        {},
        {},
        {},
        {},
        {},
        {}};
    for (const auto& p : emitter->data.pixels) {
      if ((along_h ? p.v_mrad : p.h_mrad) != (along_h ? peak->v_mrad : peak->h_mrad)) continue;
      const double a = along_h ? p.h_mrad : p.v_mrad;
      plot.x.push_back(a);
      plot.y.push_back(std::log10(p.value));
      const double m =
          along_h ? emitter->Evaluate(a, peak->v_mrad) : emitter->Evaluate(peak->h_mrad, a);
      plot.residual.push_back(std::log10(p.value) - std::log10(m));
    }
    const auto& axis = along_h ? images.h_mrad : images.v_mrad;
    for (double a : Spaced(axis.front(), axis.back(), 200, false)) {
      plot.model_x.push_back(a);
      plot.model_y.push_back(std::log10(along_h ? emitter->Evaluate(a, peak->v_mrad)
                                                : emitter->Evaluate(peak->h_mrad, a)));
    }
    er.plots.push_back(std::move(plot));
  }
  c.fits.push_back(std::move(er));
  for (const CollectorFit* f : {&*h, &*v}) {
    FitRecord rec{"collector_sensitivity", f->horizontal ? hs->file : vs->file, f->result, {}};
    FitPlot plot{
        std::string("Collector sensitivity, ") + (f->horizontal ? "horizontal" : "vertical"),
        "angle [mrad]",
        "relative sensitivity",
        f->angle_mrad,
        f->sensitivity,
        {},
        {},
        {},
        {}};
    for (size_t i = 0; i < f->angle_mrad.size(); ++i)
      plot.residual.push_back(f->sensitivity[i] - f->Evaluate(f->angle_mrad[i]));
    for (double a : Spaced(f->angle_mrad.front(), f->angle_mrad.back(), 200, false)) {
      plot.model_x.push_back(a);
      plot.model_y.push_back(f->Evaluate(a));
    }
    rec.plots.push_back(std::move(plot));
    c.fits.push_back(std::move(rec));
  }
  auto kernel = CombineKernel(*emitter, *h, *v);
  if (!kernel.ok()) return Error{images.file + ": " + kernel.message()};
  if (kernel->tabulated) {
    // The profile samples the product as a table (footprint: table); its file is written
    // beside the calibrated profile (Calibration::kernel_table).
    physics::BeamFootprint& f = c.profile.footprint;
    f.kind = physics::FootprintKind::kTable;
    f.sub_rays = std::max<uint32_t>(f.sub_rays, 16);
    c.kernel_table = kernel->table;
    c.profile.kernel = PrepareKernelSampling(kernel->table, c.profile.kernel_tail_exponent);
    c.profile.kernel_h_file.clear();
    c.profile.kernel_v_file.clear();
    const std::string what = "beam kernel (" + emitter->result.model + ")";
    for (const auto& p : emitter->result.parameters)
      c.materials.push_back({"beam.emitter." + p.name, 0, p.value, p.stddev, what});
    for (const CollectorFit* s : {&*h, &*v})
      for (const auto& p : s->result.parameters)
        c.materials.push_back(
            {std::string("beam.collector_") + (s->horizontal ? "h." : "v.") + p.name, 0, p.value,
             p.stddev, s->result.model});
    c.fits.push_back({"beam_kernel", images.file + " x collector slices", kernel->result, {}});
    return {};
  }
  physics::BeamFootprint& f = c.profile.footprint;
  const uint32_t sub_rays = std::max<uint32_t>(f.sub_rays, 1);
  const physics::BeamFootprint before = f;
  f = kernel->footprint;
  f.sub_rays = sub_rays;
  f.mode = before.mode;
  const std::vector<uint32_t> order = SpotsAlongTheirLine(kernel->footprint);
  for (uint32_t k = 0; k < f.spot_count; ++k)
    f.spots[k] = kernel->footprint.spots[order[k]];
  for (uint32_t k = 0; k < f.spot_count; ++k) {
    const std::string prefix = "spot" + std::to_string(order[k] + 1) + ".";
    const std::string key = "beam.spots[" + std::to_string(k) + "].";
    const bool had = before.kind == physics::FootprintKind::kGaussian && k < before.spot_count;
    const physics::GaussianSpot old = had ? before.spots[k] : physics::GaussianSpot{0, 0, 0, 0, 0};
    const double fw = physics::kFwhmPerSigma * 1e3;
    Update(c, key + "h_offset_mrad", old.h_offset_rad * 1e3,
           Param(kernel->result, prefix + "h_offset_mrad"), "beam kernel");
    Update(c, key + "v_offset_mrad", old.v_offset_rad * 1e3,
           Param(kernel->result, prefix + "v_offset_mrad"), "beam kernel");
    Update(c, key + "divergence_h_fwhm_mrad", old.sigma_h_rad * fw,
           Param(kernel->result, prefix + "fwhm_h_mrad"), "beam kernel");
    Update(c, key + "divergence_v_fwhm_mrad", old.sigma_v_rad * fw,
           Param(kernel->result, prefix + "fwhm_v_mrad"), "beam kernel");
    if (f.spot_count > 1) {  // one spot carries all the power by definition
      Update(c, key + "power", old.power, Param(kernel->result, prefix + "power"), "beam kernel");
    }
  }
  c.fits.push_back({"beam_kernel", images.file + " x collector slices", kernel->result, {}});
  return {};
}

Status NeedThreshold(const SensorProfile& base, const std::string& what) {
  if (base.detector.kind == DetectorKind::kThreshold) return {};
  return Error{base.source_file + ": the base profile's detector is not `threshold`; the " + what +
               " fit sets threshold-detector keys"};
}

// The range-intensity fit's link constant in nW per unit link, for the base profile's peak
// power, aperture and optics (ReceivedPower, link_budget.h; the extinction left out, as in the
// fit): K = peak power x per_watt.
double LinkConstantPerWatt(const physics::LinkBudget& link) {
  const physics::LinkBudget one_watt{1.0, link.aperture_diameter_m, link.optics_transmission, 0.0};
  const physics::LinkBudget unit{1.0, 1.0, 1.0, 0.0};
  return 1e9 * physics::ReceivedPower(one_watt, 1 / kPi, 1.0, 1.0) /
         physics::ReceivedPower(unit, 1 / kPi, 1.0, 1.0);
}

// Every range-intensity table is in the sensor's counts with the conversion to be fitted.
bool CountConversionFitted(const LabFolder& lab) {
  return !lab.range_intensity_curves.empty() &&
         lab.range_intensity_curves[0].signal_unit == SignalUnit::kCounts &&
         lab.range_intensity_curves[0].nw_per_count == 0;
}

// Counts with a fitted conversion (docs/calibration.md "Signals in the sensor's units"): power
// and counts are one scale, so the base profile's peak power anchors it. The link constant
// fitted in counts against the base's in nW gives the nW a count; the lab's range-intensity
// tables come back in nW (`converted`, its other measurements left out), for the fits after.
Status FitCountConversion(const LabFolder& lab, const CalibrationOptions& o, LabFolder& converted,
                          Calibration& c) {
  std::vector<RangeIntensitySample> all;
  std::string files;
  for (const auto& r : lab.range_intensity_curves) {
    all.insert(all.end(), r.samples.begin(), r.samples.end());
    files += (files.empty() ? "" : ", ") + r.file;
  }
  auto fit = FitRangeIntensity(all, lab.range_intensity_curves[0].overlap);
  if (!fit.ok()) return Error{lab.dir.string() + "/" + files + ": " + fit.message()};
  if (auto s = Judge(*fit, "range-intensity (in counts)", lab.dir.string() + "/" + files, o, c);
      !s.ok())
    return s;
  const physics::LinkBudget& link = c.profile.detector.link;
  const FitParameter k = Param(*fit, "link_constant");
  const double base_k = link.peak_power_w * LinkConstantPerWatt(link);
  const double nw_per_count = base_k / k.value;
  c.materials.push_back(
      {"signal.nw_per_count", 0, nw_per_count, nw_per_count * k.stddev / k.value,
       "range-intensity in counts against the base profile's peak power (the sigma is the "
       "fit's: that power is taken as exact)"});
  converted.dir = lab.dir;
  converted.threshold_sweeps = lab.threshold_sweeps;
  converted.range_intensity_curves = lab.range_intensity_curves;
  for (auto& r : converted.range_intensity_curves) {
    r.nw_per_count = nw_per_count;
    for (auto& s : r.samples) {
      s.signal *= nw_per_count;
      s.sigma *= nw_per_count;
      s.spread *= nw_per_count;
    }
  }
  return {};
}

Expected<FitResult> FitRangeIntensityCurves(const LabFolder& lab, const CalibrationOptions& o,
                                            bool peak_power_held, Calibration& c) {
  std::vector<RangeIntensitySample> all;
  std::string files;
  for (const auto& r : lab.range_intensity_curves) {
    all.insert(all.end(), r.samples.begin(), r.samples.end());
    files += (files.empty() ? "" : ", ") + r.file;
  }
  // The reader has seen that every curve declares the same overlap.
  const OverlapFit overlap = lab.range_intensity_curves[0].overlap;
  auto fit = FitRangeIntensity(all, overlap);
  if (!fit.ok()) return Error{lab.dir.string() + "/" + files + ": " + fit.message()};
  if (auto s = Judge(*fit, "range-intensity", lab.dir.string() + "/" + files, o, c); !s.ok())
    return s.error();
  FitRecord rec{"range_intensity", files, *fit, {}};
  FitPlot plot{"Range-intensity: signal R^2 / (rho cos theta) against range",
               "range [m]",
               "signal x R^2 / (rho cos theta) [nW m^2]",
               {},
               {},
               {},
               {},
               {},
               {}};
  double lo = 1e9, hi = 0;
  for (const auto& s : all) {
    const double norm =
        s.range_m * s.range_m / (s.reflectance * std::cos(s.incidence_deg * kDegToRad));
    plot.x.push_back(s.range_m);
    plot.y.push_back(s.signal * norm);
    plot.err.push_back(s.sigma * norm);
    plot.residual.push_back(
        (s.signal - ModelSignal(*fit, s.range_m, s.reflectance, s.incidence_deg)) * norm);
    lo = std::min(lo, s.range_m);
    hi = std::max(hi, s.range_m);
  }
  for (double r : Spaced(lo, hi, 200, true)) {
    plot.model_x.push_back(r);
    plot.model_y.push_back(ModelSignal(*fit, r, 1.0, 0.0) * r * r);
  }
  rec.plots.push_back(std::move(plot));
  c.fits.push_back(std::move(rec));
  // K is the received power of this link per watt emitted, over the unit link's, in nW
  // (ReceivedPower, link_budget.h): the peak power follows, aperture and optics kept from the
  // base profile. The extinction is left out, as in the fit.
  physics::LinkBudget& link = c.profile.detector.link;
  const double per_watt = LinkConstantPerWatt(link);
  if (!peak_power_held) {  // else the base's, which anchors the fitted count conversion
    Update(c, "detector.peak_power_w", link.peak_power_w, Param(*fit, "link_constant"),
           "range-intensity", 1 / per_watt);
    link.peak_power_w = Param(*fit, "link_constant").value / per_watt;
  }
  DetectorConfig& d = c.profile.detector;
  if (overlap == OverlapFit::kNone) {
    // Declared, not fitted: full overlap at every range.
    Update(c, "detector.overlap_range_m", d.overlap.range_m, Param(*fit, "overlap_range_m"),
           "declared (fit: {overlap: none})");
    d.overlap = {0, d.overlap.sharpness};
    return fit;
  }
  Update(c, "detector.overlap_range_m", d.overlap.range_m, Param(*fit, "overlap_range_m"),
         "range-intensity");
  Update(c, "detector.overlap_sharpness", d.overlap.sharpness, Param(*fit, "overlap_sharpness"),
         "range-intensity");
  d.overlap = {Param(*fit, "overlap_range_m").value, Param(*fit, "overlap_sharpness").value};
  return fit;
}

// The noise the simulator's own sampling adds to a beam's power on a flat target with the
// profile's footprint: a tabulated kernel's importance weights (SampledPowerStatistics);
// Gaussian spots and cones sample with equal weights and add none.
SampledPowerNoise SamplingNoise(const SensorProfile& p) {
  if (p.footprint.kind != physics::FootprintKind::kTable) return {};
  return SampledPowerStatistics(p.kernel, p.footprint.sub_rays);
}

// The pulse-energy jitter from the range-intensity rows' spreads, when they were measured;
// otherwise the base profile's jitter, kept in the profile. Returns the relative spread of the
// signal the threshold fit must assume: the jitter with the simulator's sampling spread of the
// calibrated kernel, which a virtual lab's pulses carry and a real lab's measured total is
// matched by (issue 40, item 2: fitted as jitter, that spread was counted twice).
Expected<double> FitJitter(const LabFolder& lab, const CalibrationOptions& o, Calibration& c) {
  std::vector<SignalSpreadSample> all;
  std::string files;
  for (const auto& r : lab.range_intensity_curves) {
    for (const auto& s : r.samples)
      if (s.pulses >= 2 && s.spread > 0) all.push_back({s.signal, s.spread, s.pulses});
    files += (files.empty() ? "" : ", ") + r.file;
  }
  const SampledPowerNoise sampling = SamplingNoise(c.profile);
  const double m = sampling.relative_spread;
  if (all.empty()) return std::hypot(c.profile.detector.pulse_energy_jitter, m);
  auto fit = FitPulseEnergyJitter(all, m, sampling.excess_kurtosis);
  if (!fit.ok()) return Error{lab.dir.string() + "/" + files + ": " + fit.message()};
  if (auto s =
          Judge(*fit, "pulse-energy jitter", lab.dir.string() + "/" + files + " (spread)", o, c);
      !s.ok())
    return s.error();
  FitRecord rec{"range_intensity", files + " (spread)", *fit, {}};
  FitPlot plot{"Pulse-to-pulse spread of the signal",
               "mean signal [nW]",
               "spread [nW]",
               {},
               {},
               {},
               {},
               {},
               {}};
  const double j = Param(*fit, "pulse_energy_jitter").value,
               sigma = Param(*fit, "noise_sigma").value;
  double lo = 1e300, hi = 0;
  for (const auto& s : all) {
    plot.x.push_back(s.signal);
    plot.y.push_back(s.spread);
    plot.err.push_back(s.spread / std::sqrt(2.0 * (s.pulses - 1)));
    plot.residual.push_back(s.spread - physics::SignalSpread(sigma, std::hypot(j, m), s.signal));
    lo = std::min(lo, s.signal);
    hi = std::max(hi, s.signal);
  }
  for (double x : Spaced(lo, hi, 200, true)) {
    plot.model_x.push_back(x);
    plot.model_y.push_back(physics::SignalSpread(sigma, std::hypot(j, m), x));
  }
  rec.plots.push_back(std::move(plot));
  c.fits.push_back(std::move(rec));
  Update(c, "detector.pulse_energy_jitter", c.profile.detector.pulse_energy_jitter,
         Param(*fit, "pulse_energy_jitter"), "signal spread");
  // The spreads' own estimate of the receiver noise, beside the threshold fit's in the report.
  c.materials.push_back({"check.signal_noise_nw_from_spread", 0, sigma,
                         Param(*fit, "noise_sigma").stddev, "signal spread"});
  if (m > 0) {
    c.materials.push_back({"check.kernel_sampling_spread", 0, m, 0,
                           "the simulator's sampling of the kernel, taken out of the spreads"});
  }
  c.profile.detector.pulse_energy_jitter = j;
  return std::hypot(j, m);
}

Status FitThresholdSweeps(const LabFolder& lab, const FitResult& link_fit, double jitter,
                          const CalibrationOptions& o, Calibration& c) {
  std::vector<DetectionSample> all;
  std::string files;
  for (const auto& t : lab.threshold_sweeps) {
    for (size_t i = 0; i < t.trials.size(); ++i) {
      const double s = ModelSignal(link_fit, t.range_m[i], t.target_reflectance, t.incidence_deg) *
                       std::pow(10.0, -t.attenuation_db[i] / 10);
      all.push_back({s, t.trials[i], t.detections[i]});
    }
    files += (files.empty() ? "" : ", ") + t.file;
  }
  auto fit = FitDetectionThreshold(all, jitter);
  if (!fit.ok()) return Error{lab.dir.string() + "/" + files + ": " + fit.message()};
  if (auto s = Judge(*fit, "detection-threshold", lab.dir.string() + "/" + files, o, c); !s.ok())
    return s;
  // The expected signals carry the link constant's relative error; T and sigma scale with it.
  const FitParameter& k = Param(link_fit, "link_constant");
  const double rel = k.stddev / k.value;
  for (auto& p : fit->parameters)
    p.stddev = std::hypot(p.stddev, p.value * rel);
  FitRecord rec{"detection_threshold", files, *fit, {}};
  const double t = Param(*fit, "threshold").value, sigma = Param(*fit, "noise_sigma").value;
  FitPlot plot{"Detection probability against expected signal",
               "expected signal [nW]",
               "detected / fired",
               {},
               {},
               {},
               {},
               {},
               {}};
  double lo = 1e300, hi = 0;
  for (const auto& s : all) {
    const double p = static_cast<double>(s.detections) / s.trials;
    plot.x.push_back(s.expected_signal);
    plot.y.push_back(p);
    const double pm = physics::DetectionProbability(
        s.expected_signal, t, physics::SignalSpread(sigma, jitter, s.expected_signal));
    plot.err.push_back(std::sqrt(std::max(pm * (1 - pm), 0.25 / s.trials) / s.trials));
    plot.residual.push_back(p - pm);
    lo = std::min(lo, s.expected_signal);
    hi = std::max(hi, s.expected_signal);
  }
  for (double x : Spaced(lo, hi, 200, false)) {
    plot.model_x.push_back(x);
    plot.model_y.push_back(
        physics::DetectionProbability(x, t, physics::SignalSpread(sigma, jitter, x)));
  }
  rec.plots.push_back(std::move(plot));
  c.fits.push_back(std::move(rec));
  DetectorConfig& d = c.profile.detector;
  if (!(sigma <= t / 3)) {
    return Error{lab.dir.string() + "/" + files + ": fitted noise sigma " + std::to_string(sigma) +
                 " nW exceeds a third of the threshold " + std::to_string(t) +
                 " nW; the simulator's detector model does not cover that (configs/README.md)"};
  }
  Update(c, "detector.threshold_nw", d.threshold_w * 1e9, Param(*fit, "threshold"),
         "detection threshold");
  Update(c, "detector.signal_noise_nw", d.signal_noise_w * 1e9, Param(*fit, "noise_sigma"),
         "detection threshold");
  // The walk reference keeps its ratio to the threshold.
  d.walk_reference_power_w *= t * 1e-9 / d.threshold_w;
  d.threshold_w = t * 1e-9;
  d.signal_noise_w = sigma * 1e-9;
  return {};
}

// Lambert plus a lobe, or a retroreflective cone, only where the data support it: the model of
// least Akaike criterion, chi^2 + 2 p with the measurement sigmas (or the residuals' when none
// are given), among those that fit.
Status FitReflectanceCurves(const LabFolder& lab, const CalibrationOptions& o, Calibration& c) {
  for (const auto& r : lab.reflectance_curves) {
    const std::string where = lab.dir.string() + "/" + r.file;
    Expected<FitResult> fit = Error{""};
    if (r.model == "auto") {
      auto lambert = FitReflectance(r.samples, AngularModel::kLambert);
      if (!lambert.ok()) return Error{where + ": " + lambert.message()};
      auto lobe = FitReflectance(r.samples, AngularModel::kLambertSpecular);
      auto cone = FitReflectance(r.samples, AngularModel::kRetroreflective);
      fit = lambert;
      {
        // With every sigma given, chi^2 + 2p; otherwise N ln(RSS / N) + 2p (FitReflectance
        // estimates the sigmas in the same case).
        bool sigmas = !r.samples.empty();
        for (const auto& s : r.samples)
          sigmas = sigmas && s.sigma > 0;
        auto aic = [&](const FitResult& f) {
          double chi2 = -1;
          if (sigmas) {
            chi2 = 0;
            for (const auto& s : r.samples) {
              const double d = (s.intensity - ModelIntensity(f, s.incidence_deg)) / s.sigma;
              chi2 += d * d;
            }
          }
          return AkaikeCriterion(f, chi2);
        };
        double best = aic(*lambert);
        for (const auto* other : {&lobe, &cone}) {
          if (other->ok() && aic(**other) < best) {
            best = aic(**other);
            fit = *other;
          }
        }
      }
    } else {
      fit = FitReflectance(r.samples, *ParseAngularModel(r.model));
      if (!fit.ok()) return Error{where + ": " + fit.message()};
    }
    if (auto s = Judge(*fit, "reflectance (" + fit->model + ")", where, o, c); !s.ok()) return s;
    FitRecord rec{"reflectance", r.file, *fit, {}};
    FitPlot plot{
        "Reflectance of " + r.material + " at " + std::to_string(r.range_m).substr(0, 5) + " m",
        "incidence [deg]",
        "intensity [% of white Lambertian]",
        {},
        {},
        {},
        {},
        {},
        {}};
    for (const auto& s : r.samples) {
      plot.x.push_back(s.incidence_deg);
      plot.y.push_back(s.intensity);
      plot.err.push_back(s.sigma);
      plot.residual.push_back(s.intensity - ModelIntensity(*fit, s.incidence_deg));
    }
    for (double th : Spaced(0, 89, 179, false)) {
      plot.model_x.push_back(th);
      plot.model_y.push_back(ModelIntensity(*fit, th));
    }
    rec.plots.push_back(std::move(plot));
    for (const auto& p : fit->parameters)
      c.materials.push_back({"material." + r.material + "." + p.name, 0, p.value, p.stddev,
                             "reflectance (" + fit->model + ")"});
    c.fits.push_back(std::move(rec));
  }
  return {};
}

Status FitCapabilityCurves(const LabFolder& lab, const CalibrationOptions& o, Calibration& c) {
  if (lab.capability_curves.empty()) return {};
  if (c.profile.detector.kind != DetectorKind::kCapability) {
    return Error{c.profile.source_file +
                 ": the lab has capability measurements but the base "
                 "profile's detector is not `capability`"};
  }
  std::vector<CapabilitySample> all;
  std::string files;
  for (const auto& k : lab.capability_curves) {
    all.insert(all.end(), k.samples.begin(), k.samples.end());
    files += (files.empty() ? "" : ", ") + k.file;
  }
  auto fit = FitCapability(all);
  if (!fit.ok()) return Error{lab.dir.string() + "/" + files + ": " + fit.message()};
  if (auto s = Judge(*fit, "capability", lab.dir.string() + "/" + files, o, c); !s.ok()) return s;
  const double dmax = Param(*fit, "max_range_m").value;
  const double rl = Param(*fit, "reflectance_at_max_range").value;
  FitRecord rec{"capability", files, *fit, {}};
  FitPlot plot{"Capability: farthest detected range against reflectance",
               "reflectance",
               "max range [m]",
               {},
               {},
               {},
               {},
               {},
               {}};
  for (const auto& s : all) {
    plot.x.push_back(s.reflectance);
    plot.y.push_back(s.max_range_m);
    plot.err.push_back(s.sigma_m);
    plot.residual.push_back(s.max_range_m - physics::CapabilityMaxRange(s.reflectance, rl, dmax));
  }
  for (double x : Spaced(0.01, 1, 200, false)) {
    plot.model_x.push_back(x);
    plot.model_y.push_back(physics::CapabilityMaxRange(x, rl, dmax));
  }
  rec.plots.push_back(std::move(plot));
  c.fits.push_back(std::move(rec));
  DetectorConfig& d = c.profile.detector;
  Update(c, "detector.max_range_m", d.max_range_m, Param(*fit, "max_range_m"), "capability");
  Update(c, "detector.reflectance_at_max_range", d.reflectance_at_max_range,
         Param(*fit, "reflectance_at_max_range"), "capability");
  d.max_range_m = dmax;
  d.reflectance_at_max_range = rl;
  return {};
}

// The waveform records (seed 002 sec. 6.1): SiPM recovery, circuit poles and gain, thermal
// noise; the fitted model against each target's mean record about its peak, for the report.
Status FitWaveformSets(const LabFolder& lab, const CalibrationOptions& o, Calibration& c) {
  if (lab.waveform_sets.empty()) return {};
  if (c.profile.detector.kind != DetectorKind::kWaveform) {
    return Error{c.profile.source_file +
                 ": the lab has waveform records but the base profile's detector is not "
                 "`waveform`"};
  }
  auto fit = FitWaveforms(c.profile, lab.waveform_sets);
  if (!fit.ok()) return Error{lab.dir.string() + ": " + fit.message()};
  std::string files;
  for (const auto& s : lab.waveform_sets)
    files += (files.empty() ? "" : ", ") + s.file;
  if (auto s = Judge(*fit, "waveform", lab.dir.string() + " (" + files + ")", o, c); !s.ok())
    return s;
  FitRecord rec{"waveforms", files, *fit, {}};
  const SensorProfile fitted = WithWaveformFit(c.profile, *fit);
  const WaveformConfig& w = fitted.detector.waveform;
  for (const auto& s : lab.waveform_sets) {
    const std::vector<float> model = ModelWaveform(fitted, s.range_m, s.reflectance);
    FitPlot plot{"Waveform: " + s.file + " (" + NumberText(100 * s.reflectance) + " % at " +
                     NumberText(s.range_m) + " m), mean of " + std::to_string(s.records) +
                     " records",
                 "time [ns]",
                 "voltage [V]",
                 {},
                 {},
                 {},
                 {},
                 {},
                 {}};
    // About the target's round trip: from 10 ns before to 60 ns after.
    const double t0 =
        w.pretrigger_samples * w.sample_interval_ns + 2e9 * s.range_m / physics::kSpeedOfLight_m_s;
    for (uint32_t i = 0; i < s.samples; ++i) {
      const double t = i * s.dt_ns;
      if (t < t0 - 10 || t > t0 + 60) continue;
      double mean = 0;
      for (uint32_t r = 0; r < s.records; ++r)
        mean += s.volts[size_t{r} * s.samples + i] / s.records;
      plot.x.push_back(t);
      plot.y.push_back(mean);
      plot.err.push_back(0);
      plot.residual.push_back(mean - model[i]);
      plot.model_x.push_back(t);
      plot.model_y.push_back(model[i]);
    }
    rec.plots.push_back(std::move(plot));
  }
  c.fits.push_back(std::move(rec));
  WaveformConfig& d = c.profile.detector.waveform;
  Update(c, "detector.sipm_recovery_ns", d.sipm_recovery_ns, Param(*fit, "sipm_recovery_ns"),
         "waveforms");
  Update(c, "detector.transimpedance_ohm", d.transimpedance_ohm, Param(*fit, "transimpedance_ohm"),
         "waveforms");
  for (size_t k = 0; k < d.circuit_poles_mhz.size(); ++k) {
    const std::string name = "circuit_poles_mhz[" + std::to_string(k) + "]";
    Update(c, "detector." + name, d.circuit_poles_mhz[k], Param(*fit, name), "waveforms");
  }
  Update(c, "detector.thermal_noise_mv", d.thermal_noise_mv, Param(*fit, "thermal_noise_mv"),
         "waveforms");
  c.materials.push_back(
      {"check.amplitude_mape_percent", 0, Param(*fit, "check.amplitude_mape_percent").value,
       Param(*fit, "check.amplitude_mape_percent").stddev, "waveforms (seed 002 eq. 12)"});
  c.profile = WithWaveformFit(c.profile, *fit);
  return {};
}

}  // namespace

Expected<Calibration> Calibrate(const LabFolder& lab, const SensorProfile& base,
                                const std::string& lab_label, const std::string& date_utc,
                                const CalibrationOptions& options) {
  if (auto s = lab.Validate(); !s.ok()) return s.error();
  Calibration c;
  c.profile = base;
  if (lab.wavelength_nm > 0 && std::abs(lab.wavelength_nm - base.wavelength_nm) > 1) {
    return Error{lab.dir.string() + "/manifest.yaml: wavelength_nm " +
                 std::to_string(lab.wavelength_nm) + " is not the base profile's " +
                 std::to_string(base.wavelength_nm) + " (" + base.source_file + ")"};
  }
  if (lab.beam_kernels.empty() && lab.range_intensity_curves.empty() &&
      lab.threshold_sweeps.empty() && lab.reflectance_curves.empty() &&
      lab.capability_curves.empty() && lab.waveform_sets.empty()) {
    return Error{lab.dir.string() + "/manifest.yaml: no measurements to fit"};
  }
  if (auto s = FitBeam(lab, c); !s.ok()) return s.error();
  if (auto s = CheckCancelled(); !s.ok()) return s.error();
  if (!lab.threshold_sweeps.empty() && lab.range_intensity_curves.empty()) {
    return Error{lab.dir.string() +
                 ": the detection_threshold sweep needs a range_intensity "
                 "measurement (its link constant gives the expected signals)"};
  }
  if (!lab.range_intensity_curves.empty()) {
    if (auto s = NeedThreshold(base, "range-intensity"); !s.ok()) return s.error();
  }
  if (!lab.range_intensity_curves.empty() && lab.threshold_sweeps.empty()) {
    // The fitted link sets the peak power; the data sheet's threshold was stated for the data
    // sheet's power, and kept beside another it would move every detection range.
    return Error{lab.dir.string() +
                 (CountConversionFitted(lab)
                      ? ": the range_intensity measurement in counts sets the signal's scale, "
                        "but the lab has no detection_threshold sweep"
                      : ": the range_intensity measurement sets the peak power, but the lab has "
                        "no detection_threshold sweep") +
                 " to set the threshold beside it (the base profile's " +
                 NumberText(base.detector.threshold_w * 1e9) +
                 " nW belongs to its own peak power); add a detection_threshold sweep: a dark "
                 "target at one range, attenuated in steps through the transition from always "
                 "missed to always detected, the trials and detections counted at each step"};
  }
  if (!lab.range_intensity_curves.empty()) {
    const bool fitted_counts = CountConversionFitted(lab);
    LabFolder in_nw;
    if (fitted_counts)
      if (auto s = FitCountConversion(lab, options, in_nw, c); !s.ok()) return s.error();
    const LabFolder& powers = fitted_counts ? in_nw : lab;
    auto link = FitRangeIntensityCurves(powers, options, fitted_counts, c);
    if (!link.ok()) return link.error();
    auto jitter = FitJitter(powers, options, c);
    if (!jitter.ok()) return jitter.error();
    if (auto s = FitThresholdSweeps(powers, *link, *jitter, options, c); !s.ok()) return s.error();
  }
  // Between the fits, a caller's request to stop (base/cancellation.h) is heeded.
  if (auto s = CheckCancelled(); !s.ok()) return s.error();
  if (auto s = FitReflectanceCurves(lab, options, c); !s.ok()) return s.error();
  if (auto s = FitCapabilityCurves(lab, options, c); !s.ok()) return s.error();
  if (auto s = CheckCancelled(); !s.ok()) return s.error();
  if (auto s = FitWaveformSets(lab, options, c); !s.ok()) return s.error();
  CalibrationRecord& rec = c.profile.calibration;
  rec = {};
  rec.lab = lab_label;
  rec.lab_sha256 = lab.checksum;
  rec.sensor_serial = lab.sensor_serial;
  rec.date_utc = date_utc;
  for (const auto* list : {&c.updates, &c.materials})
    for (const auto& u : *list)
      rec.parameters.push_back({u.key, u.after, u.stddev, u.fit});
  return c;
}

}  // namespace lt::calib
