// NodeAffinity (PreFilter, Filter, PreScore, Score; default weight 2), as upstream:
//  - PreFilter: Skip when the pod has no nodeSelector, no required node affinity and the plugin no
//    addedAffinity; required terms whose every term pins metadata.name (matchFields In) narrow the
//    candidates to those nodes; disjoint pins → "pod affinity terms conflict".
//  - Filter: addedAffinity.required must match ("node(s) didn't match scheduler-enforced node
//    affinity"), then nodeSelector AND required terms ("node(s) didn't match Pod's node
//    affinity/selector"); both UnschedulableAndUnresolvable.
//  - Score: Σ weights of matching preferred terms (pod's and addedAffinity's; empty terms ignored),
//    normalised by the maximum (DefaultNormalizeScore(100, false)). PreScore skips pods without
//    preferred terms when addedAffinity has none.
//  - Terms with a requirement upstream's parser rejects (an invalid label value, a non-integer
//    Gt/Lt value; NodeSelectorRequirement::errors): a required term never matches; a preferred
//    term fails PreScore with upstream's field errors; in addedAffinity they are config errors.
// Args: addedAffinity (a v1.NodeAffinity applied to every pod of the profile).
#pragma once

#include <optional>
#include <vector>

#include "framework/plugin.h"
#include "framework/registry.h"
#include "plugins/helper/label_columns.h"
#include "plugins/helper/node_cache.h"

namespace orrery::plugins {

struct NodeAffinityArgs {
  NodeAffinity added;
  static NodeAffinityArgs parse(const yaml::Ctx& args);
};

class NodeAffinityPlugin : public fw::Plugin {
 public:
  explicit NodeAffinityPlugin(NodeAffinityArgs args = {});
  std::string_view name() const override;
  uint32_t extension_points() const override {
    return fw::kPreFilter | fw::kFilter | fw::kPreScore | fw::kScore;
  }
  fw::Status pre_filter(const fw::CycleContext& cycle,
                        std::optional<std::vector<NodeId>>* only) override;
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
  enum Code : uint16_t { kPod = 0, kEnforced = 1 };
  NodeAffinityArgs args_;
  NodeCache<StrId> node_names_;  // interned node names (matchFields metadata.name)
  LabelColumns columns_;
  // PreFilter state: the pod's nodeSelector as (column, wanted value) pairs.
  std::vector<std::pair<const LabelColumns::Column*, StrId>> selector_;
  // PreScore state: the preferred terms to score, label requirements with their columns.
  struct Requirement {
    const NodeSelectorRequirement* r;
    const LabelColumns::Column* column;
  };
  struct Term {
    const PreferredSchedulingTerm* term;
    std::vector<Requirement> requirements;  // empty when the term has matchFields (slow path)
  };
  std::vector<Term> preferred_;
};

}  // namespace orrery::plugins
