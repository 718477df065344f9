// compare/: statistics, association and every metric against hand-computed cases.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "test_support.h"

namespace lt::compare {
namespace {

// A point at range r along azimuth az (deg), elevation el (deg).
FramePoint PolarPoint(double r, double az_deg, double el_deg, uint16_t channel = 0,
                      uint32_t column = 0, float intensity = 0, uint16_t material = 0) {
  const double az = az_deg * M_PI / 180, el = el_deg * M_PI / 180;
  FramePoint p;
  p.x_m = static_cast<float>(r * std::cos(el) * std::cos(az));
  p.y_m = static_cast<float>(r * std::cos(el) * std::sin(az));
  p.z_m = static_cast<float>(r * std::sin(el));
  p.range_m = static_cast<float>(r);
  p.intensity = intensity;
  p.channel = channel;
  p.column = column;
  p.material_id = material;
  return p;
}

TEST(RunningStats, MatchesHandComputedAndMergesExactly) {
  RunningStats s;
  for (double x : {1.0, 2.0, 3.0, 4.0})
    s.Add(x);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.Std(), std::sqrt(5.0 / 3.0), 1e-12);  // sample std of 1..4
  std::mt19937 rng(7);
  std::normal_distribution<double> g(3, 2);
  RunningStats all, a, b;
  for (int i = 0; i < 1000; ++i) {
    const double x = g(rng);
    all.Add(x);
    (i < 300 ? a : b).Add(x);
  }
  a.Merge(b);
  EXPECT_EQ(a.n, all.n);
  EXPECT_NEAR(a.mean, all.mean, 1e-12);
  EXPECT_NEAR(a.Std(), all.Std(), 1e-12);
  const RunningStats round = RunningStats::FromMoments(all.n, all.mean, all.Std());
  EXPECT_NEAR(round.m2, all.m2, 1e-9 * all.m2);
}

// Issue 12: the median, p90 and p95 of |range error| (to half a logarithmic bin, 1.2 %) and the
// RMSE, against values sorted and summed independently; pooled histograms give the quantiles of
// the pooled values.
TEST(MagnitudeQuantiles, QuantilesAndRmseAgainstDirectComputation) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> magnitude(std::log(0.03), 1.0);  // centimetres, long tail
  std::vector<double> errors;
  ComparisonMetrics a, b;
  for (int i = 0; i < 20000; ++i) {
    const double e = (i % 3 == 0 ? -1 : 1) * magnitude(rng);
    errors.push_back(e);
    ComparisonMetrics& m = i < 7000 ? a : b;
    m.depth_m.Add(e);
    m.depth_abs_m.Add(e);
  }
  a.real_points = 7000;
  b.real_points = 13000;
  std::vector<double> sorted;
  double squares = 0;
  for (double e : errors) {
    sorted.push_back(std::fabs(e));
    squares += e * e;
  }
  std::sort(sorted.begin(), sorted.end());
  const auto s = Summarize({a, b});
  for (const auto& [key, q] : {std::pair{"depth_abs_median_m", 0.5},
                               {"depth_abs_p90_m", 0.9},
                               {"depth_abs_p95_m", 0.95}}) {
    const double exact = sorted[static_cast<size_t>(std::ceil(q * sorted.size())) - 1];
    EXPECT_NEAR(s.at(key), exact, 0.012 * exact) << key;
  }
  EXPECT_NEAR(s.at("depth_rmse_m"), std::sqrt(squares / errors.size()), 1e-9);
  // Magnitudes below 10 um count as 0; beyond 1000 m, in the last bin.
  MagnitudeQuantiles tiny;
  tiny.Add(1e-7);
  EXPECT_EQ(tiny.Quantile(0.5), 0.0);
  tiny.Add(5e4);
  tiny.Add(5e4);
  EXPECT_NEAR(tiny.Quantile(0.9), 1000, 12);
}

