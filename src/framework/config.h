// Scheduler configuration in the shape of kubescheduler.config.k8s.io/v1
// KubeSchedulerConfiguration:
//
//   apiVersion: kubescheduler.config.k8s.io/v1
//   kind: KubeSchedulerConfiguration
//   percentageOfNodesToScore: 0            # 0/absent = adaptive
//   podInitialBackoffSeconds: 1
//   podMaxBackoffSeconds: 10
//   profiles:
//   - schedulerName: default-scheduler
//     percentageOfNodesToScore: 50         # absent = the global value
//     deterministic: true                  # orrery extension, see below
//     plugins:
//       multiPoint: {enabled: [{name: X, weight: 2}], disabled: [{name: "*"}]}
//       score:      {enabled: [...], disabled: [...]}
//       queueSort / preEnqueue / preFilter / filter / postFilter / preScore / reserve / permit /
//       preBind / bind / postBind
//     pluginConfig:
//     - name: NodeResourcesFit
//       args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}]}}
//
// orrery extension (not in upstream): profiles[].deterministic: true picks the lexicographically
// smallest node name among top-scored nodes (and starts preemption's candidate search at the
// first node) instead of seeded random choices.
//
// Plugin enablement is merged over the default plugin set exactly as kube-scheduler v1.34 does
// (pkg/scheduler/apis/config/v1 mergePlugins + framework expandMultiPointPlugins):
//  - only multiPoint has defaults; a custom multiPoint entry naming a default plugin replaces it in
//    place (weight included: an entry without weight gives weight 1), other custom entries are
//    appended; multiPoint.disabled removes defaults ("*": all of them);
//  - multiPoint expands to every extension point the plugin implements, unless that point
//    disables it (or "*"); a plugin also enabled at the point itself is an override: it keeps the
//    point's settings and comes first, then the multiPoint plugins, then the point's others;
//  - score weights: score.enabled first, then multiPoint; weight 0 or absent means 1.
// Unknown fields and unknown plugin names are errors naming FILE:LINE and the field path, as
// upstream's strict decoding does.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/profile.h"
#include "framework/queue.h"
#include "framework/registry.h"
#include "io/yaml_util.h"

namespace orrery::fw {

struct PluginSetting {
  std::string name;
  int64_t weight = 0;  // 0/absent: 1 for a score plugin (upstream)
  std::string where;   // "FILE:LINE: field.path" of the entry, for errors
};

struct PluginSet {
  std::vector<PluginSetting> enabled;
  std::vector<PluginSetting> disabled;
};

struct ProfileConfig {
  std::string scheduler_name = "default-scheduler";
  int percentage_of_nodes_to_score = -1;  // -1: inherit the global setting
  bool deterministic_ties = false;
  std::map<std::string, PluginSet> plugins;              // key: multiPoint, filter, score, ...
  std::map<std::string, yaml::Ctx> plugin_args;          // pluginConfig[].args by plugin name
  std::map<std::string, std::string> plugin_args_where;  // pluginConfig[i] location by name
  std::string where;                                     // location of the profile entry
};

struct SchedulerConfig {
  int percentage_of_nodes_to_score = 0;
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<ProfileConfig> profiles;
  std::string source;  // file name, for messages
};

// Parses a configuration file/text; throws InputError with FILE:LINE: field on bad input.
SchedulerConfig load_scheduler_config(const std::string& path);
SchedulerConfig parse_scheduler_config(const std::string& text, const std::string& source);
// The configuration with one default profile ("default-scheduler").
SchedulerConfig default_scheduler_config();
// The configuration a world runs: the file at `path`, else `builtin()` with every profile renamed
// to `scheduler_name` when that is set (`orrery serve --scheduler-name`).
SchedulerConfig config_or_builtin(const std::string& path, const std::string& scheduler_name,
                                  const std::function<SchedulerConfig()>& builtin);
// The queue options (backoff) the configuration asks for.
QueueOptions queue_options(const SchedulerConfig& config);

// The default plugin set a profile starts from: upstream v1.34's default multiPoint list (feature
// gates at their defaults), with default score weights. Some of these are accepted by orrery but
// not modelled (see docs/plugins.md); their registry factories return nullptr.
struct DefaultPlugin {
  std::string name;
  int64_t weight;  // 0: no weight given
};
const std::vector<DefaultPlugin>& default_multipoint_plugins();

// The names of the extension points a configuration may set, in upstream's order.
const std::vector<std::string>& extension_point_names();

// Builds a profile: merges enablement over the defaults and instantiates plugins from the
// registry (unknown names → InputError naming the field). Plugins that orrery accepts but does not
// model are left out; when one of them is named explicitly in the configuration a warning is
// appended to `warnings`. The profile's plugins reach `runtime` through their Handle (none when
// null: plugins that need it then fail when they ask).
std::unique_ptr<Profile> build_profile(const ProfileConfig& config, int global_percentage,
                                       const PluginRegistry& registry,
                                       std::vector<std::string>* warnings = nullptr,
                                       Runtime* runtime = nullptr);

}  // namespace orrery::fw
