// The optimisation model of the priority-optimal packer (paper: "Priority Matters", Algorithm 1),
// free of Kubernetes types so the solvers can be tested on their own.
//
// Tiers are numbered from the most important (index 0 = the largest .spec.priority) to the least,
// i.e. the paper's `pr` = our tier index. A pod belongs to the model at tier t when its tier index
// is <= t (the paper's p.priority <= pr).
//
// Each node's capacity is what is left for the model's pods: allocatable minus the requests of
// pods the packer must not touch (protected, terminating, other schedulers). Each pod may go to
// its feasible nodes only (node selectors, affinity, taints, NodeName, unschedulable: the
// kube-default filters, see snapshot.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::optpack {

inline constexpr int kUnplaced = -1;
using Assignment = std::vector<int>;  // pod → node index or kUnplaced

struct Model {
  int dims = 0;                        // resource dimensions (cpu, memory, pods, ...)
  std::vector<std::string> dim_names;  // [dims]
  std::vector<std::string> node_names;
  std::vector<int64_t> cap;  // [node * dims + d]; may be negative when protected pods overfill
  std::vector<std::string> pod_names;
  std::vector<int64_t> req;            // [pod * dims + d], >= 0
  std::vector<int> tier;               // pod → tier index (0 = most important)
  std::vector<int32_t> tier_priority;  // tier index → .spec.priority value
  std::vector<int> where;              // pod → current node or kUnplaced (pending)
  std::vector<uint8_t> feasible;       // [pod * nodes + node]

  int nodes() const { return static_cast<int>(node_names.size()); }
  int pods() const { return static_cast<int>(pod_names.size()); }
  int tiers() const { return static_cast<int>(tier_priority.size()); }
  bool can_host(int pod, int node) const {
    return feasible[static_cast<size_t>(pod) * nodes() + node] != 0;
  }
  const int64_t* request(int pod) const { return &req[static_cast<size_t>(pod) * dims]; }
  const int64_t* capacity(int node) const { return &cap[static_cast<size_t>(node) * dims]; }

  // Adds a node / pod (helpers for tests and the generator); returns its index. add_pod marks
  // every node feasible; call finish() after the last pod to size `feasible` for late nodes.
  int add_node(std::string name, std::vector<int64_t> capacity);
  int add_pod(std::string name, std::vector<int64_t> request, int tier, int where = kUnplaced);
  // Checks the shapes and values; throws InputError naming the problem.
  void validate() const;
};

// Pods of tier exactly t that are placed; placed_upto: of tiers 0..t (the paper's phase 1 metric
// Σ_{p.priority <= pr} Σ_j x_ij).
int placed_in_tier(const Model& m, const Assignment& a, int t);
int placed_upto(const Model& m, const Assignment& a, int t);
int disruption_upto(const Model& m, const Assignment& a, int t);
// Disruption of tier t, as a cost (phase 2 minimises it over tiers 0..t): for each running pod of
// tier t, 0 when it stays, 1 when it moves to another node, 2 when it is left unplaced (evicted).
// The paper maximises Σ (Σ_j x_ij + 2 x_i,where) = 3·stay + 1·move; minimising 2 − that/… is the
// same order per pod.
int disruption_in_tier(const Model& m, const Assignment& a, int t);
int disruption_of(const Model& m, const Assignment& a, int pod);

// True when every placed pod is on a feasible node and no node exceeds its capacity in any
// dimension (constraints (1)–(3)); `why` says what is wrong otherwise.
bool respects_capacity(const Model& m, const Assignment& a, std::string* why = nullptr);

// The current placement (pod → where).
Assignment current_assignment(const Model& m);

}  // namespace orrery::optpack
