#include "policies/kubcg/policy.h"

#include "core/error.h"
#include "framework/scheduler_driver.h"
#include "obs/log.h"
#include "plugins/register.h"

namespace orrery::kubcg {

namespace {

// The scheduler driver, plus the history's last flush and KubCG's counters at the end.
class KubcgComponent : public fw::Component {
 public:
  KubcgComponent(std::unique_ptr<fw::SchedulerDriver> driver, std::shared_ptr<DecisionUnit> unit,
                 fw::PolicyStats& stats)
      : driver_(std::move(driver)), unit_(std::move(unit)), stats_(stats) {}
  void start() override { driver_->start(); }
  void finish(Json* summary) override {
    driver_->finish(summary);
    if (!unit_->flush())
      stats_.warn("KubCG: " + std::to_string(unit_->writer().pending()) +
                  " history record(s) could not be stored: " + unit_->writer().last_error());
    const UnitCounters& c = unit_->counters();
    (*summary)["kubcg"] = {{"decisions", c.decisions},
                           {"gpu_waits", c.waits},
                           {"image_switches", c.switches},
                           {"cold_starts", c.cold_starts},
                           {"records", c.recorded},
                           {"failed_runs", c.failed_runs},
                           {"incompatibilities_learned", c.incompatibilities_learned},
                           {"estimate_corrections", c.corrections}};
    const HistoryWriter& w = unit_->writer();
    (*summary)["kubcg"]["history"] = {{"acknowledged", w.acknowledged()},
                                      {"pending", w.pending()},
                                      {"lost", w.lost()},
                                      {"failed_flushes", w.failed_flushes()}};
    if (w.lost() > 0)
      stats_.warn("KubCG: " + std::to_string(w.lost()) +
                  " history record(s) were dropped (the buffer was full while the database was "
                  "unavailable)");
  }

 private:
  std::unique_ptr<fw::SchedulerDriver> driver_;
  std::shared_ptr<DecisionUnit> unit_;
  fw::PolicyStats& stats_;
};

const ClusterState* runtime_state(const fw::PluginArgs& a) {
  return a.handle && a.handle->has_runtime() ? &a.handle->runtime().backend.state() : nullptr;
}

// A KubCG plugin that owns its unit (opened from its pluginConfig args): the unit's pending
// history records are committed when the profile ends, and a failure to commit is logged.
class OwningKubcgPlugin : public KubcgPlugin {
 public:
  OwningKubcgPlugin(std::shared_ptr<DecisionUnit> unit, const ClusterState* state)
      : KubcgPlugin(unit, state), unit_(std::move(unit)) {}
  ~OwningKubcgPlugin() override {
    if (!unit_->flush())
      obs::warn("KubCG: history records could not be stored",
                {{"pending", std::to_string(unit_->writer().pending())},
                 {"error", unit_->writer().last_error()}});
  }

 private:
  std::shared_ptr<DecisionUnit> unit_;
};

std::shared_ptr<DecisionUnit> unit_from_args(const yaml::Ctx& args) {
  std::string db = "sqlite::memory:";
  if (args.defined()) db = args.str_or("db", db);
  std::shared_ptr<DecisionUnit> unit;
  try {
    unit = std::make_shared<DecisionUnit>(open_history(db));
  } catch (const HistoryError& e) {
    throw InputError(args.where() + ": db: " + e.what());
  }
  if (args.defined() && args.child("theta").defined()) {
    const yaml::Ctx theta = args.child("theta");
    theta.expect_map();
    for (const std::string& image : theta.keys()) {
      const double slope = theta.child(image).f64();
      if (!(slope >= 0)) theta.child(image).fail("expected a slope >= 0");
      unit->theta().set_slope(image, slope);
    }
  }
  return unit;
}

}  // namespace

fw::SchedulerConfig kubcg_config() {
  fw::SchedulerConfig c = fw::default_scheduler_config();
  c.source = "kubcg";
  c.pod_initial_backoff_seconds = 1;
  c.pod_max_backoff_seconds = 1;
  for (fw::ProfileConfig& p : c.profiles) {
    p.plugins["filter"].enabled.push_back({std::string(kPluginName), 0, "kubcg"});
    p.plugins["mutate"].enabled.push_back({std::string(kPluginName), 0, "kubcg"});
  }
  return c;
}

fw::PolicyFactory kubcg_policy(std::shared_ptr<DecisionUnit> shared) {
  return [shared](fw::PolicyContext& ctx) -> std::unique_ptr<fw::Component> {
    if (ctx.args.defined()) {
      ctx.args.expect_map();
      for (const std::string& k : ctx.args.keys())
        if (k != "db" && k != "theta" && k != "deterministic")
          ctx.args.child(k).fail("unknown field (expected db, theta, deterministic)");
    }
    std::shared_ptr<DecisionUnit> unit = shared ? shared : unit_from_args(ctx.args);
    fw::PluginRegistry plugins;
    plugins::register_default_plugins(plugins);
    plugins.add(std::string(kPluginName), [unit](const fw::PluginArgs& a) {
      return std::make_unique<KubcgPlugin>(unit, runtime_state(a));
    });
    const fw::SchedulerConfig config = fw::policy_config(ctx, kubcg_config);
    std::vector<std::string> warnings;
    auto profiles = plugins::build_profiles(config, plugins, &warnings, &ctx.runtime);
    for (const std::string& w : warnings) ctx.stats.warn(w);
    const bool deterministic = !ctx.args.defined() || ctx.args.bool_or("deterministic", true);
    for (auto& p : profiles) p->deterministic_ties = deterministic;
    fw::SchedulerOptions options;
    options.seed = ctx.seed;
    options.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score;
    options.queue = fw::queue_options(config);
    auto driver = std::make_unique<fw::SchedulerDriver>(ctx, std::move(profiles), options,
                                                        fw::DecisionLatency{});
    return std::make_unique<KubcgComponent>(std::move(driver), unit, ctx.stats);
  };
}

void register_plugins(fw::PluginRegistry& registry) {
  registry.add(std::string(kPluginName), [](const fw::PluginArgs& a) {
    if (a.args.defined()) {
      a.args.expect_map();
      yaml::check_keys(a.args, {"db", "theta"});
    }
    return std::make_unique<OwningKubcgPlugin>(unit_from_args(a.args), runtime_state(a));
  });
}

void register_policies(fw::PolicyRegistry& registry) {
  registry.add("kubcg",
               "KubCG (El Haj Ahmed et al.): history-driven CPU/GPU placement with image switch",
               kubcg_policy());
}

}  // namespace orrery::kubcg
