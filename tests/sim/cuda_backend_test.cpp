// CPU-vs-CUDA parity and GPU BVH correctness (label gpu: run on a machine with an NVIDIA GPU;
// CI has none, excludes the label, and each test also skips with a message without a GPU).
//
// Tolerances, and why:
// - Which triangle a ray hits is decided in single precision on both sides (Embree on the
//   CPU, our LBVH traversal on the GPU). Rays within float rounding of a shared edge may go
//   either way: such beams are counted and must stay below 1e-5 of all beams.
// - Ranges: both backends refine the hit in double on the hit triangle's plane with the same
//   code (ray_triangle.h), so they differ by double rounding (FMA contraction by nvcc), then
//   both round to float: at most 1 float ulp of the range, 4e-6 m at 50 m; we allow 1e-5 m.
// - A range quantised to the profile's range resolution (the OS0-128's 1 mm) whose value lies
//   on a step may round either way when the two sides' values differ by an ulp: one step, for
//   at most 1 echo in 20,000 (one in 83,685 on the street of instances).
// - Noise: the same Philox draws on both; Box-Muller's log and cos in CUDA's libdevice are
//   within 2 ulp of glibc's, far below the float storage of the range.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <limits>
#include <map>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "cpu/cpu_simulator.h"
#include "lidartwin/physics/ray_triangle.h"
#include "lidartwin/sim/cuda_backend.h"
#include "sim/echo_pairs.h"
#include "sim/expect_same_frames.h"
#include "sim/gpu_bvh_checks.h"
#include "sim/require_gpu.h"
#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::Vec3;

struct Parity {
  size_t beams = 0, both = 0, hit_mismatch = 0, label_mismatch = 0;
  double max_range_diff = 0;
};

Parity Compare(const Frame& cpu, const Frame& gpu, uint32_t beams) {
  Parity p;
  p.beams = beams;
  std::vector<int64_t> at_cpu(beams, -1), at_gpu(beams, -1);
  for (size_t k = 0; k < cpu.size(); ++k)
    at_cpu[cpu.beam_id[k]] = static_cast<int64_t>(k);
  for (size_t k = 0; k < gpu.size(); ++k)
    at_gpu[gpu.beam_id[k]] = static_cast<int64_t>(k);
  for (uint32_t i = 0; i < beams; ++i) {
    const int64_t a = at_cpu[i], b = at_gpu[i];
    if ((a < 0) != (b < 0)) {
      if (++p.hit_mismatch <= 5) {
        std::printf(
            "[mismatch] beam %u: cpu %s (range %.7f, instance %u), gpu %s (range %.7f, "
            "instance %u)\n",
            i, a < 0 ? "miss" : "hit", a < 0 ? 0.0 : cpu.range_m[a],
            a < 0 ? 0u : cpu.instance_id[a], b < 0 ? "miss" : "hit", b < 0 ? 0.0 : gpu.range_m[b],
            b < 0 ? 0u : gpu.instance_id[b]);
      }
      continue;
    }
    if (a < 0) continue;
    // A beam on an edge between two objects may pick either; count it as a hit mismatch.
    if (cpu.instance_id[a] != gpu.instance_id[b] ||
        cpu.semantic_class[a] != gpu.semantic_class[b] ||
        cpu.material_id[a] != gpu.material_id[b]) {
      ++p.label_mismatch;
      continue;
    }
    ++p.both;
    p.max_range_diff =
        std::max(p.max_range_diff, static_cast<double>(std::abs(cpu.range_m[a] - gpu.range_m[b])));
    // The GPU writes a spinning scan's times with its product rounded alone (frame_columns.h),
    // the host any other scan's: the same bits.
    EXPECT_EQ(cpu.timestamp_s[a], gpu.timestamp_s[b]);
    EXPECT_EQ(cpu.channel[a], gpu.channel[b]);
    EXPECT_EQ(cpu.column[a], gpu.column[b]);
  }
  return p;
}

void ExpectParity(const Scene& scene, const SensorProfile& profile, const Trajectory& traj,
                  uint32_t frames, uint64_t seed, SimulationOptions gpu_options = {}) {
  CpuSimulator cpu(scene, profile, traj, {seed, 0});
  gpu_options.seed = seed;
  auto gpu = CudaSimulator::Create(scene, profile, traj, gpu_options);
  ASSERT_TRUE(gpu.ok()) << gpu.message();
  for (uint32_t f = 0; f < frames; ++f) {
    std::printf("[parity] %s frame %u: simulating\n", profile.name.c_str(), f);
    std::fflush(stdout);
    const Frame a = cpu.Simulate(f).value();
    auto b = (*gpu)->Simulate(f);
    ASSERT_TRUE(b.ok()) << b.message();
    const Parity p = Compare(a, b.value(), profile.BeamCount());
    ASSERT_GT(p.both, 1000u);
    EXPECT_LE(p.hit_mismatch + p.label_mismatch, std::max<size_t>(1, p.beams / 100000))
        << profile.name << " frame " << f << ": " << p.hit_mismatch << " hit/miss and "
        << p.label_mismatch << " label disagreements of " << p.beams << " beams";
    EXPECT_LE(p.max_range_diff, 1e-5) << profile.name;
    std::printf(
        "[parity] %s frame %u: %zu beams, %zu agree, %zu hit/miss + %zu label "
        "disagreements, max |range diff| %.3g m\n",
        profile.name.c_str(), f, p.beams, p.both, p.hit_mismatch, p.label_mismatch,
        p.max_range_diff);
  }
}

