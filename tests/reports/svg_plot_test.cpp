// The report's SVG plots read as a person needs them (issue 11, report plots): at least four
// y ticks with padding around the data, the pair count of each bin written and weighting what
// is drawn, units on every axis, real and simulated told apart by shape and colour with a
// legend, and one unit per quantity in tables and plots. The tests parse the SVG text.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "lidartwin/reports/report.h"
#include "lidartwin/reports/svg_plot.h"

namespace lt::reports {
namespace {

// The contents of every <text class="CLASS" ...>...</text>.
std::vector<std::string> Texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  const std::regex re("<text class=\"" + cls + "\"[^>]*>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1]);
  return out;
}

// Each element whose class starts with "marker sK": (tag, attributes).
std::vector<std::pair<std::string, std::string>> Markers(const std::string& svg, int series) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex re("<(circle|rect|polygon) class=\"marker s" + std::to_string(series) +
                      "\"([^>]*)>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it)
    out.emplace_back((*it)[1], (*it)[2]);
  return out;
}

double Attribute(const std::string& attributes, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(attributes, m, std::regex(" " + name + "=\"([-0-9.]+)\""))) return NAN;
  return std::stod(m[1]);
}

std::string StringAttribute(const std::string& attributes, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(attributes, m, std::regex(" " + name + "=\"([^\"]*)\""))) return "";
  return m[1];
}

bool HasUnit(const std::string& label) {
  return std::regex_search(label, std::regex("\\[[^\\]]+\\]"));
}

TEST(SvgPlot, AtLeastFourYTicksWhateverTheRange) {
  for (auto [lo, hi] : std::vector<std::pair<double, double>>{{0, 1.12},
                                                              {0, 1},
                                                              {0.13, 0.61},
                                                              {-3, 1e5},
                                                              {5, 5},
                                                              {0, 0},
                                                              {1e6, 1e6 + 1e-6},
                                                              {-0.002, 0.0111},
                                                              {NAN, NAN},
                                                              {0, 1e300}}) {
    SCOPED_TRACE(std::to_string(lo) + " .. " + std::to_string(hi));
    const Axis a = ValueAxis(lo, hi);
    EXPECT_GE(a.ticks.size(), 4u);
    EXPECT_LE(a.ticks.size(), 30u);
    if (std::isfinite(lo) && hi > lo) {
      // Padding: the data stay inside the axis, off its ends.
      EXPECT_LT(a.lo, lo);
      EXPECT_GT(a.hi, hi);
    }
    for (double t : a.ticks)
      EXPECT_TRUE(t >= a.lo && t <= a.hi) << t;
  }
}

TEST(SvgPlot, TicksDoNotHangAtMagnitudesFarAboveTheStep) {
  const auto ticks = NiceTicks(1e17, 1e17 + 64, 6);  // t += step would not move
  EXPECT_LE(ticks.size(), 1000u);
}

// A hostile metrics.json can hold any finite double: the plot stays drawable, no NaN or
// infinite coordinate.
TEST(SvgPlot, ExtremeValuesGiveFiniteCoordinates) {
  Series s{.name = "s", .x = {1, 1e308, -1e308}, .y = {1e308, -1e308, 0}, .err = {1e300, 0, 0}};
  s.count = {1e19, 0, 5};
  for (const std::string& svg :
       {LinePlotSvg({.title = "t", .x_label = "x [m]", .y_label = "y [m]"}, {s}),
        BarPlotSvg({.title = "t", .x_label = "x", .y_label = "y [m]"}, {"a", "b", "c"}, {s})}) {
    EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
    EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
    EXPECT_GE(Texts(svg, "ytick").size(), 4u);
  }
}

Series Bins(std::string name, std::vector<double> y, std::vector<double> count) {
  Series s{.name = std::move(name)};
  for (size_t i = 0; i < y.size(); ++i)
    s.x.push_back(2.5 * static_cast<double>(i) + 1.25);
  s.y = std::move(y);
  s.count = std::move(count);
  return s;
}

