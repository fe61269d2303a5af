// Replays a Sparrow/Megha trace (sim/trace.h): at each job's arrival all its tasks are created as
// pods of one template (by default a BestEffort pod that takes one pod slot; with workers whose
// allocatable pods is 1 the default NodeResourcesFit then runs one task per worker, as in the
// reference simulators). A task's work is its duration in the trace. A task whose pod fails or is
// deleted before finishing is recreated. Each trace job gives one JobRecord (id = its index in the
// file, ideal = its longest task).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/job.h"
#include "sim/sim_backend.h"
#include "sim/trace.h"
#include "sim/workload.h"

namespace orrery::sim {

class TraceReplay : public PodOwner, public EventTarget {
 public:
  // `tmpl.exec.work` is ignored (the trace gives each task's work). `offset` shifts arrivals.
  // Job records are numbered first_job_id + index in the file.
  TraceReplay(SimBackend& sim, const Trace& trace, PodTemplate tmpl, JobLog& log, uint64_t seed,
              std::string name_prefix = "", Time offset = 0, uint64_t first_job_id = 0);

  // Schedules the arrivals; call once before running.
  void start();
  // All jobs have arrived.
  bool exhausted() const { return next_ >= order_.size(); }

  void on_pod_event(const fw::ClusterEvent& e, uint32_t tag) override;
  void handle(const Event& e) override;

 private:
  void create_task(uint32_t task, uint32_t restarts);

  SimBackend& sim_;
  const Trace& trace_;
  PodTemplate tmpl_;
  JobLog& log_;
  Rng rng_;
  std::string prefix_;
  Time offset_;
  uint64_t first_job_id_;
  OwnerId owner_;
  std::vector<uint32_t> order_;  // job indices by (arrival, index)
  size_t next_ = 0;
  std::vector<uint32_t> task_job_;     // task → job
  std::vector<uint64_t> task_serial_;  // live pod of each task; 0 once the task succeeded
  std::vector<uint32_t> job_left_;     // tasks not yet succeeded
};

}  // namespace orrery::sim
