// Scenario files: a YAML description of a simulated run (cluster, workloads, schedulers, events,
// lifecycle delays, metrics). The full reference is docs/scenarios.md; examples are in
// scenarios/. Every error names the file, line and field: "s.yaml:12: workloads[0].deployment.
// replicas: expected an integer, got \"x\"".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/node.h"
#include "core/pod.h"
#include "io/yaml_util.h"
#include "sim/demand.h"
#include "sim/hpa.h"
#include "sim/job.h"
#include "sim/replicaset.h"
#include "sim/sim_backend.h"
#include "sim/trace.h"
#include "sim/workload.h"

namespace orrery::sim {

struct NodeGroup {
  std::string name;
  int count = 1;
  Node tmpl;  // name is filled per node: <name> when count is 1, else <name>-<i>
  double speed = 1.0;
  std::string where;  // location in the scenario, for messages
  std::vector<std::string> node_names() const;
};

struct SchedulerDef {
  std::string policy = "kube-default";
  std::string config;  // KubeSchedulerConfiguration file (resolved path), optional
  yaml::Ctx args;      // policy arguments (undefined when none)
  std::string where;   // "FILE:LINE: path" of the policy name, for errors
};

struct DeploymentDef {
  std::string name;
  PodTemplate tmpl;
  int32_t replicas = 1;
  std::optional<HpaSpec> hpa;
  // scaleDownOrder: exact (default) or logarithmic (upstream's LogarithmicScaleDown; replicaset.h)
  ScaleDownOrder scale_down_order = ScaleDownOrder::kExact;
  Demand demand;  // explicit steps (demand: [...]); demand cycles add to it at build time
  std::string where;
};

struct JobDef {
  JobSpec spec;
  Time at = 0;
  std::string where;
};

struct ArrivalDef {
  std::string name;
  Dist interval;  // µs between arrivals
  Time start = 0;
  Time stop = kForever;
  int64_t count = -1;  // -1: until stop
  JobSpec job;         // template of each arriving job (name is <name>-<k>)
  std::string where;
};

struct TraceDef {
  std::string file;
  std::string prefix;
  PodTemplate tmpl;
  Time offset = 0;
  std::shared_ptr<const Trace> trace;
  std::string where;
};

struct DemandCyclesDef {
  std::vector<std::string> deployments;
  DemandCycleSpec spec;
  std::map<std::string, Resources> sizes;  // draw: per-service, per deployment (else its request)
  enum class Basis : uint8_t { kEdge, kAll, kExplicit } basis = Basis::kEdge;
  std::string where;
};

struct NodeEventDef {
  Time at = 0;
  enum class Action : uint8_t {
    kFail,
    kRecover,
    kRemove,
    kAdd,
    kRandomFailures  // from `at` to `until`, each node fails after Exp(mtbf) up, recovers after
                     // Exp(mttr) down, again and again (its own seeded stream per node)
  } action = Action::kFail;
  std::vector<std::string> nodes;  // node or group names (fail/recover/remove/random-failures)
  NodeGroup group;                 // add
  Time mtbf = 0, mttr = 0;         // random-failures: mean up and down times (> 0)
  Time until = kForever;           // random-failures: no failure starts from then on
  std::string where;
};

struct Scenario {
  std::string name;
  std::string description;  // one line, shown in reports ("" when none)
  std::string source;       // file name ("" when built in code)
  uint64_t seed = 1;
  Time duration = 0;  // 0: until every finite workload is done
  std::vector<SchedulerDef> schedulers{SchedulerDef{}};
  // Settings for policies by name (`policies:`), used when a policy runs without settings of its
  // own in `scheduler(s)` — e.g. when `--profile` or `compare` substitutes it.
  std::map<std::string, SchedulerDef> policy_settings;
  // The settings a policy runs with in scheduler slot `slot`.
  SchedulerDef settings_for(size_t slot, const std::string& policy) const;
  Lifecycle lifecycle;
  Time sample_interval = kSecond;

  std::vector<NodeGroup> node_groups;
  std::vector<Node> snapshot_nodes;
  std::vector<Pod> snapshot_pods;  // bound pods in the snapshot: created running, no end

  std::vector<DeploymentDef> deployments;
  std::vector<JobDef> jobs;
  std::vector<ArrivalDef> arrivals;
  std::vector<TraceDef> traces;
  std::vector<DemandCyclesDef> demand_cycles;
  std::vector<NodeEventDef> events;
  // Things the file asks for that the simulator does not model ("FILE:LINE: path: not modelled:
  // ..."); `orrery sim` prints them as warnings.
  std::vector<std::string> warnings;

  // True when some workload never ends by itself (deployments), so a duration is needed.
  bool has_endless_work() const;
  // When demand cycles are present and no duration was given: the end of the last cycle.
  Time natural_duration() const;
};

// Checks the scenario against the input limits (io/limits.h, docs/scenarios.md "Limits") for a
// run of `duration` (0: the scenario's own end): nodes, pods the run would create (deployments at
// their largest, jobs, arrivals over the run, trace tasks, snapshot pods) and time-series samples.
// Throws InputError naming the largest contributor. parse_scenario calls it with the scenario's
// duration; a run with another duration (--duration) calls it again.
void check_scenario_limits(const Scenario& s, Time duration);

// Throws InputError on unreadable files or bad content.
Scenario load_scenario(const std::string& path);
// `base_dir` resolves relative file names (traces, snapshots, scheduler configs).
Scenario parse_scenario(const std::string& text, const std::string& source,
                        const std::string& base_dir);

// The scenario `orrery sim --trace FILE --workers N` runs: N one-slot workers (1 cpu, 1Gi, pods 1)
// replaying the trace, until every job is done.
Scenario trace_scenario(const std::string& trace_file, int workers);

}  // namespace orrery::sim
