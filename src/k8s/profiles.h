// The KubeSchedulerConfiguration of the live world (`orrery serve --extender`): a file, or
// without one kube-scheduler's default profile renamed to the scheduler name. The plugins it may
// name come from the caller (policies/catalog.h: plugin_catalog()).
#pragma once

#include <string>

#include "framework/config.h"

namespace orrery::k8s {

fw::SchedulerConfig load_serve_config(const std::string& path, const std::string& scheduler_name);

}  // namespace orrery::k8s
