#include "sim/job.h"

#include <algorithm>

namespace orrery::sim {

Job::Job(SimBackend& sim, JobSpec spec, uint64_t id, uint64_t seed, JobLog& log)
    : sim_(sim),
      spec_(std::move(spec)),
      log_(log),
      rng_(Rng::derive(seed, "job/" + spec_.name)),
      owner_(sim.add_owner(this, OwnerKind::kJob, spec_.name)) {
  record_.id = id;
  record_.arrival = sim.loop().now();
  record_.tasks = static_cast<uint32_t>(spec_.completions);
  log_.opened();
  sync();
}

void Job::handle(const Event&) {
  sync_pending_ = false;
  sync();
}

void Job::sync() {
  if (finished_) return;
  const int32_t want = std::min(spec_.parallelism, spec_.completions - succeeded_) -
                       static_cast<int32_t>(active_.size());
  for (int32_t i = 0; i < want; ++i) {
    Pod pod;
    pod.ns = spec_.tmpl.ns;
    pod.name = spec_.name + "-" + std::to_string(next_index_++);
    pod.spec = spec_.tmpl.spec;
    pod.owner = {OwnerKind::kJob, spec_.name};
    PodExtras x;
    x.exec = spec_.tmpl.exec.sample(*spec_.tmpl.spec, rng_);
    x.owner = owner_;
    x.restarts = static_cast<uint32_t>(failures_);
    x.migrations = static_cast<uint32_t>(migrations_);
    const PodId id = sim_.create_pod(std::move(pod), x);
    active_.push_back(sim_.state().pod_serial(id));
  }
}

void Job::on_pod_event(const fw::ClusterEvent& e, uint32_t) {
  if (e.kind != fw::EventKind::kPodFinished && e.kind != fw::EventKind::kPodDeleted) return;
  auto it = std::find(active_.begin(), active_.end(), e.pod_serial);
  if (it == active_.end()) return;
  active_.erase(it);
  if (finished_) return;
  const bool success = e.kind == fw::EventKind::kPodFinished &&
                       sim_.state().pod(e.pod).phase == PodPhase::kSucceeded;
  if (success) {
    ++succeeded_;
    record_.ideal = std::max(record_.ideal, sim_.exec(e.pod).work);
    if (succeeded_ >= spec_.completions) {
      finished_ = true;
      record_.finish = e.time_us;
      log_.closed(record_);
      return;
    }
  } else if (e.kind == fw::EventKind::kPodDeleted && fw::is_migration(sim_.event_reason())) {
    // Moved by a scheduler (a disruption, as podFailurePolicy's DisruptionTarget: Ignore would
    // treat it): replaced without counting a failure.
    ++migrations_;
  } else if (++failures_ > spec_.backoff_limit) {
    finished_ = true;  // BackoffLimitExceeded
    log_.failed();
    return;
  }
  if (!sync_pending_) {
    sync_pending_ = true;
    sim_.loop().after(0, this, 0);
  }
}

}  // namespace orrery::sim
