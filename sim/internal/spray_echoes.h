// Road spray along a sub-ray (physics/spray.h): the clusters of a frame's plumes, each a sphere
// of drops moving through the frame, dim what lies behind them (Beer-Lambert over the chords
// the sub-ray cuts through them) and return light of their own as fog does (fog_echoes.h,
// physics::FogVolumeReturn), cut into slabs of at most 1.5 pulse sigmas. The frame's clusters
// are made on the host (FrameSpray) and read by both backends from the same arrays.
#pragma once

#include <cmath>
#include <cstdint>

#include "lidartwin/physics/fog.h"
#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/link_budget.h"
#include "lidartwin/physics/return_signal.h"
#include "lidartwin/physics/spray.h"
#include "lidartwin/physics/vec3.h"

namespace lt {

// One cluster: where it was spawned (from) and the way it was launched (a unit vector), its
// launch speed and drag (its centre at t is from + way DragDistanceM(speed, drag, t - spawn_s),
// exact at any frame rate), its radius, its life [spawn_s, end_s] in scene time, its
// extinction when spawned, thinning with tau_s, and the object its echoes are labelled with
// (its vehicle's plume).
struct SprayCluster {
  double from[3];
  float way[3];
  float speed_m_s, drag_per_m;
  float radius_m;
  double spawn_s, end_s;
  float extinction_per_m, tau_s;
  uint32_t object;
};

// One vehicle's plume: the box that holds its clusters over the whole frame (a sub-ray that
// misses it skips them all) and its clusters cluster[first .. first + count).
struct SprayPlume {
  float lo[3], hi[3];
  uint32_t first, count;
};

// The frame's spray (host or device arrays; no plumes: none).
struct SprayView {
  uint32_t plumes = 0;
  const SprayPlume* plume = nullptr;
  const SprayCluster* cluster = nullptr;
  double lidar_ratio_sr = 18.8;  // extinction over backscatter, as the fog's
  // A slab returning less than this [W] is left out (1e-3 of the threshold; 0: the waveform
  // detector's, which keeps all).
  double least_power_w = 0;
};

// Chords a sub-ray keeps at most: the nearest; farther ones are left out.
inline constexpr uint32_t kMostSprayChords = 8;

// The part [near_m, far_m] of a sub-ray inside one cluster, with the cluster's extinction at
// the sub-ray's time.
struct SprayChord {
  float near_m, far_m;
  float extinction_per_m;
  uint32_t object;
};

// Where a cluster's centre is at scene time t_s (from its spawn on; quadratic drag along
// its launch, physics::DragDistanceM).
LT_HD inline physics::Vec3<double> SprayClusterAt(const SprayCluster& c, double t_s) {
  const double age = t_s > c.spawn_s ? t_s - c.spawn_s : 0.0;
  const double gone = physics::DragDistanceM(c.speed_m_s, c.drag_per_m, age);
  return {c.from[0] + c.way[0] * gone, c.from[1] + c.way[1] * gone, c.from[2] + c.way[2] * gone};
}

// Whether the ray o + t d, t in [0, reach], passes through the box (slab test).
LT_HD inline bool RayMeetsBox(const physics::Vec3<double>& o, const physics::Vec3<double>& d,
                              const float lo[3], const float hi[3], double reach) {
  double t0 = 0, t1 = reach;
  const double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
  for (int i = 0; i < 3; ++i) {
    if (dd[i] == 0) {
      if (oo[i] < lo[i] || oo[i] > hi[i]) return false;
      continue;
    }
    double a = (lo[i] - oo[i]) / dd[i], b = (hi[i] - oo[i]) / dd[i];
    if (a > b) {
      const double s = a;
      a = b;
      b = s;
    }
    t0 = a > t0 ? a : t0;
    t1 = b < t1 ? b : t1;
    if (t0 > t1) return false;
  }
  return true;
}

// The chords of the sub-ray o + t d at scene time t_s within [near_m, reach_m] through the
// clusters alive then: the kMostSprayChords nearest (by where they start), in range order,
// written to out; returns how many. (Clusters are stored youngest first, which behind a
// vehicle is farthest first: without the order the near spray, which makes the first echo and
// most of the dimming, would be the part left out.)
LT_HD inline uint32_t SprayChords(const SprayView& v, const physics::Vec3<double>& o,
                                  const physics::Vec3<double>& d, double t_s, double near_m,
                                  double reach_m, SprayChord* out) {
  uint32_t n = 0;
  for (uint32_t p = 0; p < v.plumes; ++p) {
    const SprayPlume& plume = v.plume[p];
    if (!RayMeetsBox(o, d, plume.lo, plume.hi, reach_m)) continue;
    for (uint32_t i = 0; i < plume.count; ++i) {
      const SprayCluster& c = v.cluster[plume.first + i];
      if (t_s < c.spawn_s || t_s > c.end_s) continue;
      const physics::Vec3<double> at = SprayClusterAt(c, t_s);
      double t0, t1;
      if (!physics::SphereChord(o, d, at, c.radius_m, &t0, &t1)) continue;
      t0 = t0 > near_m ? t0 : near_m;
      t1 = t1 < reach_m ? t1 : reach_m;
      if (!(t1 > t0)) continue;
      if (n == kMostSprayChords && !(t0 < out[n - 1].near_m)) continue;  // farther than all kept
      using std::exp;
      const SprayChord chord{
          static_cast<float>(t0), static_cast<float>(t1),
          static_cast<float>(c.extinction_per_m * exp(-(t_s - c.spawn_s) / c.tau_s)), c.object};
      // Insert in range order; when full, the farthest falls off the end.
      uint32_t slot = n < kMostSprayChords ? n++ : n - 1;
      while (slot > 0 && out[slot - 1].near_m > chord.near_m) {
        out[slot] = out[slot - 1];
        --slot;
      }
      out[slot] = chord;
    }
  }
  return n;
}

// The spray's optical depth from the sensor to range_m along the chords: the sum of each
// chord's extinction over its length in front of range_m (Beer-Lambert; clusters that overlap
// add their drops).
LT_HD inline double SprayOpticalDepth(const SprayChord* chords, uint32_t n, double range_m) {
  double depth = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const double far = chords[i].far_m < range_m ? chords[i].far_m : range_m;
    if (far > chords[i].near_m) depth += chords[i].extinction_per_m * (far - chords[i].near_m);
  }
  return depth;
}

