// The pod's required node constraints as upstream's nodeaffinity.RequiredNodeAffinity: its
// nodeSelector (every label equal) AND, when present, requiredDuringScheduling node selector terms
// (ORed; an empty term matches nothing). Shared by NodeAffinity and PodTopologySpread.
#pragma once

#include "core/node.h"
#include "core/pod.h"

namespace orrery::plugins {

bool matches_node_selector(const LabelSet& selector, const LabelSet& labels);

inline bool matches_required_affinity(const PodSpec& spec, const Node& node, StrId node_name) {
  if (!matches_node_selector(spec.node_selector, node.labels)) return false;
  const auto& req = spec.node_affinity.required;
  return !req || matches_any(*req, node.labels, node_name);
}

// The first NoSchedule/NoExecute taint of the node the tolerations do not tolerate, or -1
// (v1helper.FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc).
int first_untolerated_hard_taint(const Node& node, const std::vector<Toleration>& tolerations);

}  // namespace orrery::plugins
