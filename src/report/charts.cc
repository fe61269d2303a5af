#include "report/charts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/format.h"
#include "report/frame.h"
#include "report/sampling.h"

namespace orrery::report {
namespace {

using detail::FrameSpec;
using detail::Layout;
using detail::LegendEntry;
using detail::Svg;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Okabe & Ito's colour-blind-safe palette; the pale yellow comes last.
const char* const kColors[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                               "#56B4E9", "#CC79A7", "#000000", "#F0E442"};
const char* const kDashes[] = {"", "7 3", "2 2", "9 3 2 3"};
constexpr size_t kNumColors = sizeof kColors / sizeof kColors[0];
constexpr size_t kNumDashes = sizeof kDashes / sizeof kDashes[0];

std::string c(double v) {
  return format_coord(v, 1);
}

// Running [lo, hi] of finite values (positive ones only for log axes).
struct Range {
  double lo = kNaN, hi = kNaN;
  size_t nonpositive = 0;
  void add(double v, bool log) {
    if (!std::isfinite(v)) return;
    if (log && v <= 0) {
      ++nonpositive;
      return;
    }
    if (!(v >= lo)) lo = v;
    if (!(v <= hi)) hi = v;
  }
};

FrameSpec frame_spec(const std::string& id, const std::string& title, const std::string& x_label,
                     const std::string& y_label, const std::string& footnote) {
  FrameSpec spec;
  spec.id = id;
  spec.title = title;
  spec.x_label = x_label;
  spec.y_label = y_label;
  spec.footnote = footnote;
  return spec;
}

std::vector<std::string> labels_of(const Scale& s) {
  std::vector<std::string> out;
  for (const Tick& t : s.ticks())
    if (!t.label.empty()) out.push_back(t.label);
  return out;
}

std::string clamp_footnote(size_t n) {
  if (n == 0) return "";
  return "* " + format_value(static_cast<double>(n)) + (n == 1 ? " value" : " values") +
         " \u2264 0 drawn at the log axis minimum";
}

std::string with_error(double v, double lo, double hi, Format f) {
  std::string s = format_value(v, f);
  if (std::isfinite(lo) && std::isfinite(hi))
    s += " (" + format_value(lo, f) + " \u2013 " + format_value(hi, f) + ")";
  return s;
}

double at(const std::vector<double>& v, size_t i) {
  return i < v.size() ? v[i] : kNaN;
}

void error_bar(Svg& svg, double px, double y_lo, double y_hi, const char* color, double cap) {
  svg.line(px, y_lo, px, y_hi, color, 1.5);
  svg.line(px - cap, y_lo, px + cap, y_lo, color, 1.5);
  svg.line(px - cap, y_hi, px + cap, y_hi, color, 1.5);
}

std::string series_summary(const Series& s, const Axis& y) {
  double lo = kNaN, hi = kNaN, sum = 0;
  size_t n = 0;
  for (double v : s.y) {
    if (!std::isfinite(v)) continue;
    if (!(v >= lo)) lo = v;
    if (!(v <= hi)) hi = v;
    sum += v;
    ++n;
  }
  if (n == 0) return s.name + ": no data";
  return s.name + ": " + format_value(static_cast<double>(n)) + " points, min " +
         format_value(lo, y.format) + ", mean " +
         format_value(sum / static_cast<double>(n), y.format) + ", max " +
         format_value(hi, y.format);
}

// The x and y ranges of a line chart's finite points and their error bars.
void line_ranges(const LineChart& chart, Range* xr, Range* yr) {
  for (const Series& s : chart.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) continue;
      xr->add(s.x[i], chart.x.log);
      yr->add(s.y[i], chart.y.log);
      yr->add(at(s.y_lo, i), chart.y.log);
      yr->add(at(s.y_hi, i), chart.y.log);
    }
  }
}

