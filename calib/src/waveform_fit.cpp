#include "lidartwin/calib/waveform_fit.h"

#include <ceres/ceres.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "least_squares.h"
#include "lidartwin/calib/goodness_of_fit.h"

#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/photon_counting.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/sim/waveform_records.h"

namespace lt::calib {

namespace {

// Where a set's features are summed (sample indices), fixed per set from its mean record.
struct FeatureWindows {
  uint32_t target_peak = 0;                   // the target's highest sample
  uint32_t target_begin = 0, target_end = 0;  // its area window [begin, end)
  uint32_t internal_peak = 0;                 // the internal reflection's highest sample
};

// The features of one record (see waveform_fit.h), from its pretrigger baseline.
struct Features {
  double core = 0, area = 0, internal = 0;
};

double Baseline(const float* v, uint32_t pretrigger) {
  double s = 0;
  for (uint32_t i = 0; i < pretrigger; ++i)
    s += v[i];
  return s / pretrigger;
}

Features FeaturesOf(const float* v, const FeatureWindows& w, uint32_t pretrigger, double dt_s) {
  const double b = Baseline(v, pretrigger);
  Features f;
  for (uint32_t i = w.target_peak - 1; i <= w.target_peak + 1; ++i)
    f.core += v[i] - b;
  for (uint32_t i = w.target_begin; i < w.target_end; ++i)
    f.area += (v[i] - b) * dt_s;
  for (uint32_t i = w.internal_peak - 1; i <= w.internal_peak + 1; ++i)
    f.internal += v[i] - b;
  return f;
}

// The windows of a target at range r in records of `profile`: the internal reflection's peak
// in its window, the target's peak within +-3 pulse widths of its round trip (plus 30 ns of
// the circuit's delay), the area from 3 pulse widths before to 60 ns after.
FeatureWindows WindowsOf(const std::vector<float>& mean, const SensorProfile& p, double range_m) {
  const WaveformConfig& wc = p.detector.waveform;
  const double dt = wc.sample_interval_ns;
  const double t_e = 1e9 * physics::EmissionTime(WaveformConstants(p));  // [ns]
  const auto index = [&](double t_ns) {
    return static_cast<uint32_t>(std::clamp(t_ns / dt, 1.0, wc.samples - 2.0));
  };
  auto argmax = [&](uint32_t a, uint32_t b) {
    uint32_t best = a;
    for (uint32_t i = a; i < b; ++i)
      if (mean[i] > mean[best]) best = i;
    return std::clamp(best, 1u, wc.samples - 2);
  };
  const double round_trip = 2e9 * range_m / physics::kSpeedOfLight_m_s;
  const double width = 3 * p.detector.pulse_width_ns;
  FeatureWindows w;
  w.internal_peak =
      argmax(index(t_e), index(t_e + wc.internal_reflection_delay_ns + wc.internal_window_ns));
  w.target_begin = index(t_e + round_trip - width);
  w.target_end = index(t_e + round_trip + 60);
  w.target_peak = argmax(index(t_e + round_trip - width), index(t_e + round_trip + width + 30));
  return w;
}

// One set prepared for the fit: its windows, the features' means over the records, the
// Cholesky factor L of their covariance (C = L L^T, from the records' spread: C = S / R) with
// which the residuals are whitened, and its overall mean record's peak amplitude. The three
// features share samples (the core lies inside the area) and are strongly correlated; weighed
// as independent they counted the same noise twice: over 150 virtual labs the fit's standard
// deviations covered the recovery time 87 % of the time within 2 sigma and the pole 100 %
// (91 % and 93 % whitened; docs/calibration.md).
struct PreparedSet {
  const WaveformSet* set;
  FeatureWindows windows;
  Features mean;
  double chol[3][3] = {};  // lower triangular
  double peak_amplitude = 0;
};

// r = L^-1 d: the whitened residuals of the feature differences d (forward substitution).
void Whiten(const PreparedSet& p, const double d[3], double r[3]) {
  r[0] = d[0] / p.chol[0][0];
  r[1] = (d[1] - p.chol[1][0] * r[0]) / p.chol[1][1];
  r[2] = (d[2] - p.chol[2][0] * r[0] - p.chol[2][1] * r[1]) / p.chol[2][2];
}

Expected<PreparedSet> Prepare(const WaveformSet& s, const SensorProfile& base) {
  const uint32_t n = s.samples, pre = base.detector.waveform.pretrigger_samples;
  std::vector<float> mean(n, 0.0f);
  for (uint32_t r = 0; r < s.records; ++r) {
    const float* v = &s.volts[size_t{r} * n];
    for (uint32_t i = 0; i < n; ++i)
      mean[i] += v[i] / s.records;
  }
  PreparedSet p{&s, WindowsOf(mean, base, s.range_m), {}};
  const double dt = s.dt_ns * 1e-9;
  std::vector<std::array<double, 3>> f(s.records);
  std::array<double, 3> m{};
  for (uint32_t r = 0; r < s.records; ++r) {
    const Features x = FeaturesOf(&s.volts[size_t{r} * n], p.windows, pre, dt);
    f[r] = {x.core, x.area, x.internal};
    for (int a = 0; a < 3; ++a)
      m[a] += f[r][a] / s.records;
  }
  p.mean = {m[0], m[1], m[2]};
  // The covariance of the means, C = S / R (S the records' sample covariance), and its
  // Cholesky factor.
  double c[3][3] = {};
  for (const auto& x : f)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b <= a; ++b)
        c[a][b] += (x[a] - m[a]) * (x[b] - m[b]) / (double(s.records - 1) * s.records);
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b <= a; ++b) {
      double v = c[a][b];
      for (int k = 0; k < b; ++k)
        v -= p.chol[a][k] * p.chol[b][k];
      if (a == b) {
        // A feature that does not vary, or one the others determine: no noise to weigh by.
        // (The features come from float records: a pivot below 1e-8 of the variance is
        // rounding, and whitening by it would amplify the residuals ten thousandfold.)
        if (!(v > 1e-8 * c[a][a]) || !(c[a][a] > 0)) {
          return Error{s.file +
                       ": the records do not vary (no noise): the features' covariance is "
                       "singular"};
        }
        p.chol[a][a] = std::sqrt(v);
      } else {
        p.chol[a][b] = v / p.chol[b][b];
      }
    }
  }
  p.peak_amplitude = mean[p.windows.target_peak] - Baseline(mean.data(), pre);
  return p;
}

