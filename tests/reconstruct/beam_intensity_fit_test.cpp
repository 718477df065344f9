// Per-laser intensity calibration from field data (reconstruct/beam_intensity_fit.h, issue 40):
// recovery of known laser gains in a synthetic room, and on the shared real drives the spread
// of the reading across lasers on shared surfaces lowered on frames the fit did not see.
#include "lidartwin/reconstruct/beam_intensity_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "lidartwin/datasets/kitti_bin.h"
#include "lidartwin/datasets/recording.h"
#include "test_support.h"

namespace lt {
namespace {

// A sensor 0.2 m above the origin in a 16 m x 12 m x 4.5 m room, 16 lasers from -15 to +15 deg,
// a return every 0.25 deg of azimuth: the walls' reflectances between 0.15 and 1, each laser's
// gain g_b, I = 100 rho cos(theta) g_b with 5 % lognormal noise. The walls are planes; `shift`
// moves the sensor along x (another frame).
Frame RoomFrame(const std::vector<double>& gains, double shift, uint64_t seed, bool textured = true,
                double noise_ln = 0.05) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, noise_ln);
  Frame f;
  const double planes[6][4] = {{1, 0, 0, 8},  {-1, 0, 0, 8}, {0, 1, 0, 6},
                               {0, -1, 0, 6}, {0, 0, 1, 3},  {0, 0, -1, 1.5}};  // n.p = d
  for (uint16_t b = 0; b < gains.size(); ++b) {
    const double el = (-15 + 30.0 * b / (gains.size() - 1)) * 3.14159265358979 / 180;
    for (int k = 0; k < 1440; ++k) {
      const double az = k * 0.25 * 3.14159265358979 / 180;
      const double d[3] = {std::cos(el) * std::cos(az), std::cos(el) * std::sin(az), std::sin(el)};
      // 0.2 m up: the lasers at -1 and +1 deg share the walls' cells (the cells' edges at z = 0
      // would part the lasers symmetric about the horizon).
      const double o[3] = {shift, 0, 0.2};
      double best = 1e9;
      int which = -1;
      for (int p = 0; p < 6; ++p) {
        const double dn = planes[p][0] * d[0] + planes[p][1] * d[1] + planes[p][2] * d[2];
        if (dn <= 1e-9) continue;
        const double t =
            (planes[p][3] - (planes[p][0] * o[0] + planes[p][1] * o[1] + planes[p][2] * o[2])) / dn;
        if (t > 0 && t < best) {
          best = t;
          which = p;
        }
      }
      if (which < 0) continue;
      const double x = o[0] + best * d[0], y = o[1] + best * d[1], z = o[2] + best * d[2];
      const double cos_theta =
          planes[which][0] * d[0] + planes[which][1] * d[1] + planes[which][2] * d[2];
      // Each wall its own reflectance, varying slowly along it (over metres, so a 0.4 m cell
      // is nearly uniform: texture inside a cell, which real surfaces have, is the real drives'
      // test below).
      const double base[6] = {0.2, 0.35, 0.5, 0.65, 0.3, 0.8};
      const double u = which < 2 ? y : x;
      const double rho = textured ? base[which] * (1 + 0.1 * std::sin(u / 2.5 + which)) : 0.5;
      FramePoint p;
      // The cloud in the sensor's frame.
      p.x_m = static_cast<float>(x - shift);
      p.y_m = static_cast<float>(y);
      p.z_m = static_cast<float>(z - 0.2);
      p.range_m = static_cast<float>(best);
      p.intensity = static_cast<float>(100 * rho * cos_theta * gains[b] * std::exp(noise(rng)));
      p.channel = b;
      f.Append(p);
    }
  }
  return f;
}

TEST(BeamIntensityFit, RecoversKnownLaserGainsAndRemovesTheSpread) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.7, 1.4);
  std::vector<double> gains(16);
  for (double& g : gains)
    g = u(rng);
  const std::vector<Frame> fit = {RoomFrame(gains, 0.0, 1), RoomFrame(gains, 2.4, 2)};
  const std::vector<Frame> held = {RoomFrame(gains, -1.2, 3)};
  BeamIntensityFitOptions o;
  auto g = FitBeamIntensityGains(fit, IntensityReading{}, o);
  ASSERT_TRUE(g.ok()) << g.message();
  ASSERT_EQ(g->gain.size(), 16u);
  // The gains are relative (the median laser 1 in each range bin): compare ratios to laser 7's,
  // in every bin both lasers saw. Typically within 2 %; at most 6 % (cells in the room's far
  // vertical corners, whose second wall tilts the incidence a little).
  std::vector<double> errors;
  for (size_t b = 0; b < 16; ++b)
    for (size_t k = 0; k < g->range_m.size(); ++k) {
      if (!(g->gain_sd[b][k] > 0) || !(g->gain_sd[7][k] > 0)) continue;
      const double ratio = g->gain[b][k] / g->gain[7][k], truth = gains[b] / gains[7];
      errors.push_back(std::fabs(ratio / truth - 1));
      EXPECT_LT(errors.back(), 0.06) << "laser " << b << " bin " << k;
    }
  ASSERT_GE(errors.size(), 16u);
  std::sort(errors.begin(), errors.end());
  EXPECT_LT(errors[errors.size() / 2], 0.02);
  auto before = MeasureCrossLaserSpread(held, IntensityReading{}, nullptr, o);
  auto after = MeasureCrossLaserSpread(held, IntensityReading{}, &*g, o);
  ASSERT_TRUE(before.ok() && after.ok());
  std::printf("[beams] synthetic room: spread %.4f -> %.4f ln over %zu cells\n", before->rms_ln,
              after->rms_ln, after->cells);
  EXPECT_GT(before->rms_ln, 0.15);
  EXPECT_LT(after->rms_ln, 0.3 * before->rms_ln);
}

