#include <algorithm>
#include <chrono>

#include "lidartwin/bench/cpu_bench.h"
#include "lidartwin/sim/simulator.h"

namespace lt::bench {

CpuBenchResult RunCpuBench(const Scene& scene, const SensorProfile& profile, unsigned threads,
                           uint32_t repeats) {
  const Trajectory trajectory = Trajectory::Static();
  auto created = CreateSimulator(Backend::kCpu, scene, profile, trajectory, {0, threads});
  LT_CHECK(created.ok());  // the CPU backend has no failure modes at creation
  Simulator& sim = **created;
  CpuBenchResult r;
  r.threads = threads;
  r.repeats = repeats;
  r.rays_per_frame = sim.RaysPerFrame();
  r.points_per_frame = sim.Simulate(0)->size();  // warm-up (caches, page faults)
  std::vector<double> ms;
  for (uint32_t k = 0; k < repeats; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto f = sim.Simulate(k);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  r.frame_ms_min = ms.front();
  r.frame_ms_median = ms[ms.size() / 2];
  r.rays_per_s = r.rays_per_frame / (r.frame_ms_median * 1e-3);
  r.points_per_s = r.points_per_frame / (r.frame_ms_median * 1e-3);
  return r;
}

}  // namespace lt::bench
