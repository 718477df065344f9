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
};

// Empty tables unless the profile's detector is `waveform`.
WaveformTables MakeWaveformTables(const SensorProfile& profile);

// The chain's constants, with views of the tables (host, or copies in device memory).
physics::WaveformChain MakeWaveformChain(const SensorProfile& profile,
                                         const physics::ComplexF* transfer,
                                         const physics::ComplexF* twiddles);

// Sunlight returned by a target of albedo 1 filling the whole spot, before the atmosphere
// [W]: seed 002 eq. 4 with the ASTM G173 band irradiance times the scene's `sunlight`. A
// sub-ray's hit returns this times its weight, coverage, albedo and T_atm(R). 0 for other
// detectors.
double SunPowerPerAlbedo(const SensorProfile& profile, double sunlight);

}  // namespace lt
