// A recorded frame placed on a surface along its beams (issue 41): the pose it was seen from is
// recovered from a wrong one, whatever the error, and a frame the surfaces cannot pin down is
// refused.
#include "lidartwin/reconstruct/surface_registration.h"

#include <gtest/gtest.h>

#include <random>

#include "reconstruct/reconstruction_test_frames.h"

namespace lt {
namespace {

using physics::Vec3;

// A yard: the ground, three walls facing three ways and a tilted board, so that every
// direction of the frame's place is fixed by some plane.
Scene Yard() {
  Scene s;
  s.materials = test::ConstantMaterials({0.4});
  s.objects = {test::Placed("ground", MakePlane(100, 100), {0, 0, -1.8}, 0, 0, 0, 0, 1, 1),
               test::Placed("east", MakePlate(30, 10), {12, 0, 2}, 0, 0, 0, 0, 2, 1),
               test::Placed("north", MakePlate(30, 10), {0, 9, 2}, 0, 0, 90, 0, 3, 1),
               test::Placed("south-west", MakePlate(20, 10), {-8, -7, 2}, 0, 0, 35, 0, 4, 1),
               test::Placed("board", MakePlate(3, 2), {5, -4, 0}, 20, 30, -50, 0, 5, 1)};
  return s;
}

// The frame with each range moved by Gaussian noise of sigma_m along its beam.
Frame WithRangeNoise(Frame f, double sigma_m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, sigma_m);
  for (size_t i = 0; i < f.size(); ++i) {
    const double r = std::sqrt(double(f.x_m[i]) * f.x_m[i] + double(f.y_m[i]) * f.y_m[i] +
                               double(f.z_m[i]) * f.z_m[i]);
    const double s = (r + noise(rng)) / r;
    f.x_m[i] = static_cast<float>(f.x_m[i] * s);
    f.y_m[i] = static_cast<float>(f.y_m[i] * s);
    f.z_m[i] = static_cast<float>(f.z_m[i] * s);
    f.range_m[i] = static_cast<float>(f.range_m[i] * s);
  }
  return f;
}

// One frame of the yard seen while the sensor moves from `start` to `end` in the frame's 0.1 s.
Expected<Frame> MovingFrame(const Scene& yard, const SensorProfile& sensor,
                            const physics::Pose<double>& start, const physics::Pose<double>& end) {
  Trajectory trajectory;
  trajectory.time_s = {0, 0.1};
  trajectory.poses = {start, end};
  auto simulator = CreateSimulator(Backend::kCpu, yard, sensor, trajectory, {});
  if (!simulator.ok()) return simulator.error();
  return (*simulator)->Simulate(0);
}

// The motion tests' drive: 1 m and 2 deg in the frame's 0.1 s.
struct Drive {
  physics::Pose<double> start{{1, 0, 0, 0}, {0.3, -0.2, 0}};
  physics::Pose<double> end{physics::QuatFromRollPitchYaw(0.0, 0.0, 2 * physics::kDegToRad),
                            {1.3, -0.2, 0}};
};

TEST(SurfaceRegistration, AFramesPlaceIsRecoveredFromAWrongOne) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  const Vec3<double> truth{0.3, -0.2, 0};
  const Frame clean = test::SimulatedFrame(yard, sensor, truth);
  ASSERT_GT(clean.size(), 20000u);
  double worst_m = 0, worst_deg = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(1000 + seed);
    std::uniform_real_distribution<double> shift(-0.06, 0.06), turn(-0.4, 0.4);
    // The frame believed seen from a pose a few centimetres and tenths of a degree off.
    const physics::Pose<double> wrong{physics::QuatFromRollPitchYaw(turn(rng) * physics::kDegToRad,
                                                                    turn(rng) * physics::kDegToRad,
                                                                    turn(rng) * physics::kDegToRad),
                                      truth + Vec3<double>{shift(rng), shift(rng), shift(rng)}};
    PosedFrames scan;
    scan.frames = {WithRangeNoise(clean, 0.01, seed)};
    scan.start_poses = scan.end_poses = {wrong};
    auto placed = RegisterToSurface(scan, {}, *caster, {});
    ASSERT_TRUE(placed.ok()) << placed.message();
    const physics::Pose<double> found = physics::ComposePoses(placed->start_correction, wrong);
    const Vec3<double> off = found.translation - truth;
    worst_m = std::max(worst_m, std::sqrt(Dot(off, off)));
    worst_deg = std::max(worst_deg, TurnedDeg(found.rotation, {1, 0, 0, 0}));
    // 30,516 returns: every second one used (max_returns), nearly all of them paired.
    EXPECT_EQ(placed->used, (placed->returns + 1) / 2) << "seed " << seed;
    EXPECT_GT(placed->paired, placed->used * 9 / 10) << "seed " << seed;
    EXPECT_NEAR(placed->rms_m, 0.01, 0.001) << "seed " << seed;  // the noise left, no more
  }
  // 2.5 x 10^4 returns of 1 cm noise fix the place to a few tenths of a millimetre and a few
  // thousandths of a degree (measured: 0.28 mm, 0.0015 deg over the seeds); the wrong poses
  // were up to 10 cm and 0.7 deg off.
  EXPECT_LT(worst_m, 0.001);
  EXPECT_LT(worst_deg, 0.005);
}