// Series `si`'s line, decimated per pixel column and broken at NaNs; false when it is empty.
bool draw_series_line(Svg& svg, const LineChart& chart, size_t si, const char* color,
                      const Scale& xs, const Scale& ys, const Layout& lay) {
  const Series& s = chart.series[si];
  const size_t n = std::min(s.x.size(), s.y.size());
  // Decimate in pixel space so buckets are screen columns on log axes too.
  std::vector<double> px_x(n);
  for (size_t i = 0; i < n; ++i) px_x[i] = std::isfinite(s.x[i]) ? xs(s.x[i]) : s.x[i];
  const std::vector<size_t> idx =
      decimate(px_x, s.y, static_cast<size_t>(std::max(1.0, lay.right - lay.left)));
  // A NaN between two kept points breaks the line.
  std::vector<uint32_t> nan_before(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    nan_before[i + 1] = nan_before[i] + (std::isfinite(s.y[i]) && std::isfinite(s.x[i]) ? 0 : 1);
  std::string d;
  size_t prev = 0;
  bool open = false;
  for (size_t i : idx) {
    const double px = xs(s.x[i]), py = ys(s.y[i]);
    if (!open || nan_before[i] != nan_before[prev]) {
      d += "M" + c(px) + " " + c(py);
    } else if (chart.style == LineStyle::kStep) {
      d += "H" + c(px) + "V" + c(py);
    } else {
      d += "L" + c(px) + " " + c(py);
    }
    open = true;
    prev = i;
  }
  if (d.empty()) return false;
  svg.path(d, color, 2, series_dash(si), "");
  return true;
}

// A series' markers with error bars and tooltips; false when it has no finite point.
bool draw_series_markers(Svg& svg, const LineChart& chart, const Series& s, const char* color,
                         const Scale& xs, const Scale& ys) {
  bool any = false;
  const size_t n = std::min(s.x.size(), s.y.size());
  const double cap = 4;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) continue;
    any = true;
    const double lo = at(s.y_lo, i), hi = at(s.y_hi, i);
    const double px = xs(s.x[i]);
    if (std::isfinite(lo) && std::isfinite(hi)) error_bar(svg, px, ys(lo), ys(hi), color, cap);
    svg.circle(px, ys(s.y[i]), 3.5, color,
               s.name + " \u2014 " + (chart.x.label.empty() ? "x" : chart.x.label) + ": " +
                   format_value(s.x[i], chart.x.format) + ", " +
                   (chart.y.label.empty() ? "y" : chart.y.label) + ": " +
                   with_error(s.y[i], lo, hi, chart.y.format));
  }
  return any;
}

// One series of a CdfChart ready to draw: its kept points and its exact percentiles.
struct CdfPrepared {
  std::vector<CdfPoint> points;
  size_t n = 0, censored = 0;
  double scale = 1;  // fraction of all items that have a value
  double p50 = kNaN, p90 = kNaN, p99 = kNaN, max = kNaN;
};

// Percentile q (0..1) of all n + censored items, the censored ones above every value: NaN
// when it falls among the censored items.
double censored_percentile(const std::vector<double>& sorted, size_t censored, double q) {
  if (sorted.empty()) return kNaN;
  const double total = static_cast<double>(sorted.size() + censored);
  const double within = q * total / static_cast<double>(sorted.size());
  if (censored == 0) return percentile_sorted(sorted, 100 * q);
  return within <= 1 ? percentile_sorted(sorted, 100 * within) : kNaN;
}

// A CDF series' finite values sorted, downsampled and summarised; widens `xr` by its extremes.
CdfPrepared prepare_cdf(const Distribution& d, const CdfChart& chart, Range* xr) {
  std::vector<double> sorted;
  sorted.reserve(d.values.size());
  for (double v : d.values)
    if (std::isfinite(v)) sorted.push_back(v);
  // Callers often pass sorted samples (e.g. one sample in several charts): skip the sort.
  if (!std::is_sorted(sorted.begin(), sorted.end())) std::sort(sorted.begin(), sorted.end());
  CdfPrepared p;
  p.n = sorted.size();
  p.censored = d.censored;
  if (p.n + p.censored > 0)
    p.scale = static_cast<double>(p.n) / static_cast<double>(p.n + p.censored);
  if (!sorted.empty()) {
    p.p50 = censored_percentile(sorted, p.censored, 0.5);
    p.p90 = censored_percentile(sorted, p.censored, 0.9);
    p.p99 = censored_percentile(sorted, p.censored, 0.99);
    p.max = sorted.back();
    // Only the extremes matter for the range; a log axis starts at the smallest positive one.
    if (chart.x.log) {
      const auto first_pos = std::upper_bound(sorted.begin(), sorted.end(), 0.0);
      xr->nonpositive += static_cast<size_t>(first_pos - sorted.begin());
      if (first_pos != sorted.end()) xr->add(*first_pos, true);
    } else {
      xr->add(sorted.front(), false);
    }
    if (sorted.back() > 0 || !chart.x.log) xr->add(sorted.back(), chart.x.log);
  }
  p.points = cdf_points(sorted, chart.max_points, chart.x.log);
  return p;
}

