// The CPU backend's trace-ahead (cpu/prefetched_hits.h): beams simulated with the prefetched
// packet hits and the setup the prefetch computed are bit for bit the beams simulated one ray
// at a time from scratch, and the prefetch answers the queries it should (all of a single-hit
// beam's, a threshold sub-ray's first surface).
#include "cpu/prefetched_hits.h"

#include <gtest/gtest.h>

#include <cstring>

#include "cpu/cpu_simulator.h"
#include "expect_same_frames.h"
#include "internal/frame_setup.h"
#include "lidartwin/sim/scene.h"
#include "lidartwin/sim/sensor_profile.h"
#include "lidartwin/sim/trajectory.h"
#include "test_support.h"

namespace lt {
namespace {

struct Counts {
  uint64_t ahead = 0, alone = 0, queries = 0;
};

// Every `stride`-th beam of one frame, simulated both ways; the records must be identical.
Counts ExpectSameBeams(const Scene& scene, const SensorProfile& profile, uint32_t stride) {
  const Trajectory still = Trajectory::Static();
  const std::vector<ObjectInfo> objects = ObjectInfos(scene, profile.wavelength_nm);
  const FrameContext c = CpuFrameContext(profile, still, objects, 7, 0);
  const auto caster = RayCaster::Create(scene);
  EXPECT_TRUE(caster);
  if (!caster) return {};
  PrefetchedHits ahead(*caster, profile.footprint.sub_rays);
  const uint32_t k = c.echoes_per_beam;
  std::vector<BeamRecord> direct(k), prefetched(k);
  Counts counts;
  const uint32_t beams = profile.BeamCount();
  for (uint32_t b = 0; b < beams; b += 64 * stride) {
    const uint32_t e = std::min(beams, b + 64 * stride);
    ahead.Prefetch(c, b, e);
    for (uint32_t i = b; i < e; i += stride) {
      SimulateBeam(
          c, i,
          [&](const physics::Vec3<double>& o, const physics::Vec3<double>& d, double t0,
              double t1) {
            ++counts.queries;
            return ToSurfaceHit(caster->Closest(o, d, t0, t1));
          },
          direct.data());
      // With the setup the prefetch computed (the CPU backend's way), not computed again.
      const BeamSetup* setup = ahead.Setup(i);
      EXPECT_TRUE(setup != nullptr || c.signal.raster_gather) << "beam " << i;
      SimulateBeam(
          c, i,
          [&](const physics::Vec3<double>& o, const physics::Vec3<double>& d, double t0,
              double t1) { return ToSurfaceHit(ahead.Closest(i, o, d, t0, t1)); },
          prefetched.data(), nullptr, setup);
      EXPECT_EQ(std::memcmp(direct.data(), prefetched.data(), k * sizeof(BeamRecord)), 0)
          << "beam " << i;
    }
  }
  counts.ahead = ahead.answered_ahead();
  counts.alone = ahead.traced_alone();
  return counts;
}

TEST(PrefetchedHits, SameBeamsAsOneRayAtATimeForEachDetector) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  auto os0 = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(os0.ok()) << os0.message();
  // Capability detector, one sub-ray: every query foreseen.
  Counts c = ExpectSameBeams(*scene, *os0, 7);
  EXPECT_EQ(c.alone, 0u);
  EXPECT_EQ(c.ahead, c.queries);
  EXPECT_GT(c.ahead, 5000u);
  // Eight averaged sub-rays, and one drawn of eight.
  SensorProfile eight = *os0;
  eight.footprint.sub_rays = 8;
  eight.footprint.half_angle_rad = 1.5e-3;
  for (auto mode : {physics::DivergenceMode::kAverage, physics::DivergenceMode::kRandomSelection}) {
    eight.footprint.mode = mode;
    c = ExpectSameBeams(*scene, eight, 13);
    EXPECT_EQ(c.alone, 0u);
    EXPECT_EQ(c.ahead, c.queries);
  }
  // Threshold detector: the surfaces past glass are asked on their own.
  auto threshold = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(threshold.ok()) << threshold.message();
  c = ExpectSameBeams(*scene, *threshold, 11);
  EXPECT_GT(c.ahead, c.queries / 2);
  EXPECT_EQ(c.ahead + c.alone, c.queries);
}

// Coincident surfaces (a plate duplicated as another object): which of the two a packet reports
// may depend on the packet's other rays, so the packets must not depend on the thread count.
TEST(PrefetchedHits, FramesDoNotDependOnTheThreadCountWithCoincidentSurfaces) {
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  const size_t objects = scene->objects.size();
  for (size_t o = 0; o < objects; ++o) {
    SceneObject twin = scene->objects[o];
    twin.name += "_twin";
    twin.instance_id += 1000;
    scene->objects.push_back(twin);
  }
  auto os0 = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(os0.ok()) << os0.message();
  const Trajectory still = Trajectory::Static();
  std::vector<Frame> frames;
  for (unsigned threads : {1u, 2u, 3u}) {
    auto f = CpuSimulator(*scene, *os0, still, {5, threads}).Simulate(0);
    ASSERT_TRUE(f.ok()) << f.message();
    frames.push_back(std::move(*f));
  }
  ASSERT_GT(frames[0].size(), 1000u);
  for (size_t t = 1; t < frames.size(); ++t)
    test::ExpectSameFrames(frames[0], frames[t], std::to_string(t + 1) + " threads");
}

}  // namespace
}  // namespace lt
