// The packer in a running cluster (any fw::Runtime: the simulator or a real cluster): a
// fw::Planner that, when triggered, snapshots the cluster, runs Algorithm 1 and, when the answer
// places more important pods than the cluster has now, carries it out as one verified fw::Plan
// (plan.h: evictions first, re-creations and binds after; a contradicting event cancels the rest
// and the leftover pods stay with the normal queue).
//
// Triggers (pluginConfig `trigger`, a list):
//   postfilter  a pod is still unschedulable after the profile's own filters and preemption (the
//               PriorityOptimalPacking PostFilter plugin runs after DefaultPreemption), as the
//               paper's plugin;
//   periodic    every `period`;
//   on-demand   request() (an API call; in a simulation, the times in `onDemandAt`).
// Modes: async (default) — other pods keep being scheduled while a plan runs; the plan's binds
// hold their room as plan reservations and every step is checked against the live state by its
// event. sync — pods outside the plan wait (the plugin's PreFilter rejects them) until it ends,
// as the paper's plugin pauses new pods while it solves and applies.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/time.h"
#include "framework/plan.h"
#include "framework/planner.h"
#include "framework/plugin.h"
#include "framework/profile.h"
#include "policies/optpack/optimizer.h"
#include "policies/optpack/plan.h"
#include "policies/optpack/snapshot.h"

namespace orrery::optpack {

inline constexpr const char* kPluginName = "PriorityOptimalPacking";

struct PackerOptions {
  double timeout_s = 1.0;
  double alpha = 0.8;
  bool sync = false;
  bool on_postfilter = true;
  Time period_us = 0;  // 0: not periodic
  std::vector<Time> on_demand_at;
  size_t max_pods = 0, max_nodes = 0;
  bool deterministic = true;          // in a simulation, the budget in work units (reproducible)
  Time min_interval_us = 10'000'000;  // between two solves triggered by PostFilter
};

// Parses the plugin's pluginConfig args (timeout, alpha, mode, trigger, period, onDemandAt,
// maxPods, maxNodes, deterministic). Throws InputError at the offending field.
PackerOptions parse_packer_options(const yaml::Ctx& args);

class Packer : public fw::Planner {
 public:
  Packer(fw::ClusterBackend& backend, fw::Reservations* reservations, PackerOptions options,
         fw::Profile* profile, uint64_t seed);
  ~Packer() override;

  // Asks for a solve at `now` (PostFilter, on demand).
  void request(Time now);
  bool plan_running() const { return executor_.active() > 0; }
  // The pod is part of the running plan (sync mode lets it through).
  bool in_plan(uint64_t pod_serial) const { return executor_.involves(pod_serial); }
  const PackerOptions& options() const { return opts_; }

  void start() override;
  void tick() override;
  Time next_wakeup_us() const override;
  void on_event(const fw::ClusterEvent& e) override;
  void report(fw::PolicyStats& stats) override;
  void finish(Json* scheduler_summary) override;

 private:
  void solve();

  fw::ClusterBackend& backend_;
  PackerOptions opts_;
  fw::Profile* profile_;
  uint64_t seed_;
  fw::PlanExecutor executor_;
  Time due_ = kForever, next_periodic_ = kForever, last_solve_ = -1;
  size_t next_on_demand_ = 0;
  bool started_ = false;
  // Each plan submitted, for summary.json: when, its steps, how it ended.
  struct PlanRecord {
    std::string name;
    double at_s = 0;
    std::vector<PlanStep> steps;
    std::string status = "running", reason;
  };
  std::vector<PlanRecord> history_;
  // Counters for summary.json.
  int solves_ = 0, plans_ = 0, improved_ = 0, proven_ = 0, over_limits_ = 0;
  int64_t steps_ = 0, moves_ = 0, evictions_ = 0, binds_ = 0;
  double solve_wall_s_ = 0;
};

// Links the profile plugin to the packer its policy creates after the profile.
struct PackerLink {
  PackerOptions options;
  bool configured = false;
  Packer* packer = nullptr;
};

// The PriorityOptimalPacking plugin: PostFilter (trigger) and PreFilter (sync mode's wait).
std::unique_ptr<fw::Plugin> make_packing_plugin(std::shared_ptr<PackerLink> link,
                                                const yaml::Ctx& args);

}  // namespace orrery::optpack