TEST(SvgPlot, LinePlotShowsCountsWeightsAndTellsSeriesApart) {
  const PlotSpec spec{.title = "Depth error vs distance",
                      .x_label = "real range [m]",
                      .y_label = "sim - real range [m]"};
  const std::string svg = LinePlotSvg(spec, {Bins("|error|", {0.01, 0.012, 0.05}, {40000, 900, 3}),
                                             Bins("bias", {0.001, -0.002, 0.04}, {40000, 900, 3})});
  // Ticks and units.
  EXPECT_GE(Texts(svg, "ytick").size(), 4u);
  EXPECT_GE(Texts(svg, "xtick").size(), 4u);
  ASSERT_EQ(Texts(svg, "xlabel").size(), 1u);
  ASSERT_EQ(Texts(svg, "ylabel").size(), 1u);
  EXPECT_TRUE(HasUnit(Texts(svg, "xlabel")[0]));
  EXPECT_TRUE(HasUnit(Texts(svg, "ylabel")[0]));
  // The pairs of each bin, once (not once per series).
  EXPECT_EQ(Texts(svg, "count"), (std::vector<std::string>{"40k", "900", "3"}));
  // Two series: different shape and colour; a legend names both.
  const auto a = Markers(svg, 0), b = Markers(svg, 1);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_NE(a[0].first, b[0].first);
  EXPECT_NE(StringAttribute(a[0].second, "stroke"), StringAttribute(b[0].second, "stroke"));
  const auto legend = svg.find("<g class=\"legend\">");
  ASSERT_NE(legend, std::string::npos);
  EXPECT_NE(svg.find(">|error|</text>", legend), std::string::npos);
  EXPECT_NE(svg.find(">bias</text>", legend), std::string::npos);
  // Few pairs: fainter, smaller and hollow.
  const double many = Attribute(a[0].second, "opacity"), few = Attribute(a[2].second, "opacity");
  EXPECT_GT(many, few + 0.4);
  EXPECT_GT(Attribute(a[0].second, "r"), Attribute(a[2].second, "r"));
  EXPECT_EQ(StringAttribute(a[2].second, "fill"), "white");
  EXPECT_NE(StringAttribute(a[0].second, "fill"), "white");
  // Padding: no marker on the frame's top or bottom edge.
  const double top = 54, bottom = spec.height_px - 92;
  for (const auto& [tag, attrs] : a) {
    const double cy = Attribute(attrs, "cy");
    EXPECT_GT(cy, top + 5);
    EXPECT_LT(cy, bottom - 5);
  }
}

TEST(SvgPlot, BarPlotShowsCountsAndDeEmphasisesFewPairs) {
  Series s{.name = "|error| mean +- std", .y = {0.01, 0.02}, .err = {0.001, 0.002}};
  s.count = {5000, 4};
  const std::string svg = BarPlotSvg({.title = "Depth error by material",
                                      .x_label = "simulated material (n = pairs)",
                                      .y_label = "|sim - real range| [m]"},
                                     {"asphalt", "glass"}, {s});
  EXPECT_GE(Texts(svg, "ytick").size(), 4u);
  EXPECT_EQ(Texts(svg, "count"), (std::vector<std::string>{"n=5k", "n=4"}));
  const std::regex re("<rect class=\"bar s0\"([^>]*)>");
  std::vector<std::string> bars;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it)
    bars.push_back((*it)[1]);
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_GT(Attribute(bars[0], "fill-opacity"), Attribute(bars[1], "fill-opacity") + 0.4);
  EXPECT_EQ(bars[0].find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(bars[1].find("stroke-dasharray"), std::string::npos);
}