TEST(Mape, Seed002Eq12DividesBySimulatedValue) {
  size_t skipped = 0;
  // |10-8|/10 = 0.2, |20-25|/20 = 0.25; the pair with simulated 0 cannot enter.
  EXPECT_DOUBLE_EQ(Mape({10, 20, 0}, {8, 25, 5}, &skipped), 0.225);
  EXPECT_EQ(skipped, 1u);
  EXPECT_TRUE(std::isnan(Mape({0}, {1}, nullptr)));
}

TEST(Association, ByBeamWhenChannelAndColumnAgree) {
  Frame real, sim;
  for (uint32_t c = 0; c < 50; ++c)
    for (uint16_t ch = 0; ch < 4; ++ch) {
      real.Append(PolarPoint(10, c * 0.35, ch * 2.0 - 3, ch, c));
      if (c % 5 != 0) sim.Append(PolarPoint(10.2, c * 0.35, ch * 2.0 - 3, ch, c));
    }
  auto a = Associate(real, sim, {});
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->method, AssociationMethod::kBeam);
  EXPECT_EQ(a->pairs.size(), sim.size());
  for (auto [r, s] : a->pairs) {
    EXPECT_EQ(real.channel[r], sim.channel[s]);
    EXPECT_EQ(real.column[r], sim.column[s]);
  }
}

TEST(Association, AutoFallsBackToAngularWhenBeamNumbersMeanOtherDirections) {
  // The simulated channels count from the top, the real ones from the bottom: beam numbers
  // pair points 6 deg apart, so auto must notice and pair by direction instead.
  Frame real, sim;
  for (uint32_t c = 0; c < 40; ++c)
    for (uint16_t ch = 0; ch < 4; ++ch) {
      real.Append(PolarPoint(10, c * 0.35, ch * 2.0 - 3, ch, c));
      sim.Append(PolarPoint(10, c * 0.35, ch * 2.0 - 3, static_cast<uint16_t>(3 - ch), c));
    }
  auto a = Associate(real, sim, {});
  ASSERT_TRUE(a.ok()) << a.message();
  EXPECT_EQ(a->method, AssociationMethod::kAngular);
  EXPECT_NE(a->reason.find("not the same beams"), std::string::npos) << a->reason;
  ASSERT_EQ(a->pairs.size(), real.size());
  for (auto [r, s] : a->pairs)
    EXPECT_EQ(real.channel[r], 3 - sim.channel[s]);
}

TEST(Association, AngularGateAndOneToOne) {
  Frame real, sim;
  real.Append(PolarPoint(5, 0, 0));
  real.Append(PolarPoint(5, 0.3, 0));  // 0.3 deg from the first
  real.Append(PolarPoint(5, 10, 0));   // nothing simulated near it
  sim.Append(PolarPoint(5.1, 0.05, 0));
  sim.Append(PolarPoint(5.1, 20, 0));
  AssociationOptions o;
  o.method = AssociationMethod::kAngular;
  auto a = Associate(real, sim, o);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->pairs.size(), 1u);  // one-to-one: only the nearer real point gets sim 0
  EXPECT_EQ(a->pairs[0], (std::pair<uint32_t, uint32_t>{0, 0}));
  o.max_angle_deg = 0.01;
  EXPECT_TRUE(Associate(real, sim, o)->pairs.empty());
}

TEST(Association, CoincidentPointsPairOneToOneInIndexOrder) {
  // Three copies of a point against two: two pairs, lowest indices first, in both methods; the
  // third copy stays real-only (issue 36: the copies used to pair once, in N^2 time).
  Frame real, sim;
  for (int i = 0; i < 3; ++i)
    real.Append(PolarPoint(5, 1, 2));
  real.Append(PolarPoint(5, 30, 2));
  sim.Append(PolarPoint(5, 30.01, 2));
  for (int i = 0; i < 2; ++i)
    sim.Append(PolarPoint(5.001, 1, 2));
  for (AssociationMethod method : {AssociationMethod::kAngular, AssociationMethod::kNearest3d}) {
    AssociationOptions o;
    o.method = method;
    auto a = Associate(real, sim, o);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->pairs, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {1, 2}, {3, 0}}))
        << AssociationMethodName(method);
  }
}

