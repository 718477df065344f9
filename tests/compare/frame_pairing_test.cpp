// compare/frame_pairing, compare_inputs in metrics.json and the --pairs table (issue 13): the
// one pairing that metrics, the viewer and the table share.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "lidartwin/compare/frame_pairing.h"
#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/compare/pairs_table.h"
#include "test_support.h"

namespace lt::compare {
namespace {

FramePoint BeamPoint(uint16_t channel, uint32_t column, float range, float intensity = 10) {
  const double az = column * 0.01, el = channel * 0.01;
  FramePoint p;
  p.x_m = static_cast<float>(range * std::cos(el) * std::cos(az));
  p.y_m = static_cast<float>(range * std::cos(el) * std::sin(az));
  p.z_m = static_cast<float>(range * std::sin(el));
  p.range_m = range;
  p.intensity = intensity;
  p.channel = channel;
  p.column = column;
  return p;
}

// Real: beams (0,0) (0,1) NaN (0,2) near(0,3) (1,0); sim: (0,1) (0,2) (1,1).
std::pair<Frame, Frame> TwoFrames() {
  Frame real, sim;
  real.Append(BeamPoint(0, 0, 5));
  real.Append(BeamPoint(0, 1, 5));
  FramePoint bad = BeamPoint(0, 9, 5);
  bad.x_m = NAN;
  real.Append(bad);
  real.Append(BeamPoint(0, 2, 5));
  real.Append(BeamPoint(0, 3, 0.2f));
  real.Append(BeamPoint(1, 0, 5));
  sim.Append(BeamPoint(0, 1, 5.5f, 12));
  sim.Append(BeamPoint(0, 2, 4.75f, 9));
  sim.Append(BeamPoint(1, 1, 5));
  return {real, sim};
}

// Beam association beyond 0.5 m: the options the pairing tests share.
CompareOptions BeamOptions() {
  CompareOptions options;
  options.min_range_m = 0.5;
  options.association.method = AssociationMethod::kBeam;
  return options;
}

TEST(PairFrame, LeavesOutNonFiniteAndNearPointsAndKeepsTheirFileIndices) {
  auto [real, sim] = TwoFrames();
  auto p = PairFrame(real, sim, BeamOptions());
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->real_non_finite, 1u);
  EXPECT_EQ(p->real_too_near, 1u);
  EXPECT_EQ(p->real_in_file, (std::vector<uint32_t>{0, 1, 3, 5}));
  EXPECT_EQ(p->sim_in_file, (std::vector<uint32_t>{0, 1, 2}));
  // Beam association pairs (0,1) and (0,2) only.
  std::vector<std::pair<uint32_t, uint32_t>> pairs = p->association.pairs;
  std::sort(pairs.begin(), pairs.end());
  EXPECT_EQ(pairs, (std::vector<std::pair<uint32_t, uint32_t>>{{1, 0}, {2, 1}}));
}

TEST(PairFrame, NoReturnPointsAtTheOriginAreLeftOutAndCounted) {
  // Organised clouds keep a slot per beam and store "no return" as (0, 0, 0) (issue 36).
  auto [real, sim] = TwoFrames();
  FramePoint none;  // x = y = z = range = 0
  for (int i = 0; i < 3; ++i)
    real.Append(none);
  sim.Append(none);
  auto p = PairFrame(real, sim, BeamOptions());
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->real_no_return, 3u);
  EXPECT_EQ(p->sim_no_return, 1u);
  EXPECT_EQ(p->real_too_near, 1u);  // the 0.2 m point is near, not "no return"
  EXPECT_EQ(p->real_in_file, (std::vector<uint32_t>{0, 1, 3, 5}));
  CompareOptions angular;
  angular.association.method = AssociationMethod::kNearest3d;
  auto m = Compare({real}, {sim}, angular);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->real_no_return, 3u);
  EXPECT_EQ(m->sim_no_return, 1u);
  EXPECT_EQ(m->real_points, 5u);  // 6 points less the NaN one; the origin ones are not points
}

TEST(PairFrame, CompareCountsWhatThePairingPairs) {
  auto [real, sim] = TwoFrames();
  const CompareOptions options = BeamOptions();
  size_t calls = 0;
  auto m = Compare({real}, {sim}, options, {}, [&](size_t k, const FramePairing& p) {
    EXPECT_EQ(k, 0u);
    EXPECT_EQ(p.association.pairs.size(), 2u);
    ++calls;
    return Status{};
  });
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(calls, 1u);
  EXPECT_EQ(m->returns.both, 2u);
  EXPECT_EQ(m->returns.real_only, 2u);
  EXPECT_EQ(m->returns.sim_only, 1u);
  ASSERT_EQ(m->per_frame.size(), 1u);
  EXPECT_EQ(m->per_frame[0].both, 2u);
  EXPECT_DOUBLE_EQ(m->per_frame[0].Agreement(), 2.0 / 5.0);
  // A sink's error ends the comparison with it.
  auto failed = Compare({real}, {sim}, options, {},
                        [](size_t, const FramePairing&) { return Status{Error{"disk full"}}; });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "disk full");
}

