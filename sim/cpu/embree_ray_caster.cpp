// RayCaster on Embree 3 (Debian's libembree-dev). Embree finds the closest triangle in single
// precision; the distance and normal are then recomputed in double from the scene's vertices
// (physics::RayPlaneDistance), so ranges are exact to double rounding, not float.
#include <embree3/rtcore.h>

#include <limits>
#include <map>
#include <stdexcept>

#include "lidartwin/physics/ray_triangle.h"
#include "lidartwin/physics/rigid_transform.h"
#include "lidartwin/sim/embree_packet.h"
#include "lidartwin/sim/ray_caster.h"

namespace lt {

namespace {

using physics::Vec3;

Vec3<double> Vertex(const std::vector<std::array<double, 3>>& vertices, uint32_t i) {
  const auto& v = vertices[i];
  return {v[0], v[1], v[2]};
}

// One Embree scene of triangle geometries, one per mesh given, geometry i holding meshes[i].
// nullptr when Embree cannot hold them (out of memory: the caller reports it).
RTCScene NewTriangleScene(RTCDevice device, const std::vector<const TriangleMesh*>& meshes,
                          const std::vector<unsigned>& ids) {
  RTCScene scene = rtcNewScene(device);
  // Robust: watertight traversal, no rays slipping between triangles sharing an edge.
  rtcSetSceneFlags(scene, RTC_SCENE_FLAG_ROBUST);
  rtcSetSceneBuildQuality(scene, RTC_BUILD_QUALITY_HIGH);
  for (size_t i = 0; i < meshes.size(); ++i) {
    const TriangleMesh& mesh = *meshes[i];
    RTCGeometry g = rtcNewGeometry(device, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* vb = static_cast<float*>(rtcSetNewGeometryBuffer(
        g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), mesh.vertices.size()));
    auto* ib = static_cast<unsigned*>(
        rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned),
                                mesh.triangles.size()));
    if (!vb || !ib) {
      rtcReleaseGeometry(g);
      rtcReleaseScene(scene);
      return nullptr;
    }
    for (size_t v = 0; v < mesh.vertices.size(); ++v) {
      for (int k = 0; k < 3; ++k)
        vb[3 * v + k] = static_cast<float>(mesh.vertices[v][k]);
    }
    for (size_t t = 0; t < mesh.triangles.size(); ++t) {
      for (int k = 0; k < 3; ++k)
        ib[3 * t + k] = mesh.triangles[t][k];
    }
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(scene, g, ids[i]);
    rtcReleaseGeometry(g);
  }
  rtcCommitScene(scene);
  return scene;
}

// Embree's 3x4 row-major float transform of a placement.
void SetInstanceTransform(RTCGeometry g, const physics::RigidTransform& x) {
  float m[12];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      m[4 * i + j] = static_cast<float>(x.r[3 * i + j]);
    m[4 * i + 3] = static_cast<float>(x.t[i]);
  }
  rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, m);
}

// A scene without placed objects is one Embree scene of its meshes, in world coordinates. With
// placed ones (instances, moving objects: SceneObject::placed) it is two levels (docs/adr/0030):
// the still meshes in one scene, each model in a scene of its own built once, and a top scene
// of instances rebuilt when the objects move: the still scene once at the identity, every
// placed object at its transform. Moving an object then moves a transform, not its triangles.
class EmbreeRayCaster final : public RayCaster {
 public:
  explicit EmbreeRayCaster(const Scene& scene) : scene_(scene) {
    device_ = rtcNewDevice(nullptr);
    LT_CHECK(device_ != nullptr);
    const auto objects = static_cast<unsigned>(scene.objects.size());
    std::vector<const TriangleMesh*> still;
    std::vector<unsigned> still_ids;
    bool two_level = false;
    for (unsigned o = 0; o < objects; ++o) {
      if (scene.objects[o].placed()) {
        two_level = true;
      } else {
        still.push_back(&scene.objects[o].mesh);
        still_ids.push_back(o);
      }
    }
    RTCScene still_scene = NewTriangleScene(device_, still, still_ids);
    if (!still_scene) return;
    scenes_.push_back(still_scene);
    if (!two_level) {
      top_ = still_scene;
      built_ = rtcGetDeviceError(device_) == RTC_ERROR_NONE;
      return;
    }
    top_ = rtcNewScene(device_);
    scenes_.push_back(top_);
    rtcSetSceneFlags(top_, RTC_SCENE_FLAG_ROBUST | RTC_SCENE_FLAG_DYNAMIC);
    still_instance_ = objects;
    if (!still.empty()) AttachInstance(still_scene, still_instance_, {{1, 0, 0, 0, 1, 0, 0, 0, 1}});
    std::map<const TriangleMesh*, RTCScene> models;
    transforms_.resize(objects);
    for (unsigned o = 0; o < objects; ++o) {
      const SceneObject& obj = scene.objects[o];
      if (!obj.placed()) continue;
      RTCScene& model = models[&obj.stored()];
      if (!model) {
        model = NewTriangleScene(device_, {&obj.stored()}, {0});
        if (!model) return;
        scenes_.push_back(model);
      }
      transforms_[o] = StoredToWorld(obj, 0);
      AttachInstance(model, o, transforms_[o]);
    }
    rtcCommitScene(top_);
    built_ = rtcGetDeviceError(device_) == RTC_ERROR_NONE;
  }
  bool built() const { return built_; }

  ~EmbreeRayCaster() override {
    for (RTCScene s : scenes_)
      rtcReleaseScene(s);
    rtcReleaseDevice(device_);
  }

