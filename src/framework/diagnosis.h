// Why nodes were rejected for a pod, recorded cheaply during filtering (a small code per node) and
// turned into kube-scheduler's message only when the pod turns out unschedulable:
//   "0/5 nodes are available: 2 node(s) had untolerated taint {k: v}, 3 Insufficient cpu."
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::fw {

class Plugin;

// One rejected node. `code` and `arg` are private to the plugin, which turns them into reason
// strings with Plugin::describe().
struct Rejection {
  NodeId node;
  uint16_t plugin;  // index into the profile's plugin list
  uint16_t code;
  uint32_t arg;
  bool unresolvable;  // UnschedulableAndUnresolvable: preemption cannot help on this node
};

class Rejections {
 public:
  void add(NodeId node, uint16_t code, uint32_t arg, bool unresolvable) {
    items_.push_back({node, current_plugin_, code, arg, unresolvable});
  }
  void clear() { items_.clear(); }
  const std::vector<Rejection>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  // Set by the framework before calling each filter plugin.
  void set_current_plugin(uint16_t index) { current_plugin_ = index; }
  void truncate(size_t n) { items_.resize(n); }

 private:
  std::vector<Rejection> items_;
  uint16_t current_plugin_ = 0;
};

// Everything known about a failed scheduling attempt.
struct Diagnosis {
  size_t num_all_nodes = 0;
  std::string pre_filter_message;            // a PreFilter rejected the pod outright
  std::string post_filter_message;           // e.g. "preemption: 0/5 nodes are available: ..."
  std::map<std::string, int> reason_counts;  // reason → number of nodes
  // "0/N nodes are available: <count reason, ...sorted>." then " <post-filter message>" (as
  // upstream FitError.Error, v1.34).
  std::string message() const;
};

}  // namespace orrery::fw