TEST(CompareInputs, SurviveMetricsJsonAndMapPairsToFileFrames) {
  auto [real, sim] = TwoFrames();
  CompareOptions options;
  auto m = Compare({real}, {sim}, options);
  ASSERT_TRUE(m.ok());
  CompareInputs in;
  in.real_file = "r.pcap";
  in.sim_file = "s.h5";
  in.real_sidecar = "r.json";
  in.real_format = "";
  in.real_frames = {7};
  in.sim_frames = {2};
  in.rois_file = "t.yaml";
  in.roi_margin_m = 0.1;
  in.association.method = AssociationMethod::kAngular;
  in.association.max_angle_deg = 0.4;
  in.min_range_m = 0.3;
  in.scene_file = "scene.yaml";
  in.scene_targets = false;
  in.stamps = {{"r.pcap", 1234, -5}, {"s.h5", 99, 1700000000123456789}};
  m->inputs = in;
  auto back = MetricsFromJson(MetricsToJson(*m), "m.json");
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_TRUE(back->inputs.has_value());
  EXPECT_EQ(back->inputs->real_sidecar, "r.json");
  EXPECT_EQ(back->inputs->real_frames, std::vector<uint32_t>{7});
  EXPECT_EQ(back->inputs->association.method, AssociationMethod::kAngular);
  EXPECT_DOUBLE_EQ(back->inputs->association.max_angle_deg, 0.4);
  EXPECT_DOUBLE_EQ(back->inputs->min_range_m, 0.3);
  EXPECT_EQ(back->inputs->rois_file, "t.yaml");
  EXPECT_EQ(back->inputs->scene_file, "scene.yaml");
  EXPECT_DOUBLE_EQ(back->inputs->roi_margin_m, 0.1);
  EXPECT_FALSE(back->inputs->scene_targets);
  ASSERT_EQ(back->inputs->stamps.size(), 2u);
  EXPECT_EQ(back->inputs->stamps[1].file, "s.h5");
  EXPECT_EQ(back->inputs->stamps[1].bytes, 99u);
  EXPECT_EQ(back->inputs->stamps[1].mtime_ns, 1700000000123456789);
  EXPECT_EQ(back->inputs->stamps[0].mtime_ns, -5);
  EXPECT_EQ(back->inputs->RealFrameOfPair(0), 7u);
  EXPECT_EQ(back->inputs->SimFrameOfPair(0), 2u);
  EXPECT_EQ(CompareInputs{}.RealFrameOfPair(3), 3u);  // no list: every frame, in order
  ASSERT_EQ(back->per_frame.size(), 1u);
  EXPECT_EQ(back->per_frame[0].real_points, m->per_frame[0].real_points);
}

TEST(CompareInputs, MetricsJsonWithAnImpossibleFrameRowIsRefused) {
  auto [real, sim] = TwoFrames();
  auto m = Compare({real}, {sim}, CompareOptions{});
  ASSERT_TRUE(m.ok());
  std::string text = MetricsToJson(*m);
  const std::string both = "\"both\": " + std::to_string(m->per_frame[0].both);
  const size_t at = text.find(both, text.find("\"per_frame\""));
  ASSERT_NE(at, std::string::npos);
  text.replace(at, both.size(), "\"both\": 99");
  auto back = MetricsFromJson(text, "m.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("per_frame[0].both"), std::string::npos) << back.message();
}

TEST(CompareInputs, PerFrameRowsMustNameComparedPairsOnce) {
  auto [real, sim] = TwoFrames();
  auto m = Compare({real}, {sim}, CompareOptions{});
  ASSERT_TRUE(m.ok());
  const std::string text = MetricsToJson(*m);
  const size_t at = text.find("\"pair\": 0");
  ASSERT_NE(at, std::string::npos);
  std::string beyond = text;
  beyond.replace(at, 9, "\"pair\": 4294967296");
  auto back = MetricsFromJson(beyond, "m.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("not one of the 1 frame pairs"), std::string::npos)
      << back.message();
  m->per_frame.push_back(m->per_frame[0]);
  back = MetricsFromJson(MetricsToJson(*m), "m.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.message().find("listed twice"), std::string::npos) << back.message();
}

TEST(PairsTable, OneRowPerPairAndPerUnpairedPointByFileIndex) {
  auto [real, sim] = TwoFrames();
  auto p = PairFrame(real, sim, BeamOptions());
  ASSERT_TRUE(p.ok());
  test::TempDir dir;
  const auto path = dir.path() / "pairs.csv";
  auto writer = PairsTableWriter::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.message();
  CompareInputs in;
  in.real_frames = {4};
  in.sim_frames = {0};
  ASSERT_TRUE(writer->Add(0, in, *p).ok());
  EXPECT_FALSE(std::filesystem::exists(path));  // only once committed
  ASSERT_TRUE(writer->Commit().ok());
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  // Pairs: real 1 <-> sim 0 (+0.5 m, +2), real 3 <-> sim 1 (-0.25 m, -1); real-only 0 and 5;
  // sim-only 2.
  EXPECT_EQ(text.str(),
            "pair,real_frame,sim_frame,real_point,sim_point,range_error_m,intensity_error\n"
            "0,4,0,1,0,0.5,2\n"
            "0,4,0,3,1,-0.25,-1\n"
            "0,4,0,0,,,\n"
            "0,4,0,5,,,\n"
            "0,4,0,,2,,\n");
}

}  // namespace
}  // namespace lt::compare