TEST(Association, Nearest3dUsesTheDistanceGate) {
  Frame real, sim;
  real.Append(PolarPoint(5, 0, 0));
  sim.Append(PolarPoint(5.3, 0, 0));
  AssociationOptions o;
  o.method = AssociationMethod::kNearest3d;
  o.max_distance_m = 0.31;
  EXPECT_EQ(Associate(real, sim, o)->pairs.size(), 1u);
  o.max_distance_m = 0.29;
  EXPECT_TRUE(Associate(real, sim, o)->pairs.empty());
  o.method = AssociationMethod::kBeam;
  real.channel.clear();
  EXPECT_FALSE(Associate(real, sim, o).ok());
}

// Four real points on beams (ch 0, columns 0..3) at 3, 6, 12, 12 m; the simulation returns on
// columns 0..2 and 4 with range errors +0.1, -0.1, +0.3 m and intensity errors +2, -4, +6.
struct HandCase {
  Frame real, sim;
  HandCase() {
    const double r[] = {3, 6, 12, 12};
    const double ri[] = {10, 20, 30, 40};
    const double dr[] = {0.1, -0.1, 0.3};
    const double di[] = {2, -4, 6};
    for (uint32_t c = 0; c < 4; ++c)
      real.Append(PolarPoint(r[c], c, 0, 0, c, ri[c]));
    for (uint32_t c = 0; c < 3; ++c)
      sim.Append(PolarPoint(r[c] + dr[c], c, 0, 0, c, ri[c] + di[c], c == 0 ? 1 : 2));
    sim.Append(PolarPoint(20, 4, 0, 0, 4, 50, 2));  // no real return on column 4
  }
};

TEST(Compare, HandComputedErrorsBinsMaterialsAndReturns) {
  HandCase h;
  CompareOptions o;
  o.distance_edges_m = {0, 5, 10};
  o.material_names = {"", "paint", "wood"};
  auto m = Compare({h.real}, {h.sim}, o);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->association, "beam");
  EXPECT_EQ(m->depth_m.n(), 3u);
  EXPECT_NEAR(m->depth_m.abs_error.mean, (0.1 + 0.1 + 0.3) / 3, 1e-6);
  EXPECT_NEAR(m->depth_m.signed_error.mean, (0.1 - 0.1 + 0.3) / 3, 1e-6);
  EXPECT_NEAR(m->intensity.abs_error.mean, 4.0, 1e-5);
  EXPECT_NEAR(m->intensity.signed_error.mean, 4.0 / 3, 1e-5);
  // Bins by the real range: 3 m -> 0-5, 6 m -> 5-10, 12 m -> >= 10.
  ASSERT_EQ(m->by_distance.size(), 3u);
  EXPECT_EQ(m->by_distance[0].label, "0-5 m");
  EXPECT_EQ(m->by_distance[2].label, ">= 10 m");
  EXPECT_NEAR(m->by_distance[1].depth_m.signed_error.mean, -0.1, 1e-6);
  EXPECT_NEAR(m->by_distance[2].intensity.signed_error.mean, 6, 1e-5);
  ASSERT_EQ(m->by_material.size(), 2u);
  EXPECT_EQ(m->by_material[0].label, "paint");
  EXPECT_EQ(m->by_material[1].depth_m.n(), 2u);
  EXPECT_NEAR(m->by_material[1].depth_m.abs_error.mean, 0.2, 1e-6);
  EXPECT_EQ(m->returns.both, 3u);
  EXPECT_EQ(m->returns.real_only, 1u);
  EXPECT_EQ(m->returns.sim_only, 1u);
  EXPECT_DOUBLE_EQ(m->returns.Agreement(), 3.0 / 5);
  const auto s = Summarize({*m});
  EXPECT_DOUBLE_EQ(s.at("associated_fraction"), 0.75);
  EXPECT_NEAR(s.at("depth_bias_m"), 0.1, 1e-6);
}

