// A Megha or PigeonC data centre as a simulator scenario, so the framework policies
// (policies/catalog.h) can replay a trace on the same workers as the federated architectures.
#pragma once

#include <string>

#include "policies/federated/cluster_config.h"
#include "sim/scenario.h"

namespace orrery::federated {

// sim::trace_scenario(trace_file, c.workers()) — one-slot workers (1 cpu, 1Gi, pods 1) replaying
// the trace until every job is done — with one node per worker of `c`, named worker-<i> by the
// worker's global index (group by group, as the configuration lists them), and the worker's
// machine constraints as its orrery.io/constraints annotation (ids 0..K-1; none when it has
// none). The trace's tasks carry no constraints: the simulator's trace replay gives every task
// the same pod template.
sim::Scenario worker_scenario(const std::string& trace_file, const ClusterConfig& c);

}  // namespace orrery::federated
