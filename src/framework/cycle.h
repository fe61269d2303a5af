// What a plugin sees during one scheduling cycle for one pod.
#pragma once

#include <cstdint>

#include "core/cluster_state.h"
#include "core/rng.h"

namespace orrery::fw {

struct CycleContext {
  const ClusterState& state;
  PodId pod_id;
  const Pod& pod;
  const PodSpec& spec;
  int64_t now_us;
  Rng& rng;
  // The node this pod nominated by an earlier preemption (status.nominatedNodeName), if any.
  NodeId nominated_node = kNoNode;
};

}  // namespace orrery::fw
