// Chart descriptions and their rendering to self-contained inline SVG (presentation attributes
// only, no scripts, no external fonts). Every chart has a title, axes with nice ticks and units,
// a legend, a colour-blind-safe palette (Okabe-Ito; dash patterns once colours repeat) and hover
// tooltips (SVG <title>). Rendering is deterministic: the same chart gives the same bytes.
//
// Most callers add charts to a report::Document (document.h) rather than rendering directly.
#pragma once

#include <string>
#include <vector>

#include "report/axis.h"

namespace orrery::report {

// x/y data of one named series. y_lo/y_hi are optional error-bar bounds (absolute values, not
// offsets): empty, or one per y. NaN y values leave a gap.
struct Series {
  std::string name;
  std::vector<double> x, y;
  std::vector<double> y_lo, y_hi;
};

enum class LineStyle {
  kLine,        // straight segments (decimated to the pixel columns for long series)
  kStep,        // sampled gauges: each value holds until the next sample
  kPoints,      // markers only (with error bars if given)
  kLinePoints,  // markers joined by lines: a metric over a parameter, e.g. edge ratio vs demand
};

// Time series and metric-vs-parameter plots.
struct LineChart {
  std::string title;
  Axis x, y;
  LineStyle style = LineStyle::kLine;
  std::vector<Series> series;
  // Size in pixels (small multiples use smaller ones) and whether to draw the legend (a panel
  // of one series says what it shows in its title). `color` overrides the palette for every
  // series (a panel keeps the colour its run has elsewhere in the report).
  double width = 720, height = 400;
  bool legend = true;
  std::string color;
};

// A named sample whose empirical CDF is drawn. `censored` items belong to the sample but have no
// value (jobs unfinished, pods never bound when the run ended): the curve is the fraction of all
// items, so it stops below 1 at (values / (values + censored)), and the legend says how many
// were `censored_what` ("unfinished", "never bound").
struct Distribution {
  std::string name;
  std::vector<double> values;  // any order; NaN and infinities are ignored
  size_t censored = 0;
  std::string censored_what = "unfinished";
};

// Overlaid empirical CDFs, downsampled to a bounded size with exact tails (see cdf_points).
// Percentile markers (p50, p90, p99) carry tooltips with the exact numpy-style values; with
// censored items they are percentiles of all items (censored ones counted as larger than every
// value), and a percentile the curve never reaches has no marker.
struct CdfChart {
  std::string title;
  Axis x;  // the values' axis; set x.log for data spanning decades (non-positive values are
           // drawn at the axis minimum and counted in a footnote)
  std::string y_label = "cumulative fraction";
  std::vector<Distribution> series;
  size_t max_points = 512;  // per series, before tail points
};

// One bar per group of a BarChart; value/lo/hi have one entry per group (NaN: no bar).
// lo/hi are optional absolute error-bar bounds, e.g. from mean_spread().
struct BarSeries {
  std::string name;
  std::vector<double> value, lo, hi;
};

// Grouped bars: one group per category on x (e.g. scenario), one bar per series (e.g.
// scheduler) in each group. The y axis always includes zero.
struct BarChart {
  std::string title;
  std::string x_label;
  Axis y;
  std::vector<std::string> groups;
  std::vector<BarSeries> series;
  // One bar per group with the series stacked bottom to top (shares of a whole, e.g. instance
  // categories); error bars are not drawn.
  bool stacked = false;
};

// Mean and error-bar bounds of repeated measurements (e.g. one value per seed).
struct ErrorBar {
  double mean, lo, hi;
};
enum class Spread {
  kStdDev,  // mean ± sample standard deviation (n-1); zero width for one sample
  kMinMax,  // [min, max]
};
// NaN samples are ignored; all-NaN or empty gives NaNs.
ErrorBar mean_spread(const std::vector<double>& samples, Spread spread = Spread::kStdDev);

// Series colour and dash pattern for index i (colours cycle; dashes change each cycle).
const char* series_color(size_t i);
const char* series_dash(size_t i);  // "" for solid

// SVG markup for a chart; `id` must be unique in the page (it prefixes clip-path ids).
std::string render_svg(const LineChart& chart, const std::string& id);
std::string render_svg(const CdfChart& chart, const std::string& id);
std::string render_svg(const BarChart& chart, const std::string& id);

}  // namespace orrery::report
