// Batch work: the Job controller and the log of finished jobs.
//
// Job follows batch/v1 semantics for the fields modelled: it keeps min(parallelism,
// completions - succeeded) pods active; a failed pod (OOM kill, admission failure) or one deleted
// from under it is replaced until `backoff_limit` failures, after which the job fails. A job's
// record (sim/metrics.h) has arrival = creation, ideal = its longest task (work at full speed),
// finish = its last successful pod.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/metrics.h"
#include "sim/sim_backend.h"
#include "sim/workload.h"

namespace orrery::sim {

// Finished jobs plus a count of unfinished ones, so a run without a fixed duration can end when
// all work is done.
class JobLog {
 public:
  void opened() { ++open_; }
  void closed(const JobRecord& r) {
    --open_;
    records_.push_back(r);
  }
  void failed() {
    --open_;
    ++failed_;
  }
  size_t open() const { return open_; }
  size_t failed_count() const { return failed_; }
  // Finished jobs in completion order.
  const std::vector<JobRecord>& records() const { return records_; }

 private:
  size_t open_ = 0;
  size_t failed_ = 0;
  std::vector<JobRecord> records_;
};

struct JobSpec {
  std::string name;
  PodTemplate tmpl;
  int32_t completions = 1;
  int32_t parallelism = 1;
  int32_t backoff_limit = 6;
};

class Job : public PodOwner, public EventTarget {
 public:
  // Creates the job's first pods now. `id` numbers the job in jobs.csv.
  Job(SimBackend& sim, JobSpec spec, uint64_t id, uint64_t seed, JobLog& log);

  bool finished() const { return finished_; }
  int32_t succeeded() const { return succeeded_; }
  int32_t failures() const { return failures_; }

  void on_pod_event(const fw::ClusterEvent& e, uint32_t tag) override;
  void handle(const Event& e) override;

 private:
  void sync();

  SimBackend& sim_;
  JobSpec spec_;
  JobLog& log_;
  Rng rng_;
  OwnerId owner_;
  JobRecord record_;
  std::vector<uint64_t> active_;  // serials
  int32_t succeeded_ = 0;
  int32_t failures_ = 0;
  int32_t migrations_ = 0;  // pods deleted to be moved (fw::is_migration), replaced
  uint32_t next_index_ = 0;
  bool finished_ = false;
  bool sync_pending_ = false;
};

}  // namespace orrery::sim
