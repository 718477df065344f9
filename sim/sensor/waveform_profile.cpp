#include "sensor/waveform_profile.h"

#include <cmath>
#include <string>

#include "internal/waveform_setup.h"
#include "lidartwin/physics/circuit.h"
#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/waveform.h"
#include "sensor/solar_band.h"

namespace lt {

namespace {

// How much of a measured response's peak may show in the record's last quarter
// (CheckResponseRecord): 2 %, a twentieth of what sampling the Cube 1's analog circuit at
// its bins rang ahead of a pulse (circuit.h).
constexpr double kMostResponseTail = 0.02;

// A whole number read as a count.
uint32_t Count(ConfigMap& d, const char* key, uint32_t fallback) {
  const double v = d.Number(key, fallback);
  if (!(v >= 0 && v <= 4294967295.0 && v == std::floor(v))) {
    d.Fail(key, "must be a whole number >= 0, got " + NumberText(v));
    return fallback;
  }
  return static_cast<uint32_t>(v);
}

// Checks lo <= v <= hi (in the key's unit).
void InRange(ConfigCheck& d, const char* key, double v, double lo, double hi, const char* unit) {
  if (!(v >= lo && v <= hi)) {
    d.Fail(key, "must be in [" + NumberText(lo) + ", " + NumberText(hi) + "]" + unit + ", got " +
                    NumberText(v));
  }
}

void CheckCorners(ConfigCheck& d, const char* key, const std::vector<double>& mhz) {
  if (mhz.size() > physics::kMaxCircuitCorners) {
    d.Fail(key, "lists " + std::to_string(mhz.size()) + " corner frequencies, at most " +
                    std::to_string(physics::kMaxCircuitCorners));
  }
  for (double f : mhz)
    if (!(f >= 1e-3 && f <= 1e6)) {
      d.Fail(key, "corner frequencies must be in [0.001, 1e6] MHz, got " + NumberText(f));
      break;
    }
}

// The pole-zero circuit's keys (circuit.h): the step-invariant response needs a strictly
// proper H with distinct poles.
void CheckPoleZeroCircuit(ConfigCheck& d, const WaveformConfig& w) {
  InRange(d, "transimpedance_ohm", w.transimpedance_ohm, 1e-3, 1e9, " ohm");
  CheckCorners(d, "circuit_poles_mhz", w.circuit_poles_mhz);
  CheckCorners(d, "circuit_zeros_mhz", w.circuit_zeros_mhz);
  const size_t poles = w.circuit_poles_mhz.size() + (w.sipm_pulse_ns > 0 ? 1 : 0);
  if (d.ok() && w.circuit_zeros_mhz.size() >= poles) {
    d.Fail("circuit_zeros_mhz", std::to_string(w.circuit_zeros_mhz.size()) +
                                    " zeros; the circuit needs fewer zeros than poles (" +
                                    std::to_string(poles) + ", the SiPM pulse's included)");
  }
  std::vector<double> corners = w.circuit_poles_mhz;
  if (w.sipm_pulse_ns > 0) corners.push_back(1e3 / (2 * physics::kPi * w.sipm_pulse_ns));
  for (size_t a = 0; a < corners.size() && d.ok(); ++a)
    for (size_t b = a + 1; b < corners.size(); ++b)
      if (std::abs(corners[a] - corners[b]) <= 1e-6 * corners[a]) {
        d.Fail("circuit_poles_mhz", "poles must differ (" + NumberText(corners[a]) +
                                        " MHz twice, the SiPM pulse's 1 / (2 pi sipm_pulse_ns) "
                                        "counted)");
        break;
      }
}

// A measured response's rows: one length, 2..4096 rows, frequencies rising from 0, gains in
// [0, 1e9] ohm with a positive DC gain, phases finite and 0 at DC (a real DC gain).
void CheckResponseRows(ConfigCheck& d, const WaveformConfig::ResponseRows& r) {
  const size_t n = r.frequency_mhz.size();
  if (r.gain_ohm.size() != n || r.phase_deg.size() != n) {
    d.Fail("circuit_response", "frequency_mhz, gain_ohm and phase_deg must have one length, got " +
                                   std::to_string(n) + ", " + std::to_string(r.gain_ohm.size()) +
                                   " and " + std::to_string(r.phase_deg.size()));
    return;
  }
  if (n < 2 || n > 4096) {
    d.Fail("circuit_response.frequency_mhz", "needs 2..4096 rows, got " + std::to_string(n));
    return;
  }
  if (r.frequency_mhz[0] != 0) {
    d.Fail("circuit_response.frequency_mhz",
           "must start at 0 (the DC gain), got " + NumberText(r.frequency_mhz[0]));
  }
  for (size_t k = 1; k < n; ++k)
    if (!(r.frequency_mhz[k] > r.frequency_mhz[k - 1] && r.frequency_mhz[k] <= 1e7)) {
      d.Fail("circuit_response.frequency_mhz",
             "must rise strictly and stay below 1e7 MHz: row " + std::to_string(k) + " has " +
                 NumberText(r.frequency_mhz[k]) + " after " + NumberText(r.frequency_mhz[k - 1]));
      break;
    }
  for (size_t k = 0; k < n; ++k)
    if (!(r.gain_ohm[k] >= 0 && r.gain_ohm[k] <= 1e9) || !(std::abs(r.phase_deg[k]) <= 1e6)) {
      d.Fail("circuit_response", "row " + std::to_string(k) +
                                     ": gain_ohm must be in [0, 1e9] and " +
                                     "phase_deg finite, got " + NumberText(r.gain_ohm[k]) +
                                     " ohm, " + NumberText(r.phase_deg[k]) + " deg");
      break;
    }
  if (!(r.gain_ohm[0] > 0) || r.phase_deg[0] != 0) {
    d.Fail("circuit_response", "the DC row must have a positive gain and phase 0, got " +
                                   NumberText(r.gain_ohm[0]) + " ohm, " +
                                   NumberText(r.phase_deg[0]) + " deg");
  }
}

}  // namespace

void ReadWaveformKeys(ConfigMap& d, WaveformConfig& w) {
  w.sample_interval_ns = d.Number("sample_interval_ns", w.sample_interval_ns);
  w.samples = Count(d, "samples", w.samples);
  w.pretrigger_samples = Count(d, "pretrigger_samples", w.pretrigger_samples);
  w.internal_reflection_delay_ns =
      d.Number("internal_reflection_delay_ns", w.internal_reflection_delay_ns);
  w.internal_reflection_nw = d.Number("internal_reflection_nw");
  w.optical_bandwidth_nm = d.Number("optical_bandwidth_nm", w.optical_bandwidth_nm);
  w.receiver_fov_mrad = d.Number("receiver_fov_mrad", w.receiver_fov_mrad);
  w.photon_detection_efficiency =
      d.Number("photon_detection_efficiency", w.photon_detection_efficiency);
  w.dark_count_rate_khz = d.Number("dark_count_rate_khz", w.dark_count_rate_khz);
  w.sipm_cells = d.Number("sipm_cells", w.sipm_cells);
  w.sipm_recovery_ns = d.Number("sipm_recovery_ns", w.sipm_recovery_ns);
  w.sipm_gain = d.Number("sipm_gain", w.sipm_gain);
  w.sipm_pulse_ns = d.Number("sipm_pulse_ns", w.sipm_pulse_ns);
  if (d.Has("circuit_response")) {
    // A measured table replaces the pole-zero circuit: both at once would leave one unused.
    for (const char* key : {"transimpedance_ohm", "circuit_poles_mhz", "circuit_zeros_mhz"})
      if (d.Has(key)) d.Fail(key, "is replaced by circuit_response: give one or the other");
    ConfigMap table = d.Map("circuit_response");
    w.circuit_response.frequency_mhz = table.Numbers("frequency_mhz");
    w.circuit_response.gain_ohm = table.Numbers("gain_ohm");
    w.circuit_response.phase_deg = table.Numbers("phase_deg");
  }
  w.transimpedance_ohm = d.Number("transimpedance_ohm", w.transimpedance_ohm);
  if (d.Has("circuit_poles_mhz")) w.circuit_poles_mhz = d.Numbers("circuit_poles_mhz");
  if (d.Has("circuit_zeros_mhz")) w.circuit_zeros_mhz = d.Numbers("circuit_zeros_mhz");
  w.baseline_mv = d.Number("baseline_mv", w.baseline_mv);
  w.thermal_noise_mv = d.Number("thermal_noise_mv", w.thermal_noise_mv);
  w.shot_noise = d.Bool("shot_noise", w.shot_noise);
  w.threshold_mv = d.Number("threshold_mv", w.threshold_mv);
  w.noise_threshold_factor = d.Number("noise_threshold_factor", w.noise_threshold_factor);
  w.internal_window_ns = d.Number("internal_window_ns", w.internal_window_ns);
  w.full_scale_mv = d.Number("full_scale_mv", w.full_scale_mv);
  w.intensity_max = d.Number("intensity_max", w.intensity_max);
}

void WriteWaveformKeys(YAML::Emitter& e, const WaveformConfig& w) {
  auto put = [&](const char* key, double v) { e << YAML::Key << key << YAML::Value << v; };
  auto list = [&](const char* key, const std::vector<double>& v) {
    e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (double x : v)
      e << x;
    e << YAML::EndSeq;
  };
  put("sample_interval_ns", w.sample_interval_ns);
  e << YAML::Key << "samples" << YAML::Value << w.samples;
  e << YAML::Key << "pretrigger_samples" << YAML::Value << w.pretrigger_samples;
  put("internal_reflection_delay_ns", w.internal_reflection_delay_ns);
  put("internal_reflection_nw", w.internal_reflection_nw);
  put("optical_bandwidth_nm", w.optical_bandwidth_nm);
  put("receiver_fov_mrad", w.receiver_fov_mrad);
  put("photon_detection_efficiency", w.photon_detection_efficiency);
  put("dark_count_rate_khz", w.dark_count_rate_khz);
  put("sipm_cells", w.sipm_cells);
  put("sipm_recovery_ns", w.sipm_recovery_ns);
  put("sipm_gain", w.sipm_gain);
  put("sipm_pulse_ns", w.sipm_pulse_ns);
  if (w.circuit_response.frequency_mhz.empty()) {
    put("transimpedance_ohm", w.transimpedance_ohm);
    list("circuit_poles_mhz", w.circuit_poles_mhz);
    list("circuit_zeros_mhz", w.circuit_zeros_mhz);
  } else {
    e << YAML::Key << "circuit_response" << YAML::Value << YAML::BeginMap;
    list("frequency_mhz", w.circuit_response.frequency_mhz);
    list("gain_ohm", w.circuit_response.gain_ohm);
    list("phase_deg", w.circuit_response.phase_deg);
    e << YAML::EndMap;
  }
  put("baseline_mv", w.baseline_mv);
  put("thermal_noise_mv", w.thermal_noise_mv);
  e << YAML::Key << "shot_noise" << YAML::Value << w.shot_noise;
  put("threshold_mv", w.threshold_mv);
  put("noise_threshold_factor", w.noise_threshold_factor);
  put("internal_window_ns", w.internal_window_ns);
  put("full_scale_mv", w.full_scale_mv);
  put("intensity_max", w.intensity_max);
}

void CheckWaveformKeys(const WaveformConfig& w, ConfigCheck& d) {
  InRange(d, "sample_interval_ns", w.sample_interval_ns, 0.01, 100, " ns");
  if (!physics::IsPowerOfTwo(w.samples) || w.samples < physics::kMinWaveformSamples ||
      w.samples > physics::kMaxWaveformSamples) {
    d.Fail("samples", "must be a power of two in " + std::to_string(physics::kMinWaveformSamples) +
                          ".." + std::to_string(physics::kMaxWaveformSamples) + ", got " +
                          std::to_string(w.samples));
  }
  if (!(w.pretrigger_samples >= 8 && w.pretrigger_samples <= w.samples / 4)) {
    d.Fail("pretrigger_samples", "must be in 8..samples / 4 (" + std::to_string(w.samples / 4) +
                                     "), got " + std::to_string(w.pretrigger_samples));
  }
  InRange(d, "internal_reflection_delay_ns", w.internal_reflection_delay_ns, 0, 1000, " ns");
  if (!(w.internal_reflection_nw > 0 && w.internal_reflection_nw < 1e12)) {
    d.Fail("internal_reflection_nw",
           "must be positive and below 1e12 nW (ranges are measured from the internal "
           "reflection), got " +
               NumberText(w.internal_reflection_nw));
  }
  InRange(d, "optical_bandwidth_nm", w.optical_bandwidth_nm, 0.1, 200, " nm");
  InRange(d, "receiver_fov_mrad", w.receiver_fov_mrad, 0.01, 1000, " mrad");
  if (!(w.photon_detection_efficiency > 0 && w.photon_detection_efficiency <= 1)) {
    d.Fail("photon_detection_efficiency",
           "must be a fraction in (0, 1], got " + NumberText(w.photon_detection_efficiency));
  }
  InRange(d, "dark_count_rate_khz", w.dark_count_rate_khz, 0, 1e6, " kHz");
  if (!(w.sipm_cells >= 0 && w.sipm_cells <= 1e7 && w.sipm_cells == std::floor(w.sipm_cells))) {
    d.Fail("sipm_cells",
           "must be a whole number in 0..1e7 (0: no saturation), got " + NumberText(w.sipm_cells));
  }
  InRange(d, "sipm_recovery_ns", w.sipm_recovery_ns, 0.01, 1e6, " ns");
  InRange(d, "sipm_gain", w.sipm_gain, 1, 1e9, "");
  // 0: no SiPM pulse pole. A pulse shorter than a picosecond puts the pole beyond any
  // sampling rate (1e-308 ns made an internal check abort the run, issue 36).
  if (w.sipm_pulse_ns != 0)
    InRange(d, "sipm_pulse_ns", w.sipm_pulse_ns, 1e-3, 1e4, " ns (or 0: none)");
  if (!w.circuit_response.frequency_mhz.empty()) {
    CheckResponseRows(d, w.circuit_response);
  } else {
    CheckPoleZeroCircuit(d, w);
  }
  InRange(d, "baseline_mv", w.baseline_mv, -1e5, 1e5, " mV");
  InRange(d, "thermal_noise_mv", w.thermal_noise_mv, 0, 1e5, " mV");
  if (!(w.threshold_mv > 0 && w.threshold_mv <= 1e5)) {
    d.Fail("threshold_mv", "must be in (0, 1e5] mV, got " + NumberText(w.threshold_mv));
  }
  InRange(d, "noise_threshold_factor", w.noise_threshold_factor, 0, 100, "");
  InRange(d, "internal_window_ns", w.internal_window_ns, 0, 1e4, " ns");
  if (!(w.full_scale_mv > 0 && w.full_scale_mv <= 1e6)) {
    d.Fail("full_scale_mv", "must be in (0, 1e6] mV, got " + NumberText(w.full_scale_mv));
  }
  if (!(w.intensity_max >= 1 && w.intensity_max <= 1e9 &&
        w.intensity_max == std::floor(w.intensity_max))) {
    d.Fail("intensity_max", "must be a whole number in 1..1e9, got " + NumberText(w.intensity_max));
  }
}

namespace {

// A measured response against the record: rows up to Nyquist, and an impulse response that
// neither rings ahead of itself (frequency sampling wraps it to the record's end, where a
// strong return would throw false echoes ahead of itself) nor outlasts the record.
void CheckResponseRecord(const SensorProfile& p, ConfigCheck& d) {
  const WaveformConfig& w = p.detector.waveform;
  const double nyquist_mhz = 500 / w.sample_interval_ns;
  if (w.circuit_response.frequency_mhz.back() < nyquist_mhz) {
    d.Fail("circuit_response.frequency_mhz",
           "ends at " + NumberText(w.circuit_response.frequency_mhz.back()) +
               " MHz, short of the Nyquist frequency " + NumberText(nyquist_mhz) +
               " MHz of sample_interval_ns " + NumberText(w.sample_interval_ns) + " ns");
    return;
  }
  const WaveformTables t = MakeWaveformTables(p);
  const double ratio = physics::ResponseTailRatio(t.transfer.data(), w.samples, t.twiddles.data());
  if (ratio > kMostResponseTail) {
    d.Fail("circuit_response",
           "its impulse response reaches " + NumberText(100 * ratio) +
               " % of its peak in the record's last quarter (at most " +
               NumberText(100 * kMostResponseTail) +
               " %): it rings ahead of its pulse or outlasts the record; measure it with the "
               "digitiser's anti-alias filter, or use more samples");
  }
}

}  // namespace

void CheckWaveformRecord(const SensorProfile& p, ConfigCheck& d) {
  const WaveformConfig& w = p.detector.waveform;
  const double lo = p.wavelength_nm - w.optical_bandwidth_nm / 2;
  const double hi = p.wavelength_nm + w.optical_bandwidth_nm / 2;
  if (!(lo >= kSolarTableFirstNm && hi <= kSolarTableLastNm)) {
    d.Fail("optical_bandwidth_nm", "the band " + NumberText(lo) + ".." + NumberText(hi) +
                                       " nm around wavelength_nm must lie within the solar "
                                       "table's " +
                                       NumberText(kSolarTableFirstNm) + ".." +
                                       NumberText(kSolarTableLastNm) + " nm (ASTM G173)");
  }
  // Samples no coarser than the pulse's sigma: coarser ones miss pulses between them.
  const double sigma = p.detector.pulse_width_ns / physics::kFwhmPerSigma;
  if (w.sample_interval_ns > sigma * (1 + 1e-12)) {
    d.Fail("sample_interval_ns", NumberText(w.sample_interval_ns) +
                                     " ns is coarser than the pulse's sigma (pulse_width_ns / "
                                     "2.355 = " +
                                     NumberText(sigma) + " ns): pulses would fall between samples");
    return;
  }
  // The internal reflection's window must end before min_range_m: targets inside it are
  // never sought.
  const double window_m =
      0.5e-9 * physics::kSpeedOfLight_m_s * (w.internal_reflection_delay_ns + w.internal_window_ns);
  if (window_m > p.min_range_m) {
    d.Fail("internal_window_ns", "the internal reflection's window reaches " +
                                     NumberText(window_m) + " m, beyond min_range_m " +
                                     NumberText(p.min_range_m) +
                                     " m: nearer targets would be missed without a word");
    return;
  }
  if (!w.circuit_response.frequency_mhz.empty()) {
    CheckResponseRecord(p, d);
    return;
  }
  // The circuit's slowest time constant well inside the record: the DFT wraps its tail.
  for (double f : w.circuit_poles_mhz) {
    const double tau_ns = 1e3 / (2 * physics::kPi * f);
    if (tau_ns * 16 > w.samples * w.sample_interval_ns) {
      d.Fail("circuit_poles_mhz", NumberText(f) + " MHz decays over " + NumberText(tau_ns) +
                                      " ns, more than a sixteenth of the " +
                                      NumberText(w.samples * w.sample_interval_ns) +
                                      " ns record (the transform wraps its tail round)");
      return;
    }
  }
  // The last target peak must lie inside the record, a pulse's reach before its end.
  const double end_ns = 1e9 * (physics::EmissionTime(MakeWaveformChain(p, nullptr, nullptr)) +
                               physics::RangeIntervalTime(p.max_range_m)) +
                        4 * sigma;
  if (w.samples * w.sample_interval_ns < end_ns) {
    d.Fail("samples",
           std::to_string(w.samples) + " samples of " + NumberText(w.sample_interval_ns) +
               " ns record " + NumberText(w.samples * w.sample_interval_ns) +
               " ns, short of the round trip to max_range_m " + NumberText(p.max_range_m) + " m (" +
               NumberText(end_ns) + " ns with the pretrigger and the pulse)");
  }
}

}  // namespace lt
