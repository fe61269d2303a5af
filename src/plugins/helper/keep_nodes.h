// The loop of a filter whose only verdict is a fixed property of the node (cordoned, wrong name,
// missing machine constraints): keep the accepted nodes at the front of nodes[0..n) in their
// order, and record each other node as an UnschedulableAndUnresolvable rejection with code 0 (the
// plugin's describe() gives its one reason). Inlined into each filter's hot loop.
#pragma once

#include <cstddef>

#include "framework/diagnosis.h"

namespace orrery::plugins {

template <class Rejected>
size_t keep_nodes_unless(NodeId* nodes, size_t n, fw::Rejections& rejections, Rejected&& rejected) {
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    if (rejected(id)) {
      rejections.add(id, 0, 0, /*unresolvable=*/true);
    } else {
      nodes[kept++] = id;
    }
  }
  return kept;
}

}  // namespace orrery::plugins
