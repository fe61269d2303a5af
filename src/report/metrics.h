// The key metrics of a simulator run, one definition shared by the report's verdict table and
// `orrery compare --seeds`: where each is read in summary.json, how it is shown, and which
// direction is better.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/format.h"

namespace orrery::report {

struct KeyMetric {
  std::string
      key;  // summary.json path ("jobs.delay_p50_s"), or a derived name ("pods.never_bound")
  std::string label;  // row label with its unit, "job delay p50 (s)"
  Format format;
  int better;           // -1 lower is better, +1 higher is better, 0 not ranked
  bool count;           // a count: differences are absolute ("+3"), not relative
  std::string meaning;  // what it measures, for the reading
};

// In display order.
const std::vector<KeyMetric>& key_metrics();

// The metric's value in a run's summary.json; NaN when absent or null. Derived metrics:
//   pods.never_bound = pods.count - pods.bound
//   pods.failed      = pods whose outcome is a failure (OOMKilled, OutOf*, Preempted, Evicted,
//                      NodeRemoved): what `restarts` count
//   pods.migrated    = pods.outcomes.Migrated (0 when the run has outcomes but none migrated)
double metric_value(const nlohmann::ordered_json& summary, const KeyMetric& m);

// Whether the run's summary has the metric, even as null (a statistic of an empty set).
bool has_metric(const nlohmann::ordered_json& summary, const KeyMetric& m);

// Whether an outcome of pods.csv is a failure (counted by `restarts` when the pod is replaced).
bool is_failure_outcome(const std::string& outcome);

}  // namespace orrery::report
