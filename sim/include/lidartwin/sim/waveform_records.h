// Voltage records of the waveform detector's chain (seed 002 sec. 5) outside a frame, on the
// CPU: for calibration (the model of measured records, and the virtual lab's records) and
// tests. The same functions the simulator runs per beam.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/physics/return_signal.h"
#include "lidartwin/physics/waveform.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt {

// `records` records of profile's chain (detector `waveform`) for the same contributions and
// sunlight [W], keyed (seed, frame 0, beam = record), record after record (samples each) [V].
// noise_free: photon counts are their means and no thermal noise is added.
std::vector<float> WaveformRecords(const SensorProfile& profile,
                                   const std::vector<physics::SignalContribution>& contributions,
                                   double sun_w, uint32_t records, uint64_t seed, bool noise_free);

// The chain's constants of a waveform-detector profile without its tables (transfer and
// twiddles null): for the record's times (physics::EmissionTime, TargetWindowStart) outside
// the simulator.
physics::WaveformChain WaveformConstants(const SensorProfile& profile);

// The power of the DFT-based circuit on white noise: (1 / N) sum_k |H(f_k)|^2 [ohm^2]
// (Parseval), so that a white current of variance s^2 per sample leaves a voltage of variance
// s^2 times this.
double CircuitNoiseGain(const SensorProfile& profile);

}  // namespace lt
