// reports/: the regression gate, tolerances, baselines and the renderers.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "lidartwin/compare/metrics_json.h"
#include "lidartwin/reports/report.h"
#include "lidartwin/reports/svg_plot.h"
#include "test_support.h"

namespace lt::reports {
namespace {

TEST(Gate, LowerIsBetterMetricsMayRiseOnlyByTheirTolerance) {
  const std::vector<Tolerance> tol = {{"depth_abs_mean_m", 0.002, 0},
                                      {"intensity_abs_mean", 0, 0.10}};
  const std::map<std::string, double> base = {{"depth_abs_mean_m", 0.010},
                                              {"intensity_abs_mean", 5.0}};
  auto ok = ApplyGate({{"depth_abs_mean_m", 0.0119}, {"intensity_abs_mean", 5.49}}, base, tol);
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_FALSE(ok[0].regression);
  EXPECT_FALSE(ok[1].regression);
  EXPECT_NEAR(ok[1].allowed, 0.5, 1e-12);  // 10 % of 5
  auto bad = ApplyGate({{"depth_abs_mean_m", 0.0121}, {"intensity_abs_mean", 5.51}}, base, tol);
  EXPECT_TRUE(bad[0].regression);
  EXPECT_NEAR(bad[0].worse_by, 0.0021, 1e-12);
  EXPECT_TRUE(bad[1].regression);
  // Getting better is never a regression.
  auto better = ApplyGate({{"depth_abs_mean_m", 0.0}, {"intensity_abs_mean", 0.0}}, base, tol);
  EXPECT_FALSE(better[0].regression || better[1].regression);
}

TEST(Gate, HigherIsBetterMetricsMayFallOnlyByTheirToleranceAndMissingFails) {
  const std::vector<Tolerance> tol = {{"return_agreement", 0.01, 0}, {"n_points_mape", 0.01, 0}};
  const std::map<std::string, double> base = {{"return_agreement", 0.95}};
  auto rows = ApplyGate({{"return_agreement", 0.935}}, base, tol);
  EXPECT_TRUE(rows[0].regression);
  EXPECT_NEAR(rows[0].worse_by, 0.015, 1e-12);
  // n_points_mape is in neither run: never measured, so not a regression (issue 11 review: a
  // file gated against itself failed).
  EXPECT_TRUE(rows[1].missing && !rows[1].regression);
  EXPECT_FALSE(ApplyGate({{"return_agreement", 0.945}}, base, {tol[0]})[0].regression);
  // Lost by this run while the baseline has it: a regression.
  auto lost = ApplyGate({}, base, {tol[0]});
  EXPECT_TRUE(lost[0].missing && lost[0].regression);
  // New in this run, absent from the baseline: nothing to hold it against.
  auto added = ApplyGate({{"return_agreement", 0.9}, {"n_points_mape", 0.2}}, base, tol);
  EXPECT_TRUE(added[1].missing && !added[1].regression);
}

TEST(Tolerances, LoadAndRejectUnknownMetricsAndNegativeValues) {
  test::TempDir dir;
  auto t = LoadTolerances(dir.Write("t.yaml",
                                    "depth_abs_mean_m: {max_worse: 0.001}\n"
                                    "return_agreement: {max_worse_fraction: 0.02}\n"));
  ASSERT_TRUE(t.ok()) << t.message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_DOUBLE_EQ((*t)[1].max_worse_fraction, 0.02);
  auto u = LoadTolerances(dir.Write("u.yaml", "depth_error: {max_worse: 0.001}\n"));
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.message().find("depth_error"), std::string::npos) << u.message();
  EXPECT_NE(u.message().find("unknown metric"), std::string::npos) << u.message();
  auto n = LoadTolerances(dir.Write("n.yaml", "chamfer_m: {max_worse: -1}\n"));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.message().find("chamfer_m.max_worse"), std::string::npos) << n.message();
  auto k = LoadTolerances(dir.Write("k.yaml", "chamfer_m: {max_wrose: 1}\n"));
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.message().find("max_wrose"), std::string::npos) << k.message();
}

TEST(Tolerances, ValidateNamesTheMetricAndKey) {
  EXPECT_TRUE((Tolerance{"chamfer_m", 0.01, 0}).Validate().ok());
  EXPECT_EQ((Tolerance{"chamfer", 0.01, 0}).Validate().message(),
            "tolerance: key 'chamfer': unknown metric (see docs/validation.md for the summary "
            "metrics)");
  EXPECT_EQ((Tolerance{"chamfer_m", -1, 0}).Validate().message(),
            "tolerance: key 'chamfer_m.max_worse': must be a finite number >= 0, got -1");
  EXPECT_EQ((Tolerance{"chamfer_m", 0, NAN}).Validate().message(),
            "tolerance: key 'chamfer_m.max_worse_fraction': must be a finite number >= 0, got nan");
  ConfigCheck check;
  CheckTolerances({{"chamfer_m", 1, 0}, {"chamfer_m", 2, 0}}, check);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.problem()->key_path, "chamfer_m");
  EXPECT_EQ(check.problem()->problem, "is listed twice");
  // The loader reports it at the line of the key.
  test::TempDir dir;
  auto n = LoadTolerances(dir.Write("n.yaml",
                                    "depth_abs_mean_m: {max_worse: 0}\n"
                                    "chamfer_m: {max_worse: -1}\n"));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.message().find("n.yaml: key 'chamfer_m.max_worse' (line 2): must be a finite "
                             "number >= 0, got -1"),
            std::string::npos)
      << n.message();
}