// Drop accuracy per beam (issue 12): of 10 beams a frame, 3 returned in both, 1 only in the
// real frame, 1 only in the simulation, so 5 in neither: (3 + 5) / 10. It pools over frames
// and runs, is kept in metrics.json, and is left out when the beam count is not known.
TEST(Compare, DropAccuracyCountsBeamsWhereBothOrNeitherReturned) {
  HandCase h;
  CompareOptions o;
  o.beams_per_frame = 10;
  auto m = Compare({h.real, h.real}, {h.sim, h.sim}, o);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->returns.beams, 20u);
  EXPECT_DOUBLE_EQ(m->returns.DropAccuracy(), 0.8);
  EXPECT_DOUBLE_EQ(Summarize({*m}).at("drop_accuracy"), 0.8);
  // Drop F1: 5 beams neither returned (TP) per frame, 1 only the real one (FP), 1 only the
  // simulation (FN): 2 x 5 / (2 x 5 + 1 + 1).
  EXPECT_DOUBLE_EQ(Summarize({*m}).at("drop_f1"), 10.0 / 12);
  auto back = MetricsFromJson(MetricsToJson(*m), "m.json");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->returns.beams, 20u);
  // A run without beams pools into no drop accuracy; none at all gives none either.
  auto unknown = Compare({h.real}, {h.sim}, {});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(Summarize({*m, *unknown}).count("drop_accuracy"), 0u);
  EXPECT_EQ(Summarize({*unknown}).count("drop_accuracy"), 0u);
  EXPECT_TRUE(std::isnan(unknown->returns.DropAccuracy()));
  EXPECT_EQ(Summarize({*unknown}).count("drop_f1"), 0u);
  // More returning beams than beams: the frame is named.
  o.beams_per_frame = 4;
  auto wrong = Compare({h.real}, {h.sim}, o);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("frame 0: 5 beams returned"), std::string::npos)
      << wrong.message();
  // A file whose beams are fewer than its returns is refused with the key.
  std::string text = MetricsToJson(*m);
  text.replace(text.find("\"beams\": 20"), 11, "\"beams\": 2");
  auto bad = MetricsFromJson(text, "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("returns.beams"), std::string::npos) << bad.message();
}

// For each point of a, the distance to its nearest point of b, by trying every pair: the
// independent computation the Chamfer and F-score tests hold the k-d tree against.
std::vector<double> BruteForceNearest(const Frame& a, const Frame& b) {
  std::vector<double> out;
  for (size_t i = 0; i < a.size(); ++i) {
    double best = INFINITY;
    for (size_t j = 0; j < b.size(); ++j)
      best = std::min(best, std::hypot(double(a.x_m[i]) - b.x_m[j], double(a.y_m[i]) - b.y_m[j],
                                       double(a.z_m[i]) - b.z_m[j]));
    out.push_back(best);
  }
  return out;
}

