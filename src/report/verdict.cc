#include <algorithm>
#include <cmath>
#include <set>

#include "report/metrics.h"
#include "report/run_sections.h"

namespace orrery::report {
namespace {

// "−35%" / "+3" / "+2.1 pp" / "±0": the difference of v against the baseline value b.
std::string difference(const KeyMetric& m, double v, double b) {
  if (!std::isfinite(v) || !std::isfinite(b)) return "";
  const double d = v - b;
  if (d == 0) return "\u00b10";
  const std::string sign = d > 0 ? "+" : "\u2212";
  if (m.count) return sign + format_value(std::fabs(d));
  if (m.format == Format::kPercent) return sign + format_number(std::fabs(d) * 100, 3) + " pp";
  if (b == 0) return sign + format_value(std::fabs(d), m.format);
  return sign + format_number(std::fabs(d / b) * 100, 2) + "%";
}

// The runs holding the best (or worst) value of a ranked metric; ties share it.
std::vector<size_t> extreme(const std::vector<double>& v, int direction) {
  std::vector<size_t> out;
  double best = std::nan("");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) continue;
    if (out.empty() || (direction < 0 ? v[i] < best : v[i] > best)) {
      best = v[i];
      out = {i};
    } else if (v[i] == best) {
      out.push_back(i);
    }
  }
  return out;
}

std::string names(const std::vector<RunData>& runs, const std::vector<size_t>& idx) {
  std::string s;
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i == 0 ? "" : i + 1 == idx.size() ? " and " : ", ") + runs[idx[i]].label;
  return s;
}

// One line reading a metric: who is best and by how much against the baseline, who is worst,
// and what a reader must not overlook (a best delay that left work undone).
std::string reading(const KeyMetric& m, const std::vector<RunData>& runs,
                    const std::vector<double>& v, size_t baseline,
                    const std::vector<double>& unfinished) {
  const std::vector<size_t> low = extreme(v, -1), high = extreme(v, +1);
  if (low.empty()) return "no run has it";
  if (v[low[0]] == v[high[0]])
    return "the same in every run (" + format_value(v[low[0]], m.format) + ")";
  const std::vector<size_t>& best = m.better < 0 ? low : high;
  const std::vector<size_t>& worst = m.better < 0 ? high : low;
  if (m.better == 0) {
    return "from " + format_value(v[low[0]], m.format) + " (" + names(runs, low) + ") to " +
           format_value(v[high[0]], m.format) + " (" + names(runs, high) +
           "); not ranked: " + m.meaning;
  }
  std::string s = "best: " + names(runs, best) + " (" + format_value(v[best[0]], m.format);
  const bool baseline_best = std::find(best.begin(), best.end(), baseline) != best.end();
  if (!baseline_best && std::isfinite(v[baseline]))
    s += ", " + difference(m, v[best[0]], v[baseline]) + " vs " + runs[baseline].label;
  s += "); worst: " + names(runs, worst) + " (" + format_value(v[worst[0]], m.format) + ")";
  // A delay percentile over finished work favours runs that left work undone.
  if (m.key.starts_with("jobs.delay") || m.key.starts_with("pods.pending")) {
    double least = std::nan("");
    for (double u : unfinished)
      if (std::isfinite(u) && !(u >= least)) least = u;
    for (size_t b : best) {
      if (std::isfinite(unfinished[b]) && unfinished[b] > least) {
        s += "; but " + runs[b].label + " left " + format_value(unfinished[b]) +
             (m.key.starts_with("jobs") ? " jobs unfinished" : " pods unbound") +
             ", which this percentile leaves out";
        break;
      }
    }
  }
  return s;
}

}  // namespace

