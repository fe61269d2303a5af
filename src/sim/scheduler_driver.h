// Runs the per-pod framework scheduler (fw::Scheduler) as an actor on the event loop.
//
// The driver wakes when an event may have made a pod schedulable (a new pod, a deletion, a
// finished pod, a node change, a failed binding) or when the queue's own timers expire (backoff,
// the unschedulable flush), and runs scheduling cycles. Time inside the simulation never comes
// from the wall clock: a cycle costs a modelled decision latency
//     latency = base (a distribution) + per_node × nodes evaluated
// during which the scheduler is busy; the cycle's actions (bind, preemption deletions) leave
// when it ends. The wall-clock cost of each cycle is recorded separately in PolicyStats.
#pragma once

#include <memory>
#include <vector>

#include "framework/scheduler.h"
#include "sim/distribution.h"
#include "sim/policy.h"

namespace orrery::sim {

struct DecisionLatency {
  Dist base;          // per cycle, µs
  Time per_node = 0;  // per node evaluated (filtered) in the cycle
};
// {base: <duration dist>, per_node: <duration>}; absent fields keep the defaults (0).
DecisionLatency parse_decision_latency(const yaml::Ctx& c);

class SchedulerDriver : public Component, public fw::EventListener, public EventTarget {
 public:
  SchedulerDriver(PolicyContext& ctx, std::vector<std::unique_ptr<fw::Profile>> profiles,
                  fw::SchedulerOptions options, DecisionLatency latency);
  ~SchedulerDriver() override;

  fw::Scheduler& scheduler() { return *scheduler_; }
  void start() override;
  void on_event(const fw::ClusterEvent& e) override;
  void handle(const Event& e) override;

 private:
  class Actions;
  void wake_at(Time t);
  void run();

  EventLoop& loop_;
  SimBackend& sim_;
  PolicyStats& stats_;
  DecisionLatency latency_;
  Rng latency_rng_;
  std::unique_ptr<Actions> actions_;
  std::unique_ptr<fw::Scheduler> scheduler_;
  Time wake_at_ = kForever;
  uint64_t wake_gen_ = 0;
  Time busy_until_ = 0;
  // Some profile lacks the MachineConstraints filter: warn once if a pod requires constraints.
  bool watch_unenforced_constraints_ = false;
};

}  // namespace orrery::sim
