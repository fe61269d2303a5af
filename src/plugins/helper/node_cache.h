// Per-node data a plugin derives from node specs (flags, parsed labels), rebuilt only when the
// cluster's nodes change (ClusterState::node_epoch), so filter and score loops read one small
// contiguous array instead of each node's spec.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::plugins {

template <class T>
class NodeCache {
 public:
  // The cached values indexed by NodeId; `derive(const Node&) -> T` recomputes them when needed.
  template <class Derive>
  const std::vector<T>& get(const ClusterState& st, Derive&& derive) {
    if (epoch_ != st.node_epoch() || values_.size() != st.node_slots()) {
      values_.assign(st.node_slots(), T{});
      for (NodeId id : st.nodes()) values_[id] = derive(st.node(id));
      epoch_ = st.node_epoch();
      if constexpr (std::is_integral_v<T>) {
        any_ = T{};
        for (NodeId id : st.nodes()) any_ |= values_[id];
      }
    }
    return values_;
  }
  // For flag values: the bitwise OR over the live nodes as of the last get(), so a plugin can
  // skip a whole pass when no node has a flag (e.g. no node is tainted).
  T any() const requires std::is_integral_v<T> { return any_; }

 private:
  std::vector<T> values_;
  T any_{};
  uint64_t epoch_ = ~uint64_t{0};
};

}  // namespace orrery::plugins
