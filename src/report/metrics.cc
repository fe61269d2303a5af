#include "report/metrics.h"

#include <cmath>
#include <limits>

namespace orrery::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const nlohmann::ordered_json* find_path(const nlohmann::ordered_json& j, const std::string& path) {
  const nlohmann::ordered_json* at = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

double number_at(const nlohmann::ordered_json& j, const std::string& path) {
  const nlohmann::ordered_json* v = find_path(j, path);
  return v && v->is_number() ? v->get<double>() : kNaN;
}

}  // namespace

bool is_failure_outcome(const std::string& o) {
  return o == "OOMKilled" || o == "Preempted" || o == "Evicted" || o == "NodeRemoved" ||
         o.starts_with("OutOf");
}

const std::vector<KeyMetric>& key_metrics() {
  static const std::vector<KeyMetric> metrics = {
      {"jobs.count", "jobs finished", Format::kNumber, +1, true, "jobs that completed"},
      {"jobs.unfinished", "jobs unfinished", Format::kNumber, -1, true,
       "jobs still running or waiting at the end (not in the delay percentiles)"},
      {"jobs.delay_p50_s", "job delay p50", Format::kSeconds, -1, false,
       "median time a finished job lost to scheduling and queueing"},
      {"jobs.delay_p99_s", "job delay p99", Format::kSeconds, -1, false,
       "tail time a finished job lost to scheduling and queueing"},
      {"pods.never_bound", "pods never bound", Format::kNumber, -1, true,
       "pods still pending at the end (not in the pending percentiles)"},
      {"pods.pending_p50_s", "pod pending p50", Format::kSeconds, -1, false,
       "median creation-to-binding time of bound pods"},
      {"pods.pending_p99_s", "pod pending p99", Format::kSeconds, -1, false,
       "tail creation-to-binding time of bound pods"},
      {"pods.failed", "pod failures", Format::kNumber, -1, true,
       "pods OOM-killed, refused by the kubelet, preempted or lost with their node"},
      {"pods.migrated", "pods migrated", Format::kNumber, 0, true,
       "pods deleted to be moved elsewhere (a cost paid for a better placement)"},
      {"edge_ratio.mean", "edge ratio", Format::kPercent, +1, false,
       "share of the deployments' pods on edge nodes, averaged over time and deployments"},
      {"utilization.cpu_mean", "CPU utilisation", Format::kPercent, 0, false,
       "CPU used / capacity, time-averaged (follows the workload more than the policy)"},
  };
  return metrics;
}

bool has_metric(const nlohmann::ordered_json& s, const KeyMetric& m) {
  if (!s.is_object()) return false;
  if (m.key == "pods.never_bound") return find_path(s, "pods.bound") != nullptr;
  if (m.key == "pods.failed" || m.key == "pods.migrated")
    return find_path(s, "pods.outcomes") != nullptr;
  return find_path(s, m.key) != nullptr;
}

double metric_value(const nlohmann::ordered_json& s, const KeyMetric& m) {
  if (!s.is_object()) return kNaN;
  if (m.key == "pods.never_bound") return number_at(s, "pods.count") - number_at(s, "pods.bound");
  if (m.key == "pods.failed" || m.key == "pods.migrated") {
    const nlohmann::ordered_json* o = find_path(s, "pods.outcomes");
    if (!o || !o->is_object()) return kNaN;
    double n = 0;
    for (const auto& [k, v] : o->items()) {
      if (!v.is_number()) continue;
      if (m.key == "pods.failed" ? is_failure_outcome(k) : k == "Migrated") n += v.get<double>();
    }
    return n;
  }
  return number_at(s, m.key);
}

}  // namespace orrery::report
