// kube-scheduler as orrery policies, and the helper for every policy that is a set of framework
// plugins (one scheduling cycle per pod, driven by fw::SchedulerDriver on any runtime).
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
#include "framework/policy.h"
#include "framework/registry.h"

namespace orrery::kube {

// `register_plugins` fills the plugin registry (the kube-default plugins are always registered
// first); `default_config` is used when the run gives no KubeSchedulerConfiguration file.
fw::PolicyFactory framework_policy(std::function<void(fw::PluginRegistry&)> register_plugins,
                                   std::function<fw::SchedulerConfig()> default_config);

// Registers "kube-default" and "kube-binpack". `more_plugins` adds plugins beyond the kube-default
// ones that a KubeSchedulerConfiguration may name (the catalog's: policies/catalog.h).
void register_policies(fw::PolicyRegistry& registry,
                       std::function<void(fw::PluginRegistry&)> more_plugins = nullptr);

}  // namespace orrery::kube
