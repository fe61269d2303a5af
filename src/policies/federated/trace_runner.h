// How orrery runs any name of a policy registry (the catalog's) or architecture on one trace and
// one data centre — the runs of `orrery compare --trace FILE.tr --cluster-config FILE_C.json
// --profiles ...`:
//
//   framework policy  sim::Simulation replaying the trace on the configuration's workers
//                     (worker_scenario.h: one node and one pod slot per worker, its machine
//                     constraints as orrery.io/constraints; tasks carry none)
//   architecture      run_request (run.h) on the configuration of its kind (Megha or PigeonC),
//                     task constraints drawn from task_constraint_model.json beside it
//
// Every run writes DIR/summary.json (last), jobs.csv and timeseries.csv; policies also write
// pods.csv. Summaries are labelled with the name as given ("megha", not "megha_rand"). With the
// same seed, runs are byte-identical when wall_clock is false. It lives in this module, on the
// simulator's side of the layering (docs/ARCHITECTURE.md), because it runs the simulator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/policy.h"
#include "io/json.h"

namespace orrery::federated {

struct TraceSetup {
  std::string trace;
  // One Megha and/or one PigeonC configuration of the same workers. Policies run on the first.
  std::vector<std::string> cluster_configs;
  std::optional<uint64_t> seed;  // default 1, as for scenarios and `orrery sim --arch`
  int64_t duration_us = 0;       // > 0: stop policies' runs then (not allowed with architectures)
  bool wall_clock = true;        // false: wall-clock fields are written as 0
};

struct TraceRun {
  Json summary;
  std::vector<std::string> warnings;  // for the user (unenforced settings, dropped tasks...)
};

class TraceRunner {
 public:
  // Checks everything a run reads before any runs: the names (unknown ones are errors listing
  // the known ones), the trace, the configurations (at most one of each kind, the same workers),
  // that each architecture has a configuration of its kind, and its task model. Throws
  // InputError naming the flag, file or profile. `registry`: the policies it may run (the
  // catalog's, policies/catalog.h), beside the architectures.
  TraceRunner(TraceSetup setup, std::vector<std::string> profiles, fw::PolicyRegistry registry);

  const std::vector<std::string>& profiles() const { return profiles_; }
  // Runs profiles()[i] and writes its outputs into `dir`. Safe to call from several threads at
  // once: each run reads its own inputs.
  TraceRun run(size_t i, const std::string& dir) const;

 private:
  TraceRun run_policy(const std::string& name, const std::string& dir) const;
  TraceRun run_architecture(const std::string& name, const std::string& dir) const;
  void load_configs();

  TraceSetup setup_;
  std::vector<std::string> profiles_;
  fw::PolicyRegistry registry_;
  std::string megha_config_, pigeon_config_;  // "" when not given
};

}  // namespace orrery::federated