TEST(Baseline, ReadsTheSummaryAndNamesProblems) {
  test::TempDir dir;
  auto b = LoadBaselineSummary(dir.Write("b.json", R"({"summary": {"chamfer_m": 0.5}})"));
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b->at("chamfer_m"), 0.5);
  auto none = LoadBaselineSummary(dir.Write("n.json", R"({"runs": []})"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.message().find("summary"), std::string::npos);
  auto bad = LoadBaselineSummary(dir.Write("x.json", R"({"summary": {"chamfer_m": "a"}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("summary.chamfer_m"), std::string::npos);
  EXPECT_FALSE(LoadBaselineSummary(dir / "absent.json").ok());
}

compare::ComparisonMetrics SampleRun() {
  compare::ComparisonMetrics m;
  m.label = "lab <seed 1>";
  m.association = "beam";
  m.frames = 1;
  m.real_points = m.sim_points = 10;
  m.returns.both = 9;
  m.returns.real_only = m.returns.sim_only = 1;
  for (double e : {0.01, -0.02, 0.03}) {
    m.depth_m.Add(e);
    m.intensity.Add(10 * e);
  }
  compare::BinMetrics bin{"0-5 m", 0, 5, m.depth_m, m.intensity};
  m.by_distance = {bin, {">= 5 m", 5, INFINITY, m.depth_m, m.intensity}};
  m.by_material = {{"wood & paint", 0, 0, m.depth_m, m.intensity}};
  m.targets.push_back({"plate", "wood", 0, 5.0, 10, 8, 20, 22, 5.01, 4.99});
  return m;
}

TEST(Render, MarkdownAndHtmlCarryTablesPlotsAndTheVerdict) {
  Report r = BuildReport({SampleRun()});
  AddBaseline(r, "base.json", {{"depth_abs_mean_m", 0.001}}, {{"depth_abs_mean_m", 0.001, 0}});
  ASSERT_TRUE(r.Regressed());  // 0.02 against 0.001 + 0.001
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("**REGRESSION against base.json: depth_abs_mean_m.**"), std::string::npos);
  EXPECT_NE(md.find("| depth_abs_mean_m | 0.02 | 0.001 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| plate | wood | 0 | 5.00 | 10 | 8 |"), std::string::npos) << md;
  const std::string html = RenderHtml(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_GE(std::count(html.begin(), html.end(), '<'), 100);
  size_t svgs = 0;
  for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1))
    ++svgs;
  EXPECT_EQ(svgs, 6u);  // depth and intensity vs distance, two material bars, N_points, I_mean
  EXPECT_NE(html.find("lab &lt;seed 1&gt;"), std::string::npos);  // escaped label
  EXPECT_NE(html.find("wood &amp; paint"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // self-contained, static
  EXPECT_EQ(html.find("src="), std::string::npos);
  const auto json = nlohmann::json::parse(RenderJson(r));
  EXPECT_TRUE(json["regressed"].get<bool>());
  EXPECT_EQ(json["runs"][0]["label"], "lab <seed 1>");
}

TEST(Render, WriteReportIsAtomicAndComplete) {
  test::TempDir dir;
  ASSERT_TRUE(WriteReport(BuildReport({SampleRun()}), dir / "out").ok());
  for (const char* f : {"report.json", "report.md", "report.html"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "out" / f)) << f;
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "out"))
    files += e.is_regular_file();
  EXPECT_EQ(files, 3u);  // no temporary files left behind
}

TEST(Svg, NiceTicksAreRoundAndCoverTheRange) {
  EXPECT_EQ(NiceTicks(0, 10, 6), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const auto ticks = NiceTicks(0.13, 0.61, 5);  // raw step 0.12 -> 0.2
  ASSERT_EQ(ticks.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(ticks[i], 0.2 * (i + 1), 1e-12);
  EXPECT_TRUE(NiceTicks(1, 1, 5).empty());
  const std::string svg = LinePlotSvg({"t", "x", "y"}, {{"s", {0, 1}, {NAN, 2}, {}}});
  size_t markers = 0;
  for (size_t p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1))
    ++markers;
  EXPECT_EQ(markers, 1u);  // the NaN point is skipped, the finite one drawn
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace lt::reports