// The parameter vector: recovery [ns], transimpedance [ohm], the poles [MHz].
SensorProfile WithParameters(const SensorProfile& base, const double* q) {
  SensorProfile p = base;
  WaveformConfig& w = p.detector.waveform;
  w.sipm_recovery_ns = q[0];
  w.transimpedance_ohm = q[1];
  for (size_t k = 0; k < w.circuit_poles_mhz.size(); ++k)
    w.circuit_poles_mhz[k] = q[2 + k];
  return p;
}

struct FeatureResidual {
  const SensorProfile* base;
  const PreparedSet* set;
  bool operator()(double const* const* q, double* residual) const {
    if (!(q[0][0] > 0 && q[0][1] > 0)) return false;
    for (size_t k = 0; k < base->detector.waveform.circuit_poles_mhz.size(); ++k)
      if (!(q[0][2 + k] > 0)) return false;
    const SensorProfile p = WithParameters(*base, q[0]);
    const std::vector<float> model = ModelWaveform(p, set->set->range_m, set->set->reflectance);
    const Features f =
        FeaturesOf(model.data(), set->windows, p.detector.waveform.pretrigger_samples,
                   p.detector.waveform.sample_interval_ns * 1e-9);
    const double d[3] = {f.core - set->mean.core, f.area - set->mean.area,
                         f.internal - set->mean.internal};
    Whiten(*set, d, residual);
    return true;
  }
};

// Eq. (12): the model's peak amplitudes (y) against the measured mean records' (x), over the
// sets; its standard error from the spread of the sets' terms.
struct AmplitudeMape {
  double value = 0, error = 0;
};
AmplitudeMape MapeOf(const SensorProfile& model, const std::vector<PreparedSet>& sets) {
  const uint32_t pre = model.detector.waveform.pretrigger_samples;
  std::vector<double> terms;
  for (const PreparedSet& s : sets) {
    const std::vector<float> v = ModelWaveform(model, s.set->range_m, s.set->reflectance);
    const double y = v[s.windows.target_peak] - Baseline(v.data(), pre);
    terms.push_back(std::abs((y - s.peak_amplitude) / y));
  }
  AmplitudeMape m;
  for (double t : terms)
    m.value += t / terms.size();
  double spread = 0;
  for (double t : terms)
    spread += (t - m.value) * (t - m.value);
  if (terms.size() > 1) m.error = std::sqrt(spread / (terms.size() - 1) / terms.size());
  return m;
}

}  // namespace

Expected<double> WaveformAmplitudeMape(const SensorProfile& model,
                                       const std::vector<WaveformSet>& sets) {
  std::vector<PreparedSet> prepared;
  for (const WaveformSet& s : sets) {
    if (s.samples != model.detector.waveform.samples || s.records < kWaveformGroups) {
      return Error{s.file + ": records do not match the profile's, or fewer than " +
                   std::to_string(kWaveformGroups)};
    }
    auto p = Prepare(s, model);
    if (!p.ok()) return p.error();
    prepared.push_back(*p);
  }
  if (prepared.empty()) return Error{"amplitude MAPE: no waveform sets"};
  return MapeOf(model, prepared).value;
}

