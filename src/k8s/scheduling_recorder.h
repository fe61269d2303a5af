// What `orrery serve` reports about scheduling, whatever policy it runs (kube-default's per-pod
// cycles or a planner's plans): the metric families of /metrics (ServeMetrics) and the
// SchedulingRecorder that feeds them and writes the pods' Events:
//
//   on_cycle        a scheduling cycle's outcome → orrery_schedule_attempts_total{result,profile},
//                   orrery_scheduling_algorithm_duration_seconds; an unschedulable pod gets a
//                   FailedScheduling Event with the FitError ("0/N nodes are available: ..."),
//                   each preemption victim a Preempted Event
//   on_bind_sent    a bind sent outside a cycle (a plan's step: KubeDSM, the packer) → a scheduled
//                   attempt under the pod's schedulerName
//   on_evict_sent   a plan's eviction that is neither a cycle's victim nor a migration (the
//                   packer's cross-node preemption) → a Preempted Event
//   on_queue        orrery_pending_pods{queue}
//   on_planner_decision  a planner's decision (a KubeDSM batch) → the algorithm histogram
//   on_event        a bind of ours confirmed by the watch → a Scheduled Event and the pod's
//                   orrery_pod_scheduling_duration_seconds (from its first queueing);
//                   every event → orrery_cluster_events_total{kind}
//
// It is the runtime's fw::CycleObserver, so the framework's drivers call it
// (framework/cycle_observer.h). Loop thread only.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "framework/cycle_observer.h"
#include "k8s/api_backend.h"
#include "obs/metrics.h"

namespace orrery::k8s {

// The metric families of `orrery serve`.
struct ServeMetrics {
  explicit ServeMetrics(obs::Registry& r);
  obs::CounterFamily& attempts;        // orrery_schedule_attempts_total{result,profile}
  obs::HistogramFamily& e2e;           // orrery_pod_scheduling_duration_seconds
  obs::HistogramFamily& algorithm;     // orrery_scheduling_algorithm_duration_seconds
  obs::GaugeFamily& pending;           // orrery_pending_pods{queue}
  obs::CounterFamily& plan_steps;      // orrery_plan_steps_total{action,outcome}
  obs::CounterFamily& watch_restarts;  // orrery_watch_restarts_total{resource,reason}
  obs::GaugeFamily& leader;            // orrery_leader
  obs::CounterFamily& events;          // orrery_cluster_events_total{kind}
};

class SchedulingRecorder : public fw::CycleObserver, public fw::EventListener {
 public:
  // Listens to `backend` until destroyed. `metrics` may be null (Events only).
  SchedulingRecorder(ApiBackend& backend, ServeMetrics* metrics);
  ~SchedulingRecorder() override;
  SchedulingRecorder(const SchedulingRecorder&) = delete;
  SchedulingRecorder& operator=(const SchedulingRecorder&) = delete;

  // The pods pending now start their end-to-end time here (call when scheduling starts).
  void start();
  void on_cycle(const fw::CycleResult& result) override;
  void on_queue(const fw::QueueCounts& counts) override;
  void on_planner_decision(int64_t wall_ns) override;
  // A bind about to be sent; counted as a scheduled attempt unless a cycle already counted it.
  void on_bind_sent(PodId pod);
  // An eviction about to be sent with `reason`. One that no cycle announced as a preemption
  // victim and that is not a migration (fw::is_migration: KubeDSM's moves) is a plan's
  // preemption (the packer's) and gets a Preempted Event carrying the reason.
  void on_evict_sent(PodId pod, const std::string& reason);
  void on_event(const fw::ClusterEvent& e) override;

  // Binds of ours confirmed by the watch.
  uint64_t scheduled() const { return scheduled_; }

 private:
  void count_attempt(const char* result, const std::string& profile);

  ApiBackend& backend_;
  ServeMetrics* metrics_;
  std::unordered_map<uint64_t, int64_t> first_seen_us_;  // pod serial → when it was first queued
  std::unordered_set<uint64_t> awaiting_;                // our binds, by serial, not yet confirmed
  std::unordered_set<uint64_t> announced_victims_;       // Preempted already written, by serial
  uint64_t scheduled_ = 0;
};

}  // namespace orrery::k8s