// A sensor driving 1 m in the frame's 0.1 s and turning 2 deg: with fit_motion the poses at
// the frame's start and end are recovered each from its own error; one correction for both
// cannot undo errors that differ.
TEST(SurfaceRegistration, TheMotionWithinAFrameIsRecoveredWithFitMotion) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  const Drive drive;
  const physics::Pose<double> start = drive.start, end = drive.end;
  const auto frame = MovingFrame(yard, sensor, start, end);
  ASSERT_TRUE(frame.ok()) << frame.message();
  double worst_motion_m = 0, worst_one_m = 0;
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    std::mt19937 rng(2000 + seed);
    std::uniform_real_distribution<double> shift(-0.05, 0.05), turn(-0.3, 0.3);
    auto off = [&](const physics::Pose<double>& p) {
      const physics::Quat<double> q = physics::QuatFromRollPitchYaw(turn(rng) * physics::kDegToRad,
                                                                    turn(rng) * physics::kDegToRad,
                                                                    turn(rng) * physics::kDegToRad);
      return physics::Pose<double>{
          physics::Multiply(q, p.rotation),
          p.translation + Vec3<double>{shift(rng), shift(rng), shift(rng)}};
    };
    PosedFrames scan;
    scan.frames = {WithRangeNoise(*frame, 0.01, seed)};
    scan.start_poses = {off(start)};
    scan.end_poses = {off(end)};
    scan.columns_per_frame = sensor.columns;
    for (const bool fit_motion : {true, false}) {
      SurfaceRegistrationOptions o;
      o.fit_motion = fit_motion;
      auto placed = RegisterToSurface(scan, {}, *caster, o);
      ASSERT_TRUE(placed.ok()) << placed.message();
      double worst = 0;
      for (const bool at_end : {false, true}) {
        const physics::Pose<double> found =
            physics::ComposePoses(at_end ? placed->end_correction : placed->start_correction,
                                  at_end ? scan.end_poses[0] : scan.start_poses[0]);
        const Vec3<double> d = found.translation - (at_end ? end : start).translation;
        worst = std::max(worst, std::sqrt(Dot(d, d)));
        if (fit_motion)
          EXPECT_LT(TurnedDeg(found.rotation, (at_end ? end : start).rotation), 0.01)
              << "seed " << seed << (at_end ? " end" : " start");
      }
      (fit_motion ? worst_motion_m : worst_one_m) =
          std::max(fit_motion ? worst_motion_m : worst_one_m, worst);
    }
  }
  // Measured: 1.9 mm with fit_motion, 5.0 cm with one correction (the errors were up to 8.7 cm
  // and 0.5 deg at each end).
  EXPECT_LT(worst_motion_m, 0.003);
  EXPECT_GT(worst_one_m, 0.02);
}

