// Frame-to-frame ICP (reconstruct/src/frame_registration.cpp): the motions of a synthetic drive
// recovered, from rigid frames and from rolling-shutter sweeps (deskewed by timestamps or
// columns), frames that do not overlap, too few frames or points, the options' checks, and the
// shared HDL-32E drive.
#include "lidartwin/reconstruct/frame_registration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "lidartwin/datasets/recording.h"
#include "lidartwin/physics/units.h"
#include "lidartwin/reconstruct/reconstructed_surface.h"
#include "test_support.h"

namespace lt {
namespace {

using physics::Pose;
using physics::Vec3;

// A rectangle in the world: origin + s * u + t * v for s, t in [0, 1].
struct Patch {
  Vec3<double> origin, u, v;
  int points;  // sampled per frame
};

// A yard: ground, two walls at right angles (they fix x, y and yaw; the ground z, roll and
// pitch), and four boxes turned to different yaws so that no direction slides freely.
std::vector<Patch> Yard() {
  std::vector<Patch> yard = {
      {{-25, -22, 0}, {60, 0, 0}, {0, 44, 0}, 8000},  // ground
      {{35, -22, 0}, {0, 44, 0}, {0, 0, 6}, 4000},    // wall facing -x
      {{-25, 22, 0}, {60, 0, 0}, {0, 0, 6}, 4000},    // wall facing -y
  };
  struct Box {
    double x, y, yaw_deg, length, width, height;
  };
  const Box boxes[] = {{8, -6, 20, 2.0, 1.5, 1.5},
                       {15, 7, -35, 3.0, 1.2, 2.0},
                       {-6, 9, 60, 1.5, 1.5, 1.0},
                       {22, -12, 5, 2.5, 2.0, 2.5}};
  for (const Box& b : boxes) {
    const double c = std::cos(b.yaw_deg * physics::kDegToRad);
    const double s = std::sin(b.yaw_deg * physics::kDegToRad);
    const Vec3<double> ex{c * b.length, s * b.length, 0}, ey{-s * b.width, c * b.width, 0};
    const Vec3<double> ez{0, 0, b.height};
    const Vec3<double> corner = Vec3<double>{b.x, b.y, 0} - 0.5 * ex - 0.5 * ey;
    yard.push_back({corner, ex, ez, 250});       // side along the length
    yard.push_back({corner + ey, ex, ez, 250});  // opposite side
    yard.push_back({corner, ey, ez, 150});       // end
    yard.push_back({corner + ex, ey, ez, 150});  // other end
    yard.push_back({corner + ez, ex, ey, 200});  // top
  }
  return yard;  // 20,000 points
}

// The sensor at frame k: 0.3 m forward per frame, turning 0.5 deg per frame, rocking slightly.
Pose<double> SensorPose(int k) {
  const double yaw = 0.5 * k * physics::kDegToRad;
  const double roll = 0.2 * std::sin(k) * physics::kDegToRad;
  const double pitch = 0.15 * std::cos(k) * physics::kDegToRad;
  return {physics::QuatFromRollPitchYaw(roll, pitch, yaw), {0.3 * k, 0.05 * k * k, 1.8}};
}

// Points of the yard sampled afresh for frame k (no point seen twice), in the sensor frame at
// `pose`, with 1 cm Gaussian noise on each coordinate.
Frame SampleFrame(const std::vector<Patch>& yard, const Pose<double>& pose, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> noise(0, 0.01);
  Frame f;
  for (const Patch& patch : yard)
    for (int i = 0; i < patch.points; ++i) {
      const Vec3<double> w = patch.origin + unit(rng) * patch.u + unit(rng) * patch.v;
      Vec3<double> p = physics::InverseTransformPoint(pose, w);
      p = p + Vec3<double>{noise(rng), noise(rng), noise(rng)};
      f.x_m.push_back(static_cast<float>(p.x));
      f.y_m.push_back(static_cast<float>(p.y));
      f.z_m.push_back(static_cast<float>(p.z));
      f.range_m.push_back(static_cast<float>(std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z)));
    }
  return f;
}

std::vector<Frame> Drive(int frames) {
  const auto yard = Yard();
  std::vector<Frame> out;
  for (int k = 0; k < frames; ++k)
    out.push_back(SampleFrame(yard, SensorPose(k), 1000 + k));
  return out;
}

// Translation [m] and rotation angle [deg] of a^-1 b.
std::pair<double, double> Difference(const Pose<double>& a, const Pose<double>& b) {
  const Pose<double> d = physics::ComposePoses(physics::InversePose(a), b);
  const double w = std::fmin(1.0, std::fabs(d.rotation.w));
  return {physics::Norm(d.translation), 2 * std::acos(w) / physics::kDegToRad};
}

// A frame placed in a map (RegisterToMap): frames 0 and 2 of the drive at their true poses
// make the map, frame 1 is given a pose 5 cm and 0.4 deg off; the correction puts it back within
// 5 mm and 0.03 deg (the points carry 1 cm noise). A frame from elsewhere is refused.
TEST(FrameRegistration, AFramePlacedInTheMapOfItsNeighbours) {
  const std::vector<Frame> frames = Drive(3);
  PosedFrames map;
  for (int k : {0, 2}) {
    map.frames.push_back(frames[static_cast<size_t>(k)]);
    map.start_poses.push_back(SensorPose(k));
    map.end_poses.push_back(SensorPose(k));
  }
  const Pose<double> off = physics::ComposePoses(
      Pose<double>{
          physics::QuatFromRollPitchYaw(0.1 * physics::kDegToRad, 0.0, 0.4 * physics::kDegToRad),
          {0.04, -0.03, 0.01}},
      SensorPose(1));
  PosedFrames scan;
  scan.frames = {frames[1]};
  scan.start_poses = {off};
  scan.end_poses = {off};
  auto placed = RegisterToMap(scan, map, {});
  ASSERT_TRUE(placed.ok()) << placed.message();
  const auto [metres, degrees] =
      Difference(physics::ComposePoses(placed->correction, off), SensorPose(1));
  EXPECT_LT(metres, 0.005);
  EXPECT_LT(degrees, 0.03);
  EXPECT_GT(placed->fitness, 0.9);
  // The same frame 40 m away matches nothing in the map.
  const Pose<double> far = physics::ComposePoses(Pose<double>{{1, 0, 0, 0}, {40, 40, 0}}, off);
  scan.start_poses = scan.end_poses = {far};
  auto lost = RegisterToMap(scan, map, {});
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.message().find("fitness"), std::string::npos) << lost.message();
}

