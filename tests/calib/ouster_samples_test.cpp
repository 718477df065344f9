// Range images, incidence angles and the two sample populations of real Ouster frames
// (calib/ouster_samples.h), on synthetic frames and images with known answers.
#include "lidartwin/calib/ouster_samples.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lt::calib {
namespace {

constexpr double kDeg = M_PI / 180;

FramePoint Point(uint16_t row, uint32_t column, float range, float signal, float refl_pct,
                 uint8_t ret = 0) {
  FramePoint p;
  p.channel = row;
  p.column = column;
  p.range_m = range;
  p.x_m = range;
  p.intensity = signal;
  p.reflectance = refl_pct / 100;
  p.return_index = ret;
  return p;
}

TEST(RangeImage, DestaggersKeepsFirstReturnsAndMarksSeenColumns) {
  // 16 columns, 22.5 deg each: beam 0 looks 45 deg ahead of its column (+2), beam 1 behind (-1).
  Frame f;
  f.Append(Point(0, 3, 5, 40, 20));
  f.Append(Point(0, 3, 9, 10, 10, 1));  // second return: ignored
  f.Append(Point(1, 0, 7, 30, 15));     // wraps to column 15
  auto img = BuildRangeImage(f, {45.0, -22.5}, 16, true);
  ASSERT_TRUE(img.ok()) << img.message();
  EXPECT_EQ(img->range_m[img->Index(0, 5)], 5.0f);
  EXPECT_EQ(img->signal[img->Index(0, 5)], 40.0f);
  EXPECT_FLOAT_EQ(img->reflectivity_pct[img->Index(0, 5)], 20.0f);
  EXPECT_EQ(img->range_m[img->Index(1, 15)], 7.0f);
  // Measurement columns 0 and 3 were seen, in both rows, wherever they land.
  EXPECT_TRUE(img->seen[img->Index(0, 2)]);   // row 0, measurement 0
  EXPECT_TRUE(img->seen[img->Index(1, 2)]);   // row 1, measurement 3
  EXPECT_FALSE(img->seen[img->Index(0, 6)]);  // measurement 4: no point
  EXPECT_FALSE(img->Returned(img->Index(1, 2)));
  // Without a signal field the image holds none.
  auto low_rate = BuildRangeImage(f, {45.0, -22.5}, 16, false);
  ASSERT_TRUE(low_rate.ok());
  EXPECT_EQ(low_rate->signal[low_rate->Index(0, 5)], 0.0f);
  // A point off the grid names itself.
  f.Append(Point(2, 1, 4, 1, 1));
  auto bad = BuildRangeImage(f, {45.0, -22.5}, 16, true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("point 3 has channel 2 and column 1 outside the 2 x 16 grid"),
            std::string::npos)
      << bad.message();
  EXPECT_FALSE(BuildRangeImage(f, {}, 16, true).ok());
}

// An image of the plane n . p = d seen from the origin: beams at elevations el0 + r d_el,
// columns at azimuths az0 + u d_az; pixels whose ray misses the plane stay empty.
RangeImage PlaneImage(uint32_t rows, uint32_t cols, double el0, double d_el, double az0,
                      double d_az, const double n[3], double d) {
  RangeImage img;
  img.rows = rows;
  img.columns = cols;
  const size_t size = static_cast<size_t>(rows) * cols;
  for (auto* v : {&img.range_m, &img.signal, &img.reflectivity_pct, &img.x_m, &img.y_m, &img.z_m})
    v->assign(size, 0);
  img.seen.assign(size, 1);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t u = 0; u < cols; ++u) {
      const double el = el0 + r * d_el, az = az0 + u * d_az;
      const double dir[3] = {std::cos(el) * std::cos(az), std::cos(el) * std::sin(az),
                             std::sin(el)};
      const double dn = dir[0] * n[0] + dir[1] * n[1] + dir[2] * n[2];
      if (!(dn * d > 0)) continue;
      const double t = d / dn;
      const size_t i = img.Index(r, u);
      img.range_m[i] = static_cast<float>(t);
      img.x_m[i] = static_cast<float>(t * dir[0]);
      img.y_m[i] = static_cast<float>(t * dir[1]);
      img.z_m[i] = static_cast<float>(t * dir[2]);
      img.reflectivity_pct[i] = 20;
      img.signal[i] = 100;
    }
  }
  return img;
}

double TrueIncidenceDeg(const RangeImage& img, size_t i, const double n[3]) {
  const double p[3] = {img.x_m[i], img.y_m[i], img.z_m[i]};
  const double c = std::fabs(p[0] * n[0] + p[1] * n[1] + p[2] * n[2]) / img.range_m[i];
  return std::acos(c) / kDeg;
}

