// The closest hit in a two-level tree (issue 42, docs/adr/0030): a top-level wide tree whose
// leaves are instances, each a model's own wide tree (built once, in the model's frame) placed
// by a rigid transform. The ray is moved into the model's frame in float for the traversal,
// and the hit is refined in double on the triangle's plane placed in the world
// (physics/rigid_transform.h). The GPU backend traces through this; the host runs the same
// code in the tests against Embree's instances and brute force.
#pragma once

#include <cstdint>

#include "lidartwin/physics/hd.h"
#include "lidartwin/physics/rigid_transform.h"
#include "lidartwin/physics/wide_bvh.h"

namespace lt {

// A triangle's plane in double: a vertex and the unit normal (world frame for still
// geometry, the model's frame for a model's triangles).
struct TrianglePlane {
  double a[3];
  double n[3];
};

// A model as the rays see it: its tree (leaves give triangle indices) and its triangles' planes
// in input order, both in the model's frame.
struct ModelTree {
  physics::WideBvhView view;
  const TrianglePlane* planes;
};

// One placed object: its model, the scene object it is, and where it is now.
struct InstanceRecord {
  physics::FloatInverseTransform to_model;
  physics::RigidTransform to_world;
  uint32_t model;
  uint32_t object;
};

// The top level's leaf test: the ray, moved into the instance's model frame, against the
// model's tree, no farther than the best hit so far. The id is instance << 32 | triangle.
struct InstanceLeafTest {
  const InstanceRecord* instances;
  const ModelTree* models;
  const float* o;
  const float* d;
  LT_HD float operator()(const physics::WideTriangle& leaf, const physics::WatertightRay&,
                         float t_min, float t_best, int64_t& id) const {
    const InstanceRecord& in = instances[leaf.id];
    float om[3], dm[3];
    physics::RayIntoModel(in.to_model, o, d, om, dm);
    float t = 0;
    const int64_t j =
        physics::WideBvhTraverse<false>(models[in.model].view, om, dm, t_min, t_best, t);
    if (j < 0) return -1;
    id = (static_cast<int64_t>(leaf.id) << 32) | j;
    return t;
  }
};

// A closest hit in the top level: the instance and the model's triangle, or instance < 0.
struct InstanceHit {
  int64_t instance = -1;
  uint32_t triangle = 0;
  float t = 0;
};

LT_HD inline InstanceHit ClosestInstanceHit(const physics::WideBvhView& top,
                                            const InstanceRecord* instances,
                                            const ModelTree* models, const float o[3],
                                            const float d[3], float t_min, float t_max) {
  InstanceHit hit;
  if (top.count == 0) return hit;
  const InstanceLeafTest test{instances, models, o, d};
  float t = 0;
  const int64_t id = physics::WideBvhTraverse<false, physics::NoTraversalCount>(
      top, o, d, t_min, t_max, t, nullptr, test);
  if (id < 0) return hit;
  hit.instance = id >> 32;
  hit.triangle = static_cast<uint32_t>(id & 0xffffffffu);
  hit.t = t;
  return hit;
}

// A model's triangle plane placed in the world by its instance (the same bits on both backends).
struct PlacedPlane {
  physics::Vec3<double> a, n;
};
LT_HD inline PlacedPlane PlaceModelPlane(const InstanceRecord& in, const TrianglePlane& p) {
  return {physics::PlacePoint(in.to_world, {p.a[0], p.a[1], p.a[2]}),
          physics::RotateBy(in.to_world, {p.n[0], p.n[1], p.n[2]})};
}

}  // namespace lt
