// Scheduler profiles for the live world (`orrery serve`, the extender): the plugins orrery ships
// for per-pod scheduling (kube-default and the Sencillo baselines), from a
// KubeSchedulerConfiguration file or, without one, kube-scheduler's default profile renamed to
// the scheduler name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/config.h"
#include "framework/profile.h"

namespace orrery::k8s {

fw::SchedulerConfig load_serve_config(const std::string& path, const std::string& scheduler_name);
std::vector<std::unique_ptr<fw::Profile>> build_serve_profiles(const fw::SchedulerConfig& config);

}  // namespace orrery::k8s