void verdict_section(Document& doc, const std::vector<RunData>& runs, size_t baseline) {
  bool any = false;
  for (const RunData& r : runs) any = any || r.summary.is_object();
  if (!any) return;
  doc.section("Verdict");
  doc.paragraph(
      "Key metrics, one column per run. The best value of each ranked metric is marked; "
      "the line under a value is its difference against the baseline, " +
      runs[baseline].label +
      " (orrery report --baseline). Delay and pending percentiles cover finished "
      "jobs and bound pods only, so read them with the unfinished and never-bound "
      "rows.");
  Table t;
  t.columns.push_back("metric");
  for (const RunData& r : runs)
    t.columns.push_back(r.label + (&r == &runs[baseline] ? " (baseline)" : ""));
  t.columns.push_back("reading");
  t.row_headers = true;
  const std::vector<KeyMetric>& metrics = key_metrics();
  auto values_of = [&](const std::string& key) {
    std::vector<double> v;
    for (const KeyMetric& m : metrics)
      if (m.key == key)
        for (const RunData& r : runs) v.push_back(metric_value(r.summary, m));
    return v;
  };
  const std::vector<double> jobs_unfinished = values_of("jobs.unfinished");
  const std::vector<double> pods_unbound = values_of("pods.never_bound");
  for (const KeyMetric& m : metrics) {
    std::vector<double> v;
    for (const RunData& r : runs) v.push_back(metric_value(r.summary, m));
    // A row when some run has the metric, even as null (shown as a dash: nothing finished).
    if (std::none_of(runs.begin(), runs.end(),
                     [&](const RunData& r) { return has_metric(r.summary, m); }))
      continue;
    const std::vector<size_t> best = m.better == 0 ? std::vector<size_t>{} : extreme(v, m.better);
    const std::vector<size_t> low = extreme(v, -1), high = extreme(v, +1);
    const bool all_equal = low.empty() || v[low.front()] == v[high.front()];
    std::string label = m.label;
    if (m.better != 0) label += m.better < 0 ? " \u2193" : " \u2191";
    std::vector<Cell> row{Cell(label)};
    row.front().tooltip = m.meaning + (m.better < 0   ? " (lower is better)"
                                       : m.better > 0 ? " (higher is better)"
                                                      : "");
    for (size_t i = 0; i < runs.size(); ++i) {
      Cell c(v[i], m.format);
      c.best = !all_equal && std::find(best.begin(), best.end(), i) != best.end();
      if (i != baseline) c.note = difference(m, v[i], v[baseline]);
      row.push_back(std::move(c));
    }
    row.push_back(Cell(
        reading(m, runs, v, baseline, m.key.starts_with("jobs") ? jobs_unfinished : pods_unbound)));
    t.add_row(std::move(row));
  }
  doc.table(t);
  doc.paragraph(
      "\u2193 lower is better, \u2191 higher is better; unmarked metrics are not ranked. "
      "Differences of durations are relative, of fractions in percentage points (pp), of "
      "counts absolute. A dash is a statistic of an empty set (nothing finished).");
}

void setup_section(Document& doc, const std::vector<RunData>& runs) {
  bool any = false;
  for (const RunData& r : runs) any = any || r.setup.is_object();
  if (!any) return;
  doc.section("Setup");
  std::set<std::string> scenarios_seen;
  for (const RunData& r : runs) {
    if (!r.setup.is_object()) continue;
    const std::string scenario = r.setup.value("scenario", std::string());
    if (!scenarios_seen.insert(scenario).second) continue;
    doc.heading("Scenario " + scenario);
    const std::string description = r.setup.value("description", std::string());
    if (!description.empty()) doc.paragraph(description);
    if (r.setup.contains("nodes") && r.setup["nodes"].is_array() && !r.setup["nodes"].empty()) {
      Table nodes;
      nodes.caption = "Nodes at the start, by tier and size";
      nodes.columns = {"tier", "size", "count"};
      for (const auto& n : r.setup["nodes"])
        nodes.add_row({n.value("tier", std::string()), n.value("size", std::string()),
                       Cell(n.value("count", 0.0))});
      doc.table(nodes);
    }
    if (r.setup.contains("workloads") && r.setup["workloads"].is_array()) {
      Table w;
      w.caption = "Workloads";
      w.columns = {"workload"};
      for (const auto& line : r.setup["workloads"])
        if (line.is_string()) w.add_row({line.get<std::string>()});
      if (!w.rows.empty()) doc.table(w);
    }
  }
  // Every policy once, with what it does.
  Table p;
  p.caption = "Policies";
  p.columns = {"policy", "what it does"};
  p.row_headers = true;
  std::set<std::string> policies_seen;
  for (const RunData& r : runs) {
    if (!r.setup.is_object() || !r.setup.contains("policies")) continue;
    for (const auto& pol : r.setup["policies"]) {
      const std::string name = pol.value("name", std::string());
      if (!policies_seen.insert(name).second) continue;
      p.add_row({name, pol.value("description", std::string())});
    }
  }
  if (!p.rows.empty()) doc.table(p);
}

}  // namespace orrery::report
