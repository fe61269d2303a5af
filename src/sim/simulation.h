// One simulated run: builds the cluster, workloads, controllers and scheduling policies of a
// Scenario on a fresh event loop, runs it, and writes the outputs:
//
//   DIR/summary.json     scenario, profile, seed, sim_time_s, wall_time_s, events, jobs, pods,
//                        utilization, scheduler, edge_ratio (written last)
//   DIR/jobs.csv         job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short
//   DIR/pods.csv         pod,owner,node,tier,created_s,bound_s,running_s,finished_s,pending_s,
//                        pct_s,restarts,migrations,outcome
//   DIR/timeseries.csv   time_s,cpu_util,mem_util,slot_util,pending,running,...
//   DIR/edge_ratio.csv   time_s,deployment,edge_ratio,... (when the cluster has edge nodes)
//   DIR/setup.json       nodes by tier and size, workloads, policies (sim/setup.h)
//
// The same scenario and seed give byte-identical files, except the wall-clock fields, which
// RunOptions::wall_clock = false writes as 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/policy.h"
#include "framework/runtime.h"
#include "sim/event_loop.h"
#include "sim/hpa.h"
#include "sim/job.h"
#include "sim/recorder.h"
#include "sim/replicaset.h"
#include "sim/scenario.h"
#include "sim/sim_backend.h"
#include "sim/sim_clock.h"
#include "sim/trace_replay.h"

namespace orrery::sim {

struct RunOptions {
  std::string policy;            // replaces the first scheduler's policy when set
  std::optional<uint64_t> seed;  // replaces the scenario's seed when set
  Time duration = 0;             // > 0: replaces the scenario's duration
  bool wall_clock = true;        // false: wall-clock fields are written as 0
  bool progress = false;         // progress bar on stderr (after the first second)
  // Runs without a duration stop when nothing has happened to any pod for this long while work
  // is left (e.g. pods nobody can schedule); the summary then says "incomplete": true.
  Time stall_limit = 3600 * kSecond;
};

class Simulation {
 public:
  Simulation(const Scenario& scenario, const fw::PolicyRegistry& policies, RunOptions options);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  void run();

  Json summary() const;
  // Writes every output file into `dir` (created if needed), summary.json last.
  void write_outputs(const std::string& dir) const;

  EventLoop& loop() { return loop_; }
  SimBackend& backend() { return *sim_; }
  Recorder& recorder() { return *recorder_; }
  const JobLog& jobs() const { return log_; }
  ReplicaSet* deployment(const std::string& name);
  const std::string& policy() const { return policy_name_; }
  uint64_t seed() const { return seed_; }
  bool incomplete() const { return incomplete_; }
  // Configuration warnings from the policies (e.g. plugins accepted but not modelled).
  std::vector<std::string> warnings() const;

 private:
  class Arrivals;
  struct PolicySlot;
  void build_nodes();
  void build_workloads();
  void build_events();
  // Random node failures (events with action random-failures): one process per node.
  struct FailureProcess {
    const NodeEventDef* event;
    std::string node;
    Rng rng;
  };
  void schedule_random_failure(const NodeEventDef& e, size_t index, const std::string& node);
  Time draw_failure_time(size_t i, Time mean);
  void random_failure(size_t i, bool fail);  // fail, or recover and plan the next failure
  NodeId add_group_node(const NodeGroup& g, const std::string& name);
  bool work_done() const;
  double progress_fraction() const;

  const Scenario& sc_;
  RunOptions opt_;
  uint64_t seed_;
  std::vector<FailureProcess> failures_;
  std::string policy_name_;
  EventLoop loop_;
  std::unique_ptr<SimBackend> sim_;
  // The runtime policies see: the backend, the loop as a fw::Clock, the simulator's services
  // (NodeTelemetry) and the reservations shared by every policy of the run.
  SimClock clock_{loop_};
  fw::Services services_;
  fw::Reservations reservations_;
  std::unique_ptr<fw::Runtime> runtime_;
  std::unique_ptr<Recorder> recorder_;
  JobLog log_;
  std::vector<std::unique_ptr<PolicySlot>> policies_;
  std::vector<std::unique_ptr<ReplicaSet>> deployments_;
  std::vector<std::unique_ptr<Demand>> demands_;
  std::vector<std::unique_ptr<Hpa>> hpas_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::unique_ptr<Arrivals>> arrivals_;
  std::vector<std::unique_ptr<TraceReplay>> traces_;
  std::vector<std::vector<double>> demand_fractions_;
  size_t jobs_waiting_ = 0;  // scenario jobs whose start time has not come
  uint64_t next_job_id_ = 0;
  size_t expected_jobs_ = 0;
  Time end_ = 0;
  bool incomplete_ = false;
  double wall_s_ = 0;
  Json setup_;  // setup.json (sim/setup.h)
};

// The outputs of a finished run, for tests and the compare command.
std::string summary_text(const Json& summary);

}  // namespace orrery::sim
