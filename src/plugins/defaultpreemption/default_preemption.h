// DefaultPreemption (PostFilter), upstream v1.34 preemption:
//  1. Eligibility (PodEligibleToPreemptOthers): preemptionPolicy Never → "not eligible due to
//     preemptionPolicy=Never."; a pod whose nominated node still has lower-priority pods being
//     deleted by an earlier preemption waits ("not eligible due to a terminating pod on the
//     nominated node."), unless that node is now unresolvable for it.
//  2. Candidates: nodes whose filter status is Unschedulable (not ...AndUnresolvable), dry-run in
//     order from a random offset (0 with `deterministic`) until max(10 %, 100) of them
//     (minCandidateNodesPercentage / minCandidateNodesAbsolute) yield victims.
//  3. SelectVictimsOnNode: remove every lower-priority pod; if the pod then passes the filters,
//     re-add ("reprieve") them keeping each one that still lets the pod fit: first the pods whose
//     eviction would violate a PodDisruptionBudget (filterPodsWithPDBViolation: a budget of the
//     pod's namespace whose non-empty selector matches the pod's labels, not listing it in
//     status.disruptedPods, has its status.disruptionsAllowed decremented per matching pod; a pod
//     taking one below 0 violates), then the others, each group from the most important (priority
//     desc, earlier start first); the rest are the victims, with the number that violate.
//  4. pickOneNodeForPreemption: fewest PDB violations, lowest highest-victim priority, lowest
//     Σ(priority + 2^31), fewest victims, latest start of the highest-priority victims, then the
//     first candidate.
// With no candidate the message is "preemption: 0/N nodes are available: <reasons>." where
// nodes never dry-run count as "Preemption is not helpful for scheduling".
// Orrery has no pod start times in snapshots: creationTimestamp stands in for status.startTime.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "framework/plugin.h"
#include "io/yaml_util.h"

namespace orrery::plugins {

struct DefaultPreemptionArgs {
  int64_t min_candidate_nodes_percentage = 10;
  int64_t min_candidate_nodes_absolute = 100;
  static DefaultPreemptionArgs parse(const yaml::Ctx& args);
};

// filterPodsWithPDBViolation: `pods` (in order) split into those whose eviction would violate a
// PodDisruptionBudget of the state's and the others.
void split_by_pdb_violation(const ClusterState& st, const std::vector<PodId>& pods,
                            std::vector<PodId>* violating, std::vector<PodId>* non_violating);

class DefaultPreemption : public fw::Plugin {
 public:
  explicit DefaultPreemption(DefaultPreemptionArgs args = {}, bool deterministic = false);
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kPostFilter; }
  fw::PostFilterResult post_filter(const fw::CycleContext& cycle, fw::Handle& handle,
                                   const fw::Rejections& rejections) override;
  void on_event(const fw::ClusterEvent& event) override;
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;

  // SelectVictimsOnNode: true with the victims (most important first) when evicting them lets the
  // pod fit on `node`; false with the reasons otherwise. The state is restored before returning.
  bool select_victims_on_node(const fw::CycleContext& cycle, fw::Handle& handle, NodeId node,
                              std::vector<PodId>* victims, std::vector<std::string>* reasons,
                              int* pdb_violations = nullptr);
  // calculateNumCandidates.
  size_t num_candidates(size_t num_nodes) const;

 private:
  DefaultPreemptionArgs args_;
  bool deterministic_;
  std::unordered_set<uint64_t> terminating_;  // serials of victims being deleted
};

}  // namespace orrery::plugins
