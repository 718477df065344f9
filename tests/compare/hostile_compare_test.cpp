// compare/ on hostile input (issue 11 finding 15): non-finite points never turn a metric into
// NaN, they are counted; targets without points stay in the output, marked; the option ranges
// the command line enforces.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "lidartwin/compare/metrics.h"
#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/compare/targets.h"

namespace lt::compare {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

FramePoint At(float x, float y, float z, uint32_t column, float intensity = 10) {
  FramePoint p;
  p.x_m = x;
  p.y_m = y;
  p.z_m = z;
  p.range_m = std::sqrt(x * x + y * y + z * z);
  p.intensity = intensity;
  p.column = column;
  return p;
}

// A wall of 20 points 5 m ahead.
Frame Wall(float dx) {
  Frame f;
  for (uint32_t i = 0; i < 20; ++i)
    f.Append(At(5 + dx, -1 + 0.1f * static_cast<float>(i), 0, i));
  return f;
}

void ExpectAllFinite(const std::map<std::string, double>& summary) {
  for (const auto& [name, value] : summary)
    EXPECT_TRUE(std::isfinite(value)) << name << " = " << value;
}

TEST(HostileCompare, NonFinitePointsAreDroppedAndCounted) {
  Frame real = Wall(0), sim = Wall(0.01f);
  real.Append(At(kInf, 0, 0, 100));
  real.Append(At(1, kNan, 0, 101));
  sim.Append(At(-kInf, kInf, 0, 102));
  // A finite position with a non-finite range or intensity poisons the errors just as well.
  FramePoint bad_range = At(5, 0, 0, 103);
  bad_range.range_m = kNan;
  sim.Append(bad_range);
  real.Append(At(5, 0.05f, 0, 104, kInf));
  for (AssociationMethod method :
       {AssociationMethod::kAngular, AssociationMethod::kNearest3d, AssociationMethod::kAuto}) {
    CompareOptions o;
    o.association.method = method;
    auto m = Compare({real}, {sim}, o);
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m->real_non_finite, 3u);
    EXPECT_EQ(m->sim_non_finite, 2u);
    EXPECT_EQ(m->real_points, 20u);
    EXPECT_EQ(m->sim_points, 20u);
    EXPECT_EQ(m->returns.both, 20u);
    const auto summary = Summarize({*m});
    ExpectAllFinite(summary);
    ASSERT_TRUE(summary.count("chamfer_m"));
    EXPECT_NEAR(summary.at("chamfer_m"), 0.01, 1e-5);
    EXPECT_NEAR(summary.at("depth_abs_mean_m"), 0.01, 0.002);
  }
  // The count is written and read back.
  auto m = Compare({real}, {sim}, {});
  ASSERT_TRUE(m.ok());
  const std::string text = MetricsToJson(*m);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["non_finite_points"]["real"], 3);
  EXPECT_EQ(j["non_finite_points"]["sim"], 2);
  EXPECT_FALSE(j["summary"]["chamfer_m"].is_null());
  auto back = MetricsFromJson(text, "m.json");
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->real_non_finite, 3u);
  EXPECT_EQ(back->sim_non_finite, 2u);
  // A metrics file from before the count reads as none dropped.
  auto old = nlohmann::json::parse(text);
  old.erase("non_finite_points");
  auto back_old = MetricsFromJson(old.dump(), "old.json");
  ASSERT_TRUE(back_old.ok()) << back_old.message();
  EXPECT_EQ(back_old->real_non_finite, 0u);
}

TEST(HostileCompare, OnlyNonFinitePointsGiveNoMetricRatherThanNan) {
  Frame real, sim;
  for (uint32_t i = 0; i < 5; ++i) {
    real.Append(At(kNan, kNan, kNan, i));
    sim.Append(At(kInf, 0, 0, i));
  }
  auto m = Compare({real}, {sim}, {});
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->real_non_finite, 5u);
  EXPECT_EQ(m->sim_non_finite, 5u);
  const auto summary = Summarize({*m});
  ExpectAllFinite(summary);
  EXPECT_EQ(summary.count("chamfer_m"), 0u);
  EXPECT_EQ(MetricsToJson(*m).find("nan"), std::string::npos);
}

