// Registers the packer's policy "kube-optpack": kube-default (or the scenario's configuration)
// with the PriorityOptimalPacking plugin at PreFilter and PostFilter (after DefaultPreemption),
// and the Packer planner that plugin triggers (packer.h).
#pragma once

#include "framework/policy.h"

namespace orrery::optpack {

void register_policies(fw::PolicyRegistry& registry);

}  // namespace orrery::optpack
