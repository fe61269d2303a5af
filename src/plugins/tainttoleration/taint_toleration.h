// TaintToleration (Filter, PreScore, Score; default weight 3), as upstream:
//  - Filter: the first NoSchedule/NoExecute taint (in node order) the pod does not tolerate
//    rejects the node: "node(s) had untolerated taint {key: value}" (UnschedulableAndUnresolvable).
//  - Score: the number of PreferNoSchedule taints not tolerated by the pod's tolerations whose
//    effect is PreferNoSchedule or empty, normalised reversed (DefaultNormalizeScore(100, true)):
//    fewest intolerable taints → 100.
#pragma once

#include "framework/plugin.h"
#include "plugins/helper/node_cache.h"

namespace orrery::plugins {

class TaintToleration : public fw::Plugin {
 public:
  std::string_view name() const override;
  uint32_t extension_points() const override { return fw::kFilter | fw::kPreScore | fw::kScore; }
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
  // kMaxNodeScore when no node has a PreferNoSchedule taint.
  std::optional<int64_t> uniform_score(const fw::CycleContext& cycle,
                                       std::span<const NodeId> nodes) override;

 private:
  enum : uint8_t { kHasHardTaint = 1, kHasPreferTaint = 2 };
  const std::vector<uint8_t>& flags(const ClusterState& st);
  NodeCache<uint8_t> flags_;
  std::vector<Toleration> prefer_tolerations_;  // PreScore state
  int64_t max_count_ = 0;                       // Score → NormalizeScore
};

}  // namespace orrery::plugins