// "kube-binpack (4 unfinished)": the legend carries what the curve leaves out.
std::string cdf_legend_name(const Distribution& d) {
  if (d.censored == 0) return d.name;
  return d.name + " (" + format_value(static_cast<double>(d.censored)) + " " + d.censored_what +
         ")";
}

// A percentile in a CDF summary; "not reached" when it falls among the censored items.
std::string percentile_text(double v, Format f) {
  return std::isfinite(v) ? format_value(v, f) : std::string("not reached");
}

// The summary (legend tooltip, series title) of series i: n, censored items, percentiles, max.
std::string cdf_summary(const CdfChart& chart, const CdfPrepared& p, size_t i) {
  const Format f = chart.x.format;
  std::string censored;
  if (p.censored > 0)
    censored = ", " + format_value(static_cast<double>(p.censored)) + " " +
               chart.series[i].censored_what + " (the curve stops at " +
               format_value(p.scale, Format::kPercent) + ")";
  if (p.n == 0) return chart.series[i].name + ": no data" + censored;
  return chart.series[i].name + ": n = " + format_value(static_cast<double>(p.n)) + censored +
         ", p50 = " + percentile_text(p.p50, f) + ", p90 = " + percentile_text(p.p90, f) +
         ", p99 = " + percentile_text(p.p99, f) + ", max = " + format_value(p.max, f);
}

// Series si's group: its step curve and its p50/p90/p99 markers (p.points is not empty).
void draw_cdf_series(Svg& svg, const CdfChart& chart, const CdfPrepared& p, size_t si,
                     const Scale& xs, const Scale& ys, const Layout& lay) {
  const char* color = series_color(si);
  svg.open_group("series", cdf_summary(chart, p, si));
  // Step-after: the fraction jumps to f at each kept value and holds until the next one.
  // Fractions are of all items, censored ones included, so the curve ends below 1.
  std::string d = "M" + c(xs(p.points[0].x)) + " " + c(ys(0));
  for (const CdfPoint& pt : p.points) d += "H" + c(xs(pt.x)) + "V" + c(ys(pt.f * p.scale));
  d += "H" + c(lay.right);
  svg.path(d, color, 2, series_dash(si), "");
  const std::pair<const char*, double> marks[] = {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
  const double fractions[] = {0.5, 0.9, 0.99};
  for (size_t k = 0; k < 3; ++k) {
    if (!std::isfinite(marks[k].second)) continue;  // among the censored items
    svg.circle(xs(marks[k].second), ys(fractions[k]), 3, color,
               chart.series[si].name + ": " + marks[k].first + " = " +
                   format_value(marks[k].second, chart.x.format));
  }
  svg.close_group();
}

// A bar chart's y range: zero, every value and error bound, and the stacked totals.
Range bar_range(const BarChart& chart) {
  Range yr;
  yr.add(0, false);
  for (const BarSeries& s : chart.series) {
    for (size_t g = 0; g < chart.groups.size(); ++g) {
      yr.add(at(s.value, g), chart.y.log);
      yr.add(at(s.lo, g), chart.y.log);
      yr.add(at(s.hi, g), chart.y.log);
    }
  }
  if (chart.stacked) {
    for (size_t g = 0; g < chart.groups.size(); ++g) {
      double total = 0;
      for (const BarSeries& s : chart.series)
        if (std::isfinite(at(s.value, g))) total += at(s.value, g);
      yr.add(total, false);
    }
  }
  return yr;
}

// The category labels under a bar chart's groups (gw wide each), rotated when they do not fit.
void draw_categories(Svg& svg, const BarChart& chart, const Layout& lay, double gw, bool rotate) {
  svg.open_group("categories");
  for (size_t g = 0; g < chart.groups.size(); ++g) {
    const double cx = lay.left + (static_cast<double>(g) + 0.5) * gw;
    if (rotate) {
      svg.text(cx, lay.bottom + 14, chart.groups[g], "end", "fill=\"#444444\"", -30);
    } else {
      svg.text(cx, lay.bottom + 17, chart.groups[g], "middle", "fill=\"#444444\"");
    }
  }
  svg.close_group();
}

}  // namespace

