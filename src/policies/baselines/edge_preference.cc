#include "policies/baselines/edge_preference.h"

#include <algorithm>

namespace orrery::baselines {

bool taint_cloud_node(Node& node) {
  if (node.tier != Tier::kCloud) return false;
  Taint t;
  t.key = intern(kTierLabel);
  t.value = intern("cloud");
  t.effect = TaintEffect::kPreferNoSchedule;
  if (std::find(node.taints.begin(), node.taints.end(), t) != node.taints.end()) return false;
  node.taints.push_back(t);
  return true;
}

bool prefer_edge(PodSpec& spec) {
  NodeSelectorRequirement req;
  req.key = intern(kTierLabel);
  req.op = SelectorOp::kIn;
  req.values = {intern("edge")};
  for (const PreferredSchedulingTerm& p : spec.node_affinity.preferred) {
    const auto& e = p.preference.match_expressions;
    if (e.size() == 1 && e[0].key == req.key && e[0].op == req.op && e[0].values == req.values)
      return false;
  }
  PreferredSchedulingTerm term;
  term.weight = 100;
  term.preference.match_expressions.push_back(std::move(req));
  spec.node_affinity.preferred.push_back(std::move(term));
  return true;
}

}  // namespace orrery::baselines