// The spray's two-way transmission to range_m: exp(-2 depth).
LT_HD inline double SprayTransmission(const SprayChord* chords, uint32_t n, double range_m) {
  using std::exp;
  return n == 0 ? 1.0 : exp(-2 * SprayOpticalDepth(chords, n, range_m));
}

// The light the clusters' drops return to sub-ray k of weight w, in front of its first surface
// at clear_m: each chord cut into slabs of at most 1.5 pulse sigmas (sigma_m) and a quarter of
// their range, each the volume integral of the lidar equation over it
// (physics::FogVolumeReturn, beta_pi = alpha / S) at its centroid, dimmed by the spray in front
// of the centroid both ways. Writes at most `room` to
// `out` (the nearest chords' slabs first), those returning at least v.least_power_w; returns
// how many.
LT_HD inline uint32_t SprayReturns(const SprayView& v, const physics::LinkBudget& link,
                                   const physics::Overlap& overlap, double sigma_m,
                                   const SprayChord* chords, uint32_t n, double weight,
                                   double clear_m, physics::SignalContribution* out,
                                   uint32_t room) {
  uint32_t written = 0;
  for (uint32_t i = 0; i < n && written < room; ++i) {
    const double a = chords[i].near_m;
    const double b = chords[i].far_m < clear_m ? chords[i].far_m : clear_m;
    if (!(b > a)) continue;
    // At most a quarter of their range thick too, as the fog's slabs (FrameFog): near the
    // sensor 1 / r^2 changes fast (a 0.38 m slab from 5 cm on 4 panels was 19 % high).
    const double thickest = 1.5 * sigma_m < a / 4 ? 1.5 * sigma_m : a / 4;
    const double beta = chords[i].extinction_per_m / v.lidar_ratio_sr;
    using std::ceil;
    const auto slabs = static_cast<uint32_t>(ceil((b - a) / thickest));
    const double h = (b - a) / (slabs > 0 ? slabs : 1);
    for (uint32_t j = 0; j < slabs && written < room; ++j) {
      // 4 panels: a slab a sigma thick at 1 m or more is within 1e-4 of 1 / r^2's integral.
      const physics::VolumeReturn r =
          physics::FogVolumeReturn<4>(link, overlap, beta, a + j * h, a + (j + 1) * h);
      const double p = weight * r.power_w * SprayTransmission(chords, n, r.centroid_m);
      if (!(p >= v.least_power_w) || !(p > 0)) continue;
      out[written++] = {static_cast<float>(r.centroid_m), static_cast<float>(p), chords[i].object,
                        0.0f};
    }
  }
  return written;
}

}  // namespace lt
