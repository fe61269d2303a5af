// The Aggregation Server's state (thesis §4.3), shared by the gRPC server (rpc/) and the
// simulator's in-process agents: "flat", on-the-fly aggregation.
//
//   submit()  stores the node's report (Pod-Capacity, k, pod count), enqueues its local subspace
//             and returns the latest global subspace at once (consistency traded for latency)
//   drain()   what the background thread runs: pops queued subspaces one at a time and merges
//             each into the global one with weights (#nodes − 1, 1), normalised to sum to 1
//             (γ = √w, §3.3), #nodes = nodes heard from within `forget_after_s`
//   table()   the per-node table the scheduler reads, with each report's age
//
// Thread-safe. A restarted aggregator starts empty; agents re-register by submitting again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "policies/carico/subspace.h"

namespace orrery::carico {

struct NodeStatus {
  double pod_capacity = 0;
  double capacity = 0;
  int pods = 0;
};

struct NodeRow {
  std::string node;
  NodeStatus status;
  double age_s = 0;
};

class AggregatorCore {
 public:
  explicit AggregatorCore(int rank = 2, double forget_after_s = 600)
      : rank_(rank), forget_after_s_(forget_after_s) {}

  Subspace submit(const std::string& node, const Subspace& local, const NodeStatus& status,
                  double now_s);
  // Merges everything queued; returns how many subspaces were merged.
  size_t drain(double now_s);
  // Blocks until something is queued or `stop` is set (then returns false).
  bool wait_for_work(const std::atomic<bool>& stop);
  void wake();

  Subspace global() const;
  std::vector<NodeRow> table(double now_s) const;
  uint64_t merges() const;
  size_t queued() const;

 private:
  size_t live_nodes(double now_s) const;  // mu_ held
  int rank_;
  double forget_after_s_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Subspace global_;
  std::deque<Subspace> queue_;
  struct Entry {
    NodeStatus status;
    double seen_s = 0;
  };
  std::map<std::string, Entry> nodes_;
  uint64_t merges_ = 0;
};

}  // namespace orrery::carico
