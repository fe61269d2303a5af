// The "carico" policy: kube-scheduler's framework with CaricoCapacity as the filter, the only
// scorer and a reserve plugin (default filters such as taints and node affinity stay; the
// request-based scorers are disabled: CARICO ignores requests). Its capacities come from the
// runtime's CapacityFeed service; when the world provides none the policy brings one:
//
//   args.carico.aggregator: HOST:PORT   an AggregatorFeed polling that aggregator (real worlds)
//   otherwise, with fw::NodeTelemetry    SimulatedAgents (the simulator)
//
// Policy args (scenario `scheduler.args` / `policies.carico.args`): the framework policies'
// decision_latency, deterministic, queue, plus
//   carico: {hz: 10, batch: 10, rank: 2, forget: 0.5, global_weight: 0.5, churn_window: 2s,
//            report_delay: 50ms, stale_after: 3s, prior_pods: 4, idle_cpu: 0.03,
//            idle_mem: 0.10, noise: 0.005, aggregator: HOST:PORT, poll_interval: 500ms}
#pragma once

#include "framework/policy.h"

namespace orrery::carico {

void register_policies(fw::PolicyRegistry& registry);

}  // namespace orrery::carico