// Within the frame, where its returns' poses are interpolated between the corrected start and
// end (PoseOfPoint once the corrections are applied), every return lands where it was seen:
// a point 20 m out at a quarter, half and three quarters of the frame, against the truth.
// The frame turns 20 deg in its 0.1 s (a car turning hard at 10 Hz) and its end is believed
// 0.77 deg off, so the correction interpolated times the poses interpolated would miss the
// mid-frame points by what placing them that way ignores.
TEST(SurfaceRegistration, ReturnsWithinTheFrameLandWhereTheyWereSeen) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  const physics::Pose<double> start{{1, 0, 0, 0}, {0.3, -0.2, 0}};
  const physics::Pose<double> end{physics::QuatFromRollPitchYaw(0.0, 0.0, 20 * physics::kDegToRad),
                                  {1.3, 0.3, 0}};
  const auto frame = MovingFrame(yard, sensor, start, end);
  ASSERT_TRUE(frame.ok()) << frame.message();
  PosedFrames scan;
  scan.frames = {WithRangeNoise(*frame, 0.005, 3)};
  scan.start_poses = {{physics::QuatFromRollPitchYaw(0.003, -0.004, 0.002),
                       start.translation + Vec3<double>{0.04, -0.03, 0.02}}};
  scan.end_poses = {
      {physics::Multiply(physics::QuatFromRollPitchYaw(-0.006, 0.008, -0.009), end.rotation),
       end.translation + Vec3<double>{-0.05, 0.06, -0.02}}};
  scan.columns_per_frame = sensor.columns;
  SurfaceRegistrationOptions o;
  o.fit_motion = true;
  o.max_returns = 0;  // every return
  auto placed = RegisterToSurface(scan, {}, *caster, o);
  ASSERT_TRUE(placed.ok()) << placed.message();
  EXPECT_EQ(placed->used, placed->returns);
  const physics::Pose<double> found_start =
      physics::ComposePoses(placed->start_correction, scan.start_poses[0]);
  const physics::Pose<double> found_end =
      physics::ComposePoses(placed->end_correction, scan.end_poses[0]);
  double worst_m = 0;
  for (const double s : {0.0, 0.25, 0.5, 0.75, 1.0})
    for (const Vec3<double> p :
         {Vec3<double>{20, 0, 0}, Vec3<double>{0, 20, 0}, Vec3<double>{-14, -14, -3}}) {
      const Vec3<double> d =
          physics::TransformPoint(physics::InterpolatePose(found_start, found_end, s), p) -
          physics::TransformPoint(physics::InterpolatePose(start, end, s), p);
      worst_m = std::max(worst_m, std::sqrt(Dot(d, d)));
    }
  // Measured: 0.52 mm; 12.1 mm when the fit interpolated the corrections between the poses
  // interpolated, as it did before 2026-12-02's second session.
  EXPECT_LT(worst_m, 0.002);
  // The sensor's place moved by about the errors put in (5.4 cm and 8.1 cm at the ends).
  EXPECT_NEAR(placed->moved_m, 0.081, 0.01);
}

// A capture's first or last frame holds part of a revolution: its returns fix one end of the
// frame and would extrapolate the other, so it takes one correction, fit_motion or not.
TEST(SurfaceRegistration, APartialFrameTakesOneCorrection) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  const Drive drive;
  const physics::Pose<double> start = drive.start, end = drive.end;
  const auto frame = MovingFrame(yard, sensor, start, end);
  ASSERT_TRUE(frame.ok()) << frame.message();
  // Its first 400 columns of 1024 (0.39 of the frame).
  Frame partial = *frame;
  std::vector<bool> keep(partial.size());
  for (size_t i = 0; i < partial.size(); ++i)
    keep[i] = partial.column[i] < 400;
  KeepPoints(partial, keep);
  ASSERT_GT(partial.size(), 5000u);
  PosedFrames scan;
  scan.frames = {WithRangeNoise(partial, 0.01, 9)};
  scan.start_poses = {{start.rotation, start.translation + Vec3<double>{0.03, -0.02, 0.01}}};
  scan.end_poses = {{end.rotation, end.translation + Vec3<double>{-0.04, 0.02, 0.0}}};
  scan.columns_per_frame = sensor.columns;
  SurfaceRegistrationOptions o;
  o.fit_motion = true;
  auto placed = RegisterToSurface(scan, {}, *caster, o);
  ASSERT_TRUE(placed.ok()) << placed.message();
  EXPECT_EQ(placed->start_correction.translation.x, placed->end_correction.translation.x);
  EXPECT_EQ(placed->start_correction.rotation.z, placed->end_correction.rotation.z);
  // The whole frame (columns to 1024) takes two.
  scan.frames = {WithRangeNoise(*frame, 0.01, 9)};
  placed = RegisterToSurface(scan, {}, *caster, o);
  ASSERT_TRUE(placed.ok()) << placed.message();
  EXPECT_NE(placed->start_correction.translation.x, placed->end_correction.translation.x);
}

