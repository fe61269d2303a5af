// Scheduler configuration in the shape of kubescheduler.config.k8s.io/v1
// KubeSchedulerConfiguration:
//
//   apiVersion: kubescheduler.config.k8s.io/v1
//   kind: KubeSchedulerConfiguration
//   percentageOfNodesToScore: 0            # 0/absent = adaptive
//   profiles:
//   - schedulerName: default-scheduler
//     percentageOfNodesToScore: 50
//     plugins:
//       multiPoint: {enabled: [{name: X, weight: 2}], disabled: [{name: "*"}]}
//       score:      {enabled: [...], disabled: [...]}
//       filter / preFilter / postFilter / preScore / reserve / permit / preBind / bind / postBind / queueSort
//     pluginConfig:
//     - name: NodeResourcesFit
//       args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 1}]}}
//
// orrery extension (not in upstream): profiles[].deterministic: true picks the lexicographically
// smallest node name among top-scored nodes instead of seeded random choice.
// Plugin enablement is merged over the default plugin set exactly as upstream does: multiPoint
// expands to every extension point a plugin implements, per-point settings override it, and
// "disabled: [{name: '*'}]" drops the defaults at that point.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/yaml_util.h"
#include "framework/profile.h"
#include "framework/registry.h"

namespace orrery::fw {

struct PluginSetting {
  std::string name;
  int64_t weight = 0;  // 0 = the plugin's default weight
};

struct PluginSet {
  std::vector<PluginSetting> enabled;
  std::vector<PluginSetting> disabled;
};

struct ProfileConfig {
  std::string scheduler_name = "default-scheduler";
  int percentage_of_nodes_to_score = -1;  // -1: inherit the global setting
  bool deterministic_ties = false;
  std::map<std::string, PluginSet> plugins;  // key: multiPoint, filter, score, ...
  std::map<std::string, yaml::Ctx> plugin_args;  // pluginConfig by plugin name
};

struct SchedulerConfig {
  int percentage_of_nodes_to_score = 0;
  std::vector<ProfileConfig> profiles;
  std::string source;  // file name, for messages
};

// Parses a configuration file/text; throws InputError with FILE:LINE: field on bad input.
SchedulerConfig load_scheduler_config(const std::string& path);
SchedulerConfig parse_scheduler_config(const std::string& text, const std::string& source);
// The configuration with one default profile ("default-scheduler").
SchedulerConfig default_scheduler_config();

// The default plugin set a profile starts from (upstream's default multiPoint list, restricted to
// the plugins orrery implements), with default score weights.
struct DefaultPlugin {
  std::string name;
  int64_t weight;
};
const std::vector<DefaultPlugin>& default_multipoint_plugins();

// Builds a profile: merges enablement over the defaults and instantiates plugins from the
// registry (unknown names → InputError naming the field).
std::unique_ptr<Profile> build_profile(const ProfileConfig& config, int global_percentage,
                                       const PluginRegistry& registry);

}  // namespace orrery::fw