// Issue 41: the re-simulation papers' metrics, by hand. Of 8 beams, 3 pairs (|errors| 0.1,
// 0.1, 0.3 m), a real return alone at 12 m and a simulated one alone at 20 m (each against a
// range of 0), 3 beams with neither (0): range-image MedAE 0.1 m, RMSE
// sqrt((0.01 + 0.01 + 0.09 + 144 + 400) / 8); intensity errors 2, -4, 6 on the unit's full
// scale; the squared Chamfer against the brute-force nearest distances; all through
// metrics.json unchanged.
TEST(Compare, TheReSimulationPapersMetricsByHand) {
  HandCase h;
  CompareOptions o;
  o.beams_per_frame = 8;
  auto m = Compare({h.real}, {h.sim}, o);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->range_image_abs_m.n, 8u);
  m->real_intensity_unit = m->sim_intensity_unit = "percent";
  auto s = Summarize({*m});
  EXPECT_NEAR(s.at("range_image_medae_m"), 0.1, 0.1 * 0.012);  // to the histogram's 1.2 %
  EXPECT_NEAR(s.at("range_image_rmse_m"), std::sqrt((0.01 + 0.01 + 0.09 + 144 + 400) / 8), 1e-5);
  EXPECT_NEAR(s.at("intensity_rmse_01"), std::sqrt((4.0 + 16 + 36) / 3) / 100, 1e-6);
  auto mean_square = [](const Frame& a, const Frame& b) {
    double sum = 0;
    for (double d : BruteForceNearest(a, b))
      sum += d * d;
    return sum / a.size();
  };
  EXPECT_NEAR(s.at("chamfer_sq_m2"), mean_square(h.real, h.sim) + mean_square(h.sim, h.real), 1e-4);
  auto share = [](const Frame& a, const Frame& b) {  // squared distance within 0.05
    double near = 0;
    for (double d : BruteForceNearest(a, b))
      near += d * d <= 0.05 ? 1 : 0;
    return near / a.size();
  };
  const double p = share(h.sim, h.real), r = share(h.real, h.sim);
  EXPECT_NEAR(s.at("fscore_sq_0_05"), 2 * p * r / (p + r), 1e-9);
  EXPECT_NEAR(s.at("fscore_sq_0_05"), 0.5, 1e-9);  // 0.1, 0.1 m within; 0.3 m and beyond not
  auto back = MetricsFromJson(MetricsToJson(*m), "m.json");
  ASSERT_TRUE(back.ok()) << back.message();
  const auto again = Summarize({*back});
  for (const char* name : {"range_image_medae_m", "range_image_rmse_m", "intensity_rmse_01",
                           "chamfer_sq_m2", "fscore_sq_0_05"})
    EXPECT_NEAR(again.at(name), s.at(name), 1e-6 * std::max(1.0, s.at(name))) << name;
  // The full scale: an 8-bit byte's 255; none for photons; none without beams for the image.
  m->real_intensity_unit = "hesai reflectivity 0-255";
  EXPECT_NEAR(Summarize({*m}).at("intensity_rmse_01"), std::sqrt((4.0 + 16 + 36) / 3) / 255, 1e-6);
  m->real_intensity_unit = "ouster signal photons";
  EXPECT_EQ(Summarize({*m}).count("intensity_rmse_01"), 0u);
  m->real_intensity_unit = "made up 0-" + std::string(400, '9');  // from a hostile file
  EXPECT_EQ(Summarize({*m}).count("intensity_rmse_01"), 0u);
  // A metrics file of before these counts gives no such F-score, rather than 0.
  auto json = nlohmann::json::parse(MetricsToJson(*m));
  ASSERT_EQ(json["chamfer_m"].erase("real_within_sq_0_05"), 1u);
  ASSERT_EQ(json["chamfer_m"].erase("sim_within_sq_0_05"), 1u);
  const std::string old_file = json.dump();
  auto old_run = MetricsFromJson(old_file, "old.json");
  ASSERT_TRUE(old_run.ok()) << old_run.message() << old_file;
  EXPECT_EQ(Summarize({*old_run}).count("fscore_sq_0_05"), 0u);
  EXPECT_EQ(Summarize({*old_run, *m}).count("fscore_sq_0_05"), 0u);
  EXPECT_EQ(Summarize({*old_run}).count("fscore_5cm"), 1u);
  auto unknown = Compare({h.real}, {h.sim}, {});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(Summarize({*unknown}).count("range_image_medae_m"), 0u);
  EXPECT_EQ(Summarize({*m, *unknown}).count("range_image_rmse_m"), 0u);
  std::string text = MetricsToJson(*m);
  const size_t at = text.find("\"range_image_sum_sq_m2\": ");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 25, "-");
  auto bad = MetricsFromJson(text, "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("range_image_sum_sq_m2"), std::string::npos) << bad.message();
}

TEST(Compare, ChamferAgainstIndependentBruteForce) {
  HandCase h;
  auto m = Compare({h.real}, {h.sim}, {});
  ASSERT_TRUE(m.ok());
  auto mean_nn = [](const Frame& a, const Frame& b) {
    double sum = 0;
    for (double d : BruteForceNearest(a, b))
      sum += d;
    return sum / a.size();
  };
  EXPECT_NEAR(m->chamfer.real_to_sim_m.mean, mean_nn(h.real, h.sim), 1e-6);
  EXPECT_NEAR(m->chamfer.sim_to_real_m.mean, mean_nn(h.sim, h.real), 1e-6);
}

