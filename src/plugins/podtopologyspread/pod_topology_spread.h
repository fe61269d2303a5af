// PodTopologySpread (PreFilter, Filter, PreScore, Score; default weight 2), as upstream v1.34
// (node inclusion policies and minDomains GA; matchLabelKeys merged into the selector):
//  - PreFilter/Filter (whenUnsatisfiable: DoNotSchedule): per constraint, matching pods are counted
//    per topology value over the eligible nodes (nodes carrying every constraint's key and passing
//    the constraint's nodeAffinityPolicy / nodeTaintsPolicy). A node is rejected when it lacks a
//    key ("node(s) didn't match pod topology spread constraints (missing required label)",
//    unresolvable) or when count(value) + self-match - global minimum > maxSkew ("node(s) didn't
//    match pod topology spread constraints"); the global minimum is 0 while fewer than minDomains
//    domains exist.
//  - PreScore/Score (ScheduleAnyway): score = Σ count·log(domains + 2) + maxSkew - 1 per node
//    (hostname counts on the node itself, other keys over all eligible nodes of the value),
//    rounded, then normalised as 100·(max + min - s)/max; nodes missing a key score 0.
//  - Pods without constraints get the default constraints: upstream's system defaults
//    (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway) or args.defaultConstraints
//    (defaultingType: List), with the selector of the pod's controller. Orrery has no Service or
//    ReplicaSet objects, so that selector is "same namespace and same owner (ReplicaSet,
//    Deployment or StatefulSet)", which is what the controller's selector matches in practice.
#pragma once

#include <unordered_map>
#include <vector>

#include "framework/plugin.h"
#include "io/yaml_util.h"
#include "plugins/helper/node_cache.h"

namespace orrery::plugins {

struct PodTopologySpreadArgs {
  bool system_defaulting = true;
  std::vector<TopologySpreadConstraint> default_constraints;  // defaultingType: List
  static PodTopologySpreadArgs parse(const yaml::Ctx& args);
};

class PodTopologySpread : public fw::Plugin {
 public:
  explicit PodTopologySpread(PodTopologySpreadArgs args = {});
  std::string_view name() const override;
  uint32_t extension_points() const override {
    return fw::kPreFilter | fw::kFilter | fw::kPreScore | fw::kScore;
  }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
  void pre_filter_remove_pod(const fw::CycleContext& cycle, PodId other, NodeId node) override;
  void pre_filter_add_pod(const fw::CycleContext& cycle, PodId other, NodeId node) override;
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;
  fw::Status pre_score(const fw::CycleContext& cycle, std::span<const NodeId> nodes) override;
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;
  void normalize(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                 int64_t* scores) override;

 private:
  // The topology domains of one label key as dense indices: per node, the index of its value
  // (0 is the empty value "", which is also what a node without the label has upstream) and
  // whether the node carries the label. Rebuilt when the nodes change.
  struct Domains {
    std::vector<uint32_t> of_node;
    std::vector<uint8_t> has;
    uint32_t count = 1;
    uint64_t epoch = ~uint64_t{0};
  };
  // A constraint compiled for the pod being scheduled.
  struct Constraint {
    int32_t max_skew = 1;
    StrId key = kNoStr;
    const Domains* domains = nullptr;
    bool hostname = false;
    int32_t min_domains = 1;
    bool honor_affinity = true;
    bool honor_taints = false;
    // Selector: the pod's labelSelector (+ matchLabelKeys values), or the pod's controller group.
    const LabelSelector* labels = nullptr;
    std::vector<std::pair<StrId, StrId>> label_values;
    bool by_owner = false;
    bool counts_nothing = false;  // no labelSelector: upstream counts no pods
    bool self_match = false;      // the selector matches the incoming pod
  };
  enum Code : uint16_t { kMissingLabel = 0, kSkew = 1 };

  const Domains& domains(const ClusterState& st, StrId key);
  void compile(const fw::CycleContext& cycle, SpreadWhenUnsatisfiable action,
               std::vector<Constraint>* out);
  bool selects(const Constraint& c, const fw::CycleContext& cycle, PodId other) const;
  // Matching pods on a node (the group counts must have been scattered for owner selectors).
  int64_t count_on_node(const fw::CycleContext& cycle, const Constraint& c, NodeId node) const;
  void scatter_group(const ClusterState& st);
  bool has_all_keys(NodeId node, const std::vector<Constraint>& cs) const;
  bool included(const fw::CycleContext& cycle, const Constraint& c, NodeId id) const;
  void update_with_pod(const fw::CycleContext& cycle, PodId other, NodeId node, int64_t delta);
  void refresh_min(size_t i);
  // The steps of score() (pod_topology_spread.cc).
  struct ScoreView;
  static constexpr size_t kMaxScoreViews = 16;
  void compute_soft_terms();
  size_t fill_score_views(ScoreView* views) const;
  void precompute_default_scores(const ScoreView* views);
  double add_unviewed_terms(const fw::CycleContext& cycle, NodeId id, size_t from, double s) const;

  PodTopologySpreadArgs args_;
  std::vector<TopologySpreadConstraint> defaults_;
  NodeCache<StrId> node_names_;
  const std::vector<StrId>* names_ = nullptr;  // node_names_ for the current cycle
  std::unordered_map<StrId, Domains> domains_;

  // The incoming pod's controller group and its replicas per node (dense, NodeId-indexed).
  GroupId group_ = kNoGroup;
  std::vector<int32_t> group_count_;
  std::vector<NodeId> group_touched_;

  // PreFilter state, per hard constraint: matching pods per domain (-1: not a domain), minimum.
  std::vector<Constraint> hard_;
  std::vector<std::vector<int64_t>> hard_counts_;
  std::vector<int64_t> hard_min_;
  std::vector<int64_t> hard_num_domains_;
  std::vector<uint8_t> hard_min_dirty_;

  // PreScore state.
  std::vector<Constraint> soft_;
  std::vector<std::vector<int64_t>> soft_counts_;  // non-hostname keys, per domain (-1: none)
  std::vector<double> soft_weight_;
  std::vector<size_t> topo_size_;                // candidate domains per constraint
  std::vector<std::vector<double>> soft_terms_;  // per constraint and domain: a node's term
  std::vector<int64_t> fast_;                    // system defaults: scores of replica-free nodes
  std::vector<uint8_t> ignored_;                 // per scored node position
};

}  // namespace orrery::plugins
