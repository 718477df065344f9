// The rays the GPU bench traces and how they are measured (issues 3 and 14): an OS0-128's
// beams with 8 jittered sub-rays each, random rays inside a box, and the three tracers on the
// same rays: the GPU (PLOC and LBVH trees), Embree at its best (embree_peer.h) and Embree as
// the CPU backend calls it.
#pragma once

#include <cstdint>
#include <vector>

#include "lidartwin/base/status.h"
#include "lidartwin/bench/gpu_bench.h"
#include "lidartwin/physics/vec3.h"
#include "lidartwin/sim/ray_caster.h"
#include "lidartwin/sim/sensor_profile.h"

namespace lt::bench {

struct Rays {
  std::vector<float> origins, directions;  // 3 floats a ray
  size_t size() const { return origins.size() / 3; }
  void Add(const physics::Vec3<double>& o, const physics::Vec3<double>& d);
};

// Every beam of `profile` with 8 sub-rays jittered inside a 0.18 deg cone (the beam divergence
// order of magnitude of data sheets), from `origin`. Seeded: the same rays every run.
Rays CoherentRays(const SensorProfile& profile, const physics::Vec3<double>& origin);

// n rays from origins uniform in the box [lo, hi], directions uniform. Seeded.
Rays RandomRays(const double lo[3], const double hi[3], size_t n);

double Median(std::vector<double> v);

// Measures `rays` on the GPU (PLOC into figures.gpu_*, LBVH into *lbvh_rays_per_s, the
// binned-SAH tree into *sah_rays_per_s when given; all 0 in a build without CUDA or without a
// GPU) and, with `caster` (the CPU backend's, over the same triangles), Embree at its best and
// Embree as the CPU backend calls it, on `threads` threads. Errors from the GPU or the peer.
Status MeasureRays(const std::vector<float>& soup, const Rays& rays, const RayCaster* caster,
                   bool coherent, int repeats, unsigned threads, RayFigures& figures,
                   double* lbvh_rays_per_s, double* sah_rays_per_s = nullptr);

}  // namespace lt::bench
