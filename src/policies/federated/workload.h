// A trace whose tasks carry placement constraints, ready for either architecture. Constraints are
// drawn from the task model with the run's seed (stream "federated/task-constraints", task by
// task in trace order), so Megha and PigeonC runs with the same seed see identical constraints.
// Optionally, explicit constraints for some tasks come from a file (see load_task_constraints).
//
// A task no worker of the data centre can ever satisfy is not queued forever: it is dropped and
// reported (summary "unsatisfiable": counts and examples), as the reference simulators drop it.
// Its job's ideal response time is the longest of the job's remaining tasks; a job with no
// runnable task is left out of the job statistics and counted as dropped.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "policies/federated/cluster_config.h"
#include "policies/federated/task_model.h"
#include "sim/metrics.h"
#include "sim/trace.h"

namespace orrery::federated {

struct ConstraintOverride {
  uint32_t job;   // 0-based index of the job in the trace
  uint32_t task;  // 0-based index of the task within its job
  ConstraintMask constraints;
};

// Explicit task constraints, one task per line: "JOB TASK [ID ...]" (whitespace separated;
// '#' comments). Errors name FILE:LINE: unknown constraint ids (>= `constraint_ids`), jobs or
// tasks that are not in the trace, malformed numbers.
std::vector<ConstraintOverride> load_task_constraints(const std::string& path,
                                                      const sim::Trace& trace,
                                                      uint32_t constraint_ids);
std::vector<ConstraintOverride> parse_task_constraints(const std::string& text,
                                                       const std::string& source,
                                                       const sim::Trace& trace,
                                                       uint32_t constraint_ids);

struct Workload {
  std::shared_ptr<const sim::Trace> trace;
  uint32_t constraint_ids = 0;
  std::vector<ConstraintMask> task_constraints;  // [task] in trace order
  std::vector<uint8_t> runnable;                 // [task] some worker satisfies it
  std::vector<sim::Time> job_ideal;              // [job] longest runnable task
  std::vector<uint32_t> job_runnable;            // [job] runnable tasks
  std::vector<uint32_t> arrival_order;           // jobs by (arrival, trace order)

  struct Dropped {
    uint32_t job, task;
    int line;
    ConstraintMask constraints;
  };
  size_t unsatisfiable_tasks = 0;
  size_t unsatisfiable_jobs = 0;  // jobs with at least one dropped task
  size_t dropped_jobs = 0;        // jobs with no runnable task at all
  std::vector<Dropped> examples;  // the first few dropped tasks

  size_t jobs() const { return trace->jobs.size(); }
  size_t tasks() const { return trace->task_count(); }
  // {"tasks","jobs_affected","jobs_dropped","examples":[{"job","line","task","constraints"}]}
  sim::Json unsatisfiable_json() const;
};

// Throws InputError when the model's constraint ids do not match the configuration's.
Workload make_workload(std::shared_ptr<const sim::Trace> trace, const TaskConstraintModel& model,
                       uint64_t seed, const ClusterConfig& dc,
                       std::span<const ConstraintOverride> overrides = {});

}  // namespace orrery::federated