TEST(IncidenceAngles, MatchTheAnglesOnAWallAndOnTheGround) {
  SampleOptions o;
  // A wall 10 m ahead (x = 10) over +-60 deg, and the ground 2 m below (z = -2).
  const double wall[3] = {1, 0, 0}, ground[3] = {0, 0, -1};
  const auto w = PlaneImage(16, 64, -8 * kDeg, 1 * kDeg, -60 * kDeg, 0.35 * kDeg * 4, wall, 10);
  const auto g = PlaneImage(16, 64, -40 * kDeg, 2 * kDeg, -30 * kDeg, 1 * kDeg, ground, 2);
  for (const auto* img : {&w, &g}) {
    const double* n = img == &w ? wall : ground;
    const auto theta = IncidenceAngles(*img, o);
    size_t checked = 0, returned = 0;
    for (size_t i = 0; i < theta.size(); ++i) {
      if (!img->Returned(i)) continue;
      ++returned;
      // Points are floats: 1e-6 relative on 10 m over steps of a few cm leaves ~0.05 deg.
      if (std::isfinite(theta[i])) {
        EXPECT_NEAR(theta[i], TrueIncidenceDeg(*img, i, n), 0.2) << i;
        ++checked;
      }
    }
    // Only the image's border lacks a neighbour on one side of a direction it needs.
    EXPECT_GT(checked, returned * 85 / 100) << checked << " of " << returned;
  }
}

TEST(IncidenceAngles, NeedANeighbourOnTheSameSurfaceInBothDirections) {
  SampleOptions o;
  const double wall[3] = {1, 0, 0};
  auto img = PlaneImage(3, 8, -1 * kDeg, 1 * kDeg, -4 * kDeg, 1 * kDeg, wall, 10);
  // Row 1, column 4 alone in its column: rows 0 and 2 there are another surface 3 m closer.
  for (uint32_t r : {0u, 2u}) {
    const size_t i = img.Index(r, 4);
    img.range_m[i] -= 3;
    img.x_m[i] -= 3;
  }
  const auto theta = IncidenceAngles(img, o);
  EXPECT_TRUE(std::isnan(theta[img.Index(1, 4)]));
  EXPECT_TRUE(std::isfinite(theta[img.Index(1, 3)]));
  // Single-row images have no column direction.
  auto row = PlaneImage(1, 8, 0, 1 * kDeg, -4 * kDeg, 1 * kDeg, wall, 10);
  for (float t : IncidenceAngles(row, o))
    EXPECT_TRUE(std::isnan(t));
}

TEST(RangeIntensitySamples, FilterAndReadReflectivityWithOrWithoutTheCosine) {
  SampleOptions o;
  const double wall[3] = {1, 0, 0};
  auto img = PlaneImage(3, 3, -1 * kDeg, 1 * kDeg, 40 * kDeg, 1 * kDeg, wall, 10);
  img.reflectivity_pct[img.Index(1, 0)] = 0;    // below the scale
  img.reflectivity_pct[img.Index(1, 2)] = 150;  // retroreflector scale
  const auto theta = IncidenceAngles(img, o);
  RangeIntensityPopulation with, without;
  AddRangeIntensitySamples(img, theta, o, ReflectivityReading::kIncludesCosine, with);
  AddRangeIntensitySamples(img, theta, o, ReflectivityReading::kExcludesCosine, without);
  EXPECT_EQ(with.returns, 9u);
  EXPECT_EQ(with.reflectivity_outside, 2u);
  EXPECT_EQ(with.without_incidence, 0u);
  ASSERT_EQ(with.samples.size(), 7u);
  for (size_t k = 0; k < with.samples.size(); ++k) {
    const double c = std::cos(with.samples[k].incidence_deg * kDeg);
    EXPECT_NEAR(with.samples[k].reflectance * c, 0.2, 1e-6);
    EXPECT_NEAR(without.samples[k].reflectance, 0.2, 1e-6);
    // Poisson and rounding: sqrt(100 + (100 x 0.2887 / 20)^2).
    EXPECT_NEAR(with.samples[k].sigma, std::sqrt(100 + std::pow(100 * 0.28867513 / 20, 2)), 1e-4);
  }
  o.max_incidence_deg = 30;  // the wall is seen at about 40 deg
  RangeIntensityPopulation grazing;
  AddRangeIntensitySamples(img, theta, o, ReflectivityReading::kIncludesCosine, grazing);
  EXPECT_EQ(grazing.grazing, 9u);  // checked before the reflectivity
  EXPECT_TRUE(grazing.samples.empty());
}

