// Analytic checks of the CPU reference simulator (issue 2's geometry tests).
#include "cpu/cpu_simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sim/sim_test_scenes.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::BeamDirection;
using physics::Vec3;

// Float storage of the frame's fields: a relative error of 2^-23 per value, doubled for the
// conversion of x, y, z from the double-precision point.
constexpr double kFloatRel = 2.5e-7;

Vec3<double> DirectionOf(const SensorProfile& p, uint32_t beam) {
  const auto b = p.Beam(beam);
  return BeamDirection(b.azimuth_rad, b.elevation_rad);
}

// A 400 m x 400 m wall 10 m ahead (normal along x): every forward beam returns range
// 10 / d_x exactly.
TEST(CpuSimulator, PlaneAtKnownDistanceGivesTheExactRangePerBeam) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects.push_back(test::Placed("wall", MakePlate(400, 400), {10, 0, 0}, 0, 0, 0, 0, 1, 1));
  const SensorProfile profile = test::SpinningSensor(16, 15, -15, 360, 10);
  const Trajectory traj = Trajectory::Static();
  const Frame f = CpuSimulator(scene, profile, traj, {}).Simulate(0).value();
  size_t expected_points = 0;
  for (uint32_t i = 0; i < profile.BeamCount(); ++i) {
    const auto d = DirectionOf(profile, i);
    if (d.x > 0 && std::abs(10 * d.y / d.x) < 200 && std::abs(10 * d.z / d.x) < 200) {
      ++expected_points;
    }
  }
  ASSERT_EQ(f.size(), expected_points);
  for (size_t k = 0; k < f.size(); ++k) {
    const auto d = DirectionOf(profile, f.beam_id[k]);
    const double expected = 10.0 / d.x;
    ASSERT_NEAR(f.range_m[k], expected, kFloatRel * expected) << "beam " << f.beam_id[k];
    EXPECT_NEAR(f.x_m[k], 10.0, 2 * kFloatRel * expected);
  }
}

// The number of points on a tilted 0.5 m plate equals the number of OS0-128 beams whose ray
// meets the rectangle, counted here by intersecting each ray with the plate's plane and
// testing the in-plane coordinates. Beams within 1e-9 m of an edge are ambiguous at double
// rounding and may go either way.
TEST(CpuSimulator, PointsOnAPlateEqualBeamsThatMeetIt) {
  auto loaded = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  SensorProfile profile = loaded.value();
  profile.detector.kind = DetectorKind::kIdeal;
  Scene scene;
  scene.materials = test::ConstantMaterials({0.8});
  const Vec3<double> centre{4.0, 2.5, 0.3};
  scene.objects.push_back(test::Placed("plate", MakePlate(0.5, 0.5), centre, 0, 10, 30, 0, 7, 64));
  const auto& pose = scene.objects[0].pose;
  const Vec3<double> n = physics::Rotate(pose.rotation, Vec3<double>{1, 0, 0});
  const Vec3<double> u = physics::Rotate(pose.rotation, Vec3<double>{0, 1, 0});
  const Vec3<double> v = physics::Rotate(pose.rotation, Vec3<double>{0, 0, 1});
  size_t meets = 0, ambiguous = 0;
  for (uint32_t i = 0; i < profile.BeamCount(); ++i) {
    const auto d = DirectionOf(profile, i);
    const double t = physics::Dot(centre, n) / physics::Dot(d, n);
    if (!(t > 0)) continue;
    const Vec3<double> q = t * d - centre;
    const double a = std::abs(physics::Dot(q, u)), b = std::abs(physics::Dot(q, v));
    if (std::abs(a - 0.25) < 1e-9 || std::abs(b - 0.25) < 1e-9) {
      ++ambiguous;
    } else if (a < 0.25 && b < 0.25) {
      ++meets;
    }
  }
  ASSERT_GT(meets, 50u);
  const Frame f = CpuSimulator(scene, profile, Trajectory::Static(), {}).Simulate(0).value();
  size_t on_plate = 0;
  for (size_t k = 0; k < f.size(); ++k)
    on_plate += f.instance_id[k] == 7;
  EXPECT_GE(on_plate, meets);
  EXPECT_LE(on_plate, meets + ambiguous);
  EXPECT_EQ(f.size(), on_plate);
  for (size_t k = 0; k < f.size(); ++k) {
    EXPECT_EQ(f.semantic_class[k], 64);
    EXPECT_EQ(f.material_id[k], 0);
  }
}

