// Frame-to-frame ICP (datasets/src/frame_registration.cpp): the motions of a synthetic drive
// recovered, frames that do not overlap, too few frames or points, and the options' checks.
#include "lidartwin/datasets/frame_registration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "lidartwin/physics/units.h"

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
  // EstimatePoses validates before it reads a frame.
  RegistrationOptions bad;
  bad.min_fitness = -1;
  auto estimate = EstimatePoses(Drive(2), bad);
  ASSERT_FALSE(estimate.ok());
  EXPECT_NE(estimate.message().find("min_fitness"), std::string::npos) << estimate.message();
}

}  // namespace
}  // namespace lt