TEST(FrameRegistration, RecoversTheMotionsOfADrive) {
  const std::vector<Frame> frames = Drive(4);
  auto estimate = EstimatePoses(frames, RegistrationOptions{});
  ASSERT_TRUE(estimate.ok()) << estimate.message();
  ASSERT_EQ(estimate->poses.size(), 4u);
  ASSERT_EQ(estimate->pairs.size(), 3u);
  EXPECT_EQ(estimate->poses[0].rotation.w, 1.0);
  EXPECT_EQ(physics::Norm(estimate->poses[0].translation), 0.0);
  for (size_t k = 0; k < 3; ++k) {
    const PairRegistration& pair = estimate->pairs[k];
    EXPECT_EQ(pair.from, k);
    EXPECT_EQ(pair.to, k + 1);
    // Each frame samples the yard afresh, half a metre apart on the ground, so its points' nearest
    // neighbours in the other frame lie on the same surface but not on the same spot: fitness
    // and RMSE (point to point) measure the sampling, not the error of the motion.
    EXPECT_GT(pair.fitness, 0.6) << "pair " << k;
    EXPECT_LT(pair.inlier_rmse_m, 0.3) << "pair " << k;
    const Pose<double> truth = physics::ComposePoses(
        physics::InversePose(SensorPose(static_cast<int>(k))), SensorPose(static_cast<int>(k + 1)));
    const auto [dt_m, dr_deg] = Difference(truth, pair.motion);
    EXPECT_LT(dt_m, 0.02) << "pair " << k;
    EXPECT_LT(dr_deg, 0.2) << "pair " << k;
    // The chain: frame k + 1 in frame 0.
    const Pose<double> chained_truth = physics::ComposePoses(physics::InversePose(SensorPose(0)),
                                                             SensorPose(static_cast<int>(k + 1)));
    const auto [ct_m, cr_deg] = Difference(chained_truth, estimate->poses[k + 1]);
    EXPECT_LT(ct_m, 0.02 * (k + 1)) << "pose " << k + 1;
    EXPECT_LT(cr_deg, 0.2 * (k + 1)) << "pose " << k + 1;
  }
}

