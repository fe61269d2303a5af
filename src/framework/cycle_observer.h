// fw::CycleObserver: how a world watches the decisions of the scheduling code that runs in it,
// without that code knowing the world. A world that reports decisions (`orrery serve --policy`:
// metrics and Events) provides an observer in the runtime's Services; the framework's drivers
// look it up once when they are built and call it:
//
//   SchedulerDriver    on_cycle   after every counted scheduling cycle, before the cycle's actions
//                                 (bind, preemption deletions) are released to the backend
//                      on_queue   after each run of cycles: the queue's counts
//   PlannerComponent   on_planner_decision  for every decision a planner reported to PolicyStats
//                                 after a tick (a KubeDSM batch or suggestion round): wall time
//
// A world without an observer (the simulator) pays one null check per cycle. With an observer
// the scheduler also builds the FitError messages ("0/N nodes are available: ...").
// Policies do not change: they build SchedulerDrivers and PlannerComponents as in any world.
#pragma once

#include <cstddef>
#include <cstdint>

#include "framework/scheduler.h"

namespace orrery::fw {

// Pending pods by queue (kube-scheduler's pending_pods{queue}): active, backoff, unschedulable,
// and gated (kept out of the queue by a PreEnqueue plugin).
struct QueueCounts {
  size_t active = 0, backoff = 0, unschedulable = 0, gated = 0;
};
inline QueueCounts queue_counts(Scheduler& s) {
  SchedulingQueue& q = s.queue();
  return {q.active_size(), q.backoff_size(), q.unschedulable_size(), s.gated_count()};
}

// One counted scheduling cycle: its outcome (scheduled or not, node, preemption victims and
// nominated node, the FitError message, evaluated nodes, wall time of the cycle) and the profile
// that scheduled the pod (nullptr when the pod is gone by the time the cycle ended).
struct CycleResult {
  const ScheduleOutcome& outcome;
  const Profile* profile;
};

class CycleObserver {
 public:
  virtual ~CycleObserver() = default;
  virtual void on_cycle(const CycleResult& result) = 0;
  virtual void on_queue(const QueueCounts& counts) { (void)counts; }
  virtual void on_planner_decision(int64_t wall_ns) { (void)wall_ns; }
};

}  // namespace orrery::fw
