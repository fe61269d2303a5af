// Runs the per-pod framework scheduler (fw::Scheduler) as a policy on any runtime: the
// simulator's virtual clock or a real-time loop.
//
// The driver wakes when an event may have made a pod schedulable (a new pod, a deletion, a
// finished pod, a node change, a failed binding, an update) or when the queue's own timers expire
// (backoff, the unschedulable flush), and runs scheduling cycles. Time never comes from the wall
// clock directly: a cycle may cost a modelled decision latency
//     latency = base (a distribution) + per_node × nodes evaluated
// (a simulation knob, zero by default) during which the scheduler is busy; the cycle's actions
// (bind, preemption deletions) leave when it ends. The wall-clock cost of each cycle is recorded
// separately in PolicyStats.
#pragma once

#include <memory>
#include <vector>

#include "core/rng.h"
#include "framework/cycle_observer.h"
#include "framework/policy.h"
#include "framework/scheduler.h"
#include "io/distribution_reader.h"

namespace orrery::fw {

struct DecisionLatency {
  Dist base;          // per cycle, µs
  Time per_node = 0;  // per node evaluated (filtered) in the cycle
};
// {base: <duration dist>, per_node: <duration>}; absent fields keep the defaults (0).
DecisionLatency parse_decision_latency(const yaml::Ctx& c);

class SchedulerDriver : public Component,
                        public EventListener,
                        public TimerTarget,
                        private Reservations::Listener {
 public:
  SchedulerDriver(PolicyContext& ctx, std::vector<std::unique_ptr<Profile>> profiles,
                  SchedulerOptions options, DecisionLatency latency);
  ~SchedulerDriver() override;

  Scheduler& scheduler() { return *scheduler_; }
  // Warn once (PolicyStats) if a pod requiring machine constraints arrives: some profile does not
  // enforce them.
  void warn_if_constraints_unenforced() { watch_unenforced_constraints_ = true; }
  void start() override;
  void on_event(const ClusterEvent& e) override;
  void on_timer(uint64_t tag) override;

 private:
  class Actions;
  enum Timer : uint64_t { kWake = 0, kRelease = 1 };
  // A plan's or a capacity reservation ended outside any cluster event (e.g. a CARICO report
  // made a node usable): the scheduler's queue has moved the pods it blocked, so wake for them.
  void on_released(const Reservation& r) override;
  void wake_at(Time t);
  void run();
  void run_cycles();
  void observe(const ScheduleOutcome& o);

  Runtime& rt_;
  PolicyStats& stats_;
  DecisionLatency latency_;
  Rng latency_rng_;
  CycleObserver* observer_;  // the world's (Services), or nullptr (the simulator)
  std::unique_ptr<Actions> actions_;
  std::unique_ptr<Scheduler> scheduler_;
  Time wake_at_ = kForever;
  TimerId wake_timer_ = kNoTimer;
  Time busy_until_ = 0;
  // Some profile lacks the MachineConstraints filter: warn once if a pod requires constraints.
  bool watch_unenforced_constraints_ = false;
};

}  // namespace orrery::fw
