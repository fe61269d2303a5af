// KubeSchedulerConfiguration (framework/config.h) as `orrery schedule --config`, scenarios'
// scheduler.config and `orrery serve --config` read it: parse_scheduler_config, then one profile
// per configured profile from the registry of kube-scheduler's default plugins
// (plugins::build_profiles, where plugin args are checked), and the queue options.
#include "framework/config.h"
#include "fuzz_common.h"
#include "plugins/register.h"

using namespace orrery;

namespace {

const fw::PluginRegistry& registry() {
  static const fw::PluginRegistry r = [] {
    fw::PluginRegistry reg;
    plugins::register_default_plugins(reg);
    return reg;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  fw::SchedulerConfig config;
  if (!fuzz::accepts([&] { config = fw::parse_scheduler_config(text, "fuzz.yaml"); })) return 0;
  FUZZ_CHECK(!config.profiles.empty(), "no profiles");
  // Upstream's validation: podInitialBackoffSeconds > 0, podMaxBackoffSeconds >= it.
  const fw::QueueOptions q = fw::queue_options(config);
  FUZZ_CHECK(q.initial_backoff_us > 0 && q.max_backoff_us >= q.initial_backoff_us,
             std::to_string(q.initial_backoff_us) + " " + std::to_string(q.max_backoff_us));
  fuzz::accepts([&] {
    std::vector<std::string> warnings;
    const auto profiles = plugins::build_profiles(config, registry(), &warnings);
    FUZZ_CHECK(profiles.size() == config.profiles.size(), std::to_string(profiles.size()));
  });
  return 0;
}
