#include "lidartwin/bench/embree_peer.h"

#include "lidartwin/sim/embree_packet.h"

#include <embree3/rtcore.h>
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace lt::bench {
namespace {

constexpr int kPacket = 8;  // rtcIntersect8: AVX2's width, which every x86-64 host we use has

// Owns an Embree device and scene built from a triangle soup.
class PeerScene {
 public:
  explicit PeerScene(const std::vector<float>& soup) {
    device_ = rtcNewDevice(nullptr);
    if (!device_) return;
    scene_ = rtcNewScene(device_);
    // High quality (SAH with spatial splits where they pay) and no robust flag: Embree as a
    // renderer would configure it for speed.
    rtcSetSceneBuildQuality(scene_, RTC_BUILD_QUALITY_HIGH);
    RTCGeometry g = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    rtcSetGeometryBuildQuality(g, RTC_BUILD_QUALITY_HIGH);
    const size_t triangles = soup.size() / 9;
    auto* vb = static_cast<float*>(rtcSetNewGeometryBuffer(
        g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), 3 * triangles));
    auto* ib = static_cast<unsigned*>(rtcSetNewGeometryBuffer(
        g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned), triangles));
    if (!vb || !ib) {
      rtcReleaseGeometry(g);
      return;
    }
    std::copy(soup.begin(), soup.end(), vb);
    for (unsigned i = 0; i < 3 * triangles; ++i)
      ib[i] = i;
    rtcCommitGeometry(g);
    rtcAttachGeometry(scene_, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(scene_);
    ok_ = rtcGetDeviceError(device_) == RTC_ERROR_NONE;
  }
  ~PeerScene() {
    if (scene_) rtcReleaseScene(scene_);
    if (device_) rtcReleaseDevice(device_);
  }
  PeerScene(const PeerScene&) = delete;
  PeerScene& operator=(const PeerScene&) = delete;
  bool ok() const { return ok_; }
  RTCScene scene() const { return scene_; }

 private:
  RTCDevice device_ = nullptr;
  RTCScene scene_ = nullptr;
  bool ok_ = false;
};

// Rays [begin, end) in packets of 8 (the last one masked).
void TracePackets(RTCScene scene, const std::vector<float>& o, const std::vector<float>& d,
                  float t_min, float t_max, bool coherent, size_t begin, size_t end,
                  EmbreePeerHits& out) {
  RTCIntersectContext context;
  rtcInitIntersectContext(&context);
  context.flags =
      coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
  alignas(32) RTCRayHit8 rh;
  alignas(32) int valid[kPacket];
  for (size_t first = begin; first < end; first += kPacket) {
    for (int k = 0; k < kPacket; ++k) {
      const size_t i = first + k;
      valid[k] = i < end ? -1 : 0;
      const size_t r = i < end ? i : first;  // masked lanes repeat a valid ray
      SetPacketLane(rh, k, o[3 * r], o[3 * r + 1], o[3 * r + 2], d[3 * r], d[3 * r + 1],
                    d[3 * r + 2], t_min, t_max);
    }
    rtcIntersect8(valid, scene, &context, &rh);
    for (int k = 0; k < kPacket && first + k < end; ++k) {
      const bool hit = rh.hit.geomID[k] != RTC_INVALID_GEOMETRY_ID;
      out.triangle[first + k] = hit ? static_cast<int32_t>(rh.hit.primID[k]) : -1;
      out.distance[first + k] = hit ? rh.ray.tfar[k] : 0.0f;
    }
  }
}

}  // namespace

Expected<EmbreePeerHits> EmbreePacketClosestHits(const std::vector<float>& soup,
                                                 const std::vector<float>& origins,
                                                 const std::vector<float>& directions, float t_min,
                                                 float t_max, bool coherent, unsigned threads,
                                                 int repeats) {
  if (soup.size() % 9 != 0 || origins.size() % 3 != 0 || origins.size() != directions.size())
    return Error{"Embree peer: a soup of 9 floats a triangle and rays of 3 floats each"};
  const PeerScene peer(soup);
  if (!peer.ok()) return Error{"Embree peer: the scene could not be built (out of memory?)"};
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const size_t n = origins.size() / 3;
  EmbreePeerHits out;
  out.triangle.assign(n, -1);
  out.distance.assign(n, 0.0f);
  std::vector<double> seconds;
  for (int rep = 0; rep < std::max(1, repeats); ++rep) {
    // Packets are handed out in blocks of 64 rays, so threads stay busy to the end.
    constexpr size_t kBlock = 64;
    std::atomic<size_t> next{0};
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned k = 0; k < threads; ++k)
      pool.emplace_back([&] {
        for (size_t b = next.fetch_add(kBlock); b < n; b = next.fetch_add(kBlock))
          TracePackets(peer.scene(), origins, directions, t_min, t_max, coherent, b,
                       std::min(n, b + kBlock), out);
      });
    for (auto& t : pool)
      t.join();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  out.rays_per_s = n / seconds[seconds.size() / 2];
  out.hits =
      std::count_if(out.triangle.begin(), out.triangle.end(), [](int32_t t) { return t >= 0; });
  return out;
}

}  // namespace lt::bench
