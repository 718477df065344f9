#include "lidartwin/datasets/visibility_carving.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <thread>

#include "lidartwin/sim/ray_caster.h"

namespace lt {

using physics::Vec3;

Expected<VisibilityCarvingSummary> CarveSeenThrough(ReconstructedSurface& surface,
                                                    const PosedFrames& frames,
                                                    const VisibilityCarvingOptions& o) {
  VisibilityCarvingSummary summary;
  if (surface.triangles.empty()) return summary;
  Scene scene;
  SceneObject& object = scene.objects.emplace_back();
  object.name = "reconstruction";
  object.type = "mesh";
  object.mesh.vertices = surface.vertices;
  object.mesh.triangles = surface.triangles;
  const auto caster = RayCaster::Create(scene);
  if (!caster)
    return Error{fmt::format("visibility carving: Embree cannot hold {} triangles (out of memory)",
                             surface.triangles.size())};
  const double cos_max = std::cos(o.max_incidence_deg * std::numbers::pi / 180);
  constexpr int kMaxCrossingsPerRay = 16;  // a ray through more layers than this is an outlier
  std::vector<std::atomic<uint16_t>> votes(surface.triangles.size());
  std::atomic<size_t> rays{0}, crossings{0};
  // The rays of one frame, split over the machine's threads (Closest is thread-safe).
  for (size_t k = 0; k < frames.frames.size(); ++k) {
    const Frame& f = frames.frames[k];
    const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    auto work = [&](unsigned part) {
      size_t my_rays = 0, my_crossings = 0;
      for (size_t i = part; i < f.size(); i += threads) {
        const double r = f.range_m[i];
        if (!(r >= o.min_range_m && r <= o.max_range_m)) continue;
        const Vec3<double> p{f.x_m[i], f.y_m[i], f.z_m[i]};
        const double norm = std::sqrt(Dot(p, p));
        if (!std::isfinite(norm) || !(norm > 0)) continue;
        const auto pose = PoseOfPoint(frames, k, i);
        const Vec3<double> dir = physics::Rotate(pose.rotation, (1.0 / norm) * p);
        const double stop = norm - o.margin_m - o.margin_fraction * norm;
        ++my_rays;
        double t = o.min_range_m;
        for (int n = 0; n < kMaxCrossingsPerRay && t < stop; ++n) {
          const RayHit hit = caster->Closest(pose.translation, dir, t, stop);
          if (!hit.hit) break;
          if (std::fabs(Dot(hit.normal, dir)) >= cos_max) {
            uint16_t v = votes[hit.triangle].load(std::memory_order_relaxed);
            while (v < UINT16_MAX && !votes[hit.triangle].compare_exchange_weak(v, v + 1)) {
            }
            ++my_crossings;
          }
          t = hit.distance_m + 1e-4;  // on to the next layer
        }
      }
      rays += my_rays;
      crossings += my_crossings;
    };
    std::vector<std::thread> pool;
    for (unsigned part = 1; part < threads; ++part)
      pool.emplace_back(work, part);
    work(0);
    for (auto& t : pool)
      t.join();
  }
  summary.rays = rays;
  summary.crossings = crossings;
  size_t kept = 0;
  for (size_t t = 0; t < surface.triangles.size(); ++t) {
    if (votes[t].load() >= o.min_votes) continue;
    surface.triangles[kept] = surface.triangles[t];
    surface.triangle_reflectance[kept] = surface.triangle_reflectance[t];
    ++kept;
  }
  summary.triangles_removed = surface.triangles.size() - kept;
  surface.triangles.resize(kept);
  surface.triangle_reflectance.resize(kept);
  return summary;
}

}  // namespace lt
