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

#include "core/yaml_util.h"
#include "framework/plugin.h"
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
  fw::Status pre_score(const fw::CycleContext& cycle, std::span<const NodeId> nodes) override;
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;
  void normalize(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                 int64_t* scores) override;

 private:
  // A constraint compiled for the pod being scheduled.
  struct Constraint {
    int32_t max_skew = 1;
    StrId key = kNoStr;
    bool hostname = false;
    int32_t min_domains = 1;
    bool honor_affinity = true;
    bool honor_taints = false;
    // Selector: the pod's labelSelector (+ matchLabelKeys values), or the pod's owner.
    const LabelSelector* labels = nullptr;
    std::vector<std::pair<StrId, StrId>> label_values;
    bool by_owner = false;
    bool counts_nothing = false;  // empty selector: upstream counts no pods
    bool self_match = false;      // the selector matches the incoming pod
  };
  enum Code : uint16_t { kMissingLabel = 0, kSkew = 1 };

  void compile(const fw::CycleContext& cycle, SpreadWhenUnsatisfiable action,
               std::vector<Constraint>* out) const;
  bool selects(const Constraint& c, const fw::CycleContext& cycle, const Pod& other) const;
  int64_t count_on_node(const fw::CycleContext& cycle, const Constraint& c, NodeId node) const;
  bool has_all_keys(const Node& node, const std::vector<Constraint>& cs) const;
  bool included(const fw::CycleContext& cycle, const Constraint& c, NodeId id) const;
  void update_with_pod(const fw::CycleContext& cycle, PodId other, NodeId node, int64_t delta);
  void refresh_min(size_t i);
  void refresh_names(const ClusterState& st);

  PodTopologySpreadArgs args_;
  std::vector<TopologySpreadConstraint> defaults_;
  NodeCache<StrId> node_names_;
  const std::vector<StrId>* names_ = nullptr;  // node_names_ for the current cycle

  // PreFilter state, per hard constraint: matching pods per topology value, global minimum.
  std::vector<Constraint> hard_;
  std::vector<std::unordered_map<StrId, int64_t>> hard_counts_;
  std::vector<int64_t> hard_min_;
  std::vector<uint8_t> hard_min_dirty_;

  // PreScore state.
  std::vector<Constraint> soft_;
  std::vector<std::unordered_map<StrId, int64_t>> soft_counts_;  // non-hostname keys
  std::vector<double> soft_weight_;
  std::vector<uint8_t> ignored_;  // per scored node position
};

}  // namespace orrery::plugins