// Intensity is 100 R0 cos(theta) (seed 000 eq. 4), theta computed here from the beam and the
// plane's normal.
TEST(CpuSimulator, IntensityFollowsR0CosTheta) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.3, 0.7});
  // A floor 2 m below the sensor: incidence varies with elevation.
  scene.objects.push_back(test::Placed("floor", MakePlane(300, 300), {0, 0, -2}, 0, 0, 0, 1, 1, 2));
  const SensorProfile profile = test::SpinningSensor(32, -2, -80, 90, 10);
  const Frame f = CpuSimulator(scene, profile, Trajectory::Static(), {}).Simulate(0).value();
  ASSERT_GT(f.size(), 1000u);
  for (size_t k = 0; k < f.size(); ++k) {
    const auto d = DirectionOf(profile, f.beam_id[k]);
    const double cos_theta = std::abs(d.z);
    ASSERT_NEAR(f.intensity[k], 100 * 0.7 * cos_theta, 1e-4) << k;
    EXPECT_FLOAT_EQ(f.reflectance[k], 0.7f);
  }
}

// A rough floor (Oren-Nayar sigma 40 deg) reads 100 R0 (cos theta + (B / A) sin^2 theta):
// B / A computed here from Oren and Nayar's A and B; at the shallowest beams, 10 deg below the
// horizon, the rough floor returns over twice what a Lambertian one would.
TEST(CpuSimulator, ARoughFloorReadsOrenNayarsShading) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.3, 0.7});
  scene.materials.materials[1].roughness_deg = 40;
  scene.objects.push_back(test::Placed("floor", MakePlane(300, 300), {0, 0, -2}, 0, 0, 0, 1, 1, 2));
  const SensorProfile profile = test::SpinningSensor(32, -10, -80, 90, 10);
  const Frame f = CpuSimulator(scene, profile, Trajectory::Static(), {}).Simulate(0).value();
  ASSERT_GT(f.size(), 1000u);
  const double s2 = std::pow(40 * std::numbers::pi / 180, 2);
  const double b_over_a = 0.45 * s2 / (s2 + 0.09) / (1 - 0.5 * s2 / (s2 + 0.33));
  double brightest_ratio = 0;
  for (size_t k = 0; k < f.size(); ++k) {
    const double c = std::abs(DirectionOf(profile, f.beam_id[k]).z);
    const double expected = 100 * 0.7 * (c + b_over_a * (1 - c * c));
    ASSERT_NEAR(f.intensity[k], expected, 1e-4 * expected) << k;
    brightest_ratio = std::max(brightest_ratio, expected / (100 * 0.7 * c));
  }
  EXPECT_GT(brightest_ratio, 2.0);
}

// A 300 m x 300 m floor 2 m below the sensor frame's origin.
Scene FloorTwoMetresDown() {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects.push_back(test::Placed("floor", MakePlane(300, 300), {0, 0, -2}, 0, 0, 0, 0, 1, 1));
  return scene;
}

