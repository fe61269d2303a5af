// KubeDSM in the simulator: a sim::Component that runs a KubeDsm over the SimBackend and drives
// its timers (batch window, suggest period, resync) on the event loop.
//
// In the simulator the policy chosen for a run schedules the scenario's pods, so by default
// KubeDSM takes the pods whose schedulerName is "default-scheduler" (args.schedulerName
// changes it). Other args: options.h. The run's summary.json gets a "kubedsm" object (stats) in
// "scheduler"; PolicyStats counts one decision per batch and per suggestion.
#pragma once

#include "sim/policy.h"

namespace orrery::kubedsm {

// Registers "kubedsm".
void register_sim_policies(sim::PolicyRegistry& registry);

}  // namespace orrery::kubedsm
