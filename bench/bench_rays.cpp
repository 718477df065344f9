#include "lidartwin/bench/bench_rays.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "lidartwin/bench/embree_peer.h"
#include "lidartwin/physics/scan_pattern.h"
#if LT_WITH_CUDA
#include "lidartwin/bench/gpu_binned_sah.h"
#include "lidartwin/sim/cuda_backend.h"
#endif

namespace lt::bench {
namespace {

using physics::Vec3;

// Embree closest hits as the CPU backend asks for them: in batches of its prefetch block
// (256 beams of 8 sub-rays) through RayCaster::ClosestBatch (8-wide packets, ROBUST scene, the
// distance refined in double), on `threads` threads; rays per second (median of 3).
double EmbreeRaysPerS(const RayCaster& caster, const Rays& rays, unsigned threads, uint64_t& hits) {
  constexpr size_t kBatch = 256 * 8;
  std::vector<double> seconds;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<uint64_t> h(threads, 0);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    const size_t n = rays.size();
    for (unsigned k = 0; k < threads; ++k) {
      pool.emplace_back([&, k] {
        std::vector<RayQuery> queries;
        std::vector<RayHit> out;
        const size_t end = (k + 1) * n / threads;
        for (size_t b = k * n / threads; b < end; b += kBatch) {
          queries.clear();
          for (size_t i = b; i < std::min(end, b + kBatch); ++i) {
            queries.push_back(
                {{rays.origins[3 * i], rays.origins[3 * i + 1], rays.origins[3 * i + 2]},
                 {rays.directions[3 * i], rays.directions[3 * i + 1], rays.directions[3 * i + 2]},
                 1e-4,
                 1e30});
          }
          out.resize(queries.size());
          caster.ClosestBatch(queries.data(), queries.size(), out.data());
          for (const RayHit& r : out)
            h[k] += r.hit;
        }
      });
    }
    for (auto& t : pool)
      t.join();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    hits = 0;
    for (uint64_t v : h)
      hits += v;
  }
  return rays.size() / Median(seconds);
}

}  // namespace

void Rays::Add(const Vec3<double>& o, const Vec3<double>& d) {
  origins.insert(origins.end(),
                 {static_cast<float>(o.x), static_cast<float>(o.y), static_cast<float>(o.z)});
  directions.insert(directions.end(),
                    {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)});
}

Rays CoherentRays(const SensorProfile& profile, const Vec3<double>& origin) {
  Rays r;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> jitter(-0.0016, 0.0016);
  for (uint32_t i = 0; i < profile.BeamCount(); ++i) {
    const auto b = profile.Beam(i);
    for (int s = 0; s < 8; ++s) {
      r.Add(origin,
            physics::BeamDirection(b.azimuth_rad + jitter(rng), b.elevation_rad + jitter(rng)));
    }
  }
  return r;
}

Rays RandomRays(const double lo[3], const double hi[3], size_t n) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> x(lo[0], hi[0]), y(lo[1], hi[1]), z(lo[2], hi[2]),
      u(-1, 1);
  Rays r;
  for (size_t i = 0; i < n; ++i) {
    Vec3<double> d{u(rng), u(rng), u(rng)};
    while (physics::Norm(d) < 1e-3)
      d = {u(rng), u(rng), u(rng)};
    r.Add({x(rng), y(rng), z(rng)}, physics::Normalized(d));
  }
  return r;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Status MeasureRays(const std::vector<float>& soup, const Rays& rays, const RayCaster* caster,
                   bool coherent, int repeats, unsigned threads, RayFigures& figures,
                   double* lbvh_rays_per_s, double* sah_rays_per_s) {
  figures.rays = rays.size();
  std::vector<int32_t> gpu_triangle;
#if LT_WITH_CUDA
  if (CudaAvailable().ok()) {
    // The PLOC tree, as the simulator builds it, is the figure; the LBVH tree's beside it.
    auto r = CudaClosestHits(soup, rays.origins, rays.directions, 1e-4f, 1e30f, repeats,
                             GpuBvhBuilder::kPloc);
    if (!r.ok()) return r.error();
    figures.gpu_rays_per_s = rays.size() / (r->trace_ms * 1e-3);
    figures.gpu_hits =
        std::count_if(r->triangle.begin(), r->triangle.end(), [](int32_t t) { return t >= 0; });
    gpu_triangle = std::move(r->triangle);
    auto l = CudaClosestHits(soup, rays.origins, rays.directions, 1e-4f, 1e30f, repeats,
                             GpuBvhBuilder::kLbvh);
    if (!l.ok()) return l.error();
    if (lbvh_rays_per_s) *lbvh_rays_per_s = rays.size() / (l->trace_ms * 1e-3);
    if (sah_rays_per_s) {
      auto b = CudaClosestHits(soup, rays.origins, rays.directions, 1e-4f, 1e30f, repeats,
                               GpuBinnedSahBuild());
      if (!b.ok()) return b.error();
      for (size_t i = 0; i < gpu_triangle.size(); ++i)
        figures.gpu_trees_differ += b->triangle[i] != gpu_triangle[i];
      *sah_rays_per_s = rays.size() / (b->trace_ms * 1e-3);
    }
  }
#endif
  if (!caster) return {};  // --no-embree
  figures.embree_rays_per_s = EmbreeRaysPerS(*caster, rays, threads, figures.embree_hits);
  auto best = EmbreePacketClosestHits(soup, rays.origins, rays.directions, 1e-4f, 1e30f, coherent,
                                      threads, 3);
  if (!best.ok()) return best.error();
  figures.embree_best_rays_per_s = best->rays_per_s;
  figures.embree_best_hits = best->hits;
  for (size_t i = 0; i < gpu_triangle.size(); ++i)
    figures.gpu_embree_best_same += best->triangle[i] == gpu_triangle[i];
  return {};
}

}  // namespace lt::bench
