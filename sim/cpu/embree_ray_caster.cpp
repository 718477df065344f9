// RayCaster on Embree 3 (Debian's libembree-dev). Embree finds the closest triangle in single
// precision; the distance and normal are then recomputed in double from the scene's vertices
// (physics::RayPlaneDistance), so ranges are exact to double rounding, not float.
#include <embree3/rtcore.h>

#include <limits>
#include <stdexcept>

#include "lidartwin/physics/ray_triangle.h"
#include "lidartwin/sim/embree_packet.h"
#include "lidartwin/sim/ray_caster.h"

namespace lt {

namespace {

using physics::Vec3;

Vec3<double> Vertex(const std::vector<std::array<double, 3>>& vertices, uint32_t i) {
  const auto& v = vertices[i];
  return {v[0], v[1], v[2]};
}

class EmbreeRayCaster final : public RayCaster {
 public:
  explicit EmbreeRayCaster(const Scene& scene) : scene_(scene) {
    device_ = rtcNewDevice(nullptr);
    LT_CHECK(device_ != nullptr);
    rtc_scene_ = rtcNewScene(device_);
    // Robust: watertight traversal, no rays slipping between triangles sharing an edge.
    rtcSetSceneFlags(rtc_scene_, RTC_SCENE_FLAG_ROBUST);
    rtcSetSceneBuildQuality(rtc_scene_, RTC_BUILD_QUALITY_HIGH);
    vertex_buffers_.resize(scene.objects.size());
    moved_.resize(scene.objects.size());
    for (size_t o = 0; o < scene.objects.size(); ++o) {
      const TriangleMesh& mesh = scene.objects[o].mesh;
      RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
      // Moving objects are refitted each time they move, not rebuilt.
      if (scene.objects[o].motion.moving()) rtcSetGeometryBuildQuality(g, RTC_BUILD_QUALITY_REFIT);
      auto* vb = static_cast<float*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0,
                                                             RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                                             mesh.vertices.size()));
      auto* ib = static_cast<unsigned*>(
          rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                  3 * sizeof(unsigned), mesh.triangles.size()));
      if (!vb || !ib) {  // out of memory: the caller reports it (RayCaster::Create)
        rtcReleaseGeometry(g);
        built_ = false;
        return;
      }
      vertex_buffers_[o] = vb;
      for (size_t i = 0; i < mesh.vertices.size(); ++i) {
        for (int k = 0; k < 3; ++k)
          vb[3 * i + k] = static_cast<float>(mesh.vertices[i][k]);
      }
      for (size_t t = 0; t < mesh.triangles.size(); ++t) {
        for (int k = 0; k < 3; ++k)
          ib[3 * t + k] = mesh.triangles[t][k];
      }
      rtcCommitGeometry(g);
      rtcAttachGeometryByID(rtc_scene_, g, static_cast<unsigned>(o));
      rtcReleaseGeometry(g);
    }
    rtcCommitScene(rtc_scene_);
    built_ = rtcGetDeviceError(device_) == RTC_ERROR_NONE;
  }
  bool built() const { return built_; }

  ~EmbreeRayCaster() override {
    rtcReleaseScene(rtc_scene_);
    rtcReleaseDevice(device_);
  }

  void MoveObject(uint32_t object, std::vector<std::array<double, 3>> world_vertices) override {
    LT_CHECK(object < moved_.size() &&
             world_vertices.size() == scene_.objects[object].mesh.vertices.size());
    float* vb = vertex_buffers_[object];
    for (size_t i = 0; i < world_vertices.size(); ++i) {
      for (int k = 0; k < 3; ++k)
        vb[3 * i + k] = static_cast<float>(world_vertices[i][k]);
    }
    moved_[object] = std::move(world_vertices);
    RTCGeometry g = rtcGetGeometry(rtc_scene_, object);
    rtcUpdateGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcCommitGeometry(g);
  }

  void Commit() override { rtcCommitScene(rtc_scene_); }

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
    rtcIntersect1(rtc_scene_, &context, &rh);
    return Refine(rh.hit.geomID, rh.hit.primID, origin, dir, t_min, t_max);
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
      rtcIntersect8(valid, rtc_scene_, &context, &rh);
      for (int k = 0; k < kPacket && first + k < n; ++k) {
        const RayQuery& q = queries[first + k];
        hits[first + k] = Refine(rh.hit.geomID[k], rh.hit.primID[k], q.origin, q.unit_direction,
                                 q.t_min, q.t_max);
      }
    }
  }

 private:
  // Embree's float hit (geometry, primitive) as a RayHit: distance and normal recomputed in
  // double on the triangle's plane (ADR 0002).
  RayHit Refine(unsigned geometry, unsigned primitive, const Vec3<double>& origin,
                const Vec3<double>& dir, double t_min, double t_max) const {
    RayHit hit;
    if (geometry == RTC_INVALID_GEOMETRY_ID) return hit;
    const TriangleMesh& mesh = scene_.objects[geometry].mesh;
    const auto& tri = mesh.triangles[primitive];
    const auto& v = moved_[geometry].empty() ? mesh.vertices : moved_[geometry];
    const Vec3<double> a = Vertex(v, tri[0]);
    const Vec3<double> n =
        physics::Normalized(physics::Cross(Vertex(v, tri[1]) - a, Vertex(v, tri[2]) - a));
    const double t = physics::RayPlaneDistance(origin, dir, a, n);
    // The refined distance must honour the query interval like Embree's float one did.
    if (!(t >= t_min && t <= t_max)) return hit;
    hit.hit = true;
    hit.distance_m = t;
    hit.object = geometry;
    hit.triangle = primitive;
    hit.normal = n;
    return hit;
  }

  const Scene& scene_;
  RTCDevice device_ = nullptr;
  RTCScene rtc_scene_ = nullptr;
  bool built_ = true;
  std::vector<float*> vertex_buffers_;                     // Embree's, per object
  std::vector<std::vector<std::array<double, 3>>> moved_;  // moved objects' vertices
};

}  // namespace

std::unique_ptr<RayCaster> RayCaster::Create(const Scene& scene) {
  auto caster = std::make_unique<EmbreeRayCaster>(scene);
  if (!caster->built()) return nullptr;
  return caster;
}

}  // namespace lt
