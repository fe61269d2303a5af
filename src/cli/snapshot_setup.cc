#include "cli/snapshot_setup.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "plugins/register.h"
#include "policies/catalog.h"

namespace orrery::cli {

// Every plugin a configuration may name (policies/catalog.h), as in `orrery serve` and the
// simulator's kube-default.
const fw::PluginRegistry& snapshot_plugin_registry() {
  static const fw::PluginRegistry r = policies::plugin_catalog();
  return r;
}

void report_warnings(const std::string& path, const std::vector<std::string>& warnings,
                     bool strict) {
  if (warnings.empty()) return;
  if (strict) {
    std::string msg = path + ": --strict: " + std::to_string(warnings.size()) +
                      " warning(s) about input orrery does not model:";
    for (const std::string& w : warnings) msg += "\n  " + w;
    throw InputError(msg);
  }
  for (const std::string& w : warnings) std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
}

ClusterState load_cluster(const std::string& path, const K8sObjects& objects, bool strict) {
  if (objects.nodes.empty()) {
    // As for simulations: a cluster without nodes is an input mistake (an empty file, a dump of
    // pods only), not a run whose pods all happen to be unschedulable.
    throw InputError(path +
                     ": the cluster has no nodes (expected Node objects, e.g. the output of "
                     "`kubectl get nodes,pods -A -o yaml`)");
  }
  std::vector<std::string> warnings = k8s_warnings(objects);
  ClusterState state;
  try {
    state = build_cluster(objects, &warnings);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  report_warnings(path, warnings, strict);
  return state;
}

SchedulerSetup load_scheduler_setup(const std::string& config_path, bool strict) {
  SchedulerSetup s;
  s.config =
      config_path.empty() ? fw::default_scheduler_config() : fw::load_scheduler_config(config_path);
  std::vector<std::string> warnings;
  s.profiles = plugins::build_profiles(s.config, snapshot_plugin_registry(), &warnings);
  report_warnings(config_path, warnings, strict);
  return s;
}

fw::SchedulerOptions scheduler_options(const fw::SchedulerConfig& config, uint64_t seed) {
  fw::SchedulerOptions o;
  o.seed = seed;
  o.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score;
  o.queue = fw::queue_options(config);
  return o;
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()));
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace orrery::cli
