// One label key's value on every node as a NodeId-indexed column, rebuilt when the nodes change:
// a nodeSelector check becomes one array read per key instead of a search in each node's labels.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::plugins {

class LabelColumns {
 public:
  struct Column {
    std::vector<StrId> value;  // kNoStr when absent (or empty)
    std::vector<uint8_t> has;  // the node carries the key
    uint64_t epoch = ~uint64_t{0};
  };
  // The column of `key`; the reference stays valid (columns are never removed).
  const Column& get(const ClusterState& st, StrId key) {
    Column& c = columns_[key];
    if (c.epoch != st.node_epoch() || c.value.size() != st.node_slots()) {
      c.value.assign(st.node_slots(), kNoStr);
      c.has.assign(st.node_slots(), 0);
      for (NodeId id : st.nodes()) {
        if (auto v = st.node(id).labels.get(key)) {
          c.value[id] = *v;
          c.has[id] = 1;
        }
      }
      c.epoch = st.node_epoch();
    }
    return c;
  }

 private:
  std::unordered_map<StrId, Column> columns_;
};

}  // namespace orrery::plugins
