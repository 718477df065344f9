// Rain drops and snowflakes along one sub-ray (issue 43, physics/precipitation.h): each a point
// scatterer that adds its received power at its range to the beam's return signal, like a hit
// (stage 3, beam_pipeline.h). Shared by both backends: the CPU and the GPU draw the same
// particles from the same keys.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/philox.h"
#include "lidartwin/physics/precipitation.h"
#include "lidartwin/physics/return_signal.h"

namespace lt {

// Particles a sub-ray holds at most: the nearest four are the brightest (the power falls as
// R^-2 over the spot's area), and a bound keeps the detector's work bounded.
inline constexpr uint32_t kMostParticleSlots = 4;

// One kind of particle (rain or snow), as the frame samples it.
struct ParticlePopulation {
  double density_per_m3;  // particles with a diameter in [min, max] (NumberDensityPerM3)
  double slope_per_mm;    // of N(D), for drawing diameters
  double min_diameter_mm, max_diameter_mm;
  double optical_scale;       // optical diameter over the distribution's D (snow: melted)
  double backscatter_per_d2;  // dsigma/dOmega per optical diameter^2 [1/sr]
  uint32_t object;            // its entry in the frame's objects: labels
};

// The frame's particles: up to two populations (rain, snow), the beam's geometry and how far
// a particle can matter.
struct ParticleView {
  uint32_t populations = 0;
  ParticlePopulation kinds[2] = {};
  double exit_radius_m = 0;  // the beam's radius leaving the sensor
  double divergence = 0;     // the radius's growth [m/m]
  // Past this range even the largest particle returns under 1e-3 of the threshold (a
  // contribution that small cannot make an echo): sampling stops there, which keeps the
  // detector's range grid short (ParticleReachM).
  double reach_m = 0;
  // Particles drawn that return less than this [W] (1e-3 of the threshold) are left out of
  // the signal: 4 of them add at most 4e-3 of the threshold to a sub-ray, and the detector
  // is spared sorting and summing them. 0: all kept (the waveform detector).
  double least_power_w = 0;
};

// The nearest `room` particles of sub-ray k (weight w, one of `sub_rays`) between near_m and
// clear_m (its first surface: particles behind it are hidden), those returning at least
// v.least_power_w written to `out` nearest first; returns how many. Particles in the sub-ray's tube
// (physics::TubeVolumeM3) are a Poisson process of the populations' summed density, so the gaps
// between successive ones in tube volume are exponential: the nearest come first and a draw never
// needs a rejection. Each is irradiated as the beam's power spread evenly over its cross section (w
// sub_rays over the tube's area), so the beam's expected particle power does not depend on how its
// sub-rays split it. Received power: the link budget of a target of monostatic "BRDF"
// dsigma/dOmega / area (seed 002 eq. 2 with beta A_spot = dsigma/dOmega), through the
// near-field overlap. Keys: (seed, frame, beam, 256 k + j, kStreamParticles).
LT_HD inline uint32_t ParticleEchoes(const ParticleView& v, const physics::LinkBudget& link,
                                     const physics::Overlap& overlap, uint64_t seed, uint32_t frame,
                                     uint32_t beam, uint32_t k, uint32_t sub_rays, double weight,
                                     double near_m, double clear_m,
                                     physics::SignalContribution* out, uint32_t room) {
  using std::log;
  if (v.populations == 0) return 0;
  const double far = clear_m < v.reach_m ? clear_m : v.reach_m;
  double density = v.kinds[0].density_per_m3;
  if (v.populations > 1) density += v.kinds[1].density_per_m3;
  if (!(far > near_m) || !(density > 0)) return 0;
  double volume = 0;
  uint32_t count = 0;
  for (uint32_t j = 0; j < room; ++j) {
    const physics::Philox4x32 w = physics::RandomWords(
        physics::RandomKey{seed, frame, beam, 256 * k + j, physics::kStreamParticles});
    volume -= log(physics::UniformOpen01<double>(w.v[0])) / density;
    const double range =
        physics::RangeAtTubeVolume(v.exit_radius_m, v.divergence, sub_rays, near_m, volume);
    if (!(range < far)) break;
    const ParticlePopulation& p =
        v.populations > 1 &&
                physics::UniformOpen01<double>(w.v[1]) * density > v.kinds[0].density_per_m3
            ? v.kinds[1]
            : v.kinds[0];
    const double d_m =
        1e-3 * p.optical_scale *
        physics::TruncatedExponentialDiameter(p.slope_per_mm, p.min_diameter_mm, p.max_diameter_mm,
                                              physics::UniformOpen01<double>(w.v[2]));
    const double radius = v.exit_radius_m + range * v.divergence;
    const double area = physics::kPi * radius * radius;
    const double beta = p.backscatter_per_d2 * d_m * d_m * weight * sub_rays / area;
    const double power =
        physics::ReceivedPower(link, beta, 1.0, range) * physics::OverlapShare(overlap, range);
    if (power < v.least_power_w) continue;
    out[count++] = {static_cast<float>(range), static_cast<float>(power), p.object, 0.0f};
  }
  return count;
}

}  // namespace lt
