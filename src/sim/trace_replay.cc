#include "sim/trace_replay.h"

#include <algorithm>

namespace orrery::sim {

TraceReplay::TraceReplay(SimBackend& sim, const Trace& trace, PodTemplate tmpl, JobLog& log,
                         uint64_t seed, std::string name_prefix, Time offset, uint64_t first_job_id)
    : sim_(sim),
      trace_(trace),
      tmpl_(std::move(tmpl)),
      log_(log),
      rng_(Rng::derive(seed, "trace/" + name_prefix + trace.source)),
      prefix_(std::move(name_prefix)),
      offset_(offset),
      first_job_id_(first_job_id),
      owner_(sim.add_owner(this, OwnerKind::kJob, "")) {
  order_.resize(trace_.jobs.size());
  for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    return trace_.jobs[a].arrival < trace_.jobs[b].arrival;
  });
  task_job_.resize(trace_.task_count());
  task_serial_.assign(trace_.task_count(), 0);
  job_left_.resize(trace_.jobs.size());
  for (uint32_t j = 0; j < trace_.jobs.size(); ++j) {
    const TraceJob& job = trace_.jobs[j];
    job_left_[j] = job.num_tasks;
    std::fill_n(task_job_.begin() + job.first_task, job.num_tasks, j);
  }
}

void TraceReplay::start() {
  if (order_.empty()) return;
  sim_.loop().at(std::max(sim_.loop().now(), offset_ + trace_.jobs[order_[0]].arrival), this, 0);
}

void TraceReplay::create_task(uint32_t task, uint32_t restarts) {
  const uint32_t j = task_job_[task];
  Pod pod;
  pod.ns = tmpl_.ns;
  pod.name =
      prefix_ + "j" + std::to_string(j) + "-t" + std::to_string(task - trace_.jobs[j].first_task);
  if (restarts > 0) pod.name += "-r" + std::to_string(restarts);
  pod.spec = tmpl_.spec;
  pod.owner = {OwnerKind::kJob, prefix_ + "j" + std::to_string(j)};
  PodExtras x;
  x.exec = tmpl_.exec.sample(*tmpl_.spec, rng_);
  x.exec.work = trace_.task_duration[task];
  x.owner = owner_;
  x.tag = task;
  x.restarts = restarts;
  const PodId id = sim_.create_pod(std::move(pod), x);
  task_serial_[task] = sim_.state().pod_serial(id);
}

void TraceReplay::handle(const Event&) {
  const Time now = sim_.loop().now();
  // Every job arriving now, in order.
  while (next_ < order_.size() && offset_ + trace_.jobs[order_[next_]].arrival <= now) {
    const TraceJob& job = trace_.jobs[order_[next_]];
    log_.opened();
    for (uint32_t t = 0; t < job.num_tasks; ++t) create_task(job.first_task + t, 0);
    ++next_;
  }
  if (next_ < order_.size()) {
    sim_.loop().at(offset_ + trace_.jobs[order_[next_]].arrival, this, 0);
  }
}

void TraceReplay::on_pod_event(const fw::ClusterEvent& e, uint32_t task) {
  if (e.kind != fw::EventKind::kPodFinished && e.kind != fw::EventKind::kPodDeleted) return;
  if (task_serial_[task] != e.pod_serial) return;  // an earlier attempt, or already done
  const uint32_t j = task_job_[task];
  if (e.kind == fw::EventKind::kPodFinished &&
      sim_.state().pod(e.pod).phase == PodPhase::kSucceeded) {
    task_serial_[task] = 0;
    if (--job_left_[j] == 0) {
      const TraceJob& job = trace_.jobs[j];
      JobRecord r;
      r.id = first_job_id_ + j;
      r.arrival = offset_ + job.arrival;
      r.ideal = job.longest_task;
      r.finish = e.time_us;
      r.tasks = job.num_tasks;
      log_.closed(r);
    }
    return;
  }
  create_task(task, sim_.restarts(e.pod) + 1);
}

}  // namespace orrery::sim
