#include "sim/scheduler_driver.h"

// Kept apart from scheduler_driver.cc: it needs the configuration loader (framework/config.cc).

namespace orrery::sim {

PolicyFactory framework_policy(std::function<void(fw::PluginRegistry&)> register_plugins,
                               std::function<fw::SchedulerConfig()> default_config) {
  return [register_plugins, default_config](PolicyContext& ctx) -> std::unique_ptr<Component> {
    fw::PluginRegistry plugins;
    register_plugins(plugins);
    fw::SchedulerConfig config = ctx.scheduler_config.empty()
                                     ? default_config()
                                     : fw::load_scheduler_config(ctx.scheduler_config);
    std::vector<std::unique_ptr<fw::Profile>> profiles;
    for (const fw::ProfileConfig& pc : config.profiles) {
      profiles.push_back(fw::build_profile(pc, config.percentage_of_nodes_to_score, plugins));
    }
    fw::SchedulerOptions options;
    options.seed = ctx.seed;
    options.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score;
    DecisionLatency latency;
    if (ctx.args.defined()) {
      ctx.args.expect_map();
      for (const std::string& k : ctx.args.keys()) {
        if (k != "decision_latency")
          ctx.args.child(k).fail("unknown field (expected decision_latency)");
      }
      latency = parse_decision_latency(ctx.args.child("decision_latency"));
    }
    return std::make_unique<SchedulerDriver>(ctx, std::move(profiles), options, latency);
  };
}

}  // namespace orrery::sim
