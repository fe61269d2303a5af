// Algorithm 8 (match): place as many of a set of pods as possible on the edge nodes and, among the
// largest placeable subsets, pick the placement with the least fragmentation (eqs 13–15).
//
// The paper's DP runs over states (node i, subset of pods) with O(|E|·3^n) transitions. Pods with
// the same resource vector are interchangeable for both feasibility and fragmentation, so orrery
// runs the same DP over (node i, count vector): the state says how many pods of each distinct
// resource vector are placed on nodes 1..i. This is exact (it explores the same placements up to a
// permutation of identical pods) and turns a batch of 20 pods of 4 services from 3^20 transitions
// per node into a few thousand. If the count-vector space is still larger than kMaxStates (many
// distinct pod shapes), the pods are matched in consecutive chunks that fit, each chunk exactly,
// which is documented as an approximation in README.md.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "policies/kubedsm/fragmentation.h"
#include "policies/kubedsm/model.h"

namespace orrery::kubedsm {

struct MatchResult {
  std::vector<int32_t> target;  // per input pod: edge node index, or kCloud when not matched
  size_t matched = 0;
  double frag = 0;  // frag(CS) after deploying the matched pods (dp(|E|, max_sub_set))
};

// Reusable: keeps its scratch buffers between calls (no allocation once warmed up).
class Matcher {
 public:
  static constexpr size_t kMaxStates = size_t{1} << 15;

  // `free`: free resources per edge node; `pods`: the resource vector of each pod to place.
  const MatchResult& match(std::span<const Vec2> free, std::span<const Vec2> pods,
                           const FragNorm& norm);

 private:
  // Exact DP for pods[first, last) on `free_` (which it then updates with the placement).
  void match_exact(std::span<const Vec2> pods, size_t first, size_t last, const FragNorm& norm);
  void enumerate_curs(size_t g, Vec2 room, uint32_t idx, const FragNorm& norm, double base);
  // Sets pod_group_ and stride_ for pods[first, last); returns the number of count-vector states.
  size_t index_chunk(std::span<const Vec2> pods, size_t first, size_t last);
  // Fills the cur_* arrays: the feasible cur vectors of every node of free_.
  void enumerate_node_curs(const FragNorm& norm);
  // The DP over nodes (eq. 15): leaves the last node's values in dp_prev_ and parents in par_.
  void run_dp(size_t states, const FragNorm& norm);
  // The reachable state with the most pods, then the least fragmentation.
  size_t best_state(size_t states);
  // Traces state `best` back through par_, updates free_ and sets the targets of pods[first, last).
  void assign_targets(size_t best, size_t states, size_t first, size_t last);

  MatchResult result_;
  std::vector<Vec2> free_;
  // Groups of identical pods (for the current chunk).
  std::vector<Vec2> group_vec_;
  std::vector<uint32_t> group_count_;
  std::vector<uint32_t> stride_;
  std::vector<uint32_t> pod_group_;  // per pod of the chunk
  // Feasible "cur" count vectors per node: flat arrays, node n's entries in
  // [cur_begin_[n], cur_begin_[n+1]).
  std::vector<uint32_t> cur_begin_;
  std::vector<uint32_t> cur_idx_;
  std::vector<double> cur_delta_;
  std::vector<uint16_t> cur_digits_;  // group_count_.size() per entry
  std::vector<uint16_t> digits_scratch_;
  size_t cur_node_ = 0;  // the node enumerate_curs works on
  std::vector<double> dp_prev_, dp_next_;
  std::vector<int32_t> par_;  // node-major: par_[n * states + state] = cur entry (or -1)
  std::vector<uint32_t> box_digits_;
  std::vector<std::vector<int32_t>> group_targets_;
};

}  // namespace orrery::kubedsm
