// Closest-hit ray queries against a Scene on the CPU (Embree; see docs/adr/0002).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lidartwin/physics/vec3.h"
#include "lidartwin/sim/ray_query.h"
#include "lidartwin/sim/scene.h"

namespace lt {

struct RayHit {
  bool hit = false;
  double distance_m = 0;                  // along the unit direction
  uint32_t object = 0;                    // index into Scene::objects
  uint32_t triangle = 0;                  // index into that object's mesh
  physics::Vec3<double> normal{0, 0, 0};  // unit geometric normal, world frame
};

class RayCaster {
 public:
  // The scene must outlive the caster. nullptr when Embree cannot hold the scene (out of
  // memory).
  static std::unique_ptr<RayCaster> Create(const Scene& scene);
  virtual ~RayCaster() = default;
  // Closest hit with distance in [t_min, t_max]. Thread-safe.
  virtual RayHit Closest(const physics::Vec3<double>& origin,
                         const physics::Vec3<double>& unit_direction, double t_min,
                         double t_max) const = 0;
  // The closest hits of n queries, hits[i] what Closest gives for queries[i] (the same
  // distance, normal and triangle; only where coincident triangles tie at the same float
  // distance may the one reported differ, and depend on the packet's other rays); traced in
  // packets (Embree's 8-wide queries, about four times the rate of one ray at a time on
  // coherent rays). Thread-safe.
  virtual void ClosestBatch(const RayQuery* queries, size_t n, RayHit* hits) const = 0;
  // Moves the scene's moving objects to where they are at scene time t_s (StoredToWorld): their
  // transforms change and the top-level tree is rebuilt; no triangle moves. Created at t = 0.
  // Must not run concurrently with Closest.
  virtual void MoveTo(double t_s) = 0;
};

}  // namespace lt
