#include "k8s/profiles.h"

namespace orrery::k8s {

fw::SchedulerConfig load_serve_config(const std::string& path, const std::string& scheduler_name) {
  if (!path.empty()) return fw::load_scheduler_config(path);
  fw::SchedulerConfig c = fw::default_scheduler_config();
  for (auto& p : c.profiles) p.scheduler_name = scheduler_name;
  return c;
}

}  // namespace orrery::k8s