// Six frames along a drive, each aligned on the surface of the four before it at most.
TEST(SurfaceRegistration, ADrivesFramesAreAlignedOnTheFramesJustBefore) {
  const Scene yard = Yard();
  const SensorProfile sensor = test::SpinningSensor(16, 10, -25, 512, 10);
  PosedFrames frames;
  std::vector<Vec3<double>> truth;
  for (int k = 0; k < 6; ++k) {
    truth.push_back({0.4 * k, 0.05 * k, 0});
    frames.frames.push_back(
        WithRangeNoise(test::SimulatedFrame(yard, sensor, truth.back()), 0.01, 20 + k));
    const double e = k == 0 ? 0 : 0.01 * (k % 2 ? 1 : -1) * (1 + k % 3);
    frames.start_poses.push_back({physics::QuatFromRollPitchYaw(0.1 * e, -0.1 * e, 0.2 * e),
                                  truth.back() + Vec3<double>{e, -e, 0.5 * e}});
  }
  frames.end_poses = frames.start_poses;
  const auto aligned = AlignFramesOnSurfaces(frames, {}, {});
  ASSERT_EQ(aligned.size(), 6u);
  for (size_t k = 0; k < truth.size(); ++k) {
    EXPECT_TRUE(aligned[k].registration_error.empty())
        << k << ": " << aligned[k].registration_error;
    const Vec3<double> off = frames.start_poses[k].translation - truth[k];
    // Measured: 0.5 to 3.3 mm from frame 1 to 5, each placed on frames themselves a little
    // off (0.6 mm more a frame down the chain); the errors put in were 1 to 4 cm.
    EXPECT_LT(std::sqrt(Dot(off, off)), 0.005) << "frame " << k;
  }
}

// A frame without columns has no place within it for a motion: one correction for the whole
// frame, fit_motion or not.
TEST(SurfaceRegistration, AFrameWithoutColumnsTakesOneCorrection) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  const physics::Pose<double> truth{{1, 0, 0, 0}, {0.3, -0.2, 0}};
  PosedFrames scan;
  scan.frames = {WithRangeNoise(test::SimulatedFrame(yard, sensor, truth.translation), 0.01, 5)};
  scan.frames[0].column.clear();
  // Believed to move 2 cm and turn 0.1 deg within the frame (it stood still): without columns
  // every return is at the start's pose.
  scan.start_poses = {{physics::QuatFromRollPitchYaw(0.002, 0.003, -0.004), {0.34, -0.23, 0.02}}};
  scan.end_poses = {{physics::QuatFromRollPitchYaw(0.002, 0.003, -0.0025), {0.36, -0.23, 0.02}}};
  scan.columns_per_frame = sensor.columns;
  SurfaceRegistrationOptions o;
  o.fit_motion = true;
  auto placed = RegisterToSurface(scan, {}, *caster, o);
  ASSERT_TRUE(placed.ok()) << placed.message();
  const physics::Pose<double>&a = placed->start_correction, &b = placed->end_correction;
  EXPECT_EQ(a.translation.x, b.translation.x);
  EXPECT_EQ(a.translation.y, b.translation.y);
  EXPECT_EQ(a.rotation.w, b.rotation.w);
  const Vec3<double> off =
      physics::ComposePoses(a, scan.start_poses[0]).translation - truth.translation;
  EXPECT_LT(std::sqrt(Dot(off, off)), 0.002);
}

// A correction larger than the caller allows is refused with what it would have been: a
// frame believed 5 cm off, at most 2 cm wanted.
TEST(SurfaceRegistration, ACorrectionBeyondTheBoundIsRefused) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  PosedFrames scan =
      test::Posed({test::SimulatedFrame(yard, sensor, {0.3, -0.2, 0})}, {{0.35, -0.2, 0}});
  SurfaceRegistrationOptions o;
  auto placed = RegisterToSurface(scan, {}, *caster, o);
  ASSERT_TRUE(placed.ok()) << placed.message();
  EXPECT_NEAR(placed->moved_m, 0.05, 0.002);
  o.max_move_m = 0.02;
  placed = RegisterToSurface(scan, {}, *caster, o);
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.message().find("would move the frame 0.05"), std::string::npos)
      << placed.message();
}