// Issue 12: the F-scores at 5 and 10 cm against a brute-force count on random clouds, and
// through metrics.json unchanged.
TEST(Compare, FScoresAgainstBruteForce) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> box(-1, 1);
  std::normal_distribution<double> jitter(0, 0.04);
  Frame real, sim;
  const auto add = [](Frame& f, double x, double y, double z) {
    f.x_m.push_back(static_cast<float>(x));
    f.y_m.push_back(static_cast<float>(y));
    f.z_m.push_back(static_cast<float>(z + 10));
    f.range_m.push_back(static_cast<float>(std::sqrt(x * x + y * y + (z + 10) * (z + 10))));
    f.intensity.push_back(10);
  };
  for (int i = 0; i < 300; ++i) {
    const double x = box(rng), y = box(rng), z = box(rng);
    add(real, x, y, z);
    if (i % 5 != 0) add(sim, x + jitter(rng), y + jitter(rng), z + jitter(rng));
  }
  for (int i = 0; i < 40; ++i)
    add(sim, 3 + box(rng), box(rng), box(rng));  // simulated points with no real counterpart
  CompareOptions o;
  o.association.method = AssociationMethod::kNearest3d;
  auto m = Compare({real}, {sim}, o);
  ASSERT_TRUE(m.ok()) << m.message();
  const auto share_within = [](const Frame& a, const Frame& b, double tau) {
    size_t near = 0;
    for (double d : BruteForceNearest(a, b))
      near += d <= tau ? 1 : 0;
    return double(near) / a.size();
  };
  const auto summary = Summarize({*m});
  for (const auto& [key, tau] : {std::pair{"fscore_5cm", 0.05}, std::pair{"fscore_10cm", 0.10}}) {
    const double recall = share_within(real, sim, tau), precision = share_within(sim, real, tau);
    const double f = 2 * precision * recall / (precision + recall);
    EXPECT_NEAR(summary.at(key), f, 1e-12) << key;
    EXPECT_GT(f, 0.2) << key;  // a case that tells thresholds apart
    EXPECT_LT(f, 0.98) << key;
  }
  EXPECT_LT(summary.at("fscore_5cm"), summary.at("fscore_10cm"));
  auto back = MetricsFromJson(MetricsToJson(*m), "m.json");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(Summarize({*back}).at("fscore_5cm"), summary.at("fscore_5cm"));
}

TEST(Compare, TargetsCountPointsAndGiveDError) {
  // A 1 m box 10 m ahead (rotated 30 deg about z); d_GT = 10 m (eq. 14).
  Target t;
  t.name = "plate";
  t.box_to_sensor.translation = {10, 0, 0};
  t.box_to_sensor.rotation = physics::QuatFromRollPitchYaw(0.0, 0.0, M_PI / 6);
  t.half_size_m = {0.5, 0.5, 0.5};
  t.ground_truth_centre_m = std::array<double, 3>{10, 0, 0};
  EXPECT_TRUE(t.Contains(10.4, 0, 0.4));
  EXPECT_FALSE(t.Contains(10.6, 0, 0));  // outside along the box's own x (cos 30 * 0.6 > 0.5)
  // Box-local (0.45, 0.45, 0) rotated by 30 deg: outside an unrotated box (y > 0.5).
  EXPECT_TRUE(t.Contains(10.164711, 0.614711, 0));
  Frame real, sim;
  for (double az : {-1.0, 0.0, 1.0})
    real.Append(PolarPoint(9.9, az, 0, 0, 0, 20));
  for (double az : {-1.0, 1.0})
    sim.Append(PolarPoint(10.05, az, 0, 0, 0, 25));
  real.Append(PolarPoint(30, 0, 0, 0, 0, 99));  // behind the box: not counted
  CompareOptions o;
  o.targets = {t};
  auto m = Compare({real}, {sim}, o);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->targets.size(), 1u);
  const auto& tm = m->targets[0];
  EXPECT_EQ(tm.n_real, 3u);
  EXPECT_EQ(tm.n_sim, 2u);
  EXPECT_NEAR(tm.i_mean_real, 20, 1e-6);
  EXPECT_NEAR(tm.i_mean_sim, 25, 1e-6);
  EXPECT_NEAR(*tm.d_gt_m - tm.d_mean_real, 0.1, 1e-5);   // d_error real
  EXPECT_NEAR(*tm.d_gt_m - tm.d_mean_sim, -0.05, 1e-5);  // d_error sim
  const auto s = Summarize({*m});
  EXPECT_NEAR(s.at("n_points_mape"), 0.5, 1e-12);  // |2 - 3| / 2
  EXPECT_NEAR(s.at("i_mean_mape"), 0.2, 1e-6);     // |25 - 20| / 25
  EXPECT_NEAR(s.at("d_error_sim_abs_mean_m"), 0.05, 1e-5);
  EXPECT_NEAR(s.at("d_error_difference_m"), 0.15, 1e-5);
}

