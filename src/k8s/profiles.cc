#include "k8s/profiles.h"

#include "obs/log.h"
#include "plugins/register.h"
#include "policies/baselines/sencillo.h"

namespace orrery::k8s {

namespace {

const fw::PluginRegistry& registry() {
  static const fw::PluginRegistry r = [] {
    fw::PluginRegistry reg;
    plugins::register_default_plugins(reg);
    baselines::register_sencillo_plugins(reg);
    return reg;
  }();
  return r;
}

}  // namespace

fw::SchedulerConfig load_serve_config(const std::string& path, const std::string& scheduler_name) {
  if (!path.empty()) return fw::load_scheduler_config(path);
  fw::SchedulerConfig c = fw::default_scheduler_config();
  for (auto& p : c.profiles) p.scheduler_name = scheduler_name;
  return c;
}

std::vector<std::unique_ptr<fw::Profile>> build_serve_profiles(const fw::SchedulerConfig& config) {
  std::vector<std::string> warnings;
  auto profiles = plugins::build_profiles(config, registry(), &warnings);
  for (const auto& w : warnings) obs::warn(w);
  return profiles;
}

}  // namespace orrery::k8s
