// The scheduler: a queue of pending pods and the scheduling cycle of kube-scheduler
// (PreFilter → Filter → PostFilter → PreScore → Score → NormalizeScore → select host → assume →
// Reserve → Permit → PreBind → Bind → PostBind), over one or more profiles selected by the pod's
// schedulerName. It listens to the backend's events to keep its queue current.
//
// Node sampling follows upstream exactly: numFeasibleNodesToFind (adaptive percentage
// 50 - nodes/125, at least 5 % and 100 nodes), filtering walks the node tree's zone-interleaved
// list (node_tree.h) from where the previous cycle stopped (nextStartNodeIndex) and stops once
// enough feasible nodes are found.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/rng.h"
#include "framework/backend.h"
#include "framework/node_tree.h"
#include "framework/profile.h"
#include "framework/queue.h"
#include "framework/reservations.h"

namespace orrery::fw {

struct SchedulerOptions {
  uint64_t seed = 0;
  int percentage_of_nodes_to_score = 0;  // global default for profiles that leave it at -1
  QueueOptions queue;
  // Explain failed attempts in ScheduleOutcome::message (kube-scheduler's "0/N nodes are
  // available: ..."). Off where nobody reads them (the simulator), which makes failures cheaper.
  bool failure_messages = true;
  // Record ScheduleOutcome::margin for scored placements (`orrery schedule -o wide`). Costs one
  // copy of every score plugin's normalised scores per cycle.
  bool record_margins = false;
};

// How a scored placement was won (SchedulerOptions::record_margins): the chosen node's weighted
// total, the best total among the other scored nodes (the runner-up, the first such node in the
// visiting order on a tie) and the score plugin whose weighted score favoured the winner most
// over the runner-up. Plugins that scored every node alike change neither and are left out.
struct ScoreMargin {
  int64_t winner_total = 0;
  int64_t runner_up_total = 0;
  NodeId runner_up = kNoNode;
  std::string top_plugin;       // "" when no plugin favoured the winner (a tie)
  int64_t top_plugin_gain = 0;  // weight × (winner's − runner-up's normalised score)
};

// The result of one scheduling attempt.
struct ScheduleOutcome {
  PodId pod = kNoPod;
  uint64_t serial = 0;
  bool scheduled = false;
  NodeId node = kNoNode;
  NodeId nominated_node = kNoNode;  // preemption chose this node; victims are being deleted
  std::vector<PodId> victims;
  std::string message;  // the FitError message when not scheduled
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
  int64_t wall_ns = 0;  // time spent in the cycle
  // With record_margins, for a pod placed after scoring two or more feasible nodes.
  std::optional<ScoreMargin> margin;
  // False for a requeue-all probe that failed (framework/queue.h): the attempt had no effect and
  // is not a decision (no stats, no simulated latency, no message).
  bool counted = true;
};

// Per-node detail of one pod's evaluation (`orrery score`).
struct NodeEvaluation {
  NodeId node = kNoNode;
  bool feasible = false;
  std::vector<std::string> reasons;
  // Every score plugin of the profile → its normalized score (0..100, before weights); a plugin
  // whose PreScore returned Skip for this pod contributes 0 (as upstream, where it is left out).
  std::vector<std::pair<std::string, int64_t>> scores;
  int64_t total = 0;  // Σ weight × score
  // The same per plugin with its raw score (before NormalizeScore) and weight (`orrery explain`).
  struct PluginScore {
    std::string plugin;
    int64_t raw = 0, normalized = 0, weight = 0;
    bool skipped = false;  // PreScore returned Skip: the plugin does not score this pod
  };
  std::vector<PluginScore> details;
};

class Scheduler : public EventListener, private Reservations::Listener {
 public:
  // `reservations`: the runtime's shared registry (nominations are kept there, and plan and
  // capacity reservations of others are respected); null: a private one.
  Scheduler(ClusterBackend& backend, std::vector<std::unique_ptr<Profile>> profiles,
            SchedulerOptions options = {}, Reservations* reservations = nullptr);
  ~Scheduler() override;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues every pending pod of the current state that one of the profiles is responsible for.
  void enqueue_pending();
  // Pods ready to schedule now.
  bool has_ready_pod();
  // Pops the next ready pod and runs one scheduling cycle; nullopt if no pod is ready.
  std::optional<ScheduleOutcome> schedule_next();
  // Runs cycles until no pod is ready. Returns the outcomes in order.
  std::vector<ScheduleOutcome> run_until_idle();
  // When the next pod becomes ready by itself (backoff expiry or the unschedulable flush), if
  // nothing else happens.
  std::optional<int64_t> next_wakeup_us();

  // Filters and scores every node for a pod without binding it (percentage 100, no sampling),
  // running PreFilter, Filter, PreScore, Score and NormalizeScore as a scheduling cycle would.
  // `details` false: only feasible, reasons and total per node (no per-plugin scores; the
  // extender's hot path).
  std::vector<NodeEvaluation> evaluate(PodId pod, bool details = true);
  // Runs one scheduling cycle for a pending pod now, as if it were popped next (queued or not),
  // with the options' node sampling, PostFilter (preemption: victims are deleted through the
  // backend) and binding. For `orrery explain`, on a throwaway snapshot.
  ScheduleOutcome attempt(PodId pod);