TEST(CudaBackend, MatchesCpuOnTheLabSceneForEveryShippedSensor) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  for (const char* name :
       {"ouster_os0_128.yaml", "velodyne_vlp16.yaml", "blickfeld_cube1_ideal.yaml",
        "mems_lissajous_example.yaml", "custom_laserconfig.yaml"}) {
    auto profile = LoadSensorProfile(test::ConfigDir() / "sensors" / name);
    ASSERT_TRUE(profile.ok()) << profile.message();
    ExpectParity(scene.value(), profile.value(), Trajectory::Static(), 2, 5);
  }
  // Tier 2: 8 sub-rays in a 3 mrad cone, both output modes.
  auto os0 = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(os0.ok());
  // Beams off the head's axis (Ouster's 27 mm lidar_origin_to_beam_origin): each beam's own
  // origin and range on both backends, the same tolerances.
  SensorProfile off_axis = os0.value();
  off_axis.beam_origin_radius_m = 0.02767;
  off_axis.range_offset_m = 0.02767;
  off_axis.name += "+beams 27.67 mm off the axis";
  ExpectParity(scene.value(), off_axis, Trajectory::Static(), 1, 5);
  for (auto mode : {physics::DivergenceMode::kAverage, physics::DivergenceMode::kRandomSelection}) {
    SensorProfile p = os0.value();
    p.footprint.sub_rays = 8;
    p.footprint.half_angle_rad = 1.5e-3;
    p.footprint.mode = mode;
    p.name += mode == physics::DivergenceMode::kAverage ? "+8 averaged sub-rays"
                                                        : "+8 sub-rays, random selection";
    ExpectParity(scene.value(), p, Trajectory::Static(), 1, 5);
  }
}

// Tiers 2-5: every echo of every beam, CPU against CUDA, on the lab scene with its
// retroreflective sign and glass pane. Tolerances: contributions are summed in the same order
// from the same float ranges and powers, but nvcc's exp/log/sqrt in double and its FMA
// contraction differ from glibc's by an ulp or two, and the bisection and golden-section
// searches amplify that to about 1e-9 m; a beam whose echo sits within that of the threshold
// may have an echo on one side only (allowed: 1 in 10,000 beams).
void ExpectThresholdParity(const Scene& scene, const SensorProfile& profile, uint64_t seed) {
  const Trajectory traj = Trajectory::Static();  // outlives both simulators
  auto cpu = CreateSimulator(Backend::kCpu, scene, profile, traj, {seed, 0});
  auto gpu = CreateSimulator(Backend::kCuda, scene, profile, traj, {seed, 0});
  ASSERT_TRUE(cpu.ok() && gpu.ok()) << gpu.message();
  const Frame a = (*cpu)->Simulate(0).value();
  auto b = (*gpu)->Simulate(0);
  ASSERT_TRUE(b.ok()) << b.message();
  const test::EchoPairs echo_pairs = test::PairEchoes(a, *b);
  const size_t matched = echo_pairs.pairs.size(), missing = echo_pairs.only_a;
  size_t second_echoes = 0;
  double max_range = 0, max_intensity_rel = 0, max_epw = 0;
  // A range whose unquantised value lies on a step of the profile's range resolution may round
  // either way (the pulse's threshold crossing goes through libdevice's exp on the GPU, glibc's
  // on the CPU, each within 2 ulp): one step, for at most 1 echo in 20,000.
  const double step = profile.detector.range_resolution_m;
  size_t step_flips = 0;
  for (const auto& [k, g] : echo_pairs.pairs) {
    second_echoes += a.return_index[k] > 0;
    EXPECT_EQ(a.return_index[k], b->return_index[g]);
    EXPECT_EQ(a.return_type[k], b->return_type[g]);
    EXPECT_EQ(a.instance_id[k], b->instance_id[g]);
    const double diff = std::abs(double(a.range_m[k]) - double(b->range_m[g]));
    if (step > 0 && std::abs(diff - step) <= 1e-5) {
      ++step_flips;
    } else {
      max_range = std::max(max_range, diff);
    }
    max_intensity_rel = std::max(
        max_intensity_rel, double(std::abs(a.intensity[k] - b->intensity[g]) / a.intensity[k]));
    max_epw =
        std::max(max_epw, double(std::abs(a.echo_pulse_width_ns[k] - b->echo_pulse_width_ns[g])));
  }
  const size_t extra = echo_pairs.only_b;
  std::printf(
      "[parity] %s threshold: %zu echoes on the CPU, %zu on CUDA, %zu matched (%zu later echoes), "
      "%zu only CPU, %zu only CUDA; max |range diff| %.3g m, intensity %.3g (rel), EPW %.3g ns\n",
      profile.name.c_str(), a.size(), b->size(), matched, second_echoes, missing, extra, max_range,
      max_intensity_rel, max_epw);
  ASSERT_GT(matched, 500u);
  EXPECT_LE(step_flips, std::max<size_t>(1, matched / 20000)) << "ranges a resolution step apart";
  if (step_flips > 0) std::printf("[parity] %zu ranges one resolution step apart\n", step_flips);
  EXPECT_LE(missing + extra, std::max<size_t>(1, profile.BeamCount() / 10000));
  EXPECT_LE(max_range, 1e-5);  // one float ulp of a 100 m range is 7.6e-6 m
  EXPECT_LE(max_intensity_rel, 1e-5);
  EXPECT_LE(max_epw, 1e-3);
  // Same seed, same bytes on the GPU too.
  auto again = (*gpu)->Simulate(0);
  EXPECT_EQ(again->range_m, b->range_m);
  EXPECT_EQ(again->intensity, b->intensity);
}

