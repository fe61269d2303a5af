// KubCG's decision unit (§5.3, Fig. 8) as one framework plugin named "KubCG":
//
//   Filter   runs last among the profile's filters, on the nodes the others found feasible:
//            the EP filter and estimator corrector (corrector.h), the NS/RP tables and the GPU
//            waiting queue of each node, then the decider (decider.h). It keeps only the chosen
//            node, or none while the pod waits for a busy GPU (it then waits in that node's GPU
//            queue and is retried when a pod finishes; the profile's backoff is 1 s).
//   Mutate   the switch (switch.h): the chosen variant's image and GPU request.
//   events   the feedback loop: every pod that finishes on a node becomes a Record (T_Cr from
//            bound to running, T_Ex from running to finished, the most pods running on the node
//            meanwhile, exit status) committed to the history database; the statistics cache
//            follows at once. A failed run teaches an incompatible image/node pair.
//
// The unit is shared by the plugin instances a policy creates (one per profile) and outlives
// them; it never touches the database during a decision.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/plugin.h"
#include "policies/kubcg/corrector.h"
#include "policies/kubcg/decider.h"
#include "policies/kubcg/history.h"
#include "policies/kubcg/switch.h"
#include "policies/kubcg/timeline.h"

namespace orrery::kubcg {

inline constexpr std::string_view kPluginName = "KubCG";

struct UnitCounters {
  int64_t decisions = 0, waits = 0, switches = 0, cold_starts = 0, recorded = 0, failed_runs = 0,
          incompatibilities_learned = 0, corrections = 0;
};

class DecisionUnit {
 public:
  // Takes the store; loads its statistics and learned incompatibilities.
  explicit DecisionUnit(std::unique_ptr<HistoryStore> store);
  ~DecisionUnit();

  ThetaModel& theta() { return theta_; }
  const StatsCache& stats() const { return cache_; }
  HistoryStore& store() { return *store_; }
  HistoryWriter& writer() { return writer_; }
  const Incompatibilities& incompatibilities() const { return incompat_; }
  const UnitCounters& counters() const { return counters_; }
  const EpTable& ep() const { return ep_; }
  // Called with every decision (tests, `explain`).
  std::function<void(const Pod&, const Decision&)> on_decision;

  // Builds the decider's input for `pod` on `nodes` and decides.
  Decision decide(const ClusterState& state, PodId pod, uint64_t serial, const NodeId* nodes,
                  size_t n, double now_s, const ImageVariants& v);
  // The pod chose (and will be bound to) node: its EP entry.
  void placed(const ClusterState& state, uint64_t serial, const Decision& d, double now_s);
  void waiting(uint64_t serial, const std::string& node, double tau_s);
  void not_waiting(uint64_t serial);
  void on_event(const ClusterState& state, const fw::ClusterEvent& e);
  // Commits pending records (at the end of a run).
  bool flush() { return writer_.flush(/*force=*/true); }
  void count_switch() { ++counters_.switches; }

 private:
  struct Tracked {
    std::string image, node;
    Resource resource = Resource::kCpu;
    double bound_s = -1, running_s = -1;
    int concurrency = 1;
  };
  void track_bound(const ClusterState& state, const fw::ClusterEvent& e);
  void finished(const ClusterState& state, const fw::ClusterEvent& e);
  void forget(uint64_t serial);

  std::unique_ptr<HistoryStore> store_;
  StatsCache cache_;
  HistoryWriter writer_;
  ThetaModel theta_;
  Incompatibilities incompat_;
  EpTable ep_;
  std::unordered_map<uint64_t, Tracked> tracked_;
  std::map<std::string, std::deque<std::pair<uint64_t, double>>> gpu_queues_;  // node → (pod, τ)
  std::unordered_map<uint64_t, std::string> queued_on_;
  UnitCounters counters_;
  std::vector<NodeStatus> scratch_;
};

class KubcgPlugin : public fw::Plugin {
 public:
  // `state`: the cluster whose events on_event() receives (the runtime's), or null.
  KubcgPlugin(std::shared_ptr<DecisionUnit> unit, const ClusterState* state)
      : unit_(std::move(unit)), state_(state) {}
  std::string_view name() const override { return kPluginName; }
  uint32_t extension_points() const override { return fw::kFilter | fw::kMutate; }
  size_t filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                fw::Rejections& rejections) override;
  void describe(const ClusterState& state, const fw::Rejection& r,
                std::vector<std::string>* reasons) const override;
  std::optional<fw::PodUpdate> mutate(const fw::CycleContext& cycle, NodeId node) override;
  void on_event(const fw::ClusterEvent& event) override;

 private:
  std::shared_ptr<DecisionUnit> unit_;
  const ClusterState* state_ = nullptr;
  // The last cycle's decision, for Mutate.
  uint64_t decided_serial_ = 0;
  Decision decision_;
  ImageVariants variants_;
  std::string message_;  // why the last pod was rejected
};

}  // namespace orrery::kubcg
