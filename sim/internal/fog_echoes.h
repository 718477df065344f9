// The fog's own return along a beam (issue 43, physics/fog.h): the volume in front of each
// sub-ray's first surface backscatters the pulse, which gives the near-range hump of a lidar in
// fog and, in dense fog, echoes of the fog itself. The volume is cut into slabs, each a
// contribution of the beam's return signal (stage 3, beam_pipeline.h), weighed by the share of
// the beam that reaches it. Shared by both backends.
#pragma once

#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/return_signal.h"

namespace lt {

// How far sub-ray k of a beam sees the fog (to its first surface, or to its reach) and its
// share of the beam's power: what the beam's fog slabs need of each sub-ray.
struct SubRayClear {
  float clear_m;
  float weight;
};

// One slab of fog along the beam, [start_m, end_m): the power [W] it returns to a beam that
// reaches all of it (the single-scattering lidar equation integrated over the slab), placed at
// its centroid range_m, the power-weighted mean range inside it (FrameFog).
struct FogSlab {
  float start_m, end_m, range_m, power_w;
};

// Slabs a frame's fog holds at most (a beam holds 128 contributions in all).
inline constexpr uint32_t kMostFogSlabs = 96;

// The frame's fog as slabs, nearest first, made once on the host (FrameFog). No slabs: no fog,
// or its return left out (weather.fog.backscatter).
struct FogView {
  uint32_t slabs = 0;
  FogSlab slab[kMostFogSlabs] = {};
  // A slab returning less than this [W] on a beam is left out (1e-3 of the threshold, as
  // particles are; 0 for the waveform detector).
  double least_power_w = 0;
  uint32_t object = 0;      // its entry in the frame's objects: labels
  double most_power_w = 0;  // the slabs' summed power on a beam that reaches them all
};

// The share of the beam that reaches all of slab [a, b): each sub-ray weighs by how much of the
// slab lies in front of its first surface.
LT_HD inline double FogShare(const SubRayClear* clear, uint32_t n, double a, double b) {
  double share = 0;
  for (uint32_t k = 0; k < n; ++k) {
    const double c = clear[k].clear_m;
    if (c <= a) continue;
    share += clear[k].weight * (c >= b ? 1.0 : (c - a) / (b - a));
  }
  return share;
}

// Slab j's power [W] on a beam whose sub-rays see the fog as `clear` says: its power on a beam
// that reaches it all times the share of this beam in front of it (FogShare); 0 where under
// the least power.
LT_HD inline double FogSlabPower(const FogView& f, const SubRayClear* clear, uint32_t n,
                                 uint32_t j) {
  const FogSlab& s = f.slab[j];
  const double power = FogShare(clear, n, s.start_m, s.end_m) * s.power_w;
  return power > 0 && power >= f.least_power_w ? power : 0;
}

// The beam's fog slabs (FogSlabPower of its n sub-rays, those above 0), nearest first as many
// as fit in out[count .. room), merged into its `count` contributions: out[0 .. count) is
// sorted by range first (physics::SortByRange, stable, as the detectors' would), and the slabs
// go in from the far end, so the whole list comes out sorted as a stable sort of the
// contributions followed by the slabs would leave it, without the detector's insertion sort
// moving each near slab past every farther hit. Returns the new count. Both backends call it
// on the same contributions, with the same table.
LT_HD inline uint32_t AddFogSlabs(const FogView& f, const SubRayClear* clear, uint32_t n,
                                  physics::SignalContribution* out, uint32_t count, uint32_t room) {
  if (f.slabs == 0 || count >= room) return count;
  uint32_t kept = 0, end = 0;  // the slabs that fit, and one past the last of them
  for (uint32_t j = 0; j < f.slabs && count + kept < room; ++j) {
    if (FogSlabPower(f, clear, n, j) > 0) {
      ++kept;
      end = j + 1;
    }
  }
  if (kept == 0) return count;
  physics::SortByRange(out, count);
  uint32_t write = count + kept, read = count;
  for (uint32_t j = end; j-- > 0;) {
    const double power = FogSlabPower(f, clear, n, j);
    if (!(power > 0)) continue;
    const float range = f.slab[j].range_m;
    while (read > 0 && out[read - 1].range_m > range)
      out[--write] = out[--read];
    out[--write] = {range, static_cast<float>(power), f.object, 0.0f};
  }
  return count + kept;
}

}  // namespace lt
