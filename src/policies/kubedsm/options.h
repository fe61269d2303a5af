// clang-format off
// KubeDSM's settings (paper §5.1 "constants", plus what running it needs), and their YAML form
// (the scenario's scheduler args, docs in README.md):
//
//   mC2E: 5                      # M_C2E (0..20)
//   mER: 3                       # M_ER (0..6)
//   alpha: 1.0                   # F's slopes and bonus, 0 <= beta < alpha << gamma (eq. 5)
//   beta: 0.1
//   gamma: 100
//   suggestBudget: reclaimable   # or "free" (the literal Alg. 2 line 5)
//   fitCheck: approximate        # or "exact": makeDecision's subsets must be matchable per node
//   qosFunction: linear          # eq. 3, or "sqrt": ecmus's concave QoS (qos.h)
//   fragmentation: minedraft     # 1 − product of used shares per node, or "orrery" (fragmentation.h)
//   podSize: eq11                # eq. 11, or "ecmus": product of shares of the largest node
//   lastPod: false               # true: never move a service's last running pod (ecmus)
//   reorderWithoutCandidates: true  # false: a suggestion with no cloud candidate does not
//                                # reorder the edge (ecmus)
//   abandonMigrations: false     # true: drop a running migration plan on unplanned pod events
//   migration: delete-first      # or "create-first"
//   waitForRunning: true         # delete-first: wait until the replacement runs
//   boundedCloud: true           # offloads need room on a cloud node; false: unbounded (§4.1.1)
//   batchWindow: 1s              # immediateSchedule waits this long to gather a batch
//   maxBatch: 20                 # pods per immediateSchedule call
//   suggestPeriod: 10s           # suggest() every ...
//   resyncPeriod: 30s            # full resync (missed pods, plan timeouts) every ...
//   stepTimeout: 120s            # a plan step waiting longer cancels the plan
//   schedulerName: kubedsm       # pods with this spec.schedulerName are KubeDSM's
//   defaultQosTarget: 1.0        # Q_i of services without annotation or entry below
//   qosTargets: {A: 0.5, B: 0.1} # Q_i per deployment (the pod annotation
//                                # kubedsm.orrery.io/qos-target takes precedence)
//
// Durations are a number of seconds or a string with unit ms, s or m ("500ms", "1.5s", "2m").
// clang-format on
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "io/yaml_util.h"
#include "policies/kubedsm/algorithms.h"
#include "policies/kubedsm/plan_builder.h"

namespace orrery::kubedsm {

struct Options {
  Config core;
  MigrationStyle migration = MigrationStyle::kDeleteFirst;
  bool wait_running = true;
  bool bounded_cloud = true;  // offloads need room on a cloud node (README "A finite cloud")
  // abandonMigrations: as ecmus's scheduler (internal/scheduler/scheduler.go, handleEvent and
  // schedule: flushExpectations), a running migration plan is dropped when a pod of ours is
  // deleted outside it or a new pod of ours arrives; its pending pods are scheduled as new pods
  // (not sent to the cloud as a cancelled plan's are).
  bool abandon_migrations = false;
  int64_t batch_window_us = 1'000'000;
  size_t max_batch = 20;
  int64_t suggest_period_us = 10'000'000;
  int64_t resync_period_us = 30'000'000;
  int64_t step_timeout_us = 120'000'000;
  std::string scheduler_name = "kubedsm";
  double default_qos = 1.0;
  std::map<std::string, double> qos_targets;

  // Throws InputError on values outside their domain.
  void validate() const;
};

// Reads the YAML form above (undefined `args` gives the defaults). Unknown keys, wrong types and
// out-of-range values throw InputError "FILE:LINE: field: what was expected".
Options parse_options(const yaml::Ctx& args);

// "1.5s" / "500ms" / "2m" / 3 (seconds) → microseconds; throws InputError via ctx.fail().
int64_t parse_duration_us(const yaml::Ctx& c);

}  // namespace orrery::kubedsm