// The sensor at frame time u (frame k spans u in [k, k + 1]) of a rolling-shutter drive:
// 0.6 m forward per frame, drifting sideways, turning 0.5 deg per frame, rocking slightly.
Pose<double> SweepPose(double u) {
  const double yaw = 0.5 * u * physics::kDegToRad;
  const double roll = 0.2 * std::sin(u) * physics::kDegToRad;
  const double pitch = 0.15 * std::cos(u) * physics::kDegToRad;
  return {physics::QuatFromRollPitchYaw(roll, pitch, yaw), {0.6 * u, 0.02 * u * u, 1.8}};
}

constexpr double kSweepPeriodS = 0.1;  // 10 Hz
constexpr uint32_t kSweepColumns = 2048;

// Frame k of a spinning lidar on the drive: each point fires at the fraction s of the
// revolution given by its azimuth (from the mid-frame pose) and is expressed in the sensor
// frame at its own firing time u = k + s, as a real sensor reports it; it carries that time
// (timestamp_s) and its column.
Frame SampleSweep(const std::vector<Patch>& yard, int k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> noise(0, 0.01);
  const Pose<double> mid = SweepPose(k + 0.5);
  Frame f;
  for (const Patch& patch : yard)
    for (int i = 0; i < patch.points; ++i) {
      const Vec3<double> w = patch.origin + unit(rng) * patch.u + unit(rng) * patch.v;
      const Vec3<double> m = physics::InverseTransformPoint(mid, w);
      const double s = (std::atan2(m.y, m.x) + physics::kPi) / (2 * physics::kPi);
      const double u = k + s;
      Vec3<double> p = physics::InverseTransformPoint(SweepPose(u), w);
      p = p + Vec3<double>{noise(rng), noise(rng), noise(rng)};
      f.x_m.push_back(static_cast<float>(p.x));
      f.y_m.push_back(static_cast<float>(p.y));
      f.z_m.push_back(static_cast<float>(p.z));
      f.range_m.push_back(static_cast<float>(physics::Norm(p)));
      f.column.push_back(std::min(kSweepColumns - 1, static_cast<uint32_t>(s * kSweepColumns)));
      f.timestamp_s.push_back(100 + u * kSweepPeriodS);
    }
  return f;
}

std::vector<Frame> SweepDrive(int frames) {
  const auto yard = Yard();
  std::vector<Frame> out;
  for (int k = 0; k < frames; ++k)
    out.push_back(SampleSweep(yard, k, 2000 + k));
  return out;
}

// Worst translation [m] and rotation [deg] error of the pair motions against the mid-frame
// truth.
std::pair<double, double> WorstPairError(const PoseEstimate& estimate) {
  double worst_m = 0, worst_deg = 0;
  for (const PairRegistration& pair : estimate.pairs) {
    const Pose<double> truth = physics::ComposePoses(
        physics::InversePose(SweepPose(pair.from + 0.5)), SweepPose(pair.to + 0.5));
    const auto [dt_m, dr_deg] = Difference(truth, pair.motion);
    worst_m = std::fmax(worst_m, dt_m);
    worst_deg = std::fmax(worst_deg, dr_deg);
  }
  return {worst_m, worst_deg};
}