// The value axis follows the bulk of the values: a lone bin of one pair at 230 m error is drawn
// on the frame's edge with its value written, not allowed to flatten the others; a trend that
// grows bin by bin (errors rising with range) stays whole.
TEST(SvgPlot, RobustRangeLeavesALoneFarValueOutside) {
  const BulkRange lone = RobustRange({0.01, 0.02, 0.015, 0.03, 0.012, 230});
  EXPECT_DOUBLE_EQ(lone.lo, 0);  // zero is always inside
  EXPECT_DOUBLE_EQ(lone.hi, 0.03);
  EXPECT_FALSE(lone.Holds(230));
  const BulkRange trend = RobustRange({0.02, 0.1, 0.3, 0.8, 2.5, 7});
  EXPECT_DOUBLE_EQ(trend.hi, 7);
  // Both sides: a bias of -146 m beside biases of centimetres.
  const BulkRange both = RobustRange({0.01, -0.02, 0.03, -146, 0.02});
  EXPECT_DOUBLE_EQ(both.lo, -0.02);
  // A degenerate middle (all zero) takes its first neighbour, whatever it is.
  EXPECT_DOUBLE_EQ(RobustRange({0, 0, 0, 0, 0.01, 230}).hi, 0.01);
  const BulkRange none = RobustRange({NAN, INFINITY});
  EXPECT_DOUBLE_EQ(none.lo, 0);
  EXPECT_DOUBLE_EQ(none.hi, 0);
}

TEST(SvgPlot, AValueBeyondTheAxisIsDrawnAtTheEdgeAndCounted) {
  const PlotSpec spec{.title = "Depth error vs distance",
                      .x_label = "real range [m]",
                      .y_label = "sim - real range [m]"};
  Series abs = Bins("|error|", {0.01, 0.012, 0.02, 0.03, 230}, {40000, 900, 500, 200, 1});
  abs.err_floor = 0;
  const std::string svg = LinePlotSvg(spec, {abs});
  // The ticks are those of centimetres, not of hundreds of metres.
  for (const std::string& t : Texts(svg, "ytick"))
    EXPECT_LT(std::stod(t), 1.0) << t;
  const auto beyond = Texts(svg, "beyond");
  ASSERT_EQ(beyond.size(), 1u);
  EXPECT_NE(beyond[0].find("230"), std::string::npos);
  ASSERT_EQ(Texts(svg, "note").size(), 1u);
  EXPECT_NE(Texts(svg, "note")[0].find("1 value beyond the axis"), std::string::npos);
  // Its marker sits on the frame's top edge, hollow, its tooltip with the value.
  const auto m = Markers(svg, 0);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_NEAR(Attribute(m[4].second, "cy"), 68, 0.5);  // kTopWithNote
  EXPECT_EQ(StringAttribute(m[4].second, "fill"), "white");
  EXPECT_NE(svg.find("|error|: 11.25, 230 (1 pairs) (beyond the axis)"), std::string::npos);
}

// |error| is never negative: its error bars stop at zero when the std exceeds the mean.
TEST(SvgPlot, AbsoluteErrorBarsStopAtZero) {
  Series abs = Bins("|error|", {0.05, 0.06}, {1000, 1000});
  abs.err = {0.2, 0.01};
  abs.err_floor = 0;
  const std::string svg =
      LinePlotSvg({.title = "t", .x_label = "x [m]", .y_label = "y [m]"}, {abs});
  // The zero gridline's y: the tick labelled 0.
  std::smatch zero;
  ASSERT_TRUE(
      std::regex_search(svg, zero,
                        std::regex("y1=\"([-0-9.]+)\" y2=\"[-0-9.]+\" stroke=\"#ddd\"/><text "
                                   "class=\"ytick\"[^>]*>0</text>")));
  const double y0 = std::stod(zero[1]);
  // Vertical lines in the series' colour (the legend's sample is horizontal).
  const std::regex bar(
      "<line x1=\"([-0-9.]+)\" x2=\"\\1\" y1=\"([-0-9.]+)\" y2=\"([-0-9.]+)\" stroke=\"#0072B2\"");
  size_t bars = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator();
       ++it) {
    ++bars;
    EXPECT_LE(std::stod((*it)[2]), y0 + 0.05);  // the bottom end: not below zero
  }
  EXPECT_EQ(bars, 2u);
  // No axis below zero for it either.
  for (const std::string& t : Texts(svg, "ytick"))
    EXPECT_GE(std::stod(t), 0.0) << t;
}