Target Box(const std::string& name, double x) {
  Target t;
  t.name = name;
  t.box_to_sensor.translation = {x, 0, 0};
  t.half_size_m = {0.5, 2, 1};
  return t;
}

TEST(HostileCompare, TargetsWithoutPointsStayInTheOutputMarked) {
  CompareOptions o;
  o.targets = {Box("wall", 5), Box("nothing_here", 50)};
  auto m = Compare({Wall(0)}, {Wall(0.01f)}, o);
  ASSERT_TRUE(m.ok()) << m.message();
  ASSERT_EQ(m->targets.size(), 2u);
  EXPECT_STREQ(m->targets[0].PointsStatus(), "ok");
  EXPECT_STREQ(m->targets[1].PointsStatus(), "no points");
  const auto j = nlohmann::json::parse(MetricsToJson(*m));
  ASSERT_EQ(j["targets"].size(), 2u);
  EXPECT_EQ(j["targets"][1]["name"], "nothing_here");
  EXPECT_EQ(j["targets"][1]["points"], "no points");
  EXPECT_EQ(j["targets"][0]["points"], "ok");
  const auto notes = TargetNotes(*m);
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0], "target nothing_here (frame 0): no points");
  bool mape_note = false;
  for (const auto& n : notes)
    mape_note |= n.find("n_points_mape leaves out 1 of 2 target(s)") != std::string::npos;
  EXPECT_TRUE(mape_note);

  // Every target empty (a negative margin used to do this): the MAPE lines say why they are
  // missing instead of vanishing.
  o.targets = {Box("far_a", 50), Box("far_b", 60)};
  auto empty = Compare({Wall(0)}, {Wall(0.01f)}, o);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(Summarize({*empty}).count("n_points_mape"), 0u);
  const auto empty_notes = TargetNotes(*empty);
  ASSERT_EQ(empty_notes.size(), 3u);
  EXPECT_NE(empty_notes[2].find("n_points_mape and i_mean_mape not computed: none of the 2"),
            std::string::npos)
      << empty_notes[2];
  // Everything has points: no notes.
  o.targets = {Box("wall", 5)};
  auto full = Compare({Wall(0)}, {Wall(0.01f)}, o);
  ASSERT_TRUE(full.ok());
  EXPECT_TRUE(TargetNotes(*full).empty());
}

TEST(HostileCompare, NotesAreCappedAndCountTheRest) {
  CompareOptions o;
  for (int i = 0; i < 30; ++i)
    o.targets.push_back(Box("t" + std::to_string(i), 100 + i));
  auto m = Compare({Wall(0)}, {Wall(0)}, o);
  ASSERT_TRUE(m.ok());
  const auto notes = TargetNotes(*m, 5);
  ASSERT_EQ(notes.size(), 7u);
  EXPECT_EQ(notes[5], "... and 25 more target(s) without points");
}

TEST(HostileCompare, OptionRangesNameTheLimit) {
  EXPECT_TRUE(CheckRoiMargin(0).ok());
  EXPECT_TRUE(CheckRoiMargin(10).ok());
  EXPECT_EQ(CheckRoiMargin(-1).message(), "must be in [0, 10] m, got -1");
  EXPECT_EQ(CheckRoiMargin(NAN).message(), "must be in [0, 10] m, got nan");
  EXPECT_FALSE(CheckRoiMargin(10.5).ok());
  AssociationOptions gates;
  gates.max_angle_deg = 181;
  EXPECT_EQ(gates.Validate().message(),
            "association options: key 'max_angle_deg': must be in (0, 180] deg, got 181");
  gates.max_angle_deg = 180;
  EXPECT_TRUE(gates.Validate().ok());
}

}  // namespace
}  // namespace lt::compare