  // The profile responsible for a pod, or nullptr.
  Profile* profile_for(const Pod& pod) const;
  const std::vector<std::unique_ptr<Profile>>& profiles() const { return profiles_; }
  SchedulingQueue& queue() { return queue_; }
  // Why a pending pod is kept out of the queue by a PreEnqueue plugin ("SchedulingGates: ..."), or
  // nullptr when it is not.
  const std::string* gated(uint64_t serial) const;
  size_t gated_count() const { return gated_.size(); }
  // Pods changed by Mutate plugins in place.
  uint64_t mutations() const { return mutations_; }
  ClusterBackend& backend() { return backend_; }

  void on_event(const ClusterEvent& e) override;
  void on_released(const Reservation& r) override;

  // The equivalence class of a pending pod (framework/queueing_hint.h).
  PodClassKey class_key(PodId pod, uint64_t serial) const;
  // Whether `event` may help a pod of class `key` whose last counted failure recorded `mask`:
  // some plugin the mask names (bit i: the profile's plugin i) answers kQueue.
  bool hint(const PodClassKey& key, uint64_t mask, const QueueEvent& event) const;
  // Rejection-mask bits that name no plugin: the failure had no nodes to try (only a new node
  // helps), or any event may help (e.g. a failure after a node was chosen).
  static constexpr uint64_t kMaskNoNodes = uint64_t{1} << 62;
  static constexpr uint64_t kMaskAny = uint64_t{1} << 63;

 private:
  // scheduler.cc: construction, admission and the queue, cluster events, pod classes and queueing
  // hints, run_filters, evaluate() and attempt(). scheduling_cycle.cc: schedule_cycle() and its
  // steps below, with the plugin runners and the what-if services of the profiles' handles.
  // Each profile's FrameworkRunner (its plugins' Handle) runs its what-if services through the
  // Scheduler that runs the profile (run_filters, the reservations).
  friend class FrameworkRunner;
  struct PreFilterOutcome;  // what PreFilter made of the pod (scheduling_cycle.cc)
  struct ScoreSummary;      // the totals' top score, its ties and what margin_of needs
  ScheduleOutcome schedule_cycle(QueuedPod qp);
  // The steps of schedule_cycle(), in order.
  void scheduling_cycle(QueuedPod& qp, ScheduleOutcome& out);
  Profile* profile_for_cycle(const QueuedPod& qp, ScheduleOutcome& out);
  void drop_probe(const QueuedPod& qp, ScheduleOutcome& out);
  void probe_failed(const QueuedPod& qp, ScheduleOutcome& out);
  void run_pre_filters(Profile& prof, const CycleContext& cycle, PreFilterOutcome& pre);
  size_t find_nodes_that_fit(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                             const std::optional<std::vector<NodeId>>& only, ScheduleOutcome& out);
  void hold_reservations(const QueuedPod& qp);
  void handle_fit_error(Profile& prof, const CycleContext& cycle, QueuedPod& qp,
                        PreFilterOutcome& pre, ScheduleOutcome& out);
  void explain_fit_error(const Profile& prof, PreFilterOutcome& pre, Diagnosis* diag) const;
  void run_post_filters(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                        uint64_t* mask, Diagnosis* diag, ScheduleOutcome& out);
  uint64_t what_if_mask(const Profile& prof) const;
  void nominate(const QueuedPod& qp, NodeId node);
  bool prioritize_and_select(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                             size_t n, ScheduleOutcome& out, NodeId* chosen);
  ScoreSummary prioritize_nodes(Profile& prof, const CycleContext& cycle,
                                std::span<const NodeId> nodes);
  void record_margin_scores(const WeightedPlugin& wp, const int64_t* ps, size_t n, size_t index);
  void assume_and_bind(Profile& prof, const CycleContext& cycle, const QueuedPod& qp, NodeId chosen,
                       ScheduleOutcome& out);
  size_t find_feasible(Profile& prof, const CycleContext& cycle,
                       const std::optional<std::vector<NodeId>>& only, Rejections& rejections,
                       int* evaluated);
  size_t run_filters(Profile& prof, const CycleContext& cycle, NodeId* nodes, size_t n,
                     Rejections& rejections);
  // Runs PreScore (filling prescore_skipped_), then returns false with *why set on an error.
  bool run_pre_score(Profile& prof, const CycleContext& cycle, std::span<const NodeId> nodes,
                     std::string* why);
  bool score_skipped(const Plugin* p) const;
  // Chooses among feasible_[0..n) by totals_, given the top total and how many nodes have it.
  NodeId select_host(const Profile& prof, size_t n, int64_t top, uint64_t ties);
  void refresh_name_rank();
  bool bind_cycle(Profile& prof, const CycleContext& cycle, NodeId node, std::string* why);
  bool unreserve_and_forget(Profile& prof, const CycleContext& cycle, NodeId node, size_t reserved,
                            const Status& s, std::string* why);
  bool binding_cycle(Profile& prof, const CycleContext& cycle, NodeId node, std::string* why);
  void describe(const Profile& prof, const Rejections& rejections, Diagnosis* diag) const;
  int num_feasible_nodes_to_find(const Profile& prof, int num_all_nodes) const;
  // The steps of evaluate() (scheduler.cc).
  bool evaluate_pre_filters(Profile& prof, const CycleContext& cycle,
                            std::vector<NodeEvaluation>& out, std::string* narrowed_reason);
  std::vector<NodeId> evaluate_filters(Profile& prof, const CycleContext& cycle,
                                       const std::string& narrowed_reason,
                                       std::vector<NodeEvaluation>& out);
  void evaluate_scores(Profile& prof, const CycleContext& cycle, std::span<const NodeId> nodes,
                       bool details, std::vector<NodeEvaluation>& out);
  // A pod's labels, spec or scheduling gates changed.
  void on_pod_updated(const ClusterEvent& e);
  // Runs the PreEnqueue plugins and queues the pod, or keeps it gated. False when not queued.
  bool admit(PodId pod, uint64_t serial, int64_t timestamp_us);
  // Runs the Mutate plugins for the decided pod; false (with *why) when the pod is re-created.
  bool mutate(Profile& prof, const CycleContext& cycle, NodeId node, std::string* why);

