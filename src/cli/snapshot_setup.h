// What `orrery schedule`, `score` and `explain` share: reading a cluster snapshot (with its
// warnings, or errors under --strict), the scheduler configuration and its profiles, and the
// scheduler options they imply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/cluster_state.h"
#include "framework/config.h"
#include "framework/profile.h"
#include "framework/registry.h"
#include "framework/scheduler.h"
#include "io/k8s_objects.h"

namespace orrery::cli {

// The plugins a configuration may name: policies::plugin_catalog() (kube-default, Sencillo, KubCG).
const fw::PluginRegistry& snapshot_plugin_registry();

// Prints warnings as "orrery: warning: ..." lines; with `strict` they are an InputError instead
// (naming `path` and listing every warning), so nothing not modelled passes unnoticed.
void report_warnings(const std::string& path, const std::vector<std::string>& warnings,
                     bool strict);

// Cluster state from a snapshot's objects: an error when it has no nodes; warnings about what is
// not modelled and about pods on nodes missing from a partial dump (errors with `strict`); errors
// from building it (duplicates) prefixed with the file name.
ClusterState load_cluster(const std::string& path, const K8sObjects& objects, bool strict);

struct SchedulerSetup {
  fw::SchedulerConfig config;
  std::vector<std::unique_ptr<fw::Profile>> profiles;
};
// The configuration at `config_path` (empty: kube-default) and its profiles; the configuration's
// warnings (plugins accepted but not modelled) are errors with `strict`.
SchedulerSetup load_scheduler_setup(const std::string& config_path, bool strict);

fw::SchedulerOptions scheduler_options(const fw::SchedulerConfig& config, uint64_t seed);

// Rows printed as aligned columns (two spaces between), the first row being the header.
void print_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace orrery::cli