// One row of beams 0.35 deg apart (1024 columns a turn): returns at columns 0..3 (10 m) and
// 6..9 (12 m .. 12.3 m), nothing at 4, 5; columns 10, 11 unseen; 12..15 a surface at 30 m.
RangeImage RowImage() {
  RangeImage img;
  img.rows = 1;
  img.columns = 16;
  for (auto* v : {&img.range_m, &img.signal, &img.reflectivity_pct, &img.x_m, &img.y_m, &img.z_m})
    v->assign(16, 0);
  img.seen.assign(16, 1);
  const auto set = [&](uint32_t u, float r, float refl, float s) {
    img.range_m[u] = r;
    img.x_m[u] = static_cast<float>(r * std::cos(u * 0.35 * kDeg));
    img.y_m[u] = static_cast<float>(r * std::sin(u * 0.35 * kDeg));
    img.reflectivity_pct[u] = refl;
    img.signal[u] = s;
  };
  for (uint32_t u = 0; u < 4; ++u)
    set(u, 10, 10, 50);
  for (uint32_t u = 6; u < 10; ++u)
    set(u, 12 + 0.1f * (u - 6), 40, 20);
  img.seen[10] = img.seen[11] = 0;
  for (uint32_t u = 12; u < 16; ++u)
    set(u, 30, 5, 3);
  return img;
}

TEST(DetectionPixels, GapsBetweenReturnsOnOneSurfaceAreDropOuts) {
  const RangeImage img = RowImage();
  const std::vector<float> theta(16, 10.0f);
  SampleOptions o;  // gap 4; steps of a plane at up to 80 deg: 10 m x tan 80 x alpha + 5 cm
  DetectionPopulation p;
  AddDetectionPixels(img, theta, o, p);
  // Inside the three surfaces: 1, 2, 7, 8, 13, 14, all returned. Off a surface: 3..6 (10 m to
  // 12 m over 3 or 4 columns, 1.05 or 1.4 deg: at most 1.09 or 1.44 m), 9 and 12 (12.3 m to
  // 30 m across the unseen columns), 0 and 15 (30 m to 10 m across the wrap).
  size_t detected = 0;
  for (const auto& px : p.pixels)
    detected += px.detected;
  EXPECT_EQ(p.pixels.size(), 6u);
  EXPECT_EQ(detected, 6u);
  EXPECT_EQ(p.off_surface, 8u);
  // Steeper planes allowed (85 deg: up to 2.14 m over 3 columns at 10 m): the gap is a surface
  // with two drop-outs, interpolated by column.
  o.surface_max_incidence_deg = 85;
  DetectionPopulation loose;
  AddDetectionPixels(img, theta, o, loose);
  std::vector<BoundedPixel> missing;
  for (const auto& px : loose.pixels)
    if (!px.detected) missing.push_back(px);
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_NEAR(missing[0].range_m, 10 + 2.0 / 3, 1e-5);  // column 4: a third of the way
  EXPECT_NEAR(missing[0].reflectivity_pct, 20, 1e-5);
  EXPECT_NEAR(missing[1].signal, 50 - 30 * 2.0 / 3, 1e-5);
  EXPECT_NEAR(missing[1].incidence_deg, 10, 1e-6);
  // Gap 1: only pixels with both immediate neighbours returned, so no missing pixel.
  o.max_gap_columns = 1;
  DetectionPopulation tight;
  AddDetectionPixels(img, theta, o, tight);
  EXPECT_FALSE(tight.pixels.empty());
  for (const auto& px : tight.pixels)
    EXPECT_TRUE(px.detected);
}

TEST(DetectionBins, HoldEqualCountsOfSortedPredictions) {
  SampleOptions o;
  o.bins = 4;
  o.min_pixels_per_bin = 2;
  std::vector<double> predicted;
  std::vector<bool> detected;
  for (int k = 0; k < 10; ++k) {
    predicted.push_back(10 - k);  // 10 .. 1
    detected.push_back(k < 5);    // the high ones detected
  }
  predicted.push_back(std::nan(""));
  detected.push_back(true);
  const auto bins = BinDetections(predicted, detected, o);
  ASSERT_EQ(bins.size(), 4u);  // 10 finite predictions, at most 4 bins of 2 or more
  uint32_t trials = 0;
  for (const auto& b : bins)
    trials += b.trials;
  EXPECT_EQ(trials, 10u);
  EXPECT_NEAR(bins.front().expected_signal, 1.5, 1e-12);  // 1 and 2
  EXPECT_EQ(bins.front().detections, 0u);
  EXPECT_EQ(bins.back().detections, bins.back().trials);
  o.min_pixels_per_bin = 6;  // room for one bin only
  EXPECT_EQ(BinDetections(predicted, detected, o).size(), 1u);
}

TEST(SampleOptions, ValidateNamesTheOption) {
  SampleOptions o;
  EXPECT_TRUE(o.Validate().ok()) << o.Validate().message();
  o.max_gap_columns = 0;
  EXPECT_NE(o.Validate().message().find("max_gap_columns"), std::string::npos);
  o = {};
  o.bins = 2;
  EXPECT_NE(o.Validate().message().find("bins"), std::string::npos);
  o = {};
  o.max_incidence_deg = 95;
  EXPECT_NE(o.Validate().message().find("max_incidence_deg"), std::string::npos);
}

}  // namespace
}  // namespace lt::calib
