// KubeDSM as a policy of any runtime: a fw::PlannerComponent running a KubeDsm planner over the
// runtime's backend, clock and reservations (the simulator's, or a real cluster's).
//
// By default KubeDSM takes the pods whose schedulerName is "default-scheduler", so in the
// simulator the policy chosen for a run schedules the scenario's pods (args.schedulerName changes
// it). Other args: options.h. summary.json gets a "kubedsm" object in "scheduler"; PolicyStats
// counts one decision per batch and per suggestion.
#pragma once

#include "framework/policy.h"

namespace orrery::kubedsm {

// Registers "kubedsm".
void register_policies(fw::PolicyRegistry& registry);

}  // namespace orrery::kubedsm