TEST(CudaBackend, ThresholdDetectorMatchesCpuForEveryFootprint) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  auto os0 = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(os0.ok()) << os0.message();
  ExpectThresholdParity(scene.value(), os0.value(), 3);
  // Three-spot Gaussian (Cube 1) and a tabulated kernel with a 1e-4 halo, importance-sampled.
  auto cube = LoadSensorProfile(test::ConfigDir() / "sensors/blickfeld_cube1.yaml");
  ASSERT_TRUE(cube.ok()) << cube.message();
  SensorProfile c = cube.value();
  c.detector = os0->detector;
  c.name += " (threshold)";
  ExpectThresholdParity(scene.value(), c, 4);
  SensorProfile t = os0.value();
  KernelTable k;
  for (int i = 0; i < 33; ++i) {
    k.h_mrad.push_back(-16 + i);
    k.v_mrad.push_back(-16 + i);
  }
  for (double v : k.v_mrad)
    for (double h : k.h_mrad)
      k.value.push_back(std::exp(-(h * h + v * v) / 4) + 1e-4);
  t.kernel = PrepareKernelSampling(k, 0.5);
  t.footprint.kind = physics::FootprintKind::kTable;
  t.footprint.sub_rays = 32;
  t.name += " (33 x 33 table kernel with a 1e-4 halo, 32 sub-rays)";
  ExpectThresholdParity(scene.value(), t, 5);
  // Raster gathering (seed 004 Alg. 1): the raster traced on each backend, the beams gathered
  // from it; the Cube 1 with seed 004's kernel, and the OS0-128 round the full circle.
  auto cube_table = LoadSensorProfile(test::ConfigDir() / "sensors/blickfeld_cube1_threshold.yaml");
  ASSERT_TRUE(cube_table.ok()) << cube_table.message();
  SensorProfile r = cube_table.value();
  r.raster_gather = true;
  r.raster_resolution_rad = 0.25e-3;
  r.name += " (raster gather)";
  ExpectThresholdParity(scene.value(), r, 6);
  SensorProfile o = os0.value();
  o.raster_gather = true;
  o.name += " (raster gather, 1 mrad)";
  ExpectThresholdParity(scene.value(), o, 7);
  // Receiver noise, pulse-energy jitter and a near-field overlap (issue 10): the same draws
  // on both backends, so the same echoes detected.
  SensorProfile n = os0.value();
  n.detector.signal_noise_w = n.detector.threshold_w / 4;
  n.detector.pulse_energy_jitter = 0.05;
  n.detector.overlap = {3.0, 2.0};
  n.name += " (receiver noise, pulse jitter, overlap)";
  ExpectThresholdParity(scene.value(), n, 8);
  // Beams off the head's axis: each echo from its beam's own origin, its range counting it.
  SensorProfile a = os0.value();
  a.beam_origin_radius_m = 0.02767;
  a.range_offset_m = 0.02767;
  a.name += " (beams 27.67 mm off the axis)";
  ExpectThresholdParity(scene.value(), a, 9);
}

// Rough surfaces (Oren-Nayar, every lab material at sigma 35 deg): the ideal detector's
// intensity R0 DiffuseShading and the threshold detector's power through MonostaticBrdf, the
// same on both backends. Tolerances as above: the shading is a handful of double operations
// on the same cosine, within an ulp on either side, and intensities are stored as floats.
TEST(CudaBackend, RoughSurfacesReadTheSameOnBothBackends) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  for (Material& m : scene->materials.materials)
    m.roughness_deg = 35;
  auto threshold = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(threshold.ok()) << threshold.message();
  threshold->name += " (rough surfaces)";
  ExpectThresholdParity(scene.value(), threshold.value(), 10);
  auto ideal = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(ideal.ok()) << ideal.message();
  ideal->name += " (rough surfaces)";
  ExpectParity(scene.value(), ideal.value(), Trajectory::Static(), 1, 10);
  const Trajectory traj = Trajectory::Static();
  auto cpu = CreateSimulator(Backend::kCpu, scene.value(), ideal.value(), traj, {10, 0});
  auto gpu = CreateSimulator(Backend::kCuda, scene.value(), ideal.value(), traj, {10, 0});
  ASSERT_TRUE(cpu.ok() && gpu.ok()) << gpu.message();
  const Frame a = (*cpu)->Simulate(0).value();
  const Frame b = (*gpu)->Simulate(0).value();
  const test::EchoPairs pairs = test::PairEchoes(a, b);
  ASSERT_GT(pairs.pairs.size(), 1000u);
  double worst = 0;
  for (const auto& [k, g] : pairs.pairs)
    worst = std::max(worst, double(std::abs(a.intensity[k] - b.intensity[g]) / a.intensity[k]));
  EXPECT_LE(worst, 1e-5);
  std::printf("[parity] rough ideal detector: %zu echoes, max relative intensity diff %.3g\n",
              pairs.pairs.size(), worst);
}

// Fog on both backends: the same attenuated echoes, and the same refusal for a detector that
// does not read the return signal.
TEST(CudaBackend, FogAttenuatesTheSameOnBothBackends) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  scene->description.weather.fog = FogDescription{30};
  auto threshold = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(threshold.ok()) << threshold.message();
  threshold->name += " (fog, visibility 30 m)";
  ExpectThresholdParity(scene.value(), threshold.value(), 12);
  auto ideal = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(ideal.ok()) << ideal.message();
  auto gpu = CudaSimulator::Create(scene.value(), ideal.value(), Trajectory::Static(), {});
  ASSERT_FALSE(gpu.ok());
  EXPECT_NE(gpu.message().find("weather.fog"), std::string::npos) << gpu.message();
}

