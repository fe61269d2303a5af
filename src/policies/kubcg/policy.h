// The "kubcg" policy: kube-scheduler's default profile with the KubCG plugin (decision_unit.h)
// as its last filter and its mutate plugin, and a 1 s backoff (a pod waiting for a GPU is retried
// as soon as a pod finishes, as the paper's decision unit sends the head of its GPU queue when the
// GPU frees).
//
// Policy args (scenario `scheduler.args`):
//   db: sqlite:PATH | postgresql://...   the history database (default sqlite::memory:)
//   theta: {IMAGE: SLOPE, ...}            Θ_P = 1 + SLOPE·(P − 1) per image (default Θ_P = P)
//   deterministic: true|false             ties by node name (default true)
#pragma once

#include <memory>

#include "framework/config.h"
#include "framework/policy.h"
#include "policies/kubcg/decision_unit.h"

namespace orrery::kubcg {

fw::SchedulerConfig kubcg_config();
// `unit` null: the policy opens the database its args name. Otherwise every policy the factory
// builds shares `unit` (the simulator adapter's warm history).
fw::PolicyFactory kubcg_policy(std::shared_ptr<DecisionUnit> unit = nullptr);
// Registers the KubCG plugin for a profile that names it (kube-default's, `serve --config`, the
// extender's): pluginConfig args {db, theta} as the policy's; each profile opens its own history
// and commits it when the profile ends. The "kubcg" policy registers its own, sharing one unit.
void register_plugins(fw::PluginRegistry& registry);
// Registers "kubcg".
void register_policies(fw::PolicyRegistry& registry);

}  // namespace orrery::kubcg