TEST(SvgPlot, ABarBeyondTheAxisIsCutAndItsValueWritten) {
  Series s{.name = "|error| mean +- std", .y = {0.01, 0.02, 0.015, 230}, .err = {}, .err_floor = 0};
  s.count = {5000, 4000, 3000, 1};
  const std::string svg = BarPlotSvg({.title = "Depth error by material",
                                      .x_label = "simulated material (n = pairs)",
                                      .y_label = "|sim - real range| [m]"},
                                     {"asphalt", "glass", "wood", "paint"}, {s});
  for (const std::string& t : Texts(svg, "ytick"))
    EXPECT_LT(std::stod(t), 1.0) << t;
  ASSERT_EQ(Texts(svg, "beyond").size(), 1u);
  EXPECT_NE(svg.find("class=\"break\""), std::string::npos);
  EXPECT_EQ(Texts(svg, "count").size(), 4u);
}

compare::ComparisonMetrics SampleRun() {
  compare::ComparisonMetrics m;
  m.label = "lab";
  m.association = "beam";
  m.frames = 1;
  compare::BinMetrics near, far;
  near.label = "0-10 m";
  near.lo_m = 0;
  near.hi_m = 10;
  for (int i = 0; i < 200; ++i) {
    near.depth_m.Add(0.01);
    near.intensity.Add(i % 5);
  }
  far.label = ">= 10 m";
  far.lo_m = 10;
  far.hi_m = INFINITY;
  for (int i = 0; i < 4; ++i) {
    far.depth_m.Add(0.05);
    far.intensity.Add(2);
  }
  m.by_distance = {near, far};
  compare::BinMetrics asphalt = near;
  asphalt.label = "asphalt";
  m.by_material = {asphalt};
  m.depth_m = near.depth_m;
  m.targets.push_back({"plate", "wood", 0, 5.0, 10, 8, 20, 22, 5.01, 4.99});
  m.targets.push_back({"hidden", "", 0, 9.0, 0, 0, 0, 0, 0, 0});
  m.returns.both = 204;
  return m;
}

TEST(SvgPlot, EveryReportPlotHasTicksUnitsAndALegend) {
  const std::string html = RenderHtml(BuildReport({SampleRun()}));
  size_t plots = 0;
  for (size_t p = html.find("<svg"); p != std::string::npos; p = html.find("<svg", p + 1)) {
    const std::string svg = html.substr(p, html.find("</svg>", p) - p);
    SCOPED_TRACE(svg.substr(0, 400));
    ++plots;
    EXPECT_GE(Texts(svg, "ytick").size(), 4u);
    ASSERT_EQ(Texts(svg, "ylabel").size(), 1u);
    EXPECT_TRUE(HasUnit(Texts(svg, "ylabel")[0])) << Texts(svg, "ylabel")[0];
    const std::string x = Texts(svg, "xlabel")[0];
    // Numeric x axes carry their unit; the material axis is a list of names.
    EXPECT_TRUE(HasUnit(x) || x.find("material") != std::string::npos) << x;
    EXPECT_NE(svg.find("<g class=\"legend\">"), std::string::npos);
  }
  EXPECT_EQ(plots, 6u);
  // Material names where compare had them; the x label says when it had only ids.
  EXPECT_NE(html.find(">asphalt</text>"), std::string::npos);
  EXPECT_EQ(html.find("by id where no scene named it"), std::string::npos);
  // The target plots: real and simulated differ in shape and in colour.
  const size_t kpi = html.find("N_points per target");
  ASSERT_NE(kpi, std::string::npos);
  const std::string svg = html.substr(kpi, html.find("</svg>", kpi) - kpi);
  const auto real = Markers(svg, 0), sim = Markers(svg, 1);
  ASSERT_FALSE(real.empty());
  ASSERT_FALSE(sim.empty());
  EXPECT_NE(real[0].first, sim[0].first);
  EXPECT_NE(StringAttribute(real[0].second, "stroke"), StringAttribute(sim[0].second, "stroke"));
  EXPECT_NE(svg.find("1 of 2 target(s) with no real points"), std::string::npos);
}

