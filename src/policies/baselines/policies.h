// The Sencillo baselines as policies (any runtime): the framework scheduler with kube-scheduler's
// default filters and one Sencillo score plugin (sencillo.h) as the only score.
//
//   random  SencilloRandom      bef  BiggestEdgeFirst
//   sef     SmallestEdgeFirst   cf   CloudFirst
//
// Each has one profile, "default-scheduler" (so any scenario's pods are theirs). The paper's K8S
// baseline is the "kube-default" policy on a scenario whose cloud nodes carry the
// PreferNoSchedule taint and whose pods prefer edge nodes (edge_preference.h). Policy args:
// {decision_latency: ...} as for every framework policy.
#pragma once

#include "framework/policy.h"
#include "policies/baselines/profiles.h"

namespace orrery::baselines {

// Registers "random", "bef", "sef" and "cf".
void register_policies(fw::PolicyRegistry& registry);

}  // namespace orrery::baselines
