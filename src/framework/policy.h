// Policies as both worlds build them. A policy is a Component: an actor on the runtime's clock
// that watches the backend and binds pods (a per-pod framework scheduler, a planner, a federated
// architecture...). Worlds know policies only by name through a PolicyRegistry that each policy
// module fills explicitly (no static initialisers), and build them with a PolicyContext whose
// Runtime is the simulator's or a real one's:
//
//   fw::PolicyRegistry reg;
//   kube::register_policies(reg);        // kube-default, kube-binpack
//   kubedsm::register_policies(reg);     // kubedsm
//   auto policy = reg.create("kube-default", ctx);
//
// The registry of everything orrery ships is policies/catalog.h.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "framework/config.h"
#include "framework/runtime.h"
#include "io/json.h"
#include "io/yaml_util.h"

namespace orrery::fw {

// Counters and decision timings a policy reports; written to summary.json ("scheduler") and
// scheduler.csv.
class PolicyStats {
 public:
  // One scheduling decision (a cycle for one pod, or one batch) and its wall-clock cost. Wall
  // time is measured outside the simulated clock and never influences the simulation.
  void decision(bool scheduled, int64_t wall_ns, int pods = 1);
  // A named counter, e.g. "plans_applied", "migrations" (plan outcomes and the like).
  void count(const std::string& name, int64_t delta = 1) { counters_[name] += delta; }
  // Something the user should know about the policy's configuration (printed by the CLI).
  void warn(const std::string& message) { warnings_.push_back(message); }
  const std::vector<std::string>& warnings() const { return warnings_; }

  uint64_t decisions() const { return decisions_; }
  uint64_t scheduled() const { return scheduled_; }
  uint64_t failed() const { return failed_; }
  const std::vector<int64_t>& wall_ns() const { return wall_ns_; }
  const std::map<std::string, int64_t>& counters() const { return counters_; }
  // {"decisions","scheduled","failed_attempts","wall_total_s","wall_per_decision_mean_us",
  //  "wall_per_decision_p50_us","wall_per_decision_p99_us", counters...}; wall fields are 0 when
  // `wall_clock` is false; the per-decision ones are null when there was no decision.
  Json summary(bool wall_clock) const;

 private:
  uint64_t decisions_ = 0, scheduled_ = 0, failed_ = 0;
  std::vector<int64_t> wall_ns_;
  std::map<std::string, int64_t> counters_;
  std::vector<std::string> warnings_;
};

// Everything a policy may use.
struct PolicyContext {
  Runtime& runtime;  // the cluster, the clock, the world's services and shared reservations
  uint64_t seed;
  std::string name;              // the registry name it was created under
  yaml::Ctx args;                // the scenario's settings for it (undefined when none)
  std::string scheduler_config;  // KubeSchedulerConfiguration file from the scenario, if any
  PolicyStats& stats;
  // The pods' spec.schedulerName this world asks the policy to take when no configuration file
  // names them (`orrery serve --scheduler-name`); empty: the policy's own (default-scheduler).
  std::string scheduler_name = {};
};

// The KubeSchedulerConfiguration a framework policy runs: the context's file, else `builtin()`
// with every profile renamed to ctx.scheduler_name when that is set.
SchedulerConfig policy_config(const PolicyContext& ctx,
                              const std::function<SchedulerConfig()>& builtin);

class Component {
 public:
  virtual ~Component() = default;
  // Called once before the run starts (the cluster and initial workloads exist).
  virtual void start() {}
  // Adds policy-specific results to summary.json's "scheduler" object at the end of the run.
  virtual void finish(Json* scheduler_summary) { (void)scheduler_summary; }
};

using PolicyFactory = std::function<std::unique_ptr<Component>(PolicyContext&)>;

class PolicyRegistry {
 public:
  void add(const std::string& name, const std::string& description, PolicyFactory factory);
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  // Throws InputError naming the known policies when `name` is unknown.
  std::unique_ptr<Component> create(const std::string& name, PolicyContext& ctx) const;
  // The message for an unknown name: the closest known name and the list.
  std::string unknown(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::string& description(const std::string& name) const;

 private:
  struct Entry {
    std::string description;
    PolicyFactory factory;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace orrery::fw