const char* series_color(size_t i) {
  return kColors[i % kNumColors];
}
const char* series_dash(size_t i) {
  return kDashes[(i / kNumColors) % kNumDashes];
}

ErrorBar mean_spread(const std::vector<double>& samples, Spread spread) {
  double sum = 0, lo = kNaN, hi = kNaN;
  size_t n = 0;
  for (double v : samples) {
    if (std::isnan(v)) continue;
    sum += v;
    ++n;
    if (!(v >= lo)) lo = v;
    if (!(v <= hi)) hi = v;
  }
  if (n == 0) return {kNaN, kNaN, kNaN};
  const double mean = sum / static_cast<double>(n);
  if (spread == Spread::kMinMax) return {mean, lo, hi};
  double ss = 0;
  for (double v : samples)
    if (!std::isnan(v)) ss += (v - mean) * (v - mean);
  const double sd = n > 1 ? std::sqrt(ss / static_cast<double>(n - 1)) : 0;
  return {mean, mean - sd, mean + sd};
}

std::string render_svg(const LineChart& chart, const std::string& id) {
  Range xr, yr;
  line_ranges(chart, &xr, &yr);
  // Fewer ticks on small panels, so their labels do not run into each other.
  const bool small = chart.width < 400;
  Scale xs(chart.x, xr.lo, xr.hi, 0, 1, small ? 3 : 6);
  Scale ys(chart.y, yr.lo, yr.hi, 1, 0, small ? 4 : 5);
  const bool markers = chart.style == LineStyle::kPoints || chart.style == LineStyle::kLinePoints;
  const bool lines = chart.style != LineStyle::kPoints;

  FrameSpec spec = frame_spec(id, chart.title, chart.x.label, chart.y.label,
                              clamp_footnote(xr.nonpositive + yr.nonpositive));
  if (chart.legend) {
    for (size_t i = 0; i < chart.series.size(); ++i)
      spec.legend.push_back({markers ? LegendEntry::kMarker : LegendEntry::kLine,
                             chart.series[i].name, series_color(i), series_dash(i),
                             series_summary(chart.series[i], chart.y)});
  }
  spec.y_tick_labels = labels_of(ys);
  const Layout lay = detail::layout(spec, chart.width, chart.height);
  xs.set_pixels(lay.left, lay.right);
  ys.set_pixels(lay.bottom, lay.top);

  Svg svg;
  detail::begin(svg, spec, lay);
  detail::draw_axes(svg, &xs, ys, spec, lay);
  detail::begin_plot(svg, spec, lay);
  bool any = false;
  for (size_t si = 0; si < chart.series.size(); ++si) {
    const Series& s = chart.series[si];
    const char* color = chart.color.empty() ? series_color(si) : chart.color.c_str();
    svg.open_group("series", series_summary(s, chart.y));
    if (lines && draw_series_line(svg, chart, si, color, xs, ys, lay)) any = true;
    if (markers && draw_series_markers(svg, chart, s, color, xs, ys)) any = true;
    svg.close_group();
  }
  detail::end_plot(svg);
  detail::end(svg, spec, lay, !any);
  return svg.take();
}

std::string render_svg(const CdfChart& chart, const std::string& id) {
  std::vector<CdfPrepared> prepared;
  Range xr;
  for (const Distribution& d : chart.series) prepared.push_back(prepare_cdf(d, chart, &xr));
  Axis yaxis{chart.y_label, Format::kNumber, false, 0.0, 1.0};
  Scale xs(chart.x, xr.lo, xr.hi, 0, 1);
  Scale ys(yaxis, 0, 1, 1, 0, 5);

  size_t any_censored = 0;
  for (const CdfPrepared& p : prepared) any_censored += p.censored;
  std::string footnote = clamp_footnote(xr.nonpositive);
  if (any_censored > 0) {
    footnote += (footnote.empty() ? "" : "; ") +
                std::string("curves end below 1: items without a value (legend) rank above all");
  }
  FrameSpec spec = frame_spec(id, chart.title, chart.x.label, chart.y_label, footnote);
  for (size_t i = 0; i < chart.series.size(); ++i)
    spec.legend.push_back({LegendEntry::kLine, cdf_legend_name(chart.series[i]), series_color(i),
                           series_dash(i), cdf_summary(chart, prepared[i], i)});
  spec.y_tick_labels = labels_of(ys);
  const Layout lay = detail::layout(spec);
  xs.set_pixels(lay.left, lay.right);
  ys.set_pixels(lay.bottom, lay.top);

  Svg svg;
  detail::begin(svg, spec, lay);
  detail::draw_axes(svg, &xs, ys, spec, lay);
  detail::begin_plot(svg, spec, lay);
  bool any = false;
  for (size_t si = 0; si < prepared.size(); ++si) {
    if (prepared[si].points.empty()) continue;
    any = true;
    draw_cdf_series(svg, chart, prepared[si], si, xs, ys, lay);
  }
  detail::end_plot(svg);
  detail::end(svg, spec, lay, !any);
  return svg.take();
}