// Road spray on both backends: a car-sized box at 100 km/h on 1 mm of water, its clusters made
// on the host once a frame and read by both, the same echoes (labelled as its plume), traced.
TEST(CudaBackend, SprayIsTheSameOnBothBackends) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  SceneObject car = test::Placed("car", MakeBox(4.5, 1.8, 1.5), {15, 0, 0.75}, 0, 0, 0, 0, 99, 10);
  car.motion.velocity_m_s = {100 / 3.6, 0, 0};
  scene->objects.push_back(car);
  scene->description.weather.spray = SprayDescription{10, 1, 18.8, 105};
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(p.ok()) << p.message();
  p->footprint.sub_rays = 8;
  p->name += " (spray behind a car at 100 km/h)";
  ExpectThresholdParity(scene.value(), p.value(), 23);
  auto cpu = CreateSimulator(Backend::kCpu, *scene, *p, Trajectory::Static(), {23, 0});
  ASSERT_TRUE(cpu.ok()) << cpu.message();
  const Frame f = (*cpu)->Simulate(0).value();
  size_t spray = 0;
  for (uint16_t c : f.semantic_class)
    spray += c == 105;
  std::printf("[parity] spray echoes on the CPU: %zu of %zu\n", spray, f.size());
  EXPECT_GT(spray, 100u);
  // Frames 1 to 3 in turn: the GPU runs each next frame ahead, with its own clusters uploaded
  // while the frame before is appended; the same echoes as the CPU's, frame by frame.
  auto gpu = CreateSimulator(Backend::kCuda, *scene, *p, Trajectory::Static(), {23, 0});
  ASSERT_TRUE(gpu.ok()) << gpu.message();
  for (uint32_t frame = 1; frame <= 3; ++frame) {
    const Frame a = (*cpu)->Simulate(frame).value();
    auto b = (*gpu)->Simulate(frame);
    ASSERT_TRUE(b.ok()) << b.message();
    const test::EchoPairs pairs = test::PairEchoes(a, *b);
    EXPECT_EQ(pairs.only_a, 0u) << frame;
    EXPECT_EQ(pairs.only_b, 0u) << frame;
    EXPECT_EQ(a.size(), b->size()) << frame;
    // As in ExpectThresholdParity: a range on a step of the profile's resolution may round
    // either way (libdevice's exp against glibc's, each within 2 ulp), one step for at most 1
    // echo in 20,000; every other range the same.
    const double step = p->detector.range_resolution_m;
    double worst = 0;
    size_t flips = 0;
    for (const auto& [i, j] : pairs.pairs) {
      const double diff = std::abs(double(a.range_m[i]) - double(b->range_m[j]));
      if (step > 0 && std::abs(diff - step) <= 1e-5) {
        ++flips;
      } else {
        worst = std::max(worst, diff);
      }
    }
    EXPECT_LE(worst, 1e-6) << frame;
    EXPECT_LE(flips, std::max<size_t>(1, pairs.pairs.size() / 20000)) << frame;
  }
}

// Rain and snow on both backends: the same drops and flakes drawn from the same keys, so the
// same echoes, labelled alike (issue 43's fog 50 m + rain 25 mm/h + snow, 8 sub-rays, every
// surface wet), traced and gathered from the raster.
TEST(CudaBackend, RainAndSnowAreTheSameOnBothBackends) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  scene->description.weather.fog = FogDescription{50};
  scene->description.weather.rain = RainDescription{.rate_mm_h = 25};
  scene->description.weather.snow = SnowDescription{.rate_mm_h = 1};
  WetDescription wet;  // every surface under water
  for (const Material& m : scene->materials.materials)
    wet.materials.push_back(m.name);
  scene->description.weather.wet = wet;
  // A window dirty on one side, clean but scattering on another (physics/cover.h).
  CoverDescription cover;
  cover.regions.push_back({{-60, 30}, {-10, 5}, 0.7, 2e-6});
  cover.regions.push_back({{150, 250}, {-90, 90}, 1.0, 5e-6});
  scene->description.weather.cover = cover;
  auto p = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(p.ok()) << p.message();
  p->footprint.sub_rays = 8;
  p->name += " (fog 50 m, rain 25 mm/h, snow 1 mm/h, a dirty cover)";
  ExpectThresholdParity(scene.value(), p.value(), 21);
  auto cpu = CreateSimulator(Backend::kCpu, *scene, *p, Trajectory::Static(), {21, 0});
  ASSERT_TRUE(cpu.ok()) << cpu.message();
  const Frame f = (*cpu)->Simulate(0).value();
  size_t rain = 0, snow = 0, fog = 0;
  for (uint16_t c : f.semantic_class) {
    rain += c == 101;
    fog += c == 102;
    snow += c == 103;
  }
  std::printf("[parity] weather echoes on the CPU: %zu rain, %zu snow, %zu fog of %zu\n", rain,
              snow, fog, f.size());
  // The fog's own return (this profile has no overlap function: it is seen from 0.3 m on)
  // outshines most drops in this strongest-return profile, and the flakes, brighter, less
  // often; each kind is there, labelled.
  EXPECT_GT(rain, 0u);
  EXPECT_GT(snow, 100u);
  EXPECT_GT(fog, 100u);
  SensorProfile raster = p.value();
  raster.raster_gather = true;
  raster.raster_resolution_rad = 1e-3;
  raster.name += " (raster)";
  ExpectThresholdParity(scene.value(), raster, 22);
}

TEST(CudaBackend, MatchesCpuForAMovingMotionCorrectedSensor) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && profile.ok());
  Trajectory traj;
  traj.time_s = {0.0, 0.5, 1.0};
  traj.poses = {{physics::QuatFromRollPitchYaw(0.0, 0.0, 0.0), {0, 0, 0}},
                {physics::QuatFromRollPitchYaw(0.0, 0.02, 0.3), {2, 1, 0.1}},
                {physics::QuatFromRollPitchYaw(0.0, 0.0, 0.6), {4, 1, 0}}};
  traj.motion_correction = true;
  ExpectParity(scene.value(), profile.value(), traj, 3, 9);
  // Beams leaving 36 mm above the sensor frame (an Ouster's lidar frame): the emitter pose and
  // the reported points agree too, corrected and not.
  SensorProfile raised = profile.value();
  raised.beam_origin_m = {0.01, -0.02, 0.036};
  raised.name += " (beam origin)";
  ExpectParity(scene.value(), raised, traj, 2, 9);
  traj.motion_correction = false;
  ExpectParity(scene.value(), raised, traj, 1, 9);
}

