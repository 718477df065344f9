// How far a sensor's beam sees a plate: the largest distance at which the simulated beam still
// reports a plate filling its footprint, straight ahead, at normal incidence (the demo's
// weather chapter, issue 43). Private to jobs/.
#pragma once

#include <cstdint>

#include "lidartwin/base/status.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::jobs {

// `profile` cut to one beam at 0 deg elevation along +x (its first channel's place taken, one
// column): its detector, footprint, link and wavelength kept.
SensorProfile OneBeamAhead(const SensorProfile& profile);

// The plate's material (PlateAhead), for weather that names it (a wet plate).
inline constexpr const char* kPlateMaterial = "lambertian";

// A square plate `size_m` wide of Lambertian `reflectance` facing the sensor at range_m along
// +x, of material kPlateMaterial, instance `instance_id`, with `weather`.
Scene PlateAhead(double range_m, double size_m, double reflectance, uint32_t instance_id,
                 const WeatherDescription& weather = {});

// The detection range [m] of a plate of `reflectance` seen by `beam` (OneBeamAhead) in
// `weather`, to within tolerance_m: bisection between the profile's minimum range and its
// maximum (a plate reported at the one and not at the other; 0 where it is reported nowhere,
// the maximum where it is reported everywhere). CPU backend.
Expected<double> DetectionRangeM(const SensorProfile& beam, double reflectance,
                                 const WeatherDescription& weather, uint64_t seed,
                                 double tolerance_m = 1e-3);

// Echoes a pulse of `beam` reports from `weather` itself (rain drops, snowflakes: anything but
// the plate) with a 10 % plate filling its footprint at plate_range_m, averaged over `pulses`
// frames (new particles each). CPU backend.
Expected<double> WeatherEchoesPerPulse(const SensorProfile& beam, const WeatherDescription& weather,
                                       double plate_range_m, uint64_t seed, uint32_t pulses);

}  // namespace lt::jobs
