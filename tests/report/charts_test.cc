#include "report/charts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/rng.h"
#include "xml_check.h"

namespace orrery::report {
namespace {

using testing::check_xml;
using testing::count_of;

LineChart utilisation_chart() {
  LineChart c;
  c.title = "Utilisation <cpu & mem>";
  c.x = Axis{"time", Format::kSeconds};
  c.y = Axis{"utilisation", Format::kPercent};
  c.y.min = 0;
  c.y.max = 1;
  c.style = LineStyle::kStep;
  for (int s = 0; s < 3; ++s) {
    Series ser{"run \"" + std::to_string(s) + "\"", {}, {}, {}, {}};
    for (int i = 0; i <= 100; ++i) {
      ser.x.push_back(i * 10.0);
      ser.y.push_back(0.5 + 0.4 * std::sin(i / 10.0 + s));
    }
    c.series.push_back(ser);
  }
  return c;
}

TEST(Charts, LineChartIsWellFormedSvgWithSeriesLegendAndAxes) {
  const std::string svg = render_svg(utilisation_chart(), "c1");
  const auto xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  EXPECT_EQ(xml.elements.at("svg"), 1);
  EXPECT_EQ(count_of(svg, "class=\"series\""), 3);
  EXPECT_EQ(count_of(svg, "class=\"legend-entry\""), 3);
  EXPECT_EQ(count_of(svg, "class=\"line\""), 3);
  EXPECT_NE(svg.find(">time</text>"), std::string::npos);
  EXPECT_NE(svg.find(">utilisation</text>"), std::string::npos);
  EXPECT_NE(svg.find(">100%</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1000 s</text>"), std::string::npos);
  // Escaped title and series names; never raw.
  EXPECT_NE(svg.find("Utilisation &lt;cpu &amp; mem&gt;"), std::string::npos);
  EXPECT_NE(svg.find("run &quot;1&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("<cpu"), std::string::npos);
  // Step style draws horizontal-then-vertical segments.
  EXPECT_NE(svg.find("H"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(Charts, RenderingIsDeterministic) {
  EXPECT_EQ(render_svg(utilisation_chart(), "a"), render_svg(utilisation_chart(), "a"));
}

TEST(Charts, PaletteIsDistinctThenVariesDashes) {
  std::set<std::string> colors;
  for (size_t i = 0; i < 8; ++i) {
    colors.insert(series_color(i));
    EXPECT_STREQ(series_dash(i), "");
  }
  EXPECT_EQ(colors.size(), 8u);
  EXPECT_STREQ(series_color(8), series_color(0));
  EXPECT_STRNE(series_dash(8), "");
}

TEST(Charts, CdfOf500kPointsStaysSmallAndMarksPercentiles) {
  Rng rng(1);
  CdfChart c;
  c.title = "JRT delay";
  c.x = Axis{"delay", Format::kSeconds, true};
  for (const char* name : {"megha", "pigeonc"}) {
    Distribution d{name, {}};
    d.values.resize(500000);
    for (double& v : d.values) v = rng.lognormal(-4, 2);
    c.series.push_back(std::move(d));
  }
  c.series[1].values[0] = 0;  // one non-positive value on a log axis
  c.series[1].values[1] = std::nan("");
  const std::string svg = render_svg(c, "cdf");
  const auto xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  EXPECT_LT(svg.size(), 60000u);
  EXPECT_EQ(count_of(svg, "class=\"series\""), 2);
  EXPECT_EQ(xml.elements.at("circle"), 6);  // p50/p90/p99 per series
  EXPECT_NE(svg.find("megha: p99 = "), std::string::npos);
  EXPECT_NE(svg.find("n = 500\u202f000"), std::string::npos);
  EXPECT_NE(svg.find("n = 499\u202f999"), std::string::npos);  // NaN dropped
  EXPECT_NE(svg.find("1 value \u2264 0 drawn at the log axis minimum"), std::string::npos);
  EXPECT_NE(svg.find(">1 s</text>"), std::string::npos);
  EXPECT_NE(svg.find(">cumulative fraction</text>"), std::string::npos);
}

// Stacked bars (shares of a whole): one bar per group, segments bottom to top, the y axis up to
// the largest total.
TEST(Charts, StackedBarChartStacksSeriesInOneBarPerGroup) {
  BarChart b;
  b.title = "Categories";
  b.x_label = "nodes";
  b.y = Axis{"instances (%)"};
  b.stacked = true;
  b.groups = {"4", "8"};
  b.series = {{"Better", {60, 30}, {}, {}},
              {"Baseline-Optimal", {40, 50}, {}, {}},
              {"Failures", {0, 20}, {}, {}}};
  const std::string svg = render_svg(b, "stack");
  auto xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  // 6 segments (a zero-height one included), the background, 3 legend swatches, the clip rect.
  EXPECT_EQ(xml.elements.at("rect"), 6 + 1 + 3 + 1);
  EXPECT_NE(svg.find("8 \u2014 Failures: 20"), std::string::npos);
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);  // totals reach 100
  EXPECT_EQ(svg.find(">120</text>"), std::string::npos);  // and the axis does not overshoot
}

TEST(Charts, BarChartWithErrorBarsAndRotatedLabels) {
  BarChart b;
  b.title = "Edge ratio";
  b.x_label = "scenario (mean_sd)";
  b.y = Axis{"edge ratio", Format::kPercent};
  b.groups = {"1.1_0.4", "1.2_0.4", "1.3_0.4"};
  for (const char* name : {"KubeDSM", "BEF", "SEF", "CF"}) {
    BarSeries s{name, {}, {}, {}};
    for (size_t g = 0; g < b.groups.size(); ++g) {
      const ErrorBar e = mean_spread({0.5 + 0.1 * g, 0.6 + 0.1 * g, 0.7 + 0.1 * g});
      s.value.push_back(e.mean);
      s.lo.push_back(e.lo);
      s.hi.push_back(e.hi);
    }
    b.series.push_back(s);
  }
  b.series[3].value[1] = std::nan("");  // a missing bar
  std::string svg = render_svg(b, "bars");
  auto xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  // 12 bars - 1 missing, plus the background and 4 legend swatches.
  EXPECT_EQ(xml.elements.at("rect"), 11 + 1 + 4 + 1 /* clip rect */);
  EXPECT_EQ(count_of(svg, "class=\"series\""), 4);
  EXPECT_NE(svg.find("1.2_0.4 \u2014 KubeDSM: 70% (60% \u2013 80%)"), std::string::npos);
  EXPECT_EQ(count_of(svg, "rotate(-30"), 0);  // short labels stay horizontal
  // Long category names rotate.
  b.groups = {"NoCloudOffload very long scenario name", "MidMig very long scenario name",
              "Original very long scenario name"};
  svg = render_svg(b, "bars2");
  ASSERT_TRUE(check_xml(svg).ok);
  EXPECT_EQ(count_of(svg, "rotate(-30"), 3);
}

TEST(Charts, ParameterSweepWithErrorBars) {
  LineChart c;
  c.title = "Edge ratio vs demand";
  c.x = Axis{"demand mean"};
  c.y = Axis{"edge ratio", Format::kPercent};
  c.style = LineStyle::kLinePoints;
  Series s{"KubeDSM", {1.1, 1.2, 1.3}, {0.9, 0.85, 0.8}, {0.88, 0.8, 0.7}, {0.92, 0.9, 0.9}};
  c.series.push_back(s);
  const std::string svg = render_svg(c, "sweep");
  const auto xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  EXPECT_EQ(xml.elements.at("circle"), 3 + 1);  // points + legend marker
  EXPECT_NE(svg.find("KubeDSM \u2014 demand mean: 1.2, edge ratio: 85% (80% \u2013 90%)"),
            std::string::npos);
}

TEST(Charts, LogYAxisAndPointsStyle) {
  LineChart c;
  c.title = "events per run";
  c.x = Axis{"workers"};
  c.y = Axis{"events", Format::kNumber, true};
  c.style = LineStyle::kPoints;
  c.series.push_back({"sim", {1, 2, 3, 4, 5, 6}, {0, 1, 10, 100, 1000, 10000}, {}, {}});
  const std::string svg = render_svg(c, "logy");
  const auto xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  for (const char* label :
       {">1</text>", ">10</text>", ">100</text>", ">1000</text>", ">10k</text>"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_EQ(count_of(svg, "class=\"line\""), 0);  // points only
  EXPECT_EQ(xml.elements.at("circle"), 6 + 1);
  EXPECT_NE(svg.find("1 value \u2264 0 drawn at the log axis minimum"), std::string::npos);
}

TEST(Charts, LongSeriesOnALogAxisAreDecimatedPerPixelColumn) {
  LineChart c;
  c.x = Axis{"x", Format::kNumber, true};
  Series s{"long", {}, {}, {}, {}};
  for (int i = 1; i <= 200000; ++i) {
    s.x.push_back(i);
    s.y.push_back(i % 2);
  }
  s.y[4] = 7;  // a spike in the first decades, which share few pixels with linear buckets
  c.series.push_back(s);
  const std::string svg = render_svg(c, "dec");
  ASSERT_TRUE(check_xml(svg).ok);
  EXPECT_LT(svg.size(), 60000u);
  const size_t d = svg.find("class=\"line\" d=\"");
  const std::string path = svg.substr(d, svg.find('"', d + 17) - d);
  EXPECT_LE(count_of(path, "L"), 4 * 700);
  // The spike survives: the drawn y coordinates take three values (for 0, 1 and 7).
  std::set<std::string> ys;
  std::vector<double> xs;
  for (size_t p = 0; (p = path.find_first_of("ML", p)) != std::string::npos; ++p) {
    const size_t space = path.find(' ', p);
    const size_t end = path.find_first_of("ML\"", space);
    xs.push_back(std::stod(path.substr(p + 1, space - p - 1)));
    ys.insert(path.substr(space + 1, end - space - 1));
  }
  EXPECT_EQ(ys.size(), 3u);
  // The first 35% of the log axis (x < ~70) keeps its points: buckets are pixel columns, not
  // linear slices of x (the first of which would hold x = 1..296).
  const double lo = *std::min_element(xs.begin(), xs.end());
  const double hi = *std::max_element(xs.begin(), xs.end());
  EXPECT_GE(
      std::count_if(xs.begin(), xs.end(), [&](double x) { return x < lo + 0.35 * (hi - lo); }), 50);
}

TEST(Charts, EmptyChartsSayNoData) {
  LineChart c;
  c.title = "nothing";
  std::string svg = render_svg(c, "e");
  EXPECT_TRUE(check_xml(svg).ok);
  EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
  CdfChart d;
  d.series.push_back({"empty", {}});
  svg = render_svg(d, "e2");
  EXPECT_TRUE(check_xml(svg).ok);
  EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
  BarChart b;
  svg = render_svg(b, "e3");
  EXPECT_TRUE(check_xml(svg).ok);
}

TEST(Charts, NanBreaksALine) {
  LineChart c;
  c.series.push_back({"gappy", {0, 1, 2, 3, 4}, {1, 2, std::nan(""), 3, 4}, {}, {}});
  const std::string svg = render_svg(c, "g");
  const size_t d = svg.find("class=\"line\" d=\"");
  ASSERT_NE(d, std::string::npos);
  const std::string path = svg.substr(d, svg.find('"', d + 17) - d);
  EXPECT_EQ(count_of(path, "M"), 2);
  EXPECT_EQ(count_of(path, "L"), 2);
}

TEST(Charts, MeanSpread) {
  const ErrorBar sd = mean_spread({1, 2, 3, std::nan("")});
  EXPECT_DOUBLE_EQ(sd.mean, 2);
  EXPECT_DOUBLE_EQ(sd.lo, 1);
  EXPECT_DOUBLE_EQ(sd.hi, 3);
  const ErrorBar mm = mean_spread({4, 1, 7}, Spread::kMinMax);
  EXPECT_DOUBLE_EQ(mm.mean, 4);
  EXPECT_DOUBLE_EQ(mm.lo, 1);
  EXPECT_DOUBLE_EQ(mm.hi, 7);
  const ErrorBar one = mean_spread({5});
  EXPECT_DOUBLE_EQ(one.lo, 5);
  EXPECT_DOUBLE_EQ(one.hi, 5);
  EXPECT_TRUE(std::isnan(mean_spread({}).mean));
}

}  // namespace
}  // namespace orrery::report
