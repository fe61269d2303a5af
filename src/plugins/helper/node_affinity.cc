#include "plugins/helper/node_affinity.h"

namespace orrery::plugins {

bool matches_node_selector(const LabelSet& selector, const LabelSet& labels) {
  for (const auto& [k, v] : selector.items()) {
    auto got = labels.get(k);
    if (!got || *got != v) return false;
  }
  return true;
}

int first_untolerated_hard_taint(const Node& node, const std::vector<Toleration>& tolerations) {
  for (size_t i = 0; i < node.taints.size(); ++i) {
    const Taint& t = node.taints[i];
    if (t.effect != TaintEffect::kNoSchedule && t.effect != TaintEffect::kNoExecute) continue;
    if (!tolerates(tolerations, t)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace orrery::plugins
