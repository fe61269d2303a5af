// Planners: policies that look at a batch of pending pods or at the whole cluster and act through
// verified plans (plan.h) rather than one scheduling cycle per pod — KubeDSM's immediate scheduler
// and suggester, the priority-optimal packer. A planner listens to the cluster, says when it next
// wants to run, and runs; fw::PlannerComponent drives any planner on any runtime's clock, so the
// same planner runs in the simulator and against a real cluster.
#pragma once

#include <functional>

#include "core/time.h"
#include "framework/cycle_observer.h"
#include "framework/policy.h"

namespace orrery::fw {

class Planner : public EventListener {
 public:
  // Starts listening and takes the pods already pending (the cluster exists).
  virtual void start() = 0;
  // Runs what is due at the backend's now().
  virtual void tick() = 0;
  // When tick() should next run; kForever for never.
  virtual Time next_wakeup_us() const = 0;
  // Called with an earlier wakeup as soon as the planner knows one (e.g. a batch window opens).
  void set_wakeup_hook(std::function<void(Time)> hook) { wakeup_hook_ = std::move(hook); }
  // After each tick: decisions and counters for PolicyStats.
  virtual void report(PolicyStats& stats) { (void)stats; }
  // At the end of a run: the planner's own results for summary.json's "scheduler".
  virtual void finish(Json* scheduler_summary) { (void)scheduler_summary; }

 protected:
  void announce_wakeup(Time t) {
    if (wakeup_hook_) wakeup_hook_(t);
  }

 private:
  std::function<void(Time)> wakeup_hook_;
};

// Runs a Planner as a policy: ticks it on the runtime's clock when it asks.
class PlannerComponent : public Component, public TimerTarget {
 public:
  PlannerComponent(PolicyContext& ctx, std::unique_ptr<Planner> planner);
  ~PlannerComponent() override;
  void start() override;
  void on_timer(uint64_t tag) override;
  void finish(Json* scheduler_summary) override { planner_->finish(scheduler_summary); }
  Planner& planner() { return *planner_; }

 private:
  void wake_at(Time t);

  Runtime& rt_;
  PolicyStats& stats_;
  CycleObserver* observer_;  // the world's (Services), or nullptr (the simulator)
  std::unique_ptr<Planner> planner_;
  Time wake_ = kForever;
  TimerId timer_ = kNoTimer;
};

}  // namespace orrery::fw