// A sweep smears the yard by 0.6 m from its first point to its last; the deskew rounds undo
// that and the pair motions come out mid-frame to mid-frame.
TEST(FrameRegistration, RecoversTheMotionsOfARollingShutterDrive) {
  const std::vector<Frame> frames = SweepDrive(3);
  auto estimate = EstimatePoses(frames, RegistrationOptions{});
  ASSERT_TRUE(estimate.ok()) << estimate.message();
  EXPECT_EQ(estimate->clock, FiringClock::kTimestamp);
  EXPECT_EQ(estimate->rounds, 3);
  ASSERT_EQ(estimate->pairs.size(), 2u);
  ASSERT_EQ(estimate->start_poses.size(), 3u);
  ASSERT_EQ(estimate->end_poses.size(), 3u);
  const auto [worst_m, worst_deg] = WorstPairError(*estimate);
  EXPECT_LT(worst_m, 0.02);
  EXPECT_LT(worst_deg, 0.2);
  for (size_t k = 0; k < frames.size(); ++k) {
    // Frame k's mid, first and last firing in frame 0's mid-frame sensor frame; the first and
    // last points fire within 1e-3 of a revolution of the frame's start and end.
    const Pose<double> world = physics::InversePose(SweepPose(0.5));
    const auto [dm_m, dm_deg] =
        Difference(physics::ComposePoses(world, SweepPose(k + 0.5)), estimate->poses[k]);
    const auto [ds_m, ds_deg] =
        Difference(physics::ComposePoses(world, SweepPose(k)), estimate->start_poses[k]);
    const auto [de_m, de_deg] =
        Difference(physics::ComposePoses(world, SweepPose(k + 1)), estimate->end_poses[k]);
    EXPECT_LT(dm_m, 0.02 * (k + 1)) << "frame " << k;
    EXPECT_LT(ds_m, 0.02 * (k + 1)) << "frame " << k;
    EXPECT_LT(de_m, 0.02 * (k + 1)) << "frame " << k;
    EXPECT_LT(std::fmax(dm_deg, std::fmax(ds_deg, de_deg)), 0.2 * (k + 1)) << "frame " << k;
  }
}

// Without timestamps the columns tell the firing order; with neither the frames are
// registered as they are.
TEST(FrameRegistration, DeskewsByColumnsWithoutTimestamps) {
  std::vector<Frame> frames = SweepDrive(2);
  for (Frame& f : frames)
    f.timestamp_s.clear();
  auto by_column = EstimatePoses(frames, RegistrationOptions{});
  ASSERT_TRUE(by_column.ok()) << by_column.message();
  EXPECT_EQ(by_column->clock, FiringClock::kColumn);
  const auto [worst_m, worst_deg] = WorstPairError(*by_column);
  EXPECT_LT(worst_m, 0.02);
  EXPECT_LT(worst_deg, 0.2);

  for (Frame& f : frames)
    f.column.clear();
  auto no_clock = EstimatePoses(frames, RegistrationOptions{});
  ASSERT_TRUE(no_clock.ok()) << no_clock.message();
  EXPECT_EQ(no_clock->clock, FiringClock::kNone);
  EXPECT_EQ(no_clock->rounds, 1);
  for (size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(no_clock->start_poses[k].translation.x, no_clock->poses[k].translation.x);
    EXPECT_EQ(no_clock->end_poses[k].rotation.z, no_clock->poses[k].rotation.z);
  }
}

// With more OpenMP threads than one, Open3D's ICP differs in the last bits from run to run
// (frame_registration.cpp); EstimatePoses runs it on one.
TEST(FrameRegistration, IsDeterministic) {
  const std::vector<Frame> frames = Drive(2);
  RegistrationOptions o;
  o.voxel_m = {0.5, 0.25};
  auto a = EstimatePoses(frames, o);
  auto b = EstimatePoses(frames, o);
  ASSERT_TRUE(a.ok() && b.ok());
  const Pose<double>&pa = a->poses[1], &pb = b->poses[1];
  EXPECT_EQ(pa.rotation.w, pb.rotation.w);
  EXPECT_EQ(pa.rotation.z, pb.rotation.z);
  EXPECT_EQ(pa.translation.x, pb.translation.x);
  EXPECT_EQ(pa.translation.y, pb.translation.y);
  EXPECT_EQ(a->pairs[0].fitness, b->pairs[0].fitness);

  // And through the deskew rounds.
  const std::vector<Frame> sweeps = SweepDrive(2);
  auto c = EstimatePoses(sweeps, o);
  auto d = EstimatePoses(sweeps, o);
  ASSERT_TRUE(c.ok() && d.ok());
  EXPECT_EQ(c->rounds, 3);
  auto same = [](const std::vector<Pose<double>>& x, const std::vector<Pose<double>>& y) {
    ASSERT_EQ(x.size(), y.size());
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(x[k].rotation.w, y[k].rotation.w);
      EXPECT_EQ(x[k].rotation.x, y[k].rotation.x);
      EXPECT_EQ(x[k].rotation.y, y[k].rotation.y);
      EXPECT_EQ(x[k].rotation.z, y[k].rotation.z);
      EXPECT_EQ(x[k].translation.x, y[k].translation.x);
      EXPECT_EQ(x[k].translation.y, y[k].translation.y);
      EXPECT_EQ(x[k].translation.z, y[k].translation.z);
    }
  };
  same(c->poses, d->poses);
  same(c->start_poses, d->start_poses);
  same(c->end_poses, d->end_poses);
  EXPECT_EQ(c->pairs[0].fitness, d->pairs[0].fitness);
  EXPECT_EQ(c->pairs[0].inlier_rmse_m, d->pairs[0].inlier_rmse_m);
}

