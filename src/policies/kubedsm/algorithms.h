// KubeDSM's scheduler core (paper §5.1–5.2): Algorithms 1–7 over an EdgeModel. Pure functions of
// the model (plus reusable scratch space), so they are property-tested against brute force and
// benchmarked without a cluster. policy.h turns their output into plans.
//
//   immediate_schedule   Algorithm 1   a batch of new pods, no migration
//   suggest              Algorithm 2   periodic: cloud→edge (≤ M_C2E), offloads, reordering
//   make_decision        Algorithm 3   best subset of candidates for the edge by QoS
//   best_fit             Algorithm 4   offloads (Alg. 5) then reorderings (Alg. 6)
//   free_edge_as_needed  Algorithm 5   edge→cloud offloads freeing at least `need`
//   reorder_edge         Algorithm 6   ≤ M_ER intra-edge migrations minimising fragmentation
//   apply_decision       Algorithm 7   match the decision's edge pods to nodes (the plans are
//                                      built by plan_builder.h)
//   match                Algorithm 8   match.h
//
// Candidates ("new pods" in the paper) are model pods located on the cloud: a pending new pod is
// added to the model as a cloud pod, so "all new pods on the cloud" is the model as given.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "policies/kubedsm/fragmentation.h"
#include "policies/kubedsm/match.h"
#include "policies/kubedsm/model.h"
#include "policies/kubedsm/qos.h"

namespace orrery::kubedsm {

// How much edge room suggest() may fill with cloud pods (Alg. 2 line 5; README "Suggest budget").
enum class SuggestBudget : uint8_t {
  kFree,         // the literal line 5: free resources in the edge
  kReclaimable,  // free resources plus the requests of movable edge pods, so that makeDecision's
                 // freeEdgeAsNeeded can offload pods of over-served services (the default)
};

// How makeDecision decides that a subset toEdge fits the edge (Alg. 3 lines 3–15; README
// "Feasibility").
enum class FitCheck : uint8_t {
  kApproximate,  // the paper: toEdge's total against the edge's (free) total; applyDecision's match
                 // sends what does not fit a node to the cloud (the default)
  kExact,        // a subset must also be matchable node by node (after its offloads)
};

// How suggest and freeEdgeAsNeeded size a pod in their scores (eqs 10, 12).
enum class PodSize : uint8_t {
  kEq11,   // the paper's eq. 11: sqrt of the product of the shares of the edge's total
  kEcmus,  // ecmus: the product of the shares of the largest edge node (no square root)
};

struct Config {
  QosParams qos;
  int m_c2e = 5;  // M_C2E: most cloud pods brought to the edge per suggestion
  int m_er = 3;   // M_ER: most pods reordered inside the edge per suggestion
  SuggestBudget suggest_budget = SuggestBudget::kReclaimable;
  FitCheck fit_check = FitCheck::kApproximate;
  FragFormula frag = FragFormula::kMineDraft;  // fragmentation.h
  PodSize pod_size = PodSize::kEq11;
  // ecmus's rule (alg/cloud.go, alg/in_edge.go): never move a service's last running pod. suggest
  // skips the cloud pods of services with one running pod; freeEdgeAsNeeded and reorderEdge never
  // move all the running pods of a service. Running = movable model pods.
  bool last_pod = false;
  // Whether a suggestion with no cloud candidate still reorders the edge. Alg. 3 as printed: yes
  // (makeDecision's empty subset runs bestFit, i.e. reorderEdge). ecmus: no — SuggestReorder
  // passes SuggestCloudToEdge's candidates to MakeDecisionForNewPods, which drops its migrations
  // when the decision moves no pod (alg/cluster.go), so M_C2E 0 (NoCloudOffload) never migrates.
  bool reorder_without_candidates = true;

  // Throws InputError on parameters outside their domain (negative limits, eq. 5).
  void validate() const;
};

// One migration of a model pod (to/from kCloud for cloud moves).
struct Move {
  uint32_t pod = 0;
  int32_t from = kCloud;
  int32_t to = kCloud;
  bool operator==(const Move&) const = default;
};

// The output of makeDecision (Alg. 3).
struct Decision {
  std::vector<uint32_t> to_edge;   // candidates chosen for the edge
  std::vector<uint32_t> to_cloud;  // candidates left on the cloud
  std::vector<uint32_t> offloads;  // edge pods migrated to the cloud to make room (Alg. 5)
  std::vector<Move> reorders;      // intra-edge migrations (Alg. 6)
  double qos = 0;  // QoS(u) (eq. 1) if every to_edge pod reaches the edge and the offloads happen
};

// The output of applyDecision (Alg. 7), before it becomes plans.
struct Placement {
  Decision decision;
  std::vector<Move> migrations;  // offloads (to kCloud), then reorders (edge → edge)
  std::vector<Move> edge;        // candidates matched to an edge node (from kCloud)
  std::vector<uint32_t> cloud;   // candidates that go to / stay on the cloud (incl. unmatched)
  bool empty() const { return migrations.empty() && edge.empty() && cloud.empty(); }
};

class SchedulerCore {
 public:
  explicit SchedulerCore(Config config = {});
  const Config& config() const { return config_; }

