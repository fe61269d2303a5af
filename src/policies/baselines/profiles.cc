#include "policies/baselines/profiles.h"

#include "plugins/register.h"

namespace orrery::baselines {

fw::SchedulerConfig sencillo_config(Sencillo kind, const std::string& scheduler_name) {
  fw::SchedulerConfig c;
  c.source = "sencillo/" + std::string(plugin_name(kind));
  fw::ProfileConfig p;
  p.scheduler_name = scheduler_name;
  // Upstream merge rules: "disabled: *" drops the default plugins at that point.
  const std::string where = c.source;
  p.plugins["preScore"].disabled.push_back({"*", 0, where});
  p.plugins["score"].disabled.push_back({"*", 0, where});
  p.plugins["score"].enabled.push_back({std::string(plugin_name(kind)), 1, where});
  c.profiles.push_back(std::move(p));
  return c;
}

fw::PluginRegistry baseline_registry() {
  fw::PluginRegistry r;
  plugins::register_default_plugins(r);
  register_sencillo_plugins(r);
  return r;
}

std::vector<std::unique_ptr<fw::Profile>> sencillo_profiles(Sencillo kind) {
  const fw::PluginRegistry r = baseline_registry();
  return plugins::build_profiles(sencillo_config(kind), r);
}

}  // namespace orrery::baselines
