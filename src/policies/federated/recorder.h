// Bookkeeping shared by the Megha and PigeonC simulations: when each task started, which jobs
// have finished (a job finishes when its owner — GM or Distributor — hears of its last task),
// worker occupancy over time (paper eq. 2: utilisation = busy workers / workers, one task per
// worker), the sampled time series, and the job/task statistics of summary.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policies/federated/workload.h"
#include "sim/event_loop.h"
#include "sim/metrics.h"

namespace orrery::federated {

class Recorder {
 public:
  Recorder(const Workload& w, size_t workers, double cutoff_s);

  void job_arrived(uint32_t job);
  void task_started(uint32_t task, sim::Time now);
  void task_ended(sim::Time now);
  // The job's owner learned that one of its tasks finished. True when it was the last one.
  bool task_reported(uint32_t job, sim::Time now);

  bool all_done() const { return jobs_done_ == jobs_expected_; }
  uint64_t tasks_reported() const { return tasks_reported_; }  // task_reported calls
  size_t running() const { return running_; }
  size_t pending() const { return pending_; }  // arrived, runnable, not started
  sim::Time last_report() const { return last_report_; }

  // One row of timeseries.csv: time_s,cpu_util,mem_util,slot_util,pending,running,queued
  // (`queued`: tasks waiting in scheduler queues, a subset of pending).
  void sample(sim::Time now, size_t queued);

  // Results once the run is over.
  std::vector<sim::JobRecord> job_records() const;
  sim::Json jobs_json(const std::vector<sim::JobRecord>& jobs, bool short_jobs) const;
  sim::Json tasks_json() const;        // the "pods" block: one pod per task
  sim::Json utilization_json() const;  // time-weighted means over [first arrival, last report]
  const std::string& timeseries_csv() const { return series_; }
  const std::vector<double>& util_samples() const { return util_samples_; }
  const std::vector<sim::Time>& task_starts() const { return start_; }  // -1: never started

 private:
  void advance(sim::Time now);

  const Workload& w_;
  size_t workers_;
  double cutoff_s_;
  std::vector<sim::Time> start_;     // [task], -1 until started
  std::vector<uint32_t> remaining_;  // [job] runnable tasks not yet reported
  std::vector<sim::Time> finish_;    // [job]
  size_t jobs_expected_ = 0, jobs_done_ = 0;
  uint64_t tasks_reported_ = 0;
  size_t running_ = 0, pending_ = 0;
  sim::Time first_arrival_ = 0, last_change_ = 0, last_report_ = 0;
  long double busy_area_ = 0;  // worker-microseconds
  std::string series_;
  std::vector<double> util_samples_;
};

}  // namespace orrery::federated