TEST(FrameRegistration, FramesThatDoNotOverlapAreAnErrorNamingThePair) {
  std::vector<Frame> frames = Drive(3);
  // Frame 2 seen from 500 m further on: nothing within reach of frame 1's points.
  for (float& x : frames[2].x_m)
    x += 500;
  for (size_t i = 0; i < frames[2].size(); ++i)
    frames[2].range_m[i] = std::hypot(frames[2].x_m[i], frames[2].y_m[i], frames[2].z_m[i]);
  RegistrationOptions o;
  o.max_range_m = 1000;
  auto estimate = EstimatePoses(frames, o);
  ASSERT_FALSE(estimate.ok());
  EXPECT_NE(estimate.message().find("frames 1 and 2"), std::string::npos) << estimate.message();
  EXPECT_NE(estimate.message().find("fitness 0.000"), std::string::npos) << estimate.message();
  EXPECT_NE(estimate.message().find("may not overlap"), std::string::npos) << estimate.message();
}

TEST(FrameRegistration, NeedsTwoFramesWithEnoughPoints) {
  auto one = EstimatePoses(Drive(1), RegistrationOptions{});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.message().find("needs at least two frames, got 1"), std::string::npos)
      << one.message();

  std::vector<Frame> frames = Drive(2);
  // Frame 1 all within min_range_m but 50 points.
  for (size_t i = 50; i < frames[1].size(); ++i)
    frames[1].range_m[i] = 0.5f;
  auto sparse = EstimatePoses(frames, RegistrationOptions{});
  ASSERT_FALSE(sparse.ok());
  EXPECT_NE(sparse.message().find("frame 1 has only 50 usable points of 20000"), std::string::npos)
      << sparse.message();

  // Points enough, but none with a plane: every neighbourhood at least as wide as long is
  // asked for, and sampled surfaces are never that round.
  RegistrationOptions round_only;
  round_only.min_width_ratio = 0.999;
  auto lines = EstimatePoses(Drive(2), round_only);
  ASSERT_FALSE(lines.ok());
  EXPECT_NE(lines.message().find("frame 0 thinned to 0.5 m voxels keeps"), std::string::npos)
      << lines.message();
  EXPECT_NE(lines.message().find("points with a plane"), std::string::npos) << lines.message();
}

TEST(FrameRegistration, OptionsValidateNamesTheKey) {
  EXPECT_TRUE(RegistrationOptions{}.Validate().ok());
  auto message = [](auto change) {
    RegistrationOptions o;
    change(o);
    const Status s = o.Validate();
    return s.ok() ? std::string("ok") : s.message();
  };
  EXPECT_EQ(message([](RegistrationOptions& o) { o.voxel_m.clear(); }),
            "registration options: key 'voxel_m': needs at least one voxel size");
  EXPECT_EQ(message([](RegistrationOptions& o) {
              o.voxel_m = {0.5, 0.5};
            }),
            "registration options: key 'voxel_m[1]': must be smaller than voxel_m[0] (scales run "
            "coarse to fine), got 0.5 after 0.5");
  EXPECT_EQ(message([](RegistrationOptions& o) {
              o.voxel_m = {0.5, 0};
            }),
            "registration options: key 'voxel_m[1]': must be in [0.001, 100] m, got 0");
  EXPECT_EQ(message([](RegistrationOptions& o) { o.max_range_m = 0.5; }),
            "registration options: key 'max_range_m': must exceed min_range_m, got 0.5");
  EXPECT_EQ(message([](RegistrationOptions& o) { o.max_iterations = 0; }),
            "registration options: key 'max_iterations': must be in 1..1000, got 0");
  EXPECT_EQ(message([](RegistrationOptions& o) { o.max_correspondence_factor = NAN; }),
            "registration options: key 'max_correspondence_factor': must be in (0, 100], got nan");
  EXPECT_EQ(message([](RegistrationOptions& o) { o.min_fitness = 1.5; }),
            "registration options: key 'min_fitness': must be in [0, 1], got 1.5");
  EXPECT_EQ(message([](RegistrationOptions& o) { o.min_width_ratio = 1; }),
            "registration options: key 'min_width_ratio': must be in [0, 1), got 1");
  EXPECT_EQ(message([](RegistrationOptions& o) { o.deskew_rounds = -1; }),
            "registration options: key 'deskew_rounds': must be in 0..10, got -1");
  // EstimatePoses validates before it reads a frame.
  RegistrationOptions bad;
  bad.min_fitness = -1;
  auto estimate = EstimatePoses(Drive(2), bad);
  ASSERT_FALSE(estimate.ok());
  EXPECT_NE(estimate.message().find("min_fitness"), std::string::npos) << estimate.message();
}