TEST(CudaBackend, BatchedFramesAndSplitScenesGiveTheSameFrames) {
  // Forced small batches (1000 beams per launch) and BVHs (7 triangles each): the frame must
  // equal the one-launch, one-BVH frame field by field.
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && profile.ok());
  SimulationOptions split;
  split.seed = 4;
  split.max_beams_per_batch = 1000;
  split.max_triangles_per_bvh = 7;
  auto whole = CudaSimulator::Create(*scene, *profile, Trajectory::Static(), {4, 0});
  auto parts = CudaSimulator::Create(*scene, *profile, Trajectory::Static(), split);
  ASSERT_TRUE(whole.ok() && parts.ok());
  EXPECT_EQ((*whole)->bvh_count(), 1u);
  EXPECT_EQ((*whole)->batches_per_frame(), 1u);
  EXPECT_EQ((*parts)->bvh_count(), (scene->TriangleCount() + 6) / 7);
  EXPECT_EQ((*parts)->batches_per_frame(), (profile->BeamCount() + 999) / 1000);
  auto a = (*whole)->Simulate(0);
  auto b = (*parts)->Simulate(0);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  EXPECT_EQ(a->beam_id, b->beam_id);
  EXPECT_EQ(a->range_m, b->range_m);
  EXPECT_EQ(a->intensity, b->intensity);
  EXPECT_EQ(a->instance_id, b->instance_id);
  std::printf("[batches] %u BVHs, %u launches: %zu points, identical to one BVH, one launch\n",
              (*parts)->bvh_count(), (*parts)->batches_per_frame(), b->size());
  // And both agree with the CPU.
  ExpectParity(*scene, *profile, Trajectory::Static(), 1, 4, split);
}

TEST(CudaBackend, MatchesCpuWithMovingObjects) {
  // A car crossing and turning in front of the lab plates and a plate moving away: both
  // backends move them per motion slice by transforms (Embree's instances on the CPU, our
  // two-level tree on the GPU).
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && profile.ok());
  SceneObject car;
  car.name = "car";
  car.mesh = MakeBox(4.5, 1.8, 1.5);
  car.pose.translation = {6, -8, 0.75};
  for (auto& v : car.mesh.vertices) {
    v = {v[0] + 6, v[1] - 8, v[2] + 0.75};
  }
  car.motion.velocity_m_s = {0, 12, 0};
  car.motion.yaw_rate_rad_s = 0.4;
  car.instance_id = 999;
  scene->objects.push_back(car);
  scene->objects[1].motion.velocity_m_s = {0.5, 0, 0};
  ASSERT_TRUE(scene->HasMovingObjects());
  ExpectParity(*scene, *profile, Trajectory::Static(), 3, 6);
  SimulationOptions split;
  split.max_beams_per_batch = 5000;
  split.max_triangles_per_bvh = 16;
  ExpectParity(*scene, *profile, Trajectory::Static(), 2, 6, split);
}

TEST(CudaBackend, MatchesCpuOnTheShippedStreetOfInstances) {
  // 50 cars and 20 pedestrians, instances of two models (docs/adr/0030), driving through a city
  // of 10^6 facade triangles: the CPU places them through Embree's instances, the GPU through
  // its own two-level tree rebuilt per motion slice; labels per instance.
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/street_city.yaml", {});
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && profile.ok());
  ExpectParity(*scene, *profile, Trajectory::Static(), 2, 8);
  auto threshold = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(threshold.ok()) << threshold.message();
  threshold->name += " (street of instances)";
  ExpectThresholdParity(*scene, *threshold, 8);
}

// The GPU places the next frame's moving objects while this frame's kernels run, and launches
// the frame it expects next while this one's returns are appended (docs/adr/0031, 0033): frames
// asked for in any order, repeated, or after a stride change, are the frames asked for in turn,
// to the bit. The order below meets a frame run ahead (2 4 6), misses one (4 then 6 after a
// stride of 3; 6 then 0), and repeats one (7 7), guessed by the stride and told by the caller;
// on a moving and a still scene, with the capability and the threshold detector.
TEST(CudaBackend, FramesInAnyOrderAreTheFramesInTurn) {
  LT_REQUIRE_GPU();
  for (const char* scene_name : {"street_crossing", "lab_plates"}) {
    for (const char* sensor : {"ouster_os0_128", "ouster_os0_128_threshold"}) {
      SCOPED_TRACE(std::string(scene_name) + ", " + sensor);
      auto scene =
          LoadScene(test::ConfigDir() / "scenes" / (std::string(scene_name) + ".yaml"), {});
      auto profile =
          LoadSensorProfile(test::ConfigDir() / "sensors" / (std::string(sensor) + ".yaml"));
      ASSERT_TRUE(scene.ok() && profile.ok());
      const Trajectory traj = Trajectory::Static();
      auto in_turn = CudaSimulator::Create(scene.value(), profile.value(), traj, {});
      auto shuffled = CudaSimulator::Create(scene.value(), profile.value(), traj, {});
      ASSERT_TRUE(in_turn.ok() && shuffled.ok());
      ASSERT_EQ((*in_turn)->batches_per_frame(), 1u);  // so that frames run ahead
      std::vector<Frame> reference;
      for (uint32_t k = 0; k < 8; ++k)
        reference.push_back((*in_turn)->Simulate(k).value());
      EXPECT_EQ((*in_turn)->run_ahead_counts().used, 6u);  // frames 2..7, each run by the last
      const std::vector<uint32_t> order = {3, 1, 4, 6, 0, 2, 4, 6, 5, 7, 7};
      for (uint32_t k : order) {
        const Frame f = (*shuffled)->Simulate(k).value();
        test::ExpectSameFrames(reference[k], f, "frame " + std::to_string(k) + " out of turn");
      }
      const CudaSimulator::RunAheadCounts guessed = (*shuffled)->run_ahead_counts();
      EXPECT_EQ(guessed.used, 2u);  // 4 and 6 after 2
      EXPECT_GE(guessed.dropped, 3u);
      // Told which frame follows, a simulator runs each of them ahead and drops none.
      auto told = CudaSimulator::Create(scene.value(), profile.value(), traj, {});
      ASSERT_TRUE(told.ok());
      for (size_t i = 0; i < order.size(); ++i) {
        if (i + 1 < order.size()) (*told)->ExpectFollowing(order[i + 1]);
        const Frame f = (*told)->Simulate(order[i]).value();
        test::ExpectSameFrames(reference[order[i]], f,
                               "frame " + std::to_string(order[i]) + " told");
      }
      EXPECT_EQ((*told)->run_ahead_counts().used, order.size() - 1);
      EXPECT_EQ((*told)->run_ahead_counts().dropped, 0u);
    }
  }
}

