// Internal to the run report (run_report.cc): the sections that read the runs as a whole — the
// verdict table and the setup generated from each run's setup.json (verdict.cc) — the time-series
// sections (timeseries.cc), and the helpers of run_report.cc these share.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "report/document.h"
#include "report/format.h"
#include "report/run_report.h"

namespace orrery::report {

// ---------------------------------------------------------------- helpers (run_report.cc)
namespace run_detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The finite values of v, in their order.
std::vector<double> finite(const std::vector<double>& v);

// A sample's count, mean and percentiles (numpy's linear interpolation); NaN when it is empty.
struct Dist {
  size_t n = 0;
  double mean = kNaN, p50 = kNaN, p90 = kNaN, p99 = kNaN, p999 = kNaN, max = kNaN;
};
// The finite values of `values`, described.
Dist describe(const std::vector<double>& values);

// Value format for a summary.json key or timeseries column: durations end in "_s"; utilisation,
// ratios, fractions and requested shares (the simulator's cpu_requested) are fractions. Words are
// matched whole ("migrations" is not a ratio), counts are numbers whatever their section.
Format format_for_key(const std::string& key);

// In a section that needs `file`: says which runs it leaves out for lack of it.
void missing_note(Document& doc, const std::vector<RunData>& runs, const std::string& file);

}  // namespace run_detail

// "Verdict": the key metrics (report/metrics.h) as rows and the runs as columns, the best value
// of each ranked metric marked, each value's difference against runs[baseline], and one line
// reading each metric. Nothing when no run has a summary.json.
void verdict_section(Document& doc, const std::vector<RunData>& runs, size_t baseline);

// "Setup": per distinct scenario its description, nodes by tier and size and workloads, and
// every policy with its one-line description. Nothing when no run has a setup.json.
void setup_section(Document& doc, const std::vector<RunData>& runs);

// "Plans": every plan in summary.json's scheduler.<part>.plan_history (the packer's), one row each
// with time, status and reason and its steps spelled out (plans.cc). Nothing when no run has one.
void plans_section(Document& doc, const std::vector<RunData>& runs);

// "Cluster over time": per timeseries.csv column a table row of each run's time-weighted mean and
// maximum, and one small panel per run (shared axes); constant columns in a sentence
// (timeseries.cc). Nothing when no run has a time series.
void timeseries_section(Document& doc, const std::vector<RunData>& runs);

// "Edge ratio": each deployment's time-weighted edge ratio per run with their mean and sd, the
// mean over deployments over time and each run's deployments over time (timeseries.cc). Nothing
// when no run has an edge_ratio.csv.
void edge_section(Document& doc, const std::vector<RunData>& runs);

}  // namespace orrery::report
