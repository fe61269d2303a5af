#include "plugins/tainttoleration/taint_toleration.h"

#include <algorithm>

#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"
#include "plugins/helper/node_affinity.h"
#include "plugins/helper/normalize.h"

namespace orrery::plugins {

std::string_view TaintToleration::name() const {
  return names::kTaintToleration;
}

const std::vector<uint8_t>& TaintToleration::flags(const ClusterState& st) {
  return flags_.get(st, [](const Node& node) {
    uint8_t f = 0;
    for (const Taint& t : node.taints) {
      if (t.effect == TaintEffect::kNoSchedule || t.effect == TaintEffect::kNoExecute) {
        f |= kHasHardTaint;
      }
      if (t.effect == TaintEffect::kPreferNoSchedule) f |= kHasPreferTaint;
    }
    return f;
  });
}

size_t TaintToleration::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                               fw::Rejections& rejections) {
  const std::vector<uint8_t>& f = flags(cycle.state);
  if (!(flags_.any() & kHasHardTaint)) return n;  // no node has a NoSchedule/NoExecute taint
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    if (f[id] & kHasHardTaint) {
      const int t = first_untolerated_hard_taint(cycle.state.node(id), cycle.spec.tolerations);
      if (t >= 0) {
        rejections.add(id, 0, static_cast<uint32_t>(t), /*unresolvable=*/true);
        continue;
      }
    }
    nodes[kept++] = id;
  }
  return kept;
}

void TaintToleration::describe(const ClusterState& state, const fw::Rejection& r,
                               std::vector<std::string>* reasons) const {
  const Taint& t = state.node(r.node).taints.at(r.arg);
  reasons->push_back("node(s) had untolerated taint {" + std::string(interned(t.key)) + ": " +
                     std::string(interned(t.value)) + "}");
}

fw::Status TaintToleration::pre_score(const fw::CycleContext& cycle, std::span<const NodeId>) {
  prefer_tolerations_.clear();
  for (const Toleration& t : cycle.spec.tolerations) {
    // An empty effect tolerates every effect, PreferNoSchedule included.
    if (t.effect == TaintEffect::kNone || t.effect == TaintEffect::kPreferNoSchedule) {
      prefer_tolerations_.push_back(t);
    }
  }
  return fw::Status::ok();
}

void TaintToleration::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                            int64_t* scores) {
  const uint8_t* f = flags(cycle.state).data();
  if (!(flags_.any() & kHasPreferTaint)) {  // no node has a PreferNoSchedule taint
    std::fill(scores, scores + nodes.size(), 0);
    max_count_ = 0;
    return;
  }
  int64_t max_count = 0;  // a local: stores to scores could alias the member
  for (size_t i = 0; i < nodes.size(); ++i) {
    int64_t count = 0;
    if (f[nodes[i]] & kHasPreferTaint) {
      for (const Taint& t : cycle.state.node(nodes[i]).taints) {
        if (t.effect == TaintEffect::kPreferNoSchedule && !tolerates(prefer_tolerations_, t)) {
          ++count;
        }
      }
    }
    scores[i] = count;
    max_count = std::max(max_count, count);
  }
  max_count_ = max_count;
}

void TaintToleration::normalize(const fw::CycleContext&, std::span<const NodeId> nodes,
                                int64_t* scores) {
  if (max_count_ == 0) {  // the common case: no intolerable PreferNoSchedule taint anywhere
    std::fill(scores, scores + nodes.size(), fw::kMaxNodeScore);
    return;
  }
  default_normalize_with_max(fw::kMaxNodeScore, /*reverse=*/true, max_count_, scores, nodes.size());
}

std::optional<int64_t> TaintToleration::uniform_score(const fw::CycleContext& cycle,
                                                      std::span<const NodeId>) {
  flags(cycle.state);
  if (flags_.any() & kHasPreferTaint) return std::nullopt;
  return fw::kMaxNodeScore;  // every count is 0: normalize() gives the maximum everywhere
}

// Its verdict depends on the node alone.
fw::QueueingHint TaintToleration::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                const fw::PodClassKey&) const {
  return node_only_hint(event);
}

uint64_t TaintToleration::class_salt(const ClusterState&, PodId) const {
  return 0;
}

}  // namespace orrery::plugins