// Beams leaving from beam_origin_m = (0.3, -0.2, 0.5) over a floor 2 m below the sensor frame's
// origin: a beam of direction d meets the floor at range (2 + 0.5) / -d_z from its origin, and
// the point is reported in the sensor frame, origin + range d (so z = -2 exactly).
TEST(CpuSimulator, BeamsLeaveFromTheBeamOrigin) {
  const Scene scene = FloorTwoMetresDown();
  SensorProfile profile = test::SpinningSensor(8, -10, -60, 90, 10);
  profile.beam_origin_m = {0.3, -0.2, 0.5};
  // A moving sensor: the origin turns with it.
  Trajectory traj;
  traj.time_s = {0, 0.1};
  traj.poses = {{physics::QuatFromRollPitchYaw(0.0, 0.0, 0.0), {0, 0, 0}},
                {physics::QuatFromRollPitchYaw(0.0, 0.0, 0.5), {1, 0, 0}}};
  const Frame f = CpuSimulator(scene, profile, traj, {}).Simulate(0).value();
  ASSERT_EQ(f.size(), profile.BeamCount());
  for (size_t k = 0; k < f.size(); ++k) {
    const auto d = DirectionOf(profile, f.beam_id[k]);
    const double range = 2.5 / -d.z;
    ASSERT_NEAR(f.range_m[k], range, 1e-5 * range) << k;
    EXPECT_NEAR(f.x_m[k], 0.3 + range * d.x, 1e-5 * range);
    EXPECT_NEAR(f.y_m[k], -0.2 + range * d.y, 1e-5 * range);
    EXPECT_NEAR(f.z_m[k], -2.0, 1e-5 * range);
  }
}

// Beams that leave off the head's axis (beam_origin_radius_m = n, Ouster's
// lidar_origin_to_beam_origin; physics/ouster_beam.h) with a range offset (range_offset_m = q):
// over the same floor, a beam of direction d whose head points at h = azimuth - its own offset
// leaves from beam_origin + n (cos h, sin h, 0), meets the floor t = 2.5 / -d_z along d, and
// reports the range t + q and the point where it met the floor (z = -2 exactly).
TEST(CpuSimulator, BeamsLeaveFromTheirOwnOriginOffTheHeadsAxis) {
  const Scene scene = FloorTwoMetresDown();
  SensorProfile profile = test::SpinningSensor(8, -10, -60, 90, 10);
  profile.beam_origin_m = {0.3, -0.2, 0.5};
  profile.beam_origin_radius_m = 0.4;
  profile.range_offset_m = 0.25;
  for (size_t c = 0; c < profile.azimuth_offset_rad.size(); ++c)
    profile.azimuth_offset_rad[c] = 0.02 * static_cast<double>(c) - 0.07;
  ASSERT_TRUE(profile.Validate().ok());
  const Trajectory traj = Trajectory::Static();
  const Frame f = CpuSimulator(scene, profile, traj, {}).Simulate(0).value();
  ASSERT_EQ(f.size(), profile.BeamCount());
  for (size_t k = 0; k < f.size(); ++k) {
    const auto b = profile.Beam(f.beam_id[k]);
    const auto d = BeamDirection(b.azimuth_rad, b.elevation_rad);
    const double h = b.azimuth_rad - profile.azimuth_offset_rad[b.channel];
    const double t = 2.5 / -d.z;
    ASSERT_NEAR(f.range_m[k], t + 0.25, 1e-5 * t) << k;
    EXPECT_NEAR(f.x_m[k], 0.3 + 0.4 * std::cos(h) + t * d.x, 1e-5 * t);
    EXPECT_NEAR(f.y_m[k], -0.2 + 0.4 * std::sin(h) + t * d.y, 1e-5 * t);
    EXPECT_NEAR(f.z_m[k], -2.0, 1e-5 * t);
  }
  // Only a spinning head turns its beams' origins; a raster traced from the axis cannot hold
  // them.
  auto threshold = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128_threshold.yaml");
  ASSERT_TRUE(threshold.ok()) << threshold.message();
  SensorProfile raster = *threshold;
  raster.raster_gather = true;
  ASSERT_TRUE(raster.Validate().ok()) << raster.Validate().message();
  raster.beam_origin_radius_m = 0.027;
  EXPECT_NE(raster.Validate().message().find("from the head's axis"), std::string::npos)
      << raster.Validate().message();
  SensorProfile bad = profile;
  bad.beam_origin_radius_m = -0.01;
  EXPECT_NE(bad.Validate().message().find("beam_origin_radius_m"), std::string::npos);
  bad = profile;
  bad.range_offset_m = 1.5;
  EXPECT_NE(bad.Validate().message().find("range_offset_m"), std::string::npos);
}

