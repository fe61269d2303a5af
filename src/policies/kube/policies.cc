#include "policies/kube/policies.h"

#include <algorithm>

#include "framework/scheduler_driver.h"
#include "plugins/helper/names.h"
#include "plugins/register.h"

namespace orrery::kube {

fw::PolicyFactory framework_policy(std::function<void(fw::PluginRegistry&)> register_plugins,
                                   std::function<fw::SchedulerConfig()> default_config) {
  return [register_plugins,
          default_config](fw::PolicyContext& ctx) -> std::unique_ptr<fw::Component> {
    fw::PluginRegistry plugins;
    plugins::register_default_plugins(plugins);
    if (register_plugins) register_plugins(plugins);
    const fw::SchedulerConfig config = fw::policy_config(ctx, default_config);
    std::vector<std::string> warnings;
    auto profiles = plugins::build_profiles(config, plugins, &warnings, &ctx.runtime);
    for (const std::string& w : warnings) ctx.stats.warn(w);
    fw::DecisionLatency latency;
    bool deterministic = false;
    fw::QueueMode queue_mode = fw::QueueMode::kHints;
    if (ctx.args.defined()) {
      ctx.args.expect_map();
      for (const std::string& k : ctx.args.keys()) {
        if (k != "decision_latency" && k != "deterministic" && k != "queue") {
          ctx.args.child(k).fail("unknown field (expected decision_latency, deterministic, queue)");
        }
      }
      latency = fw::parse_decision_latency(ctx.args.child("decision_latency"));
      deterministic = ctx.args.bool_or("deterministic", false);
      const std::string mode = ctx.args.str_or("queue", "hints");
      if (mode == "requeue-all") {
        queue_mode = fw::QueueMode::kRequeueAll;
      } else if (mode != "hints") {
        ctx.args.child("queue").fail("expected hints or requeue-all, got \"" + mode + "\"");
      }
    }
    if (deterministic)
      for (auto& p : profiles) p->deterministic_ties = true;
    fw::SchedulerOptions options;
    options.seed = ctx.seed;
    options.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score;
    options.queue = fw::queue_options(config);
    options.queue.mode = queue_mode;
    const bool enforced = std::all_of(profiles.begin(), profiles.end(), [](const auto& p) {
      return std::any_of(p->filter.begin(), p->filter.end(), [](const fw::Plugin* f) {
        return f->name() == plugins::names::kMachineConstraints;
      });
    });
    auto driver = std::make_unique<fw::SchedulerDriver>(ctx, std::move(profiles), options, latency);
    if (!enforced) driver->warn_if_constraints_unenforced();
    return driver;
  };
}

namespace {

// kube-scheduler configured for bin packing, as the upstream documentation suggests
// (NodeResourcesFit with the MostAllocated scoring strategy).
const char* kBinpackConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
)";

}  // namespace

void register_policies(fw::PolicyRegistry& registry,
                       std::function<void(fw::PluginRegistry&)> more_plugins) {
  registry.add("kube-default",
               "kube-scheduler's default profile (or the scenario's KubeSchedulerConfiguration)",
               framework_policy(more_plugins, fw::default_scheduler_config));
  registry.add("kube-binpack",
               "kube-scheduler with NodeResourcesFit scoring MostAllocated (bin packing)",
               framework_policy(more_plugins, [] {
                 return fw::parse_scheduler_config(kBinpackConfig, "<kube-binpack>");
               }));
}

}  // namespace orrery::kube
