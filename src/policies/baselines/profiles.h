// Scheduler configurations for the Sencillo baselines: kube-scheduler's default plugins at every
// point except scoring, where the baseline's plugin is the only one (its node order decides).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/config.h"
#include "framework/profile.h"
#include "policies/baselines/sencillo.h"

namespace orrery::baselines {

fw::SchedulerConfig sencillo_config(Sencillo kind,
                                    const std::string& scheduler_name = "default-scheduler");

// A registry with the default plugins and the Sencillo ones.
fw::PluginRegistry baseline_registry();

// The profiles of sencillo_config(kind), ready for a fw::Scheduler.
std::vector<std::unique_ptr<fw::Profile>> sencillo_profiles(Sencillo kind);

}  // namespace orrery::baselines
