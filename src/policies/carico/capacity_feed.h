// Where the CaricoCapacity plugin's numbers come from: a service of the runtime
// (fw::Services::provide<carico::CapacityFeed>), so the plugin is the same in every world.
//
//   simulator     SimulatedAgents (sim_agents.h): one NodeAgent per node on the runtime's clock,
//                 reading fw::NodeTelemetry, with modelled report delays, merging through an
//                 in-process AggregatorCore
//   real cluster  AggregatorFeed (rpc/aggregator_feed.h): polls the aggregator's per-node table
//                 over gRPC on the runtime's clock (`orrery serve`, a real process)
//
// Calls happen on the runtime's loop thread.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/cluster_state.h"
#include "core/time.h"

namespace orrery::carico {

struct NodeCapacity {
  double pod_capacity = 0;  // eq. 3.5/3.6, in pods
  double capacity = 0;      // k (eq. 3.4)
  int pods = 0;             // running pods the node reported
  double age_s = 0;         // how old the report is
};

class CapacityFeed {
 public:
  virtual ~CapacityFeed() = default;
  // The node's latest report as of `now_us`, or nullopt when the node never reported.
  virtual std::optional<NodeCapacity> capacity(const ClusterState& state, NodeId node,
                                               Time now_us) const = 0;
  // `fn(node)` is called (on the loop) whenever a node's report changes.
  void on_update(std::function<void(NodeId)> fn) { listeners_.push_back(std::move(fn)); }

 protected:
  void updated(NodeId node) const {
    for (const auto& fn : listeners_) fn(node);
  }

 private:
  std::vector<std::function<void(NodeId)>> listeners_;
};

}  // namespace orrery::carico