TEST(CudaBackend, SameSeedSameFrame) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && profile.ok());
  const Trajectory traj = Trajectory::Static();
  auto a = CudaSimulator::Create(scene.value(), profile.value(), traj, {4, 0});
  auto b = CudaSimulator::Create(scene.value(), profile.value(), traj, {4, 0});
  ASSERT_TRUE(a.ok() && b.ok());
  const Frame fa = (*a)->Simulate(0).value();
  const Frame fb = (*b)->Simulate(0).value();
  EXPECT_EQ(fa.range_m, fb.range_m);
  EXPECT_EQ(fa.x_m, fb.x_m);
  EXPECT_EQ(fa.beam_id, fb.beam_id);
}

// The learned ray drop (sensor_profile.h, RayDropTable), sampled, and the blocked directions:
// both backends draw it on the
// host from the same (seed, frame, beam, echo) stream on their finished frames, whose ranges
// and intensities agree exactly (the parity tests above), so no beam may be kept on one and
// dropped on the other: tolerance 0.
TEST(CudaBackend, DropsTheSameRaysAsTheCpu) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto plain = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && plain.ok());
  SensorProfile with = *plain;
  with.ray_drop.range_m = {1, 100};
  with.ray_drop.reflectance = {0.01, 1};
  with.ray_drop.probability = {0.1, 0.5, 0.9, 0.3};
  // And every other channel blocked over a quarter turn (BlockedDirections).
  with.blocked_directions.channel.resize(with.elevation_rad.size());
  for (size_t c = 0; c < with.elevation_rad.size(); c += 2)
    with.blocked_directions.channel[c] = {{-0.6, 0.9}};
  const Trajectory traj = Trajectory::Static();
  const Frame cpu = CpuSimulator(*scene, with, traj, {4, 0}).Simulate(0).value();
  auto gpu_sim = CudaSimulator::Create(*scene, with, traj, {4, 0});
  ASSERT_TRUE(gpu_sim.ok()) << gpu_sim.message();
  const Frame gpu = (*gpu_sim)->Simulate(0).value();
  const Frame cpu_plain = CpuSimulator(*scene, *plain, traj, {4, 0}).Simulate(0).value();
  std::map<uint32_t, bool> kept[2];
  for (uint32_t b : cpu.beam_id)
    kept[0][b] = true;
  for (uint32_t b : gpu.beam_id)
    kept[1][b] = true;
  size_t differ = 0;
  for (size_t k = 0; k < cpu_plain.size(); ++k) {
    const uint32_t b = cpu_plain.beam_id[k];
    differ += kept[0].count(b) != kept[1].count(b);
  }
  EXPECT_LT(cpu.size(), cpu_plain.size() * 0.8);
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(cpu.size(), gpu.size());
  std::printf("[ray drop] %zu of %zu returns kept on both backends, %zu beams differ\n", cpu.size(),
              cpu_plain.size(), differ);
}

// Per-laser intensity gains (sensor_profile.h): both backends apply them on the host to the
// same points, so each beam's gained-to-plain intensity ratio is its channel's gain at its range
// on both, to one float rounding (2e-7 relative).
TEST(CudaBackend, AppliesTheProfilesPerLaserGainsAsTheCpuDoes) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  auto plain = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(scene.ok() && plain.ok());
  SensorProfile gained = *plain;
  gained.intensity_gains.range_m = {1.5, 4.0, 12.0};
  for (size_t c = 0; c < plain->elevation_rad.size(); ++c)
    gained.intensity_gains.gain.push_back({0.5 + 0.01 * c, 1.3 - 0.004 * c, 0.9});
  const Trajectory traj = Trajectory::Static();
  std::map<uint32_t, double> ratio[2];  // beam -> gained / plain, CPU then GPU
  auto cpu_plain = CpuSimulator(*scene, *plain, traj, {4, 0}).Simulate(0).value();
  auto cpu_gained = CpuSimulator(*scene, gained, traj, {4, 0}).Simulate(0).value();
  auto gpu_plain = CudaSimulator::Create(*scene, *plain, traj, {4, 0});
  auto gpu_gained = CudaSimulator::Create(*scene, gained, traj, {4, 0});
  ASSERT_TRUE(gpu_plain.ok() && gpu_gained.ok());
  const Frame gp = (*gpu_plain)->Simulate(0).value(), gg = (*gpu_gained)->Simulate(0).value();
  const Frame* pairs[2][2] = {{&cpu_plain, &cpu_gained}, {&gp, &gg}};
  for (int side = 0; side < 2; ++side) {
    const Frame& a = *pairs[side][0];
    const Frame& b = *pairs[side][1];
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(a.beam_id[k], b.beam_id[k]);
      const double want = gained.intensity_gains.At(a.channel[k], a.range_m[k]);
      if (a.intensity[k] > 1e-3) {
        EXPECT_NEAR(b.intensity[k] / a.intensity[k], want, 2e-7 * want + 1e-6);
        ratio[side][a.beam_id[k]] = b.intensity[k] / a.intensity[k];
      }
    }
  }
  size_t shared = 0;
  for (const auto& [beam, r] : ratio[0]) {
    const auto it = ratio[1].find(beam);
    if (it == ratio[1].end()) continue;
    ++shared;
    EXPECT_NEAR(it->second, r, 4e-7 * r + 1e-6) << "beam " << beam;
  }
  EXPECT_GT(shared, 10000u);
  std::printf("[gains] %zu beams gained alike on the CPU and the GPU\n", shared);
}

