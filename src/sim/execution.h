// The execution model: how fast running pods progress on their node.
//
// Each pod has an actual CPU demand (cores it would use, which may differ from its request), an
// actual memory footprint and a work amount: its run time on an uncontended node of speed 1.
// When the CPU demand of the running pods exceeds the node's cores, the pods share them
// (processor sharing): every CPU-bound pod on the node runs at rate
//     speed × min(1, capacity / Σ demand)
// so run times stretch. With P identical pods that each demand the whole node this is KubCG's
// reduction factor Θ_P = P (KubCG §4.1, eqs 4–12, Fig. 10). GPU pods run their work on their
// GPU(s), which are exclusive (one pod per GPU, enforced by the nvidia.com/gpu resource), so CPU
// contention does not slow them. A paused (failed) node runs nothing.
//
// The model only does arithmetic: callers report starts/stops and receive the pods whose finish
// time changed (changes()), which SimBackend turns into events.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/cluster_state.h"
#include "sim/event_loop.h"

namespace orrery::sim {

// What a pod actually does once running.
struct ExecSpec {
  int64_t cpu_milli = 0;  // CPU demand in millicores
  int64_t memory = 0;     // memory footprint in bytes
  Time work = kForever;   // run time at full speed on a speed-1 node; kForever: until deleted
};

class Execution {
 public:
  struct Change {
    PodId pod;
    Time finish;  // kForever: never (paused or endless)
  };

  void set_node(NodeId node, int64_t cpu_capacity_milli, double speed);
  void start(PodId pod, NodeId node, const ExecSpec& spec, bool gpu, Time now);
  void stop(PodId pod, Time now);
  void set_paused(NodeId node, bool paused, Time now);

  // Pods whose finish time was (re)computed by the last calls; the caller clears it.
  std::vector<Change>& changes() { return changes_; }

  bool running(PodId pod) const { return pod < pods_.size() && pods_[pod].slot != kNoSlot; }
  // Pods running on a node, in start order modulo swap-removal.
  const std::vector<PodId>& running_on(NodeId node) const { return nodes_[node].running; }
  // Work left (µs at full speed) as of `now`.
  double remaining(PodId pod, Time now) const;

  // Telemetry.
  int64_t cpu_demand(NodeId node) const { return nodes_[node].demand; }
  int64_t cpu_used(NodeId node) const;  // min(demand, capacity), 0 when paused
  int64_t memory_used(NodeId node) const { return nodes_[node].memory; }
  int64_t memory_of(PodId pod) const { return pods_[pod].memory; }
  double share(NodeId node) const { return nodes_[node].share; }
  int64_t total_cpu_used() const { return total_cpu_used_; }
  int64_t total_memory_used() const { return total_memory_used_; }
  size_t running_count() const { return running_count_; }
  // Cumulative counters up to `now`, like /proc/stat and PSI totals: core-µs of CPU used, and µs
  // during which some CPU demand had to wait (demand > capacity).
  double cpu_time(NodeId node, Time now) const;
  Time stall_time(NodeId node, Time now) const;

 private:
  static constexpr uint32_t kNoSlot = ~uint32_t{0};
  struct NodeData {
    int64_t capacity = 0;  // millicores
    double speed = 1;
    int64_t demand = 0;  // Σ cpu of running CPU-bound pods
    int64_t memory = 0;
    double share = 1;  // min(1, capacity / demand)
    bool paused = false;
    std::vector<PodId> running;
    Time last_change = 0;  // when demand or pause last changed
    double cpu_time = 0;   // core-µs used until last_change
    Time stall_time = 0;   // µs with demand > capacity until last_change
  };
  struct PodData {
    NodeId node = kNoNode;
    uint32_t slot = kNoSlot;
    bool gpu = false;
    int64_t cpu = 0;
    int64_t memory = 0;
    double remaining = 0;  // µs of full-speed work left at as_of
    Time as_of = 0;
  };
  double rate(const NodeData& n, const PodData& p) const {
    return n.paused ? 0.0 : p.gpu ? n.speed : n.speed * n.share;
  }
  static void settle(PodData& p, double old_rate, Time now);
  void account(NodeId node, Time now);  // brings the cumulative counters up to `now`
  void reschedule(PodId pod, double r);
  // Recomputes the node's share after its demand changed and reschedules the running CPU-bound
  // pods if their rate changed.
  void update(NodeId node, Time now);

  std::vector<NodeData> nodes_;
  std::vector<PodData> pods_;
  std::vector<Change> changes_;
  int64_t total_cpu_used_ = 0;
  int64_t total_memory_used_ = 0;
  size_t running_count_ = 0;
};

}  // namespace orrery::sim