  ClusterBackend& backend_;
  std::unique_ptr<Reservations> own_reservations_;
  // Nominations (pods that preempted victims wait for them to go) live here, beside the plan and
  // capacity reservations of others; every cycle respects those visible to its pod.
  Reservations* reservations_;
  std::vector<std::unique_ptr<Profile>> profiles_;
  std::unordered_map<StrId, Profile*> profile_by_name_;
  SchedulerOptions options_;
  SchedulingQueue queue_;
  Rng rng_;
  size_t next_start_node_index_ = 0;
  NodeOrder node_order_;  // upstream's zone-interleaved node list, for node sampling
  // Drops a pod's nomination (in the shared reservations): the pod (if queued) changes class,
  // and waiting pods are told.
  void drop_nomination(uint64_t serial);
  // Bound, waiting for kPodBound (few at a time; a vector reuses its memory).
  std::vector<QueuedPod> in_flight_;
  bool forget_in_flight(uint64_t serial);  // whether it was in flight
  // Pods that finished and are not deleted yet: their deletion frees nothing.
  std::unordered_set<uint64_t> finished_;
  void queue_event(QueueEvent::Kind kind, NodeId node, PodId pod, int32_t priority, int64_t now_us);
  // Per profile: (index, plugin) of its PreFilter, Filter and PostFilter plugins (class salts).
  struct ClassPlugins {
    size_t count = ~size_t{0};  // pre_filter + filter + post_filter sizes when built
    std::vector<std::pair<uint16_t, const Plugin*>> plugins;
  };
  mutable std::unordered_map<const Profile*, ClassPlugins> class_plugins_;
  mutable std::string ns_cache_;  // the last namespace class_key interned, and its id
  mutable StrId ns_cache_id_ = kNoStr;

  // Reused buffers (no allocation in the steady state).
  std::vector<NodeId> feasible_;
  std::vector<int64_t> totals_;
  std::vector<int64_t> plugin_scores_;
  // record_margins: each scoring plugin's weighted scores of the cycle (reused).
  struct WeightedScores {
    std::string plugin;
    std::vector<int64_t> scores;
  };
  std::vector<WeightedScores> margin_scores_;
  ScoreMargin margin_of(size_t n, NodeId chosen, int64_t uniform_total, size_t plugins) const;
  std::vector<Plugin*> skipped_filters_;   // filters whose PreFilter returned Skip this cycle
  std::vector<Plugin*> prescore_skipped_;  // score plugins whose PreScore returned Skip
  Rejections rejections_;
  Rejections scratch_rejections_;
  Reservations::Applied held_;
  std::unordered_map<uint64_t, std::string> gated_;  // serial → the PreEnqueue rejection
  uint64_t mutations_ = 0;
  std::shared_ptr<const PodSpec> mutated_from_;  // see mutate()
  // Per profile: Rejection::plugin index of each filter plugin (parallel to Profile::filter).
  std::unordered_map<const Profile*, std::vector<uint16_t>> filter_index_;
  // Rank of each node's name among live nodes (deterministic tie-break), rebuilt on node changes.
  std::vector<uint32_t> name_rank_;
  uint64_t name_rank_epoch_ = ~uint64_t{0};
};

// Schedules the pending pods of a static snapshot: runs cycles and advances the snapshot's clock
// to backoff expiries (pods retried after preemption), until no pod is ready or backing off.
// Pods left unschedulable without an event stay unscheduled (their last outcome says why).
std::vector<ScheduleOutcome> schedule_snapshot(Scheduler& scheduler, SnapshotBackend& backend);

}  // namespace orrery::fw