constexpr GpuBvhBuilder kSimulatorBuilders[] = {GpuBvhBuilder::kLbvh, GpuBvhBuilder::kPloc};

TEST(CudaBvh, ClosestHitsEqualBruteForceOnRandomRays) {
  LT_REQUIRE_GPU();
  std::mt19937_64 rng(2024);
  const auto soup = test::RandomSoup(rng, 20000);
  std::vector<float> o, d;
  test::RandomRays(rng, 20000, o, d);
  test::ExpectBvhMatchesBruteForce(soup, o, d, "random rays");
  test::ExpectBvhMatchesBruteForce(soup, o, d, "random rays, PLOC tree", GpuBvhBuilder::kPloc);
}

// Issue 14: the tree copied to the host is whole (test::ExpectWholeTree).
TEST(CudaBvh, TreeOnTheHostIsWhole) {
  LT_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  for (GpuBvhBuilder builder : kSimulatorBuilders)
    test::ExpectWholeTree(test::RandomSoup(rng, 5000), builder, "random soup");
}

TEST(CudaBvh, WideTreeEqualsTheHostCollapseOfItsBinaryTree) {
  LT_REQUIRE_GPU();
  for (GpuBvhBuilder builder : kSimulatorBuilders)
    test::ExpectWideTreeEqualsTheHostCollapse(builder);
}

TEST(CudaBvh, CollapseLevelsWiderThanItsGridEqualTheHostCollapse) {
  LT_REQUIRE_GPU();
  test::ExpectWideTreeEqualsTheHostCollapseAtScale(GpuBvhBuilder::kLbvh);
}

TEST(CudaBvh, IdenticalTrianglesBuildAndTheSmallestIndexWins) {
  LT_REQUIRE_GPU();
  for (GpuBvhBuilder builder : kSimulatorBuilders)
    test::ExpectIdenticalTrianglesToHitTheSmallestIndex(builder);
}

// Coordinates the wide tree's quantised grid cannot hold (or a float infinity from a double
// vertex beyond FLT_MAX) are refused with the triangle named, not traced wrong.
TEST(CudaBvh, RefusesCoordinatesBeyondItsRange) {
  LT_REQUIRE_GPU();
  std::vector<float> soup = {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5, 6, 5, 5, 5, 6, 5};
  const std::vector<float> o = {0.2f, 0.2f, 1}, d = {0, 0, -1};
  ASSERT_TRUE(CudaClosestHits(soup, o, d, 0, 10).ok());
  for (float bad :
       {std::numeric_limits<float>::infinity(), 3e9f, std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> s = soup;
    s[13] = bad;
    const auto r = CudaClosestHits(s, o, d, 0, 10);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("triangle 1"), std::string::npos) << r.message();
    EXPECT_FALSE(CudaBvhTree(s).ok());
  }
}

TEST(CudaBvh, ClosestHitsEqualBruteForceOnScanRays) {
  LT_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  const auto soup = test::RandomSoup(rng, 20000);
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(profile.ok());
  std::vector<float> o, d;
  for (uint32_t i = 0; i < profile->BeamCount(); i += 7) {
    const auto b = profile->Beam(i);
    const auto dir = physics::BeamDirection(b.azimuth_rad, b.elevation_rad);
    o.insert(o.end(), {0.5f, -0.25f, 0.1f});
    for (double v : {dir.x, dir.y, dir.z})
      d.push_back(static_cast<float>(v));
  }
  test::ExpectBvhMatchesBruteForce(soup, o, d, "OS0-128 scan rays");
  test::ExpectBvhMatchesBruteForce(soup, o, d, "OS0-128 scan rays, PLOC tree",
                                   GpuBvhBuilder::kPloc);
}

TEST(CudaBvh, AnyHitsEqualBruteForce) {
  LT_REQUIRE_GPU();
  for (GpuBvhBuilder builder : kSimulatorBuilders)
    test::ExpectAnyHitsEqualBruteForce(builder);
}

TEST(CudaBvh, RefitAfterMotionMatchesBruteForce) {
  LT_REQUIRE_GPU();
  for (GpuBvhBuilder builder : kSimulatorBuilders)
    test::ExpectRefitAfterMotionMatchesBruteForce(builder);
}

TEST(CudaBvh, SingleAndTwoTriangleScenes) {
  LT_REQUIRE_GPU();
  for (GpuBvhBuilder builder : kSimulatorBuilders)
    test::ExpectSingleAndTwoTriangleScenes(builder);
}

