// InterPodAffinity (PreFilter, Filter, PreScore, Score; default weight 2), as upstream v1.34
// (pkg/scheduler/framework/plugins/interpodaffinity):
//  - PreFilter counts, per topology pair (label key, value), the existing pods that match the
//    incoming pod's required affinity terms (a pod counts only if it matches every term), those
//    matching its required anti-affinity terms, and the existing pods whose required anti-affinity
//    terms match the incoming pod (upstream's affinityCounts, antiAffinityCounts,
//    existingAntiAffinityCounts). Existing pods' terms come from ClusterState's index of pods
//    with required anti-affinity, so a cluster where few pods have terms is not scanned; every
//    pod is scanned only when the incoming pod has required terms of its own (as upstream). Skip
//    when the pod has no required terms and no existing pod's anti-affinity matches it.
//  - Filter, O(terms) per node from those counts: "node(s) didn't match pod affinity rules"
//    (UnschedulableAndUnresolvable; also when the node lacks a term's topology key; a pod whose
//    terms match no pod anywhere but match itself passes), "node(s) didn't match pod
//    anti-affinity rules", "node(s) didn't satisfy existing pods anti-affinity rules".
//  - PreFilterExtensions (add/remove pod) update the counts for preemption's what-if.
//  - PreScore/Score: Σ over topology pairs of the node of: the incoming pod's preferred
//    (anti-)affinity weights (±) for matching existing pods, hardPodAffinityWeight for each
//    existing pod's required affinity term the incoming pod matches, and existing pods'
//    preferred (anti-)affinity weights (±) toward it; normalised min-max to 0..100 (float, then
//    truncated, as upstream). Without preferred terms of its own only the pods in ClusterState's
//    pods_with_scoring_affinity() are visited. Skip when nothing applies (no term matched on a
//    node with its topology key, or ignorePreferredTermsOfExistingPods and no preferred terms).
// Namespaces: a term without namespaces and namespaceSelector means the pod's own namespace; the
// incoming pod's namespaceSelector is resolved against the Namespace objects in the state
// ({} = every namespace); an existing pod's namespaceSelector is matched against the incoming
// pod's namespace labels (none when the namespace has no object). Terminating pods count, as
// upstream (this plugin does not look at deletionTimestamp).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "framework/plugin.h"
#include "io/yaml_util.h"

namespace orrery::plugins {

struct InterPodAffinityArgs {
  int32_t hard_pod_affinity_weight = 1;  // 0..100
  bool ignore_preferred_terms_of_existing_pods = false;
  static InterPodAffinityArgs parse(const yaml::Ctx& args);
};

class InterPodAffinity : public fw::Plugin {
 public:
  explicit InterPodAffinity(InterPodAffinityArgs args = {});
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
  // Queueing hints: a pod counted or uncounted anywhere, or a node change, may change a verdict.
  fw::QueueingHint queueing_hint(const fw::QueueEvent& event, const ClusterState& state,
                                 const fw::PodClassKey& waiting) const override;
  // The verdicts depend on the pod's spec (labels, terms) and namespace only, which the class key
  // already holds.
  uint64_t class_salt(const ClusterState& state, PodId pod) const override;
  void score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
             int64_t* scores) override;
  void normalize(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                 int64_t* scores) override;

  // The PreFilter counts by topology pair "key=value", zero entries left out (upstream's
  // preFilterState maps), for tests.
  struct CountsForTesting {
    std::map<std::string, int64_t> affinity, anti_affinity, existing_anti_affinity;
  };
  CountsForTesting counts_for_testing(const ClusterState& st) const;

