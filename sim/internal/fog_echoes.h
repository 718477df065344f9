// The fog's own return along a beam (issue 43, physics/fog.h): the volume in front of each
// sub-ray's first surface backscatters the pulse, which gives the near-range hump of a lidar in
// fog and, in dense fog, echoes of the fog itself. The volume is cut into slabs, each a
// contribution of the beam's return signal (stage 3, beam_pipeline.h), weighed by the share of
// the beam that reaches it. Shared by both backends.
#pragma once

#include <cstdint>

#include "internal/beam_limits.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/pulse_table.h"
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

// Slabs a frame's fog holds at most (a beam holds kMaxContributions in all).
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
  // The slabs as a table on the threshold detector's lattice (FogTable, in the backend's
  // memory), or null: every beam then carries its slabs as contributions (the waveform
  // detector, whose records sample them).
  const physics::PulseTableView* table = nullptr;
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

// FogShare of slab after slab, nearest first, in one sweep: the sub-rays sorted by their clear
// length once, each slab then costs the sub-rays that end before it (dropped for good) and those
// that end inside it, not all n.
class FogShareSweep {
 public:
  LT_HD FogShareSweep(const SubRayClear* clear, uint32_t n)
      : n_(n < kMaxContributions ? n : kMaxContributions) {
    for (uint32_t k = 0; k < n_; ++k) {  // insertion by clear length (n is small)
      uint32_t j = k;
      while (j > 0 && sorted_[j - 1].clear_m > clear[k].clear_m) {
        sorted_[j] = sorted_[j - 1];
        --j;
      }
      sorted_[j] = clear[k];
      reaching_ += clear[k].weight;
    }
  }
  // The share of [a, b); slabs asked for in order of a. Once every sub-ray ends before a, it
  // is 0 for this slab and every later one (Ended), not what is left of the weights after
  // their subtraction (rounding's 1e-17).
  LT_HD double Share(double a, double b) {
    while (first_ < n_ && sorted_[first_].clear_m <= a)
      reaching_ -= sorted_[first_++].weight;
    if (Ended()) return 0;
    double share = reaching_;
    for (uint32_t k = first_; k < n_ && sorted_[k].clear_m < b; ++k)
      share -= sorted_[k].weight * (1 - (sorted_[k].clear_m - a) / (b - a));
    return share;
  }
  // Whether every sub-ray ends before the last slab asked for.
  LT_HD bool Ended() const { return first_ == n_; }

 private:
  SubRayClear sorted_[kMaxContributions];  // a beam has at most this many sub-rays
  uint32_t n_;
  uint32_t first_ = 0;   // sorted_[.. first_) end before the slabs still to come
  double reaching_ = 0;  // the weight of sorted_[first_ ..)
};

// Slab j's power on a beam of the given share of it: its power on a beam that reaches it all
// times the share; 0 where under the least power.
LT_HD inline double FogSlabPower(const FogView& f, uint32_t j, double share) {
  const double power = share * f.slab[j].power_w;
  return power > 0 && power >= f.least_power_w ? power : 0;
}

// The beam's fog slabs (FogSlabPower of its n sub-rays' shares, those above 0), nearest first
// as many as fit in out[count .. room), merged into its `count` contributions: out[0 .. count)
// is sorted by range first (physics::SortByRange, stable, as the detectors' would), and the
// slabs go in from the far end, so the whole list comes out sorted as a stable sort of the
// contributions followed by the slabs would leave it, without the detector's insertion sort
// moving each near slab past every farther hit. Returns the new count. Both backends call it
// on the same contributions, with the same table.
// With the fog's table (f.table) and `tabled`, the slabs in front of every sub-ray are not
// copied: *tabled holds them (their number and the beam's share of them, all of it), for the
// detector to read from the table; only those past the nearest sub-ray's end are added here.
LT_HD inline uint32_t AddFogSlabs(const FogView& f, const SubRayClear* clear, uint32_t n,
                                  physics::SignalContribution* out, uint32_t count, uint32_t room,
                                  physics::TabledPulses* tabled = nullptr) {
  if (f.slabs == 0) return count;
  uint32_t from = 0;  // the first slab not tabled
  if (f.table && tabled) {
    float nearest = 3.4e38f;
    double weight = 0;
    for (uint32_t k = 0; k < n; ++k) {
      nearest = clear[k].clear_m < nearest ? clear[k].clear_m : nearest;
      weight += clear[k].weight;
    }
    // FogShare counts a sub-ray whole in a slab that ends before its clear length; the slabs
    // end in order, so a binary search finds the first that does not.
    uint32_t hi = f.slabs;
    while (from < hi) {
      const uint32_t mid = (from + hi) / 2;
      if (f.slab[mid].end_m <= nearest) {
        from = mid + 1;
      } else {
        hi = mid;
      }
    }
    *tabled = physics::TabledPulses::Of(f.table, from, weight);
  }
  if (count >= room) return count;
  float power[kMostFogSlabs];  // each slab's on this beam, 0: left out
  uint32_t kept = 0, end = 0;  // the slabs that fit, and one past the last of them
  FogShareSweep sweep(clear, n);
  for (uint32_t j = from; j < f.slabs && count + kept < room; ++j) {
    power[j] =
        static_cast<float>(FogSlabPower(f, j, sweep.Share(f.slab[j].start_m, f.slab[j].end_m)));
    if (sweep.Ended()) break;  // no share in this slab or any farther one
    if (power[j] > 0) {
      ++kept;
      end = j + 1;
    }
  }
  if (kept == 0) return count;
  physics::SortByRange(out, count);
  uint32_t write = count + kept, read = count;
  for (uint32_t j = end; j-- > from;) {
    if (!(power[j] > 0)) continue;
    const float range = f.slab[j].range_m;
    while (read > 0 && out[read - 1].range_m > range)
      out[--write] = out[--read];
    out[--write] = {range, power[j], f.object, 0.0f};
  }
  return count + kept;
}

}  // namespace lt
