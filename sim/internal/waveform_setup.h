// The waveform detector's per-sensor setup (seed 002 sec. 5), made the same way for both
// backends: the spectrum of the circuit (H(f) at the transform's bins, the SiPM's pulse
// included) and the twiddle table, computed once in double and kept in float; the chain's
// constants from the profile; and eq. 4's sunlight per unit of albedo and spot share.
#pragma once

#include <vector>

#include "lidartwin/physics/fft.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

struct WaveformTables {
  std::vector<physics::ComplexF> transfer;  // H(f_k), k < N [ohm]
  std::vector<physics::ComplexF> twiddles;  // k < N / 2
  // physics::GapPowers of the chain's SiPM and sections, for the GPU's passes over the bins
  // with photons (empty where the circuit keeps the transform).
  std::vector<float> gap_powers;
  // The internal reflection's bins (physics/internal_reflection.h): the span's first bin, each
  // bin's power and the thresholds of the bins' photon counts, for both backends.
  uint32_t internal_first_bin = 0;
  std::vector<physics::InternalBin> internal_bins;
  std::vector<uint32_t> internal_thresholds;
};

// A chain's view of the tables' internal reflection, its bins and thresholds at `bins` and
// `thresholds` (the tables' own, or copies in device memory).
inline physics::InternalReflectionTable InternalReflectionView(const WaveformTables& t,
                                                               const physics::InternalBin* bins,
                                                               const uint32_t* thresholds) {
  return {t.internal_first_bin, static_cast<uint32_t>(t.internal_bins.size()), bins, thresholds};
}

// Empty tables unless the profile's detector is `waveform`.
WaveformTables MakeWaveformTables(const SensorProfile& profile);

// The chain's constants, with views of the tables (host, or copies in device memory).
physics::WaveformChain MakeWaveformChain(const SensorProfile& profile,
                                         const physics::ComplexF* transfer,
                                         const physics::ComplexF* twiddles);

// The chain with views of the host tables `t`: what the CPU runs. The tables must outlive it
// (a temporary's would not: refused).
physics::WaveformChain MakeWaveformChain(const SensorProfile& profile, const WaveformTables& t);
physics::WaveformChain MakeWaveformChain(const SensorProfile& profile, WaveformTables&& t) = delete;

// Sunlight returned by a target of albedo 1 filling the whole spot, before the atmosphere
// [W]: seed 002 eq. 4 with the ASTM G173 band irradiance times the scene's `sunlight`. A
// sub-ray's hit returns this times its weight, coverage, albedo and T_atm(R). 0 for other
// detectors.
double SunPowerPerAlbedo(const SensorProfile& profile, double sunlight);

}  // namespace lt