TEST(BeamIntensityFit, FramesWithoutChannelsAreRefused) {
  Frame f = RoomFrame({1.0, 1.0}, 0, 1);
  f.channel.clear();
  auto g = FitBeamIntensityGains({f}, IntensityReading{}, {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.message().find("no channel"), std::string::npos) << g.message();
}

// The fit on some frames of a real drive, the spread measured on the others, before and after.
struct RealCase {
  const char* name;
  const char* recording;
  const char* sidecar;
  std::vector<size_t> fit, held;
};

// A recording's frames; a sidecar "*.bin" reads the folder's KITTI scans, in name order, as
// the frames of one drive.
Expected<std::vector<Frame>> RealFrames(const RealCase& c) {
  const auto path = test::RealDataDir() / c.recording;
  if (std::string(c.sidecar) != "*.bin") {
    auto rec = ReadRecording(path, test::RealDataDir() / c.sidecar);
    if (!rec.ok()) return rec.error();
    return std::move(rec->frames);
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(path))
    if (e.path().extension() == ".bin") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Frame> frames;
  for (const auto& file : files) {
    auto f = ReadKittiBin(file);
    if (!f.ok()) return f.error();
    frames.push_back(std::move(*f));
  }
  return frames;
}

void ExpectLowerSpreadOnHeldOutFrames(const RealCase& c, double min_reduction) {
  auto frames = RealFrames(c);
  ASSERT_TRUE(frames.ok()) << frames.message();
  std::vector<Frame> fit, held;
  for (size_t k : c.fit) {
    ASSERT_LT(k, frames->size()) << c.name;
    fit.push_back((*frames)[k]);
  }
  for (size_t k : c.held) {
    ASSERT_LT(k, frames->size()) << c.name;
    held.push_back((*frames)[k]);
  }
  BeamIntensityFitOptions o;
  auto g = FitBeamIntensityGains(fit, IntensityReading{}, o);
  ASSERT_TRUE(g.ok()) << c.name << ": " << g.message();
  auto before = MeasureCrossLaserSpread(held, IntensityReading{}, nullptr, o);
  auto after = MeasureCrossLaserSpread(held, IntensityReading{}, &*g, o);
  ASSERT_TRUE(before.ok()) << before.message();
  ASSERT_TRUE(after.ok()) << after.message();
  double lo = 1e9, hi = 0;
  for (size_t b = 0; b < g->gain.size(); ++b)
    for (size_t k = 0; k < g->range_m.size(); ++k) {
      if (!(g->gain_sd[b][k] > 0)) continue;
      lo = std::min(lo, g->gain[b][k]);
      hi = std::max(hi, g->gain[b][k]);
    }
  const double reduction = 1 - after->rms_ln / before->rms_ln;
  std::printf(
      "[beams] %s: gains %.3f..%.3f over %zu cells; held-out spread %.4f -> %.4f ln "
      "over %zu cells (%.0f %% lower)\n",
      c.name, lo, hi, g->cells, before->rms_ln, after->rms_ln, after->cells, 100 * reduction);
  EXPECT_GE(reduction, min_reduction) << c.name;
}

// Issue 40's target: >= 30 % lower on held-out frames of two real recordings. The VLS-128 bag
// (fitted on its odd whole revolutions, measured on the even) and the KITTI drive (its six scans'
// lasers numbered from their order, KittiBin.ScanLinesAreTheSensorsLasers; fitted on the first
// three, measured on the last three, 1.4 to 3.4 m further along) meet it; the HDL-32E drive (an
// open field: grass, trees and posts) and the others are held to no worse, their figures in
// docs/calibration.md ("Per-laser intensity from field data"). The bags' first and last frames
// are partial and left out.
TEST(BeamIntensityFit, RealDrivesHeldOutFrames) {
  LT_REQUIRE_REAL_DATA();
  ExpectLowerSpreadOnHeldOutFrames(
      {"VLS-128 bag", "nebula/velodyne-vls128", "nebula/velodyne-vls128/VLS128.yaml", {1, 3}, {2}},
      0.30);
  ExpectLowerSpreadOnHeldOutFrames({"HDL-32E capture",
                                    "rust-lidar-utils/hdl32_example.pcap",
                                    "ros-velodyne/32db.yaml",
                                    {1, 3, 5},
                                    {2, 4}},
                                   0.0);
  ExpectLowerSpreadOnHeldOutFrames(
      {"KITTI drive", "kitti-odometry-patchworkpp", "*.bin", {0, 1, 2}, {3, 4, 5}}, 0.30);
  ExpectLowerSpreadOnHeldOutFrames(
      {"VLP-16 bag", "nebula/velodyne-vlp16", "nebula/velodyne-vlp16/VLP16.yaml", {1, 3}, {2}},
      0.0);
  ExpectLowerSpreadOnHeldOutFrames({"Helios 16P bag",
                                    "nebula/robosense-helios16p",
                                    "nebula/robosense-helios16p/RobosenseHelios16P.csv",
                                    {1, 3},
                                    {2, 4}},
                                   0.0);
  ExpectLowerSpreadOnHeldOutFrames({"Pandar64 bag",
                                    "nebula/hesai-pandar64",
                                    "nebula/hesai-pandar64/Pandar64.csv",
                                    {1, 3},
                                    {2, 4}},
                                   0.0);
}

}  // namespace
}  // namespace lt