// Capability model (seed 000 eq. 5) on a wall 20 m ahead, R0 = 0.4, d_max = 50 m,
// R_L,max = 0.8: a beam at angle phi off the normal sees r = 20 / cos(phi) and
// R = 0.4 cos(phi); it is detected iff 0.4 cos(phi) >= 0.8 / 50 * r, i.e. cos^2(phi) >= 0.8.
TEST(CpuSimulator, CapabilityCutOffFallsExactlyAtTheReflectanceLimit) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.4});
  scene.objects.push_back(test::Placed("wall", MakePlate(400, 400), {20, 0, 0}, 0, 0, 0, 0, 1, 1));
  SensorProfile profile = test::SpinningSensor(64, 40, -40, 720, 10);
  profile.detector.kind = DetectorKind::kCapability;
  profile.detector.max_range_m = 50.0;
  profile.detector.reflectance_at_max_range = 0.8;
  const Frame f = CpuSimulator(scene, profile, Trajectory::Static(), {}).Simulate(0).value();
  std::vector<bool> detected(profile.BeamCount(), false);
  for (size_t k = 0; k < f.size(); ++k)
    detected[f.beam_id[k]] = true;
  size_t inside = 0, outside = 0;
  for (uint32_t i = 0; i < profile.BeamCount(); ++i) {
    const auto d = DirectionOf(profile, i);
    if (d.x <= 0) continue;
    const double margin = d.x * d.x - 0.8;
    if (std::abs(margin) < 1e-9) continue;  // on the limit at double rounding
    EXPECT_EQ(detected[i], margin > 0) << "beam " << i << " cos^2 = " << d.x * d.x;
    (margin > 0 ? inside : outside) += 1;
  }
  EXPECT_GT(inside, 100u);
  EXPECT_GT(outside, 100u);  // the cut-off is inside the tested field, not beside it
}