 private:
  // The topology domains of one label key: per node, a dense index of its value and whether the
  // node has the key. Rebuilt when the nodes change.
  struct Domains {
    std::vector<uint32_t> of_node;
    std::vector<uint8_t> has;
    uint32_t count = 0;
    uint64_t epoch = ~uint64_t{0};
  };
  // Counts per topology pair, grouped by key (upstream's map[topologyPair]int64 and scoreMap).
  // Arrays are kept between cycles and only the touched entries are reset.
  class TopoCounts {
   public:
    void reset();
    size_t find(StrId key) const;  // key index, or npos
    size_t add_key(StrId key, const Domains* d);
    // count(pair of `node` under key k) += v, when the node has the key. Returns whether it has.
    bool add(size_t k, NodeId node, int64_t v);
    size_t size() const { return used_; }
    StrId key(size_t k) const { return keys_[k].key; }
    const Domains& domains(size_t k) const { return *keys_[k].d; }
    const int64_t* counts(size_t k) const { return keys_[k].count.data(); }
    // Pairs with a non-zero count (upstream's len(map): entries reaching 0 are deleted).
    int64_t nonzero() const { return nonzero_; }
    static constexpr size_t npos = ~size_t{0};

   private:
    struct Key {
      StrId key = kNoStr;
      const Domains* d = nullptr;
      std::vector<int64_t> count;
      std::vector<uint32_t> touched;
    };
    std::vector<Key> keys_;
    size_t used_ = 0;
    int64_t nonzero_ = 0;
  };
  // One of the incoming pod's terms, with its namespaces resolved (mergeAffinityTermNamespaces).
  struct Term {
    const LabelSelector* selector = nullptr;  // nullptr: matches no pod
    bool all_namespaces = false;
    std::vector<std::string_view> namespaces;  // sorted, unique
    std::vector<StrId> namespace_ids;          // the same, interned (for the pod mirror)
    StrId key = kNoStr;
    size_t k = 0;  // index of `key` in the term's TopoCounts
    int64_t weight = 0;
  };
  // The counted pods of each node, flat: namespace and a copy of the labels, refreshed per node
  // when its version (ClusterState::node_versions) changes. The scans for the incoming pod's own
  // terms read these contiguous arrays instead of every pod's object and spec (3 cache misses
  // per pod). Built lazily: pods without terms of their own never need it.
  struct MirroredPod {
    StrId ns;
    uint32_t begin, end;  // its labels in NodePods::labels, sorted by key
  };
  struct NodePods {
    uint64_t version = 0;  // 0: never synced (versions start at 1)
    std::vector<MirroredPod> pods;
    std::vector<std::pair<StrId, StrId>> labels;
  };
  enum Code : uint16_t { kAffinity = 0, kAntiAffinity = 1, kExisting = 2 };

  void sync_mirror(const ClusterState& st);
  static bool matches(const Term& t, const NodePods& np, const MirroredPod& p);

  const Domains& domains(const ClusterState& st, StrId key);
  size_t key_index(TopoCounts& counts, const ClusterState& st, StrId key);
  void set_incoming(const fw::CycleContext& cycle);
  void compile(const fw::CycleContext& cycle, const PodAffinityTerm& term, int64_t weight,
               TopoCounts& counts, std::vector<Term>* out);
  static bool matches(const Term& t, const Pod& other);
  // Does `owner`'s term match the incoming pod (namespaceSelector against its namespace labels)?
  bool existing_matches(const PodAffinityTerm& t, const Pod& owner) const;
  void update_with_pod(const fw::CycleContext& cycle, PodId other, NodeId node, int64_t m);
  void add_score(const ClusterState& st, StrId key, NodeId node, int64_t v);

  InterPodAffinityArgs args_;
  std::unordered_map<StrId, Domains> domains_;
  std::vector<NodePods> mirror_;  // by NodeId

  // The incoming pod of the current cycle.
  const Pod* in_pod_ = nullptr;
  const LabelSet* in_labels_ = nullptr;
  const LabelSet* in_ns_labels_ = nullptr;
  StrId in_ns_ = kNoStr;

  // PreFilter state.
  bool active_ = false;  // pre_filter did not skip
  std::vector<Term> req_affinity_, req_anti_affinity_;
  bool self_match_ = false;  // the pod matches all its own required affinity terms
  TopoCounts affinity_, anti_affinity_, existing_anti_;

  // PreScore state.
  std::vector<Term> pref_affinity_, pref_anti_affinity_;
  TopoCounts score_;
  bool any_score_ = false;
};

}  // namespace orrery::plugins