std::string render_svg(const BarChart& chart, const std::string& id) {
  const Range yr = bar_range(chart);
  Axis yaxis = chart.y;
  yaxis.include_zero = true;
  yaxis.log = false;  // bar lengths on a log axis mislead; not supported
  Scale ys(yaxis, yr.lo, yr.hi, 1, 0, 5);

  FrameSpec spec = frame_spec(id, chart.title, chart.x_label, chart.y.label, "");
  for (size_t i = 0; i < chart.series.size(); ++i)
    spec.legend.push_back(
        {LegendEntry::kBox, chart.series[i].name, series_color(i), "", chart.series[i].name});
  spec.y_tick_labels = labels_of(ys);
  // Category labels: horizontal when they fit, else rotated (which needs room below).
  Layout lay = detail::layout(spec);
  const size_t groups = std::max<size_t>(1, chart.groups.size());
  const double gw = (lay.right - lay.left) / static_cast<double>(groups);
  double max_label = 0;
  for (const std::string& g : chart.groups) max_label = std::max(max_label, detail::text_width(g));
  const bool rotate = max_label > gw - 6;
  if (rotate) {
    spec.extra_bottom = std::min(140.0, max_label * 0.5 + 4);
    lay = detail::layout(spec);
  }
  ys.set_pixels(lay.bottom, lay.top);

  Svg svg;
  detail::begin(svg, spec, lay);
  detail::draw_axes(svg, nullptr, ys, spec, lay);
  draw_categories(svg, chart, lay, gw, rotate);
  detail::begin_plot(svg, spec, lay);
  const double inner = gw * 0.8;
  const double bw =
      chart.stacked ? inner : inner / static_cast<double>(std::max<size_t>(1, chart.series.size()));
  std::vector<double> base(chart.groups.size(), 0.0);  // stacked: top of the bars so far
  bool any = false;
  for (size_t si = 0; si < chart.series.size(); ++si) {
    const BarSeries& s = chart.series[si];
    const char* color = series_color(si);
    svg.open_group("series", s.name);
    for (size_t g = 0; g < chart.groups.size(); ++g) {
      const double v = at(s.value, g);
      if (!std::isfinite(v)) continue;
      any = true;
      const double lo = at(s.lo, g), hi = at(s.hi, g);
      if (chart.stacked) {
        const double x0 = lay.left + static_cast<double>(g) * gw + (gw - inner) / 2;
        const double y0 = ys(base[g]), y1 = ys(base[g] + v);
        base[g] += v;
        svg.rect(
            x0 + bw * 0.05, std::min(y0, y1), bw * 0.9, std::fabs(y1 - y0), color,
            chart.groups[g] + " \u2014 " + s.name + ": " + with_error(v, NAN, NAN, chart.y.format));
        continue;
      }
      const double x0 =
          lay.left + static_cast<double>(g) * gw + (gw - inner) / 2 + static_cast<double>(si) * bw;
      const double y0 = ys(0), y1 = ys(v);
      svg.rect(
          x0 + bw * 0.05, std::min(y0, y1), bw * 0.9, std::fabs(y1 - y0), color,
          chart.groups[g] + " \u2014 " + s.name + ": " + with_error(v, lo, hi, chart.y.format));
      if (std::isfinite(lo) && std::isfinite(hi))
        error_bar(svg, x0 + bw / 2, ys(lo), ys(hi), "#222222", std::min(5.0, bw * 0.25));
    }
    svg.close_group();
  }
  detail::end_plot(svg);
  detail::end(svg, spec, lay, !any);
  return svg.take();
}

}  // namespace orrery::report