// Sensor moving at 5 m/s towards a wall 20 m ahead: a point reported in the sensor frame at
// its firing time t has x = 20 - v t; corrected to the frame's last pose, x = 20 - v T.
TEST(CpuSimulator, MotionDistortionAndItsCorrection) {
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects.push_back(test::Placed("wall", MakePlate(400, 400), {20, 0, 0}, 0, 0, 0, 0, 1, 1));
  const SensorProfile profile = test::SpinningSensor(8, 10, -10, 200, 10);
  Trajectory traj;
  traj.time_s = {0.0, 1.0};
  traj.poses = {{{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {5, 0, 0}}};
  for (bool corrected : {false, true}) {
    traj.motion_correction = corrected;
    for (uint32_t frame : {0u, 1u}) {
      const Frame f = CpuSimulator(scene, profile, traj, {}).Simulate(frame).value();
      ASSERT_GT(f.size(), 100u);
      EXPECT_EQ(f.motion_corrected, corrected);
      double spread = 0;
      for (size_t k = 0; k < f.size(); ++k) {
        const double t = f.timestamp_s[k];
        const double expected_x = 20 - 5 * (corrected ? f.end_time_s : t);
        ASSERT_NEAR(f.x_m[k], expected_x, 2e-5) << "t = " << t;
        spread = std::max(spread, static_cast<double>(std::abs(f.x_m[k] - f.x_m[0])));
      }
      // The wall is seen over half a revolution (0.05 s): 0.25 m of travel at 5 m/s.
      if (!corrected) {
        EXPECT_GT(spread, 0.2);
      } else {
        EXPECT_LT(spread, 1e-4);
      }
      EXPECT_DOUBLE_EQ(f.end_time_s - f.start_time_s, 0.1);
    }
  }
}

TEST(CpuSimulator, MovingObjectsArePlacedPerMotionSlice) {
  // A wall approaching a static sensor at 5 m/s: each return sees the wall where it was at its
  // slice's mid time, so within v T / (2 slices) plus one column period of its own time.
  Scene scene;
  scene.materials = test::ConstantMaterials({0.5});
  scene.objects.push_back(test::Placed("wall", MakePlate(400, 400), {20, 0, 0}, 0, 0, 0, 0, 1, 1));
  scene.objects[0].motion.velocity_m_s = {-5, 0, 0};
  const SensorProfile profile = test::SpinningSensor(8, 10, -10, 200, 10);
  for (uint32_t slices : {1u, 16u}) {
    SimulationOptions options;
    options.motion_slices = slices;
    CpuSimulator sim(scene, profile, Trajectory::Static(), options);
    double mean_x[2] = {0, 0};
    for (uint32_t frame : {0u, 1u}) {
      const Frame f = sim.Simulate(frame).value();
      ASSERT_GT(f.size(), 100u);
      const double bound = 5 * (0.1 / (2 * slices) + 0.1 / 200) + 1e-5;
      double lo = 1e9, hi = -1e9;
      for (size_t k = 0; k < f.size(); ++k) {
        ASSERT_NEAR(f.x_m[k], 20 - 5 * f.timestamp_s[k], bound) << "slices " << slices;
        lo = std::min(lo, static_cast<double>(f.x_m[k]));
        hi = std::max(hi, static_cast<double>(f.x_m[k]));
        mean_x[frame] += f.x_m[k] / f.size();
      }
      if (slices == 1) {
        EXPECT_LT(hi - lo, 1e-4);  // one placement for the whole frame
      } else {
        EXPECT_GT(hi - lo, 0.15);  // the wall moves while the sensor sweeps it
      }
    }
    // One frame period later the wall is 0.5 m nearer.
    EXPECT_NEAR(mean_x[0] - mean_x[1], 0.5, 0.01);
  }
}

Frame LabFrame(uint64_t seed, unsigned threads) {
  static const auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  static const auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  EXPECT_TRUE(profile.ok() && scene.ok());
  static const Trajectory traj = Trajectory::Static();
  return CpuSimulator(scene.value(), profile.value(), traj, {seed, threads}).Simulate(0).value();
}

TEST(CpuSimulator, SameSeedSameFrameWhateverTheThreadCount) {
  const Frame a = LabFrame(7, 1);
  const Frame b = LabFrame(7, 3);
  const Frame c = LabFrame(8, 2);
  ASSERT_GT(a.size(), 10000u);
  EXPECT_EQ(a.range_m, b.range_m);
  EXPECT_EQ(a.x_m, b.x_m);
  EXPECT_EQ(a.intensity, b.intensity);
  EXPECT_EQ(a.beam_id, b.beam_id);
  EXPECT_EQ(a.instance_id, b.instance_id);
  EXPECT_NE(a.range_m, c.range_m);  // range noise (sigma 1 cm) depends on the seed
}

// Range noise: on the lab scene the detected ranges minus the true ranges have the
// profile's sigma (1 cm) within 5 %.
TEST(CpuSimulator, RangeNoiseHasTheConfiguredSigma) {
  auto profile = LoadSensorProfile(test::ConfigDir() / "sensors/ouster_os0_128.yaml");
  auto scene = LoadScene(test::ConfigDir() / "scenes/lab_plates.yaml", {});
  ASSERT_TRUE(profile.ok() && scene.ok());
  SensorProfile ideal = profile.value();
  ideal.detector.kind = DetectorKind::kIdeal;
  const Frame noisy =
      CpuSimulator(scene.value(), profile.value(), Trajectory::Static(), {3}).Simulate(0).value();
  const Frame truth =
      CpuSimulator(scene.value(), ideal, Trajectory::Static(), {3}).Simulate(0).value();
  std::vector<double> true_range(ideal.BeamCount(), -1);
  for (size_t k = 0; k < truth.size(); ++k)
    true_range[truth.beam_id[k]] = truth.range_m[k];
  double sum = 0, sum2 = 0;
  size_t n = 0;
  for (size_t k = 0; k < noisy.size(); ++k) {
    const double t = true_range[noisy.beam_id[k]];
    ASSERT_GE(t, 0);
    const double e = noisy.range_m[k] - t;
    sum += e;
    sum2 += e * e;
    ++n;
  }
  ASSERT_GT(n, 10000u);
  const double mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 5 * 0.01 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean), 0.01, 0.0005);
}

}  // namespace
}  // namespace lt
