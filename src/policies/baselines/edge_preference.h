// The paper's "K8S" baseline (§6.2): kube-scheduler's default profile, made to prefer the edge
// the way the authors configured it: cloud nodes carry a PreferNoSchedule taint the pods do not
// tolerate (TaintToleration scores them lowest), and pods carry a preferred node affinity for edge
// nodes. Both are soft, so pods still go to the cloud when no edge node fits.
//
//   cloud node taint:  orrery.io/tier=cloud:PreferNoSchedule
//   pod affinity:      preferredDuringSchedulingIgnoredDuringExecution,
//                      weight 100, orrery.io/tier In [edge]
#pragma once

#include "core/node.h"
#include "core/pod.h"

namespace orrery::baselines {

inline constexpr const char* kTierLabel = "orrery.io/tier";

// Adds the taint to a cloud node (node.tier == kCloud) unless it already has it; other nodes are
// left alone. Returns true if the node changed.
bool taint_cloud_node(Node& node);
// Adds the preferred edge affinity to a pod spec unless it already has it (call finalize() is not
// needed: requests are unchanged). Returns true if the spec changed.
bool prefer_edge(PodSpec& spec);

}  // namespace orrery::baselines
