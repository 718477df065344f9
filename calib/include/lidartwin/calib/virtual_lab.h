// A virtual lab (issue 10 `lidartwin labgen`): every measurement kind of a lab folder,
// simulated from a "true" sensor profile with the simulator itself, its noise included, so
// that calibrating from it must give back the truth within the reported uncertainties.
//
// The unit's beam model (footprint, link budget, overlap, detector and its noise) fires through
// a lab stage: 16 beams within +-0.05 deg of one direction, one pulse each per frame, at a flat
// target of a lab material placed and turned as each measurement needs (docs/calibration.md,
// "The virtual lab"). The goniometer images and collector slices are rendered from the
// profile's Gaussian footprint with a camera's noise (read, shot, speckle, hot pixels).
#pragma once

#include <cstdint>
#include <string>

#include "lidartwin/calib/lab_folder.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/simulator.h"

namespace lt::calib {

struct VirtualLabOptions {
  uint64_t seed = 1;
  Backend backend = Backend::kCpu;
  uint32_t frames_per_setting = 25;  // pulses per setting = 16 x this
  std::string serial = "virtual";
};

// The two materials of the reflectance measurements (name, R0, k_s, n): their truth.
struct LabMaterial {
  const char* name;
  double r0, specular_albedo, specular_exponent;
};
inline constexpr LabMaterial kLabMaterials[] = {{"lambertian_50", 0.5, 0.0, 0.0},
                                                {"glossy_paint", 0.3, 0.05, 12.0}};

// The collector sensitivity labgen assumes: a Gaussian three times as wide as the profile's
// widest spot on each axis, centred on the beam.
inline constexpr double kLabCollectorWidthFactor = 3.0;

// OK when SimulateLab can make a lab from `truth` that `Calibrate` fits: at least one
// measurement, and none that is bound to come out empty or unfittable. Otherwise an error
// "virtual lab of sensor profile '<name>' (<file>): key '<key path>': <problem>; add or set
// <keys and values>" naming the profile keys to add or change (configs/README.md spelling).
// What each profile gives (docs/calibration.md, "The virtual lab"):
// - beam.footprint gaussian: a beam kernel and two collector slices;
// - detector.type threshold: range-intensity, a detection-threshold sweep and two reflectance
//   curves; it needs detector.signal_noise_nw > 0 (the sweep measures the noise), a near-field
//   overlap that dims the two nearest of the lab's 0.3..64 m ranges below 90 % and leaves the
//   farthest at 99 % or more, or none (detector.overlap_range_m 0: the lab declares it,
//   fit: {overlap: none}), at least 4 of those ranges where a 50 % target is always detected,
//   and a distance where a 5 % target returns more than T + 2 sigma;
// - detector.type capability: the farthest range per reflectance (5..100 %); detector.max_range_m
//   within max_range_m (the rays end there) and reflectance_at_max_range above 0.05 (a target
//   must stop short of d_max);
// - detector.type waveform: records of six single targets.
// An ideal detector with a cone or table footprint gives nothing and is refused. The scan
// pattern plays no part: the lab fires the beam model from a 16-beam stage.
Status CheckVirtualLabProfile(const SensorProfile& truth);

// Calls CheckVirtualLabProfile first: a profile it refuses simulates nothing.
Expected<LabFolder> SimulateLab(const SensorProfile& truth, const VirtualLabOptions& options);

// The example unit the demo and the tests calibrate: a threshold-detector data sheet with a
// weaker laser (16 W), a higher threshold (700 nW) with 90 nW receiver noise, 2 % pulse-energy
// jitter, a near-field overlap (0.8 m, k 2.5) and a wider, elliptical beam (3.8 x 2.6 mrad).
SensorProfile ExampleUnitAsBuilt(SensorProfile data_sheet);

}  // namespace lt::calib
