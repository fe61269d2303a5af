#include "k8s/scheduling_recorder.h"

#include "core/intern.h"
#include "obs/log.h"

namespace orrery::k8s {

namespace {

std::vector<double> latency_buckets() {
  return obs::exponential_buckets(0.0001, 2, 18);
}

}  // namespace

ServeMetrics::ServeMetrics(obs::Registry& r)
    : attempts(r.counter("orrery_schedule_attempts_total",
                         "Scheduling attempts by result (scheduled, unschedulable, error).",
                         {"result", "profile"})),
      e2e(r.histogram("orrery_pod_scheduling_duration_seconds",
                      "From a pod's first queueing to its binding confirmed by the watch.",
                      obs::exponential_buckets(0.001, 2, 16))),
      algorithm(r.histogram("orrery_scheduling_algorithm_duration_seconds",
                            "Wall time of one scheduling cycle (filter, score, select, assume).",
                            latency_buckets())),
      pending(r.gauge("orrery_pending_pods", "Pending pods by queue.", {"queue"})),
      plan_steps(r.counter("orrery_plan_steps_total",
                           "API actions carried out for the scheduler and its plans, by action "
                           "(bind, evict, create, patch) and outcome.",
                           {"action", "outcome"})),
      watch_restarts(r.counter("orrery_watch_restarts_total",
                               "Watch streams restarted, by resource and reason (expired, "
                               "dropped, error, timeout).",
                               {"resource", "reason"})),
      leader(
          r.gauge("orrery_leader", "1 while this replica holds the lease (or without election).")),
      events(r.counter("orrery_cluster_events_total", "Cluster events applied to the view.",
                       {"kind"})) {}

SchedulingRecorder::SchedulingRecorder(ApiBackend& backend, ServeMetrics* metrics)
    : backend_(backend), metrics_(metrics) {
  backend_.add_listener(this);
}

SchedulingRecorder::~SchedulingRecorder() {
  backend_.remove_listener(this);
}

void SchedulingRecorder::start() {
  const ClusterState& st = backend_.state();
  for (PodId p : st.pods())
    if (st.pod_node(p) == kNoNode) first_seen_us_.emplace(st.pod_serial(p), backend_.now_us());
}

void SchedulingRecorder::count_attempt(const char* result, const std::string& profile) {
  if (metrics_) metrics_->attempts.with({result, profile}).inc();
}

void SchedulingRecorder::on_cycle(const fw::CycleResult& r) {
  const fw::ScheduleOutcome& o = r.outcome;
  count_attempt(o.scheduled ? "scheduled" : "unschedulable",
                r.profile ? r.profile->scheduler_name : "");
  if (metrics_) metrics_->algorithm.with().observe(static_cast<double>(o.wall_ns) / 1e9);
  const ClusterState& st = backend_.state();
  if (!st.pod_alive(o.pod) || st.pod_serial(o.pod) != o.serial) return;
  if (o.scheduled) {
    awaiting_.insert(o.serial);
    return;
  }
  const Pod& pod = st.pod(o.pod);
  obs::info("pod is unschedulable", {{"pod", pod.key()}, {"reason", o.message}});
  backend_.record_event(o.pod, "Warning", "FailedScheduling", o.message);
  for (PodId v : o.victims) {
    if (!st.pod_alive(v)) continue;
    announced_victims_.insert(st.pod_serial(v));
    backend_.record_event(
        v, "Normal", "Preempted",
        "Preempted by " + pod.key() + " on node " +
            (o.nominated_node == kNoNode ? std::string("?") : st.node(o.nominated_node).name));
  }
}

void SchedulingRecorder::on_bind_sent(PodId pod) {
  const ClusterState& st = backend_.state();
  if (!awaiting_.insert(st.pod_serial(pod)).second) return;  // its cycle counted it
  count_attempt("scheduled", std::string(interned(st.pod(pod).spec->scheduler_name)));
}

void SchedulingRecorder::on_evict_sent(PodId pod, const std::string& reason) {
  const ClusterState& st = backend_.state();
  if (announced_victims_.erase(st.pod_serial(pod)) != 0 || fw::is_migration(reason)) return;
  backend_.record_event(pod, "Normal", "Preempted", "Preempted by orrery: " + reason);
}

void SchedulingRecorder::on_queue(const fw::QueueCounts& q) {
  if (!metrics_) return;
  metrics_->pending.with({"active"}).set(static_cast<double>(q.active));
  metrics_->pending.with({"backoff"}).set(static_cast<double>(q.backoff));
  metrics_->pending.with({"unschedulable"}).set(static_cast<double>(q.unschedulable));
  metrics_->pending.with({"gated"}).set(static_cast<double>(q.gated));
}

void SchedulingRecorder::on_planner_decision(int64_t wall_ns) {
  if (metrics_) metrics_->algorithm.with().observe(static_cast<double>(wall_ns) / 1e9);
}

void SchedulingRecorder::on_event(const fw::ClusterEvent& e) {
  if (metrics_) metrics_->events.with({std::string(fw::to_string(e.kind))}).inc();
  switch (e.kind) {
    case fw::EventKind::kPodAdded:
      if (e.node == kNoNode) first_seen_us_.emplace(e.pod_serial, e.time_us);
      break;
    case fw::EventKind::kPodBound: {
      if (awaiting_.erase(e.pod_serial) != 0) {
        ++scheduled_;
        const ClusterState& st = backend_.state();
        if (metrics_) {
          auto f = first_seen_us_.find(e.pod_serial);
          if (f != first_seen_us_.end())
            metrics_->e2e.with().observe(static_cast<double>(e.time_us - f->second) / 1e6);
        }
        backend_.record_event(
            e.pod, "Normal", "Scheduled",
            "Successfully assigned " + st.pod(e.pod).key() + " to " + st.node(e.node).name);
        obs::info("bound pod", {{"pod", st.pod(e.pod).key()}, {"node", st.node(e.node).name}});
      }
      first_seen_us_.erase(e.pod_serial);
      break;
    }
    case fw::EventKind::kPodBindFailed: awaiting_.erase(e.pod_serial); break;
    case fw::EventKind::kPodDeleted:
      first_seen_us_.erase(e.pod_serial);
      awaiting_.erase(e.pod_serial);
      announced_victims_.erase(e.pod_serial);
      break;
    default: break;
  }
}

}  // namespace orrery::k8s
