// KubeDSM as a running scheduler over any fw::ClusterBackend (paper §5.1, Fig. 2):
//
//   Event handler      on_event(): every cluster event goes to the placement manager first;
//                      a new pending pod of ours that no plan claims joins the batch;
//                      resync() (periodic) picks up pending pods it missed and expires plans.
//   Placement manager  a fw::PlanExecutor: plans of steps verified by events; an incompatible
//                      event cancels a plan and its pending pods go to the cloud.
//   Scheduler core     schedule_batch(): Algorithm 1 on the batch gathered during the batch
//                      window; suggest_now(): Algorithm 2, every suggest period, skipped while a
//                      plan with migrations is still running (the paper's suggester waits until
//                      no expectation is pending).
//
// Time: KubeDsm is a fw::Planner; fw::PlannerComponent calls tick() at next_wakeup_us() on any
// runtime (announce_wakeup() tells it of new, earlier wakeups, e.g. when a batch window opens).
// Tests call the entry points directly. The policy "kubedsm" is registered by policy.h.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "framework/backend.h"
#include "framework/plan.h"
#include "framework/planner.h"
#include "policies/kubedsm/algorithms.h"
#include "policies/kubedsm/cluster_view.h"
#include "policies/kubedsm/options.h"

namespace orrery::kubedsm {

inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Stats {
  uint64_t batches = 0;
  uint64_t suggestions = 0;          // suggest() calls that ran
  uint64_t suggestions_skipped = 0;  // a migration plan was still running
  uint64_t binds_edge = 0;           // batch pods planned onto the edge
  uint64_t binds_cloud = 0;          // batch pods planned onto the cloud
  uint64_t parked = 0;               // times a batch pod found no room anywhere
  uint64_t migrations_planned = 0;
  uint64_t migrations_done = 0;
  uint64_t plans_completed = 0;
  uint64_t plans_cancelled = 0;
  uint64_t plans_abandoned = 0;  // of which: dropped by abandonMigrations
  uint64_t fallback_binds = 0;   // pending pods of cancelled plans sent to the cloud
  std::vector<int64_t> immediate_wall_ns;
  std::vector<int> immediate_pods;    // pods bound per batch
  std::vector<int> immediate_parked;  // pods per batch that found no room anywhere
  std::vector<int64_t> suggest_wall_ns;
  std::vector<std::string> cancellations;  // the first 20 reasons
};

class KubeDsm : public fw::Planner {
 public:
  // `reservations`: the runtime's shared registry, for the plans' reservations (null: none).
  KubeDsm(fw::ClusterBackend& backend, Options options, fw::Reservations* reservations = nullptr);
  ~KubeDsm() override;
  KubeDsm(const KubeDsm&) = delete;
  KubeDsm& operator=(const KubeDsm&) = delete;

  // Starts listening, queues the pending pods already there, and arms the periodic timers.
  void start() override;

  void on_event(const fw::ClusterEvent& e) override;
  // Runs what is due at backend.now_us().
  void tick() override;
  int64_t next_wakeup_us() const override;
  // PolicyStats: one decision per batch (pods bound) and per suggestion, with its wall time.
  void report(fw::PolicyStats& stats) override;
  // summary.json: "kubedsm" (the Stats counters) and "migrations".
  void finish(Json* scheduler_summary) override;

  // Algorithm 1 on the batch now (up to maxBatch pods; the rest in the next round).
  void schedule_batch();
  // Algorithm 2 now.
  void suggest_now();
  void resync();

  const Stats& stats() const { return stats_; }
  const fw::PlanExecutor& executor() const { return executor_; }
  const Options& options() const { return opts_; }
  size_t batch_size() const { return batch_.size(); }

 private:
  bool managed(const Pod& p) const { return p.spec->scheduler_name == view_opts_.scheduler_name; }
  // Options::abandon_migrations: drops every running migration plan (ecmus's flush).
  void abandon_migrations(const std::string& why);
  bool abandoning_ = false;            // the fallback then reschedules pending pods as new ones
  std::unordered_set<uint64_t> ours_;  // serials of our live pods (abandonMigrations only)
  void enqueue(PodId pod);
  void arm_batch(int64_t at);
  // The cloud node with room for the pod and the most free cpu (after what plans will bind);
  // `reserve` keeps the room for the plans being built.
  NodeId choose_cloud(PodId pod, bool reserve = true);
  void submit(BuiltPlans built);
  bool migrating() const;
  void on_plan_done(const fw::PlanReport& r);

  fw::ClusterBackend& backend_;
  Options opts_;
  SchedulerCore core_;
  ViewOptions view_opts_;
  fw::PlanExecutor executor_;
  PlanOptions plan_opts_;
  size_t reported_batches_ = 0, reported_suggestions_ = 0;  // what report() has passed on
  uint64_t reported_migrations_planned_ = 0;
  bool started_ = false;

  std::vector<std::pair<PodId, uint64_t>> batch_;  // pending pods (id, serial), arrival order
  // Batch pods no node had room for: retried when resources free up (a pod goes, a node comes).
  std::vector<std::pair<PodId, uint64_t>> parked_;
  int64_t batch_due_ = kNever;
  int64_t next_suggest_ = kNever;
  int64_t next_resync_ = kNever;
  std::map<uint64_t, int> plan_migrations_;     // running plan id → its migrations
  std::map<NodeId, Resources> cloud_reserved_;  // during one build: room promised on cloud nodes
  uint64_t replacements_ = 0;
  Stats stats_;
};

}  // namespace orrery::kubedsm