TEST(Compare, RejectsMismatchedFrameCountsAndBadBins) {
  HandCase h;
  EXPECT_FALSE(Compare({h.real, h.real}, {h.sim}, {}).ok());
  CompareOptions o;
  o.distance_edges_m = {0, 10, 5};
  auto m = Compare({h.real}, {h.sim}, o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.message().find("strictly increasing"), std::string::npos);
}

TEST(Compare, SummaryPoolsRunsAsOneComparison) {
  HandCase h;
  auto one = Compare({h.real}, {h.sim}, {});
  auto both = Compare({h.real, h.real}, {h.sim, h.sim}, {});
  ASSERT_TRUE(one.ok() && both.ok());
  const auto pooled = Summarize({*one, *one});
  const auto direct = Summarize({*both});
  for (const auto& [k, v] : direct)
    EXPECT_NEAR(pooled.at(k), v, 1e-9) << k;
}

TEST(MetricsJson, RoundTripsAndNamesTheBadKey) {
  HandCase h;
  CompareOptions o;
  Target t;
  t.name = "box";
  t.half_size_m = {20, 20, 20};
  o.targets = {t};
  auto m = Compare({h.real}, {h.sim}, o);
  ASSERT_TRUE(m.ok());
  m->label = "hand";
  const std::string text = MetricsToJson(*m);
  auto back = MetricsFromJson(text, "m.json");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(MetricsToJson(*back), text);
  EXPECT_FALSE(back->targets[0].d_gt_m.has_value());

  std::string broken = text;
  const auto pos = broken.find("\"real_only\"");
  ASSERT_NE(pos, std::string::npos);
  broken.replace(pos, 11, "\"realonly\"");
  auto bad = MetricsFromJson(broken, "m.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "m.json: returns.real_only: missing");
  EXPECT_FALSE(MetricsFromJson("[1,2", "x.json").ok());
  // Issue 36: a truncated file (a copy cut short) is named with the byte where it ends.
  const size_t comma = text.find(",\n", 100) + 1;
  auto cut = MetricsFromJson(text.substr(0, comma), "cut.json");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.message().find("cut.json: byte " + std::to_string(comma) +
                               " (the end: the file is cut short?): not valid JSON ("),
            std::string::npos)
      << cut.message();
  EXPECT_NE(cut.message().find("unexpected end of input"), std::string::npos) << cut.message();
  // Where the text goes wrong inside, that byte (from 0) is named.
  auto wrong = MetricsFromJson("{\"a\": 1,, }", "w.json");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("w.json: byte 8: not valid JSON"), std::string::npos)
      << wrong.message();
  auto other = MetricsFromJson(R"({"schema":"other"})", "o.json");
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.message().find("schema"), std::string::npos);
}

