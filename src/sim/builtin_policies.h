// Policies built into the simulator, and the helper for policies that are sets of framework
// plugins (one scheduling cycle per pod, driven by SchedulerDriver).
//
//   kube-default   kube-scheduler's default profile (v1.34 plugins, plugins/register.h), or the
//                  profiles of the scenario's KubeSchedulerConfiguration (scheduler.config).
//   kube-binpack   the same plugins with NodeResourcesFit scoring MostAllocated (bin packing).
//
// Policy args for framework policies: {decision_latency: {base: <duration dist>, per_node: <d>},
// deterministic: true|false (tie-break by node name instead of seeded random choice)}.
#pragma once

#include <functional>

#include "framework/config.h"
#include "framework/registry.h"
#include "sim/policy.h"

namespace orrery::sim {

// `register_plugins` fills the plugin registry (the kube-default plugins are always registered
// first); `default_config` is used when the scenario gives no KubeSchedulerConfiguration file.
PolicyFactory framework_policy(std::function<void(fw::PluginRegistry&)> register_plugins,
                               std::function<fw::SchedulerConfig()> default_config);

void register_builtin_policies(PolicyRegistry& registry);

}  // namespace orrery::sim