namespace {

// Records of a Lambertian plate of `reflectance` filling the footprint at normal incidence at
// range_m: one contribution from the link budget (seed 002 eq. 2) and the overlap.
std::vector<float> PlateRecords(const SensorProfile& profile, double range_m, double reflectance,
                                uint32_t records, uint64_t seed, bool noise_free) {
  const double power =
      physics::ReceivedPower(profile.detector.link, reflectance / physics::kPi, 1.0, range_m) *
      physics::OverlapShare(profile.detector.overlap, range_m);
  return WaveformRecords(profile,
                         {{static_cast<float>(range_m), static_cast<float>(power), 0, 0.0f}}, 0,
                         records, seed, noise_free);
}

}  // namespace

std::vector<float> ModelWaveform(const SensorProfile& profile, double range_m, double reflectance) {
  return PlateRecords(profile, range_m, reflectance, 1, 0, true);
}

std::vector<float> MeasuredWaveforms(const SensorProfile& profile, double range_m,
                                     double reflectance, uint32_t records, uint64_t seed) {
  return PlateRecords(profile, range_m, reflectance, records, seed, false);
}

Expected<FitResult> FitWaveforms(const SensorProfile& base, const std::vector<WaveformSet>& sets) {
  if (base.detector.kind != DetectorKind::kWaveform) {
    return Error{base.source_file + ": the base profile's detector is not `waveform`"};
  }
  if (!base.detector.waveform.circuit_response.frequency_mhz.empty()) {
    return Error{base.source_file +
                 ": detector.circuit_response: the waveform fit adjusts the pole-zero circuit "
                 "(transimpedance_ohm, circuit_poles_mhz); a measured response is not fitted"};
  }
  const WaveformConfig& wc = base.detector.waveform;
  std::vector<PreparedSet> prepared;
  for (const WaveformSet& s : sets) {
    if (std::abs(s.dt_ns - wc.sample_interval_ns) > 1e-6 * wc.sample_interval_ns ||
        s.samples != wc.samples) {
      return Error{s.file + ": records of " + std::to_string(s.samples) + " samples at " +
                   NumberText(s.dt_ns) + " ns; the base profile records " +
                   std::to_string(wc.samples) + " at " + NumberText(wc.sample_interval_ns) + " ns"};
    }
    // The target's echo and the circuit's tail after it must lie inside the record.
    const double t_ns = wc.pretrigger_samples * wc.sample_interval_ns +
                        2e9 * s.range_m / physics::kSpeedOfLight_m_s + 60;
    if (t_ns > s.samples * s.dt_ns) {
      return Error{s.file + ": a target at " + NumberText(s.range_m) + " m echoes after the " +
                   NumberText(s.samples * s.dt_ns) + " ns record ends"};
    }
    if (s.records < 2 * kWaveformGroups) {
      return Error{s.file + ": " + std::to_string(s.records) + " records; at least " +
                   std::to_string(2 * kWaveformGroups) + " are needed"};
    }
    auto p = Prepare(s, base);
    if (!p.ok()) return p.error();
    prepared.push_back(*p);
  }
  const size_t poles = wc.circuit_poles_mhz.size();
  if (prepared.size() * 3 < 2 + poles + 2) {
    return Error{"waveform fit: " + std::to_string(prepared.size()) +
                 " targets; at least two at different distances are needed"};
  }
  FitResult out;
  out.model = "waveform";
  out.points_used = prepared.size() * 3;
  std::vector<double> q = {wc.sipm_recovery_ns, wc.transimpedance_ohm};
  for (double f : wc.circuit_poles_mhz)
    q.push_back(f);
  ceres::Problem problem;
  ceres::NumericDiffOptions diff;
  diff.relative_step_size = 1e-3;  // the chain is float: 1e-7 relative noise per evaluation
  for (const PreparedSet& s : prepared) {
    auto* cost = new ceres::DynamicNumericDiffCostFunction<FeatureResidual, ceres::CENTRAL>(
        new FeatureResidual{&base, &s}, ceres::TAKE_OWNERSHIP, diff);
    cost->AddParameterBlock(static_cast<int>(q.size()));
    cost->SetNumResiduals(3);
    problem.AddResidualBlock(cost, nullptr, q.data());
  }
  for (size_t k = 0; k < q.size(); ++k)
    problem.SetParameterLowerBound(q.data(), static_cast<int>(k), 1e-3 * q[k]);
  if (!SolveFit(problem, out)) {
    return Error{"waveform fit did not converge: " + out.solver_report};
  }
  std::vector<double> cov(q.size() * q.size());
  if (!BlockCovariance(problem, q.data(), cov.data())) {
    return Error{
        "waveform fit: the covariance is rank-deficient (targets that saturate the SiPM are "
        "needed for its recovery time; several distances for the poles)"};
  }
  double chi2 = 0;
  std::vector<double> z;
  for (const PreparedSet& s : prepared) {
    double r[3];
    const double* block = q.data();
    FeatureResidual{&base, &s}(&block, r);
    chi2 += r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    z.insert(z.end(), r, r + 3);
  }
  // Whitened residuals: each a standard normal where the chain fits (the features' covariance
  // from the records' spread).
  SetGoodnessOfFit(out, z, q.size(), [&](size_t i) {
    static const char* kFeature[3] = {"peak core", "area", "internal reflection"};
    return prepared[i / 3].set->file + "'s " + kFeature[i % 3] + " (whitened)";
  });
  out.residual_rms = std::sqrt(chi2 / out.points_used);
  // The features' residuals are in standard errors: a chain that fits leaves about 1. Far
  // beyond, the records are not what the manifest says (range, reflectance) or not this
  // sensor's, and the fitted values would mean nothing.
  if (out.residual_rms > 5) {
    return Error{"waveform fit: the chain does not fit the records (residuals of " +
                 NumberText(out.residual_rms) +
                 " standard errors rms; check each target's range_m and reflectance)"};
  }
  out.parameters.push_back({"sipm_recovery_ns", q[0], std::sqrt(cov[0])});
  out.parameters.push_back({"transimpedance_ohm", q[1], std::sqrt(cov[q.size() + 1])});
  for (size_t k = 0; k < poles; ++k) {
    out.parameters.push_back({"circuit_poles_mhz[" + std::to_string(k) + "]", q[2 + k],
                              std::sqrt(cov[(2 + k) * q.size() + 2 + k])});
  }
  out.covariance = cov;
  const SensorProfile fitted = WithParameters(base, q.data());
  // Thermal noise: each record's pretrigger variance, less the dark counts' shot noise
  // through the fitted circuit (Parseval); its standard error from the records' spread.
  const double dt = wc.sample_interval_ns * 1e-9;
  const double amps = wc.sipm_gain * physics::kElementaryCharge_C / dt;
  const double dark_photons = wc.dark_count_rate_khz * 1e3 * dt;
  const double dark_var = amps * amps * dark_photons * CircuitNoiseGain(fitted);
  double sum = 0, sum2 = 0;
  size_t records = 0;
  for (const WaveformSet& s : sets) {
    for (uint32_t r = 0; r < s.records; ++r) {
      const float* v = &s.volts[size_t{r} * s.samples];
      const double b = Baseline(v, wc.pretrigger_samples);
      double var = 0;
      for (uint32_t i = 0; i < wc.pretrigger_samples; ++i)
        var += (v[i] - b) * (v[i] - b);
      var /= wc.pretrigger_samples - 1;
      sum += var;
      sum2 += var * var;
      ++records;
    }
  }
  const double mean_var = sum / records;
  const double se_var = std::sqrt((sum2 / records - mean_var * mean_var) / (records - 1));
  const double thermal_var = std::max(0.0, mean_var - dark_var);
  const double thermal = std::sqrt(thermal_var);
  out.parameters.push_back({"thermal_noise_mv", 1e3 * thermal,
                            thermal > 0 ? 1e3 * se_var / (2 * thermal) : 1e3 * std::sqrt(se_var)});
  const AmplitudeMape mape = MapeOf(fitted, prepared);
  out.parameters.push_back({"check.amplitude_mape_percent", 100 * mape.value, 100 * mape.error});
  return out;
}

SensorProfile WithWaveformFit(const SensorProfile& base, const FitResult& fit) {
  SensorProfile p = base;
  WaveformConfig& w = p.detector.waveform;
  if (const auto* f = fit.Find("sipm_recovery_ns")) w.sipm_recovery_ns = f->value;
  if (const auto* f = fit.Find("transimpedance_ohm")) w.transimpedance_ohm = f->value;
  if (const auto* f = fit.Find("thermal_noise_mv")) w.thermal_noise_mv = f->value;
  for (size_t k = 0; k < w.circuit_poles_mhz.size(); ++k)
    if (const auto* f = fit.Find("circuit_poles_mhz[" + std::to_string(k) + "]"))
      w.circuit_poles_mhz[k] = f->value;
  return p;
}

}  // namespace lt::calib
