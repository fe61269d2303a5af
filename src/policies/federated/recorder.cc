#include "policies/federated/recorder.h"

#include <cmath>

namespace orrery::federated {

Recorder::Recorder(const Workload& w, size_t workers, double cutoff_s)
    : w_(w), workers_(workers), cutoff_s_(cutoff_s) {
  start_.assign(w.tasks(), -1);
  remaining_ = w.job_runnable;
  finish_.assign(w.jobs(), -1);
  for (uint32_t n : remaining_) jobs_expected_ += n > 0;
  if (!w.trace->jobs.empty()) first_arrival_ = last_change_ = w.trace->jobs.front().arrival;
  for (const sim::TraceJob& j : w.trace->jobs) first_arrival_ = std::min(first_arrival_, j.arrival);
  last_change_ = first_arrival_;
  series_ = "time_s,cpu_util,mem_util,slot_util,pending,running,queued\n";
}

void Recorder::advance(sim::Time now) {
  if (now > last_change_) {
    busy_area_ += static_cast<long double>(running_) * static_cast<long double>(now - last_change_);
    last_change_ = now;
  }
}

void Recorder::job_arrived(uint32_t job) {
  pending_ += w_.job_runnable[job];
}

void Recorder::task_started(uint32_t task, sim::Time now) {
  advance(now);
  start_[task] = now;
  --pending_;
  ++running_;
}

void Recorder::task_ended(sim::Time now) {
  advance(now);
  --running_;
}

bool Recorder::task_reported(uint32_t job, sim::Time now) {
  last_report_ = now;
  ++tasks_reported_;
  if (--remaining_[job] > 0) return false;
  finish_[job] = now;
  ++jobs_done_;
  return true;
}

void Recorder::sample(sim::Time now, size_t queued) {
  const double util = workers_ ? static_cast<double>(running_) / static_cast<double>(workers_) : 0;
  util_samples_.push_back(util);
  const std::string u = sim::fmt_double(util);
  series_ += sim::fmt_double(sim::to_seconds(now));
  series_ += ',';
  series_ += u;
  series_ += ",,";  // mem_util does not apply: a task occupies a whole worker
  series_ += u;
  series_ += ',';
  series_ += std::to_string(pending_);
  series_ += ',';
  series_ += std::to_string(running_);
  series_ += ',';
  series_ += std::to_string(queued);
  series_ += '\n';
}

std::vector<sim::JobRecord> Recorder::job_records() const {
  std::vector<sim::JobRecord> out;
  out.reserve(w_.jobs());
  for (uint32_t j = 0; j < w_.jobs(); ++j) {
    if (w_.job_runnable[j] == 0 || finish_[j] < 0) continue;
    const sim::TraceJob& tj = w_.trace->jobs[j];
    sim::JobRecord r;
    r.id = j;
    r.arrival = tj.arrival;
    r.ideal = w_.job_ideal[j];
    r.finish = finish_[j];
    r.tasks = w_.job_runnable[j];
    r.short_job = tj.mean_task_duration_s < cutoff_s_;
    out.push_back(r);
  }
  return out;
}

sim::Json Recorder::jobs_json(const std::vector<sim::JobRecord>& jobs, bool short_jobs) const {
  std::vector<sim::JobRecord> part;
  for (const sim::JobRecord& r : jobs)
    if (r.short_job == short_jobs) part.push_back(r);
  return sim::jobs_summary(part);
}

sim::Json Recorder::tasks_json() const {
  std::vector<double> pending;
  pending.reserve(start_.size());
  long double pct_sum = 0;
  for (uint32_t j = 0; j < w_.jobs(); ++j) {
    const sim::TraceJob& tj = w_.trace->jobs[j];
    for (uint32_t i = 0; i < tj.num_tasks; ++i) {
      const size_t t = tj.first_task + i;
      if (start_[t] < 0) continue;
      pending.push_back(sim::to_seconds(start_[t] - tj.arrival));
      pct_sum += sim::to_seconds(start_[t] + w_.trace->task_duration[t] - tj.arrival);
    }
  }
  const size_t n = pending.size();
  sim::Stats s = sim::summarize(std::move(pending));
  sim::Json out;
  out["count"] = n;
  out["pending_p50_s"] = sim::number_or_null(s.p50);
  out["pending_p99_s"] = sim::number_or_null(s.p99);
  out["pct_mean_s"] =
      sim::number_or_null(n ? static_cast<double>(pct_sum / static_cast<long double>(n)) : NAN);
  return out;
}

sim::Json Recorder::utilization_json() const {
  const sim::Time span = last_change_ - first_arrival_;
  const double mean =
      span > 0 && workers_ > 0
          ? static_cast<double>(busy_area_ / (static_cast<long double>(span) * workers_))
          : NAN;  // no time span: no mean (null)
  sim::Json out;
  out["cpu_mean"] = sim::number_or_null(mean);
  out["slots_mean"] = sim::number_or_null(mean);
  return out;
}

}  // namespace orrery::federated
