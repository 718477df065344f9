// Fit of the waveform detector's SiPM and circuit (seed 002 sec. 5.3-5.4, eq. 8-10) to
// measured records of single Lambertian targets at several distances (seed 002 sec. 6.1,
// Fig. 12-14): the SiPM's recovery time, the circuit's poles and gain, and the thermal noise.
//
// Three features of each record are linear in the record, so their mean over a target's
// records estimates the noise-free chain's features without bias, and the records' spread gives
// the means' covariance (records are independent; samples within one are not, the circuit
// correlates them):
//   - the target's core: the sum of the three samples about its peak, above the baseline;
//   - the target's area: the sum over its window (the pulse and the circuit's tail) times dt;
//   - the internal reflection's core.
// The core lies inside the area, so the two are strongly correlated: each target's three
// residuals are whitened by the Cholesky factor of that covariance, and the fit weighs the
// noise they share once.
// The noise-free chain (shot_noise off: photon counts are their means) with the trial
// parameters gives the model's features from the link budget of the base profile (the target
// fills the footprint at normal incidence). Ceres fits recovery time, poles and transimpedance
// to the features by numeric differentiation (the chain runs in float, so steps are 1e-3
// relative; cost functors call sim/physics); their standard deviations come from
// ceres::Covariance. The thermal noise follows from the pretrigger's variance less the dark
// counts' (Parseval through the fitted circuit), its standard error from the spread of the
// records' variances. The fitted model's peak amplitudes against the measured mean records'
// give the MAPE of seed 002 eq. (12) (the paper reports 1.7 %).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/calib/fit_result.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::calib {

// Records of one target: `records` x `samples` voltages [V], sample interval dt.
struct WaveformSet {
  std::string file;
  double range_m = 0;
  double reflectance = 0;
  double dt_ns = 0;
  uint32_t samples = 0;
  uint32_t records = 0;
  std::vector<float> volts;  // record after record
};

// A set needs at least 2 kWaveformGroups records (32): enough for its features' covariance.
inline constexpr uint32_t kWaveformGroups = 16;

// Parameters: sipm_recovery_ns, transimpedance_ohm, circuit_poles_mhz[k] for each pole of the
// base profile, thermal_noise_mv; and check.amplitude_mape_percent (eq. 12). `base` must have
// the waveform detector, with the sets' sample interval and record length.
Expected<FitResult> FitWaveforms(const SensorProfile& base, const std::vector<WaveformSet>& sets);

// Seed 002 eq. (12) for any profile: the MAPE of its noise-free peak amplitudes against the
// sets' mean records' (a fraction).
Expected<double> WaveformAmplitudeMape(const SensorProfile& model,
                                       const std::vector<WaveformSet>& sets);

// The profile with a fit's values in its waveform keys.
SensorProfile WithWaveformFit(const SensorProfile& base, const FitResult& fit);

// The noise-free record of one target as the fit models it (for the virtual lab, the report's
// plots and tests): `base`'s chain, one contribution at range_m from a Lambertian plate of
// `reflectance` filling the footprint at normal incidence.
std::vector<float> ModelWaveform(const SensorProfile& profile, double range_m, double reflectance);

// `records` records of that target as the unit would measure them (shot noise and thermal
// noise on), keyed by (seed, frame 0, beam = record).
std::vector<float> MeasuredWaveforms(const SensorProfile& profile, double range_m,
                                     double reflectance, uint32_t records, uint64_t seed);

}  // namespace lt::calib