TEST(Targets, LoadsYamlAndRejectsBadEntries) {
  test::TempDir dir;
  const auto good = dir.Write("t.yaml", R"(targets:
  - name: a
    centre_m: [10, 0, 0]
    size_m: [0.2, 1, 1]
    rotation_deg: [0, 0, 90]
    ground_truth_centre_m: [10, 0, 0]
    material: lambertian_50
)");
  auto t = LoadTargets(good);
  ASSERT_TRUE(t.ok()) << t.message();
  ASSERT_EQ(t->size(), 1u);
  EXPECT_DOUBLE_EQ(*(*t)[0].GroundTruthDistance(), 10);
  EXPECT_TRUE((*t)[0].Contains(10, 0.09, 0.4));  // rotated: the thin side now along y
  EXPECT_FALSE((*t)[0].Contains(10, 0.2, 0));
  const auto bad =
      dir.Write("b.yaml", "targets:\n  - name: a\n    centre_m: [1, 2]\n    size_m: [1, 1, 1]\n");
  auto e = LoadTargets(bad);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("centre_m"), std::string::npos) << e.message();
  const auto unknown = dir.Write(
      "u.yaml",
      "targets:\n  - name: a\n    centre_m: [1, 2, 3]\n    size_m: [1, 1, 1]\n    colour: red\n");
  e = LoadTargets(unknown);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("colour"), std::string::npos) << e.message();
  const auto twice = dir.Write("d.yaml",
                               "targets:\n  - {name: a, centre_m: [1, 2, 3], size_m: [1, 1, 1]}\n  "
                               "- {name: a, centre_m: [1, 2, 3], size_m: [1, 1, 1]}\n");
  e = LoadTargets(twice);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("used twice"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace lt::compare

namespace lt::compare {
namespace {

// Seed 002 eq. 11-12 on voltage records: identical records agree exactly; a real record whose
// pulse is 10 % taller (y = a, x = 1.1 a) gives a MAPE of exactly 0.1; records pair by beam.
TEST(WaveformMetrics, Equation11And12OnHandMadeRecords) {
  auto frame = [](std::vector<uint32_t> beams, float scale) {
    Frame f;
    f.waveform_beams = beams;
    f.waveform_samples = 32;
    f.waveform_dt_s = 1e-9;
    for (size_t b = 0; b < beams.size(); ++b)
      for (uint32_t i = 0; i < 32; ++i)
        f.waveform_volts.push_back(0.1f + (i == 20 ? scale * 0.05f * (beams[b] + 1) : 0.0f) +
                                   (i == 5 ? 0.5f : 0.0f));  // an internal reflection at 5
    return f;
  };
  const WaveformWindow window{4, 10};  // baseline from 4 samples, targets from sample 10
  auto same = CompareWaveforms({frame({1, 2}, 1)}, {frame({1, 2}, 1)}, window);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->records, 2u);
  EXPECT_EQ(same->amplitude_mape, 0.0);
  EXPECT_EQ(same->dv_rms_v, 0.0);
  auto taller = CompareWaveforms({frame({0, 1, 2}, 1.1f)}, {frame({1, 2, 7}, 1)}, window);
  ASSERT_TRUE(taller.ok());
  EXPECT_EQ(taller->records, 2u);  // beams 1 and 2 are in both
  EXPECT_NEAR(taller->amplitude_mape, 0.1, 1e-6);
  EXPECT_NEAR(taller->dv_max_abs_v, 0.1 * 0.05 * 3, 1e-6);  // beam 2 of the real frame is beam 2
  Frame shorter = frame({1}, 1);
  shorter.waveform_samples = 16;
  shorter.waveform_volts.resize(16);
  EXPECT_NE(CompareWaveforms({shorter}, {frame({1}, 1)}, window)
                .message()
                .find("beam 1: 32 "
                      "simulated samples"),
            std::string::npos);
  EXPECT_EQ(CompareWaveforms({frame({1}, 1)}, {frame({1}, 1)}, {}).value().records, 0u);
}

}  // namespace
}  // namespace lt::compare