// An outside builder's tree whose leaves hold runs of sorted positions collapses with its
// triangles in sorted order, and the rays find them; one whose leaves are not runs is refused
// with an error, not a wide tree that points at the wrong triangles. Five unit triangles 10 m
// apart on x; nodes: root -> (A, L2), A -> (~0, L1), L1 and L2 leaves of two. The wide root
// then holds ~0, L2 and L1 in that order, so a collapse that gave its leaves slots in its
// children's order would put positions 0, 3, 4, 1, 2 where sorted order is asked for.
TEST(CudaBvh, AnOutsideBuildersLeavesMustBeRunsOfSortedPositions) {
  LT_REQUIRE_GPU();
  constexpr uint32_t kCount = 5;
  std::vector<float> soup;
  for (uint32_t t = 0; t < kCount; ++t) {
    const float x = 10.0f * static_cast<float>(t);
    soup.insert(soup.end(), {x, 0, 0, x + 1, 0, 0, x, 1, 0});
  }
  const std::vector<uint32_t> order = {3, 1, 4, 0, 2};  // sorted position -> input triangle
  // Nodes from their (child 0, child 1) codes (node index or ~sorted position); each child's
  // box holds the triangles below it.
  auto tree = [&](const std::vector<std::array<int32_t, 2>>& links) {
    std::function<void(int32_t, physics::BvhBox&)> grow = [&](int32_t c, physics::BvhBox& b) {
      if (c >= 0) {
        grow(links[c][0], b);
        grow(links[c][1], b);
        return;
      }
      for (int k = 0; k < 9; ++k) {
        b.lo[k % 3] = std::min(b.lo[k % 3], soup[9 * order[~c] + k]);
        b.hi[k % 3] = std::max(b.hi[k % 3], soup[9 * order[~c] + k]);
      }
    };
    std::vector<physics::BvhNode> nodes(links.size());
    for (size_t i = 0; i < links.size(); ++i) {
      for (int s = 0; s < 2; ++s) {
        physics::BvhBox b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
        grow(links[i][s], b);
        nodes[i].box[s] = b;
        nodes[i].child[s] = links[i][s];
      }
    }
    return nodes;
  };
  auto builder = [&](std::vector<physics::BvhNode> nodes) -> GpuBvhChoice {
    return ExternalGpuBvhBuild([nodes, &order](const float*, uint32_t n,
                                               const ExternalGpuBvhOutput& out,
                                               void* stream) -> Status {
      if (n != kCount) return Error{"five triangles expected"};
      // Nodes 0 (root), 1 (A), 2 (L2), 3 (L1); the two of two triangles are leaves.
      const std::vector<physics::CollapseCost> costs = {{5, 0}, {3, 0}, {2, 0}, {2, 0}};
      const std::vector<uint8_t> leaf = {0, 0, 1, 1};
      auto s = static_cast<cudaStream_t>(stream);
      for (auto [to, from, bytes] : {std::tuple<void*, const void*, size_t>{
                                         out.nodes, nodes.data(), nodes.size() * sizeof(nodes[0])},
                                     {out.order, order.data(), kCount * sizeof(uint32_t)},
                                     {out.costs, costs.data(), costs.size() * sizeof(costs[0])},
                                     {out.leaf, leaf.data(), leaf.size()}}) {
        if (cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, s) != cudaSuccess)
          return Error{"copy"};
      }
      return cudaStreamSynchronize(s) == cudaSuccess ? Status{} : Status{Error{"sync"}};
    });
  };
  // Runs: L1 holds positions {1, 2}, L2 {3, 4}.
  const auto runs = tree({{1, 2}, {~0, 3}, {~3, ~4}, {~1, ~2}});
  const auto good = CudaBvhTree(soup, builder(runs));
  ASSERT_TRUE(good.ok()) << good.message();
  ASSERT_EQ(good->wide.triangles.size(), kCount);
  for (uint32_t p = 0; p < kCount; ++p)
    EXPECT_EQ(good->wide.triangles[p].id, order[p]) << "position " << p;
  std::vector<float> o, d;
  for (uint32_t t = 0; t < kCount; ++t) {
    o.insert(o.end(), {10.0f * static_cast<float>(t) + 0.25f, 0.25f, 5});
    d.insert(d.end(), {0, 0, -1});
  }
  const auto hits = CudaClosestHits(soup, o, d, 0, 100, 1, builder(runs));
  ASSERT_TRUE(hits.ok()) << hits.message();
  for (uint32_t t = 0; t < kCount; ++t)
    EXPECT_EQ(hits->triangle[t], static_cast<int32_t>(t));
  // Not runs: L1 holds positions {1, 3}, L2 {2, 4}.
  const auto bad = CudaBvhTree(soup, builder(tree({{1, 2}, {~0, 3}, {~2, ~4}, {~1, ~3}})));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("runs of sorted positions"), std::string::npos) << bad.message();
}

// The airborne patterns (seed 001 sec. 5.1) flying at 100 m over the procedural forest:
// beams through the gaps of a canopy of 72,000 small leaf triangles.
TEST(CudaBackend, MatchesCpuForTheAirbornePatternsOverTheForest) {
  LT_REQUIRE_GPU();
  auto scene = LoadScene(test::ConfigDir() / "scenes/forest.yaml", {});
  ASSERT_TRUE(scene.ok()) << scene.message();
  Trajectory traj;
  traj.time_s = {0.0, 1.0};
  traj.poses = {{physics::QuatFromRollPitchYaw(0.0, 0.0, 0.0), {-30, 0, 100}},
                {physics::QuatFromRollPitchYaw(0.0, 0.0, 0.0), {20, 0, 100}}};
  for (const char* name :
       {"airborne_parallel.yaml", "airborne_zigzag.yaml", "airborne_elliptical.yaml"}) {
    auto profile = LoadSensorProfile(test::ConfigDir() / "sensors" / name);
    ASSERT_TRUE(profile.ok()) << profile.message();
    SensorProfile p = profile.value();
    // ExpectParity wants more than 1000 agreeing beams: 4 x the example's pulses.
    if (p.scan == ScanKind::kElliptical) p.elliptical.pulses_per_revolution *= 4;
    ExpectParity(scene.value(), p, traj, 2, 3);
  }
}

}  // namespace
}  // namespace lt
