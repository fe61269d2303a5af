// The run report's time-series sections: "Cluster over time" (timeseries.csv) and "Edge ratio"
// (edge_ratio.csv). Split from run_report.cc, which loads the runs and holds the other sections.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/charts.h"
#include "report/run_sections.h"

namespace orrery::report {
namespace {

using run_detail::describe;
using run_detail::finite;
using run_detail::format_for_key;
using run_detail::kNaN;
using run_detail::missing_note;

// A time-series column's title with its unit.
std::string series_title(const std::string& column) {
  static const std::map<std::string, std::string> kTitles = {
      {"cpu_util", "CPU used / capacity (%)"},
      {"mem_util", "memory used / capacity (%)"},
      {"slot_util", "pod slots used / allocatable (%)"},
      {"pending", "pending pods (count)"},
      {"running", "running pods (count)"},
      {"cpu_requested", "CPU requested / allocatable (%)"},
      {"mem_requested", "memory requested / allocatable (%)"},
      {"nodes", "nodes (count)"}};
  const auto it = kTitles.find(column);
  if (it != kTitles.end()) return it->second + " \u2014 " + column;
  switch (format_for_key(column)) {
    case Format::kPercent: return column + " (%)";
    case Format::kSeconds: return column + " (s)";
    default: return column;
  }
}

// The samples of a run a panel draws: all but an empty first sample at the run's start (taken
// before any pod existed, it would draw every series from 0 at t = 0).
size_t first_drawn_sample(const RunData& r) {
  const std::vector<double>* pending = nullptr;
  const std::vector<double>* running = nullptr;
  for (const auto& [n, v] : r.ts_columns) {
    if (n == "pending") pending = &v;
    if (n == "running") running = &v;
  }
  if (!pending || !running || r.ts_time_s.size() < 2) return 0;
  return (*pending)[0] == 0 && (*running)[0] == 0 ? 1 : 0;
}

// One time series (`name`, in `format`) as a heading and a small step chart per run that has it
// (`present`: run index, column), on shared axes: time 0 to t_end, values 0 to hi with headroom.
void timeseries_panels(Document& doc, const std::vector<RunData>& runs, const std::string& name,
                       Format format,
                       const std::vector<std::pair<size_t, const std::vector<double>*>>& present,
                       double hi, double t_end) {
  doc.heading(series_title(name));
  Axis y{"", format};
  y.include_zero = true;
  y.min = 0;
  // Headroom, so a series at its maximum is not drawn on the frame.
  if (std::isfinite(hi) && hi > 0) y.max = hi * 1.08;
  Axis x{"time", Format::kSeconds};
  x.tight = true;
  x.min = 0;
  x.max = t_end > 0 ? t_end : kNaN;
  for (const auto& [ri, values] : present) {
    const RunData& r = runs[ri];
    const size_t first = first_drawn_sample(r);
    LineChart c;
    c.title = r.label;
    c.style = LineStyle::kStep;
    c.x = x;
    c.y = y;
    c.width = 280;
    c.height = 210;
    c.legend = false;
    c.color = series_color(ri);
    Series sr{r.label, {}, {}, {}, {}};
    sr.x.assign(r.ts_time_s.begin() + static_cast<std::ptrdiff_t>(first), r.ts_time_s.end());
    sr.y.assign(values->begin() + static_cast<std::ptrdiff_t>(first), values->end());
    c.series.push_back(std::move(sr));
    doc.chart(c);
  }
}

}  // namespace

void timeseries_section(Document& doc, const std::vector<RunData>& runs) {
  std::vector<std::string> names;
  for (const RunData& r : runs)
    for (const auto& [name, values] : r.ts_columns)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  if (names.empty()) return;
  doc.section("Cluster over time");
  doc.paragraph(
      "Sampled time series, one small panel per run with shared axes (each sample holds until "
      "the next one). An empty first sample, taken at t = 0 before any pod existed, is not "
      "drawn. Means in the table are time-weighted over every sample, as summary.json's.");
  missing_note(doc, runs, "timeseries.csv");
  Table t;
  t.columns = {"series"};
  for (const RunData& r : runs)
    if (!r.ts_columns.empty()) t.columns.push_back(r.label);
  t.row_headers = true;
  double t_end = 0;
  for (const RunData& r : runs)
    for (double x : r.ts_time_s)
      if (std::isfinite(x)) t_end = std::max(t_end, x);
  std::vector<std::string> constant;
  for (const std::string& name : names) {
    const Format format = format_for_key(name);
    std::vector<Cell> mean_row{name + " (mean)"}, max_row{name + " (max)"};
    // Each run's column, and the range over all runs (panels share their y axis).
    std::vector<std::pair<size_t, const std::vector<double>*>> present;
    double lo = kNaN, hi = kNaN;
    for (size_t ri = 0; ri < runs.size(); ++ri) {
      const RunData& r = runs[ri];
      if (r.ts_columns.empty()) continue;
      const std::vector<double>* values = nullptr;
      for (const auto& [n, v] : r.ts_columns)
        if (n == name) values = &v;
      if (!values) {
        mean_row.push_back("");
        max_row.push_back("");
        continue;
      }
      present.emplace_back(ri, values);
      for (size_t i = first_drawn_sample(r); i < values->size(); ++i) {
        const double x = (*values)[i];
        if (!std::isfinite(x)) continue;
        if (!(x >= lo)) lo = x;
        if (!(x <= hi)) hi = x;
      }
      mean_row.push_back(Cell(time_weighted_mean(r.ts_time_s, *values), format));
      max_row.push_back(Cell(describe(*values).max, format));
    }
    t.add_row(std::move(mean_row));
    t.add_row(std::move(max_row));
    if (present.empty()) continue;
    if (lo == hi) {  // a flat line says nothing a sentence does not
      constant.push_back(name + " = " + format_value(lo, format));
      continue;
    }
    timeseries_panels(doc, runs, name, format, present, hi, t_end);
  }
  if (!constant.empty()) {
    std::string text;
    for (const std::string& c : constant) text += (text.empty() ? "" : "; ") + c;
    doc.paragraph("Constant in every run (not drawn): " + text + ".");
  }
  doc.table(t);
}

namespace {

// Mean of the deployments' latest ratios at each sample time (deployments join when they first
// report).
Series mean_edge_ratio(const RunData& r) {
  std::vector<double> times;
  for (const auto& e : r.edge) times.insert(times.end(), e.time_s.begin(), e.time_s.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  Series s{r.label, {}, {}, {}, {}};
  std::vector<size_t> next(r.edge.size(), 0);
  std::vector<double> current(r.edge.size(), kNaN);
  for (double t : times) {
    double sum = 0;
    size_t n = 0;
    for (size_t d = 0; d < r.edge.size(); ++d) {
      const auto& e = r.edge[d];
      while (next[d] < e.time_s.size() && e.time_s[next[d]] <= t) current[d] = e.ratio[next[d]++];
      if (std::isfinite(current[d])) {
        sum += current[d];
        ++n;
      }
    }
    s.x.push_back(t);
    s.y.push_back(n ? sum / static_cast<double>(n) : kNaN);
  }
  return s;
}

// The edge table's last rows: per run the mean of its deployments' averages and their population
// sd (numpy.std), in the runs' order of `averages` ([run][deployment]).
void add_spread_rows(Table& t, const std::vector<std::vector<double>>& averages) {
  std::vector<Cell> mean_row{"mean over deployments"}, sd_row{"sd across deployments"};
  for (const auto& avg : averages) {
    const std::vector<double> v = finite(avg);
    double mean = kNaN, sd = kNaN;
    if (!v.empty()) {
      mean = 0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      double ss = 0;
      for (double x : v) ss += (x - mean) * (x - mean);
      sd = std::sqrt(ss / static_cast<double>(v.size()));
    }
    mean_row.push_back(Cell(mean, Format::kPercent));
    sd_row.push_back(Cell(sd, Format::kPercent));
  }
  t.add_row(std::move(mean_row));
  t.add_row(std::move(sd_row));
}

// The edge ratio over time: the runs' means over deployments (when with_edge, the runs that have
// an edge_ratio.csv, is above one), then one chart of each run's deployments.
void edge_charts(Document& doc, const std::vector<RunData>& runs, size_t with_edge) {
  Axis ratio{"edge ratio", Format::kPercent};
  ratio.min = 0;
  ratio.max = 1;
  Axis time{"time", Format::kSeconds};
  time.tight = true;
  if (with_edge > 1) {
    LineChart c;
    c.title = "Mean edge ratio over deployments";
    c.x = time;
    c.y = ratio;
    c.style = LineStyle::kStep;
    for (const RunData& r : runs)
      if (!r.edge.empty()) c.series.push_back(mean_edge_ratio(r));
    doc.chart(c);
  }
  for (const RunData& r : runs) {
    if (r.edge.empty()) continue;
    LineChart c;
    c.title = with_edge > 1 ? "Edge ratio per deployment: " + r.label : "Edge ratio per deployment";
    c.x = time;
    c.y = ratio;
    c.style = LineStyle::kStep;
    for (const auto& e : r.edge) c.series.push_back({e.deployment, e.time_s, e.ratio, {}, {}});
    doc.chart(c);
  }
}

}  // namespace

void edge_section(Document& doc, const std::vector<RunData>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunData& r) { return !r.edge.empty(); }))
    return;
  doc.section("Edge ratio");
  doc.paragraph(
      "Edge ratio = share of a deployment's pods running on edge nodes. The table "
      "gives each deployment's time-weighted average, their mean, and their "
      "standard deviation across deployments (population sd, as numpy.std), the "
      "KubeDSM paper's fairness measure (Figs 8-9).");
  missing_note(doc, runs, "edge_ratio.csv");
  std::vector<std::string> deployments;
  for (const RunData& r : runs)
    for (const auto& e : r.edge)
      if (std::find(deployments.begin(), deployments.end(), e.deployment) == deployments.end())
        deployments.push_back(e.deployment);
  Table t;
  t.columns = {"deployment"};
  t.row_headers = true;
  std::vector<std::vector<double>> averages;  // [run][deployment]
  for (const RunData& r : runs) {
    if (r.edge.empty()) continue;
    t.columns.push_back(r.label);
    std::vector<double> avg(deployments.size(), kNaN);
    for (const auto& e : r.edge) {
      const size_t d = static_cast<size_t>(
          std::find(deployments.begin(), deployments.end(), e.deployment) - deployments.begin());
      avg[d] = time_weighted_mean(e.time_s, e.ratio);
    }
    averages.push_back(std::move(avg));
  }
  for (size_t d = 0; d < deployments.size(); ++d) {
    std::vector<Cell> row{deployments[d]};
    for (const auto& avg : averages) row.push_back(Cell(avg[d], Format::kPercent));
    t.add_row(std::move(row));
  }
  add_spread_rows(t, averages);
  doc.table(t);

  edge_charts(doc, runs, averages.size());
}

}  // namespace orrery::report