// The shared HDL-32E capture, taken from a car driving through an open field with trees and
// posts: a post 17 m to the side moves back 1.30 to 1.35 m from one revolution to the next (at
// the same azimuth, so its firing times are one revolution apart), about 15.6 m/s at 11.7 Hz.
// Registered as they are, with every point's plane, the ground's scan rings pulled the finest
// scale towards no motion: 0.12, 1.07, 0.04, 0.23 m for the four pairs of the full
// revolutions 1 to 5. Now every pair moves the same 1.3 m.
TEST(FrameRegistration, RealHdl32DriveMovesTheSameEveryRevolution) {
  LT_REQUIRE_REAL_DATA();
  auto recording = ReadRecording(test::RealDataDir() / "rust-lidar-utils/hdl32_example.pcap",
                                 test::RealDataDir() / "ros-velodyne/32db.yaml");
  ASSERT_TRUE(recording.ok()) << recording.message();
  ASSERT_EQ(recording->frames.size(), 7u);
  // Frames 0 and 6 are partial revolutions; 1 to 5 whole ones.
  const std::vector<Frame> frames(recording->frames.begin() + 1, recording->frames.begin() + 6);
  auto estimate = EstimatePoses(frames, RegistrationOptions{});
  ASSERT_TRUE(estimate.ok()) << estimate.message();
  EXPECT_EQ(estimate->clock, FiringClock::kTimestamp);
  ASSERT_EQ(estimate->pairs.size(), 4u);
  std::vector<double> lengths_m;
  for (const PairRegistration& pair : estimate->pairs)
    lengths_m.push_back(physics::Norm(pair.motion.translation));
  std::vector<double> sorted = lengths_m;
  std::sort(sorted.begin(), sorted.end());
  const double median_m = 0.5 * (sorted[1] + sorted[2]);
  EXPECT_GT(median_m, 1.25);
  EXPECT_LT(median_m, 1.40);
  for (size_t k = 0; k < 4; ++k) {
    const PairRegistration& pair = estimate->pairs[k];
    EXPECT_LT(std::fabs(lengths_m[k] - median_m), 0.05 * median_m) << "pair " << k;
    EXPECT_GT(pair.motion.translation.x, 0.98 * lengths_m[k]) << "pair " << k;  // forward: +x
    const auto [dt_m, dr_deg] = Difference(Pose<double>{{1, 0, 0, 0}, {0, 0, 0}}, pair.motion);
    EXPECT_LT(dr_deg, 1.0) << "pair " << k;  // driving straight
    EXPECT_GT(pair.fitness, 0.75) << "pair " << k;
    EXPECT_LT(pair.inlier_rmse_m, 0.12) << "pair " << k;
    EXPECT_EQ(pair.scales, 3u) << "pair " << k;
    // The revolutions run back to back: one's last firing is the next one's first, and the
    // poses there, each half a frame from its own middle, agree.
    const auto [gap_m, gap_deg] = Difference(estimate->end_poses[k], estimate->start_poses[k + 1]);
    EXPECT_LT(gap_m, 0.05) << "pair " << k;
    EXPECT_LT(gap_deg, 0.5) << "pair " << k;
  }
}

}  // namespace
}  // namespace lt