  // Algorithm 1.
  Placement immediate_schedule(const EdgeModel& m, std::span<const uint32_t> new_pods);
  // Algorithm 2.
  Placement suggest(const EdgeModel& m);
  // Algorithm 2, lines 2–14: the cloud pods suggest() will consider, in the order chosen.
  std::vector<uint32_t> suggest_candidates(const EdgeModel& m);

  // Algorithm 3. `candidates` must be cloud pods of `m`. Subsets are enumerated as count vectors
  // per service (pods of one service are interchangeable for QoS and resources), which visits
  // every subset up to a permutation of identical pods. Ties in QoS (within 1e-9) go to fewer
  // offloads, then to more pods on the edge, then to the first subset found. With migration, a
  // subset whose offloads cannot free its resources (immovable pods, a full cloud) is discarded.
  // With FitCheck::kExact, a subset that would become the best is kept only if match places all
  // its pods on the edge after its offloads (so the best feasible subset wins).
  Decision make_decision(const EdgeModel& m, std::span<const uint32_t> candidates, bool do_migrate);

  // Whether match places every pod of `to_edge` on the edge once `offloads` have left.
  bool placeable(const EdgeModel& m, std::span<const uint32_t> to_edge,
                 std::span<const uint32_t> offloads);

  // Algorithm 4: offloads freeing `to_edge`'s resources, then reorderings of the edge after them.
  void best_fit(const EdgeModel& m, std::span<const uint32_t> to_edge, Decision* d);

  // Algorithm 5. Edge pods (movable ones) to offload, chosen one at a time by the highest
  // score (eq. 12: QoS change per unit of size, re-evaluated after every removal), until the
  // edge's free resources cover `need` or no movable edge pod is left. `counts` is the QoS state
  // the scores are computed in (README: the state with the decision's edge pods already counted).
  // Among pods of the chosen service, the one whose removal lowers fragmentation most leaves.
  // With a bounded cloud (EdgeModel::cloud_bounded) only pods that still find room on a cloud node
  // are candidates (each taking the room of the cloud node with the most free cpu that fits it).
  std::vector<uint32_t> free_edge_as_needed(const EdgeModel& m, const Vec2& need,
                                            ServiceCounts counts);

  // Algorithm 6: the subset of at most M_ER movable edge pods whose re-matching (Alg. 8) gives the
  // least fragmentation, if that is below the current one. Returns only real moves.
  std::vector<Move> reorder_edge(const EdgeModel& m);

  // Algorithm 7 (matching part): the migrations, then the decision's edge pods matched on the
  // state after them; pods that do not match go to the cloud.
  Placement apply_decision(const EdgeModel& m, const Decision& d);

  Matcher& matcher() { return matcher_; }

 private:
  void enumerate_reorders(const EdgeModel& m, size_t start, int left);
  // makeDecision's offloads for a subset (`sum`, `cur`), whether they free room, QoS after them.
  double qos_after_offloads(const EdgeModel& m, const Vec2& sum, const ServiceCounts& cur,
                            const Vec2& free, std::vector<uint32_t>& offloads, bool& feasible);
  void evaluate_reorder(const EdgeModel& m);
  // The fragmentation formula and normalisation for `m` (config_.frag).
  FragNorm frag_norm(const EdgeModel& m) const;
  // A pod's size in the eq. 10/12 scores (config_.pod_size).
  double size_of(const EdgeModel& m, const Vec2& request) const;
  // Running (movable) pods per service (last_pod).
  std::vector<int64_t> running_pods(const EdgeModel& m) const;

  Config config_;
  Matcher matcher_;
  // reorder_edge scratch.
  struct Group {
    int32_t node;
    Vec2 request;
    std::vector<uint32_t> pods;
  };
  std::vector<Group> groups_;
  std::vector<uint32_t> chosen_count_;  // per group
  std::vector<Vec2> free_scratch_;
  std::vector<Vec2> cloud_scratch_;
  std::vector<Vec2> free_work_;
  std::vector<Vec2> vec_scratch_;
  std::vector<uint32_t> removed_;
  std::vector<int64_t> running_;  // reorder_edge with last_pod: running pods per service
  std::vector<uint32_t> subset_;  // makeDecision's toEdge (FitCheck::kExact)
  double least_frag_ = 0;
  std::vector<uint32_t> best_removed_;
  std::vector<int32_t> best_targets_;
};

// Resource sum of a list of model pods.
Vec2 sum_requests(const EdgeModel& m, std::span<const uint32_t> pods);

}  // namespace orrery::kubedsm