// Three frames of the yard from places 0.5 m apart, the second and third believed a few
// centimetres and tenths of a degree off: each is placed on the surface of those before it,
// the first holds still, and a frame of something else keeps its poses with the reason.
TEST(SurfaceRegistration, FramesAreAlignedOnTheSurfacesOfThoseBefore) {
  const Scene yard = Yard();
  const SensorProfile sensor = test::SpinningSensor(32, 10, -25, 1024, 10);
  const std::vector<Vec3<double>> truth = {{0, 0, 0}, {0.5, 0.1, 0}, {1.0, 0.2, 0}};
  PosedFrames frames;
  std::vector<physics::Pose<double>> wrong = {{{1, 0, 0, 0}, truth[0]},
                                              {physics::QuatFromRollPitchYaw(0.002, -0.003, 0.004),
                                               truth[1] + Vec3<double>{0.04, -0.03, 0.02}},
                                              {physics::QuatFromRollPitchYaw(-0.004, 0.002, -0.005),
                                               truth[2] + Vec3<double>{-0.05, 0.02, -0.03}}};
  for (size_t k = 0; k < truth.size(); ++k)
    frames.frames.push_back(
        WithRangeNoise(test::SimulatedFrame(yard, sensor, truth[k]), 0.01, 7 + k));
  frames.start_poses = frames.end_poses = wrong;
  auto aligned = AlignFramesOnSurfaces(frames, {}, {});
  ASSERT_EQ(aligned.size(), 3u);
  for (size_t k = 0; k < truth.size(); ++k) {
    EXPECT_TRUE(aligned[k].registration_error.empty())
        << k << ": " << aligned[k].registration_error;
    const Vec3<double> off = frames.start_poses[k].translation - truth[k];
    EXPECT_LT(std::sqrt(Dot(off, off)), 0.002) << "frame " << k;
    EXPECT_LT(TurnedDeg(frames.start_poses[k].rotation, {1, 0, 0, 0}), 0.01) << "frame " << k;
    EXPECT_LT(TurnedDeg(frames.end_poses[k].rotation, frames.start_poses[k].rotation), 1e-5);
  }
  // A frame believed 30 m up: its beams meet the yard nowhere near its returns. Kept as it
  // was, and why.
  frames.frames.push_back(frames.frames[0]);
  frames.start_poses.push_back({{1, 0, 0, 0}, {0, 0, 30}});
  frames.end_poses.push_back({{1, 0, 0, 0}, {0, 0, 30}});
  aligned = AlignFramesOnSurfaces(frames, {}, {});
  ASSERT_EQ(aligned.size(), 4u);
  EXPECT_NE(aligned[3].registration_error.find("meet the surface"), std::string::npos)
      << aligned[3].registration_error;
  EXPECT_EQ(frames.start_poses[3].translation.z, 30.0);
}

TEST(SurfaceRegistration, OneWallCannotFixAFramesPlace) {
  Scene wall;
  wall.materials = test::ConstantMaterials({0.4});
  wall.objects = {test::Wall(10)};
  const auto caster = RayCaster::Create(wall);
  ASSERT_TRUE(caster);
  const SensorProfile sensor = test::SpinningSensor(16, 10, -10, 512, 10);
  PosedFrames scan = test::Posed({test::SimulatedFrame(wall, sensor, {0, 0, 0})}, {{0, 0, 0}});
  auto placed = RegisterToSurface(scan, {}, *caster, {});
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.message().find("do not fix its place"), std::string::npos) << placed.message();
}

TEST(SurfaceRegistration, AFrameOffTheSurfaceIsRefused) {
  const Scene yard = Yard();
  const auto caster = RayCaster::Create(yard);
  ASSERT_TRUE(caster);
  // A frame of a wall 10 m ahead and nothing else, where the yard's nearest surface along
  // those beams is its east wall, 2 m farther: no return lies within the window.
  Scene wall;
  wall.materials = test::ConstantMaterials({0.4});
  wall.objects = {test::Wall(10)};
  const SensorProfile sensor = test::SpinningSensor(16, 10, -25, 512, 10);
  PosedFrames scan = test::Posed({test::SimulatedFrame(wall, sensor, {0, 0, 0})}, {{0, 0, 0}});
  auto placed = RegisterToSurface(scan, {}, *caster, {});
  ASSERT_FALSE(placed.ok());
  EXPECT_NE(placed.message().find("meet the surface"), std::string::npos) << placed.message();
  // Not one frame: refused by name.
  scan.frames.push_back(scan.frames[0]);
  EXPECT_NE(RegisterToSurface(scan, {}, *caster, {}).message().find("one posed frame"),
            std::string::npos);
}

}  // namespace
}  // namespace lt
