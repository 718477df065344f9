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
  return t;
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
  const physics::WaveformChain w = MakeWaveformChain(p, t.transfer.data(), t.twiddles.data());
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
