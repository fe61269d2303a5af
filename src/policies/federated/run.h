// One Megha or PigeonC simulation of a trace, and its output directory:
//   DIR/summary.json    the simulator's schema plus "inconsistencies", "short_jobs",
//                       "long_jobs", "cluster", "messages", "unsatisfiable" (written last)
//   DIR/jobs.csv        sim/metrics.h jobs_csv (short = mean task duration < cutoff)
//   DIR/timeseries.csv  time_s,cpu_util,mem_util,slot_util,pending,running,queued
// Library entry point for `orrery sim --arch megha|pigeonc` and `orrery repro federated`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policies/federated/architectures.h"
#include "policies/federated/cluster_config.h"
#include "policies/federated/faults.h"
#include "policies/federated/matcher.h"
#include "policies/federated/sim_params.h"
#include "policies/federated/workload.h"
#include "sim/metrics.h"

namespace orrery::federated {

struct RunOptions {
  Pick pick = Pick::kRandom;
  uint64_t seed = 1;
  sim::Time network_delay = 500;  // one-way, every message
  sim::Time heartbeat = 0;        // 0: Megha 5 s, PigeonC 10 s
  // Short/long job split (PigeonC's queues; both architectures' summaries). Default: the
  // configuration's cutoff (PigeonC), else kDefaultCutoff.
  std::optional<double> cutoff_s;
  // Time-series sampling period; 0 picks 1 s, or longer so a run has at most ~20,000 samples.
  sim::Time sample_interval = 0;
  bool wall_clock = true;  // false: "wall_time_s" is written as 0 (byte-comparable outputs)
  LmOrder lm_order = LmOrder::kFixed;  // Megha only: see sim_params.h
  bool aligned_heartbeats = false;     // see sim_params.h
  bool retry_rejected = true;          // Megha: see sim_params.h
  // PigeonC only: CS_i as the paper defines it, or as the published simulator builds it.
  bool reference_cs = false;
  ReferenceQuirks quirks;  // see sim_params.h; set by set_reference()
  std::string scenario;    // summary "scenario"; default: the trace file name without .tr
  // Faults to inject (faults.h), or none. With faults the run stops when the last job is done
  // (pending crash timers are dropped) and summary.json gains "faults" (what happened, and the
  // task launches and completions, each equal to the runnable tasks when none was lost or
  // repeated); without, outputs are those of a run without this option.
  std::shared_ptr<const FaultPlan> faults;
};

// The published PigeonC 10,000-worker configuration's cutoff; used for Megha runs without one.
inline constexpr double kDefaultCutoff = 2.0;

struct RunOutput {
  sim::Json summary;
  std::vector<sim::JobRecord> jobs;
  std::string timeseries_csv;
  std::vector<double> util_samples;   // slot utilisation at each sample (Figure 10's CDF)
  std::vector<sim::Time> task_start;  // [task] when it started on a worker; -1: never
  uint64_t inconsistencies = 0;
};

// Sets what an architecture's name decides (architectures.h): matching, and the reference
// behaviour (Megha: rejected tasks wait in the queue; PigeonC: the reference CS_i counting).
void apply(const Architecture& a, RunOptions* o);

// The published simulator's behaviour for `arch` on (reference) or off: Megha's rejected tasks
// wait in the queue, PigeonC's reference CS_i, and the ReferenceQuirks of sim_params.h.
void set_reference(Arch arch, bool reference, RunOptions* o);

// A comma-separated subset of the quirks by name: rejection-state, early-heartbeat,
// batched-verify, lm-frees-at-end, update-lists (Megha), master-min, fair-queue-le (PigeonC),
// and all (reference_quirks()); or "none". InputError naming the bad entry.
ReferenceQuirks parse_quirks(std::string_view list);

// "megha_rand", "megha_min", "pigeonc_rand", "pigeonc_min".
std::string profile_name(Arch arch, Pick pick);

RunOutput run_federated(const Workload& w, const ClusterConfig& c, const RunOptions& o);

// Writes jobs.csv, timeseries.csv, then summary.json (atomically, summary last).
void write_run(const RunOutput& r, const std::string& dir);

// Everything `orrery sim --trace T --cluster-config C --arch A --match M --seed N --out DIR`
// needs: loads and checks the inputs (InputError on bad input, before anything is written),
// runs, writes DIR (when `out` is not empty) and returns the result.
struct SimRequest {
  std::string trace;
  std::string cluster_config;
  std::string task_model;        // default: task_constraint_model.json beside the config
  std::string task_constraints;  // optional explicit constraints (load_task_constraints)
  std::string out;
  Arch arch = Arch::kMegha;
  uint32_t replicate = 1;  // replicate(config, n): 2 = 20,000 workers, 10 = 100,000
  std::string faults;      // a fault file (faults.h), checked against the configuration
  RunOptions options;
};
RunOutput run_request(const SimRequest& req);

// The task model a request without one uses: task_constraint_model.json beside the configuration.
std::string default_task_model(const std::string& cluster_config);

}  // namespace orrery::federated