TEST(SvgPlot, OneUnitPerQuantityInTablesAndPlots) {
  const Report r = BuildReport({SampleRun()});
  for (const auto& [text, bar] : {std::pair{RenderHtml(r), std::string("|")},
                                  std::pair{RenderMarkdown(r), std::string("\\|")}}) {
    // Depth errors in metres everywhere: tables, plots and the summary metrics (_m).
    EXPECT_EQ(text.find("cm"), std::string::npos);
    EXPECT_EQ(text.find("[mm]"), std::string::npos);
    EXPECT_NE(text.find("depth " + bar + "err" + bar + " mean [m]"), std::string::npos);
    EXPECT_NE(text.find("d_error sim [m]"), std::string::npos);
    EXPECT_NE(text.find("int. " + bar + "err" + bar + " mean [a.u.]"), std::string::npos);
    EXPECT_NE(text.find("I_mean real [a.u.]"), std::string::npos);
  }
  const std::string html = RenderHtml(r);
  EXPECT_NE(html.find("sim - real range [m]"), std::string::npos);
  EXPECT_NE(html.find("sim - real intensity [a.u.]"), std::string::npos);
  EXPECT_NE(html.find("mean intensity [a.u.]"), std::string::npos);
  // The depth error of 1 cm reads 0.01 (m) in the table.
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("| 0-10 m | 200 | 0.01 |"), std::string::npos) << md;
  // A target without points says so in its row.
  EXPECT_NE(md.find("| hidden | - | 0 | 9.00 | 0 | 0 | no points | no points | no points | no "
                    "points | no points |"),
            std::string::npos)
      << md;
}

// Text columns (file names, association, meaning, status) read from the left, numbers from
// the right: in the HTML (class "text") and in the Markdown's alignment row.
TEST(SvgPlot, TextColumnsAreLeftAlignedAndNumbersRight) {
  compare::ComparisonMetrics m = SampleRun();
  m.real_file = "real.pcap";
  m.sim_file = "sim.h5";
  const Report r = BuildReport({m});
  const std::string html = RenderHtml(r);
  EXPECT_NE(html.find("<td class=\"text\">real.pcap</td><td class=\"text\">sim.h5</td><td "
                      "class=\"text\">a.u.</td><td>1</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"text\">plate</td><td class=\"text\">wood</td><td>0</td>"),
            std::string::npos);
  EXPECT_NE(html.find(".text{text-align:left}"), std::string::npos);
  const std::string md = RenderMarkdown(r);
  // label, real, simulated, intensity unit, association: text; frames, points, pairs,
  // dropped: numbers.
  EXPECT_NE(md.find("| --- | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |"),
            std::string::npos)
      << md;
}

// Intensity in each recording's own unit, as compare recorded it: one unit where the sides
// agree, both named where they do not, a.u. for metrics files of before.
TEST(SvgPlot, IntensityInTheRecordingsOwnUnit) {
  compare::ComparisonMetrics m = SampleRun();
  m.real_intensity_unit = m.sim_intensity_unit = "percent";
  std::string html = RenderHtml(BuildReport({m}));
  EXPECT_NE(html.find("sim - real intensity [percent]"), std::string::npos);
  EXPECT_NE(html.find("int. |err| mean [percent]"), std::string::npos);
  EXPECT_EQ(html.find("a.u."), std::string::npos);
  m.real_intensity_unit = "ouster signal photons";
  html = RenderHtml(BuildReport({m}));
  EXPECT_NE(html.find("sim - real intensity [real ouster signal photons / sim percent]"),
            std::string::npos);
  EXPECT_NE(html.find("I_mean real [ouster signal photons]"), std::string::npos);
  EXPECT_NE(html.find("I_mean sim [percent]"), std::string::npos);
}

}  // namespace
}  // namespace lt::reports