  void MoveTo(double t_s) override {
    if (top_ == nullptr || scenes_.size() < 2) return;  // one level: nothing placed
    for (unsigned o = 0; o < scene_.objects.size(); ++o) {
      const SceneObject& obj = scene_.objects[o];
      if (!obj.placed() || !obj.motion.moving()) continue;
      transforms_[o] = StoredToWorld(obj, t_s);
      RTCGeometry g = rtcGetGeometry(top_, o);
      SetInstanceTransform(g, transforms_[o]);
      rtcCommitGeometry(g);
    }
    rtcCommitScene(top_);  // rebuilds the top level only
  }

  RayHit Closest(const Vec3<double>& origin, const Vec3<double>& dir, double t_min,
                 double t_max) const override {
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    RTCRayHit rh;
    rh.ray.org_x = static_cast<float>(origin.x);
    rh.ray.org_y = static_cast<float>(origin.y);
    rh.ray.org_z = static_cast<float>(origin.z);
    rh.ray.dir_x = static_cast<float>(dir.x);
    rh.ray.dir_y = static_cast<float>(dir.y);
    rh.ray.dir_z = static_cast<float>(dir.z);
    rh.ray.tnear = static_cast<float>(t_min);
    rh.ray.tfar = static_cast<float>(t_max);
    rh.ray.mask = 0xFFFFFFFFu;
    rh.ray.flags = 0;
    rh.ray.time = 0;
    rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
    rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(top_, &context, &rh);
    return Refine(rh.hit.instID[0], rh.hit.geomID, rh.hit.primID, origin, dir, t_min, t_max);
  }

  void ClosestBatch(const RayQuery* queries, size_t n, RayHit* hits) const override {
    constexpr int kPacket = 8;  // rtcIntersect8: AVX2's width
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    // The pipeline's queries come in beam order, neighbours in direction: coherent.
    context.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
    alignas(32) RTCRayHit8 rh;
    alignas(32) int valid[kPacket];
    for (size_t first = 0; first < n; first += kPacket) {
      for (int k = 0; k < kPacket; ++k) {
        valid[k] = first + k < n ? -1 : 0;
        const RayQuery& q = queries[first + k < n ? first + k : first];  // masked: a valid ray
        SetPacketLane(rh, k, static_cast<float>(q.origin.x), static_cast<float>(q.origin.y),
                      static_cast<float>(q.origin.z), static_cast<float>(q.unit_direction.x),
                      static_cast<float>(q.unit_direction.y),
                      static_cast<float>(q.unit_direction.z), static_cast<float>(q.t_min),
                      static_cast<float>(q.t_max));
      }
      rtcIntersect8(valid, top_, &context, &rh);
      for (int k = 0; k < kPacket && first + k < n; ++k) {
        const RayQuery& q = queries[first + k];
        hits[first + k] = Refine(rh.hit.instID[0][k], rh.hit.geomID[k], rh.hit.primID[k], q.origin,
                                 q.unit_direction, q.t_min, q.t_max);
      }
    }
  }

 private:
  void AttachInstance(RTCScene instanced, unsigned id, const physics::RigidTransform& x) {
    RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_INSTANCE);
    rtcSetGeometryInstancedScene(g, instanced);
    SetInstanceTransform(g, x);
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(top_, g, id);
    rtcReleaseGeometry(g);
  }

  // Embree's float hit (instance, geometry, primitive) as a RayHit: distance and normal
  // recomputed in double on the triangle's plane (ADR 0002), placed in the world as the GPU
  // places it (physics/rigid_transform.h).
  RayHit Refine(unsigned instance, unsigned geometry, unsigned primitive,
                const Vec3<double>& origin, const Vec3<double>& dir, double t_min,
                double t_max) const {
    RayHit hit;
    if (geometry == RTC_INVALID_GEOMETRY_ID) return hit;
    // The still scene's geometries and a one-level scene's are objects; an instance is one.
    const unsigned object =
        instance == RTC_INVALID_GEOMETRY_ID || instance == still_instance_ ? geometry : instance;
    const SceneObject& obj = scene_.objects[object];
    const TriangleMesh& mesh = obj.stored();
    const auto& tri = mesh.triangles[primitive];
    Vec3<double> a = Vertex(mesh.vertices, tri[0]);
    Vec3<double> n = physics::Normalized(
        physics::Cross(Vertex(mesh.vertices, tri[1]) - a, Vertex(mesh.vertices, tri[2]) - a));
    if (obj.placed()) {
      a = physics::PlacePoint(transforms_[object], a);
      n = physics::RotateBy(transforms_[object], n);
    }
    const double t = physics::RayPlaneDistance(origin, dir, a, n);
    // The refined distance must honour the query interval like Embree's float one did.
    if (!(t >= t_min && t <= t_max)) return hit;
    hit.hit = true;
    hit.distance_m = t;
    hit.object = object;
    hit.triangle = primitive;
    hit.normal = n;
    return hit;
  }

  const Scene& scene_;
  RTCDevice device_ = nullptr;
  RTCScene top_ = nullptr;                             // what rays are cast into
  std::vector<RTCScene> scenes_;                       // every scene made, released with the caster
  unsigned still_instance_ = RTC_INVALID_GEOMETRY_ID;  // the still scene's id in the top one
  bool built_ = false;
  std::vector<physics::RigidTransform> transforms_;  // placed objects' at the current time
};

}  // namespace

std::unique_ptr<RayCaster> RayCaster::Create(const Scene& scene) {
  auto caster = std::make_unique<EmbreeRayCaster>(scene);
  if (!caster->built()) return nullptr;
  return caster;
}

}  // namespace lt
