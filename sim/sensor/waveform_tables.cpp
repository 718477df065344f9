#include "internal/waveform_setup.h"

#include "lidartwin/physics/waveform.h"
#include "lidartwin/sim/waveform_records.h"

#include "lidartwin/physics/circuit.h"
#include "lidartwin/physics/gap_powers.h"
#include "lidartwin/physics/photon_counting.h"
#include "sensor/solar_band.h"

namespace lt {

namespace {

physics::PoleZeroCircuit Circuit(const WaveformConfig& w) {
  physics::PoleZeroCircuit c{};
  c.transimpedance_ohm = w.transimpedance_ohm;
  for (double f : w.circuit_poles_mhz)
    if (c.pole_count < physics::kMaxCircuitCorners) c.poles_hz[c.pole_count++] = f * 1e6;
  for (double f : w.circuit_zeros_mhz)
    if (c.zero_count < physics::kMaxCircuitCorners) c.zeros_hz[c.zero_count++] = f * 1e6;
  c.pulse_decay_s = w.sipm_pulse_ns * 1e-9;
  return c;
}

// Thresholds the internal reflection's table may hold in all (4 MiB): a span of a few dozen
// bins of means up to a few thousand photons holds a few thousand; bins past the limit are
// drawn as any other.
constexpr size_t kMaxInternalThresholds = size_t{1} << 20;

// The internal reflection's span (PulseSpan), each bin's power as ReceivedPowerSamples would
// add it to a zeroed record, and the thresholds of its photon count (internal_reflection.h).
void TabulateInternalReflection(const physics::WaveformChain& c, WaveformTables& t) {
  if (!(c.internal_power_w > 0)) return;
  const double t_s = physics::EmissionTime(c) + c.internal_delay_s;
  const physics::SampleSpan span = physics::PulseSpan(c, t_s);
  if (span.first > span.last) return;
  const double half_inv_var = 0.5 / (c.pulse_sigma_s * c.pulse_sigma_s);
  t.internal_first_bin = static_cast<uint32_t>(span.first);
  for (int64_t i = span.first; i <= span.last; ++i) {
    physics::InternalBin b{physics::PulseSample(c, c.internal_power_w, t_s, i, half_inv_var),
                           physics::kUntabulated, 0};
    // The mean BinPhotons takes of such a bin (no background of its own).
    const double mean =
        physics::MeanPhotonCount<double>(b.power_w, c.dt_s, c.photon_energy_j, c.efficiency, 0.0);
    const std::vector<uint32_t> words = physics::PoissonThresholds(mean);
    const bool tabulated = mean > 0 && mean <= physics::kTabledPoissonMaxMean;
    if (tabulated && t.internal_thresholds.size() + words.size() <= kMaxInternalThresholds) {
      b.first = static_cast<uint32_t>(t.internal_thresholds.size());
      b.count = static_cast<uint32_t>(words.size());
      t.internal_thresholds.insert(t.internal_thresholds.end(), words.begin(), words.end());
    }
    t.internal_bins.push_back(b);
  }
}

}  // namespace

WaveformTables MakeWaveformTables(const SensorProfile& p) {
  WaveformTables t;
  if (p.detector.kind != DetectorKind::kWaveform) return t;
  const WaveformConfig& w = p.detector.waveform;
  t.transfer.resize(w.samples);
  t.twiddles.resize(w.samples / 2);
  const double dt_s = w.sample_interval_ns * 1e-9;
  if (!w.circuit_response.frequency_mhz.empty()) {
    const auto& r = w.circuit_response;
    std::vector<double> f_hz, phase_rad;
    for (size_t k = 0; k < r.frequency_mhz.size(); ++k) {
      f_hz.push_back(r.frequency_mhz[k] * 1e6);
      phase_rad.push_back(r.phase_deg[k] * physics::kPi / 180);
    }
    // The profile's check gives the three lists one length, at least two rows.
    const physics::ResponseTable table{f_hz.data(), r.gain_ohm.data(), phase_rad.data(),
                                       static_cast<uint32_t>(f_hz.size()), w.sipm_pulse_ns * 1e-9};
    physics::FillTransferBinsFromTable(table, w.samples, dt_s, t.transfer.data());
  } else {
    // The profile's check refuses coinciding poles and as many zeros as poles.
    LT_CHECK(physics::FillTransferBins(Circuit(w), w.samples, dt_s, t.transfer.data()));
  }
  physics::FillTwiddles(w.samples, t.twiddles.data());
  const physics::WaveformChain c = MakeWaveformChain(p, nullptr, nullptr);
  if (c.sections.count > 0)
    t.gap_powers = physics::GapPowers(c.sipm_recovery, c.sections, c.samples);
  TabulateInternalReflection(c, t);
  return t;
}

physics::WaveformChain MakeWaveformChain(const SensorProfile& p, const WaveformTables& t) {
  physics::WaveformChain c = MakeWaveformChain(p, t.transfer.data(), t.twiddles.data());
  c.gap_powers = t.gap_powers.empty() ? nullptr : t.gap_powers.data();
  c.internal = InternalReflectionView(t, t.internal_bins.data(), t.internal_thresholds.data());
  return c;
}

physics::WaveformChain MakeWaveformChain(const SensorProfile& p, const physics::ComplexF* transfer,
                                         const physics::ComplexF* twiddles) {
  const WaveformConfig& w = p.detector.waveform;
  physics::WaveformChain c{};
  c.dt_s = w.sample_interval_ns * 1e-9;
  c.samples = w.samples;
  c.pretrigger_samples = w.pretrigger_samples;
  c.pulse_sigma_s = p.detector.pulse_width_ns * 1e-9 / physics::kFwhmPerSigma;
  c.internal_delay_s = w.internal_reflection_delay_ns * 1e-9;
  c.internal_power_w = w.internal_reflection_nw * 1e-9;
  c.photon_energy_j = physics::PhotonEnergy(p.wavelength_nm * 1e-9);
  c.efficiency = w.photon_detection_efficiency;
  c.dark_rate_hz = w.dark_count_rate_khz * 1e3;
  c.sipm = {w.sipm_cells, w.sipm_recovery_ns * 1e-9};
  c.sipm_recovery = physics::SipmRecovery(c.sipm, c.dt_s);
  c.cell_charge_c = w.sipm_gain * physics::kElementaryCharge_C;
  c.baseline_v = w.baseline_mv * 1e-3;
  c.thermal_noise_v = w.thermal_noise_mv * 1e-3;
  c.shot_noise = w.shot_noise;
  c.threshold_v = w.threshold_mv * 1e-3;
  c.noise_factor = w.noise_threshold_factor;
  c.internal_window_s = w.internal_window_ns * 1e-9;
  c.full_scale_v = w.full_scale_mv * 1e-3;
  c.intensity_max = w.intensity_max;
  c.transfer = transfer;
  c.twiddles = twiddles;
  if (w.circuit_response.frequency_mhz.empty())
    c.sections = physics::CircuitRecursionOf(Circuit(w), c.dt_s);
  return c;
}

double SunPowerPerAlbedo(const SensorProfile& p, double sunlight) {
  if (p.detector.kind != DetectorKind::kWaveform || !(sunlight > 0)) return 0;
  const WaveformConfig& w = p.detector.waveform;
  const double band = SolarBandIrradiance(p.wavelength_nm - w.optical_bandwidth_nm / 2,
                                          p.wavelength_nm + w.optical_bandwidth_nm / 2);
  return physics::SunPower(1.0, 1.0, physics::ConeSolidAngle(w.receiver_fov_mrad * 1e-3),
                           p.detector.link.aperture_diameter_m, p.detector.link.optics_transmission,
                           1.0, sunlight * band);
}

std::vector<float> WaveformRecords(const SensorProfile& profile,
                                   const std::vector<physics::SignalContribution>& contributions,
                                   double sun_w, uint32_t records, uint64_t seed, bool noise_free) {
  SensorProfile p = profile;
  if (noise_free) {
    p.detector.waveform.shot_noise = false;
    p.detector.waveform.thermal_noise_mv = 0;
  }
  const WaveformTables t = MakeWaveformTables(p);
  const physics::WaveformChain w = MakeWaveformChain(p, t);
  std::vector<float> out(size_t{records} * w.samples);
  std::vector<physics::ComplexF> x(w.samples);
  for (uint32_t r = 0; r < records; ++r) {
    physics::SimulateWaveform(w, contributions.data(), static_cast<uint32_t>(contributions.size()),
                              sun_w, physics::RandomKey{seed, 0, r, 0, 0}, x.data());
    for (uint32_t i = 0; i < w.samples; ++i)
      out[size_t{r} * w.samples + i] = x[i].re;
  }
  return out;
}

physics::WaveformChain WaveformConstants(const SensorProfile& profile) {
  return MakeWaveformChain(profile, nullptr, nullptr);
}

double CircuitNoiseGain(const SensorProfile& profile) {
  const WaveformTables t = MakeWaveformTables(profile);
  double sum = 0;
  for (const auto& h : t.transfer)
    sum += double(h.re) * h.re + double(h.im) * h.im;
  return t.transfer.empty() ? 0.0 : sum / t.transfer.size();
}

}  // namespace lt
