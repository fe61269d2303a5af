// `orrery serve`: a standalone secondary scheduler on a real cluster. The pieces:
//
//   ApiBackend (informers + actions) ── a policy of the catalog (kube-default, the per-pod
//   framework scheduler with the profiles of --config, unless --policy names another) on a
//   fw::Runtime over a RealTimeLoop; LeaderElector gates acting; an HTTP endpoint serves
//   /healthz, /readyz (informers synced) and /metrics.
//
// A SchedulingRecorder observes the policy: it is the runtime's fw::CycleObserver (metrics,
// Events: Scheduled, FailedScheduling with the "0/N nodes are available: ..." message, Preempted)
// and sees every bind and eviction the policy sends. The policy starts once this replica may act
// (leading, informers synced, plan journal replayed).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "framework/policy.h"
#include "io/yaml_util.h"
#include "k8s/api_backend.h"
#include "k8s/leader.h"
#include "k8s/scheduling_recorder.h"
#include "obs/metrics.h"

namespace orrery::k8s {

struct ServeOptions {
  ClusterConfig cluster;
  std::string config_path;
  std::string scheduler_name = "orrery";
  bool leader_elect = false;
  LeaderElectionConfig election;
  // The plan journal's ConfigMap (ApiBackendOptions; empty name: no journal).
  std::string journal_namespace = "kube-system", journal_name;
  std::string metrics_listen = ":10259";
  Backoff backoff;
  uint64_t seed = 0;
  int shutdown_grace_ms = 5000;
  // The policy, built by `policy_factory` (the catalog's: kube-default, or e.g. the planners
  // kubedsm and kube-optpack). It gets a Runtime over the ApiBackend and the loop,
  // `policy_args`, `config_path` and `scheduler_name` (the pods it takes when no configuration
  // names them); its plans run as API calls verified by watch events (framework/plan.h). With
  // leader election it starts when this replica leads. A leader that loses the lease exits
  // (code 1), as kube-scheduler does, so no stale cache or plan acts; no acting request leaves
  // after its renew deadline (client.h).
  std::string policy;
  fw::PolicyFactory policy_factory;
  yaml::Ctx policy_args;
};

// Runs until SIGTERM/SIGINT (or *stop becomes true, for tests); returns 0. A leader that loses the
// lease exits the process with code 1 (exit_on_lost_lease in serve.cc).
int run_serve(const ServeOptions& options, const std::atomic<bool>* stop = nullptr);

// "HOST:PORT" or ":PORT" → host ("0.0.0.0" when empty) and port; throws InputError naming
// `flag`.
std::pair<std::string, int> parse_listen(const std::string& text, const std::string& flag);

}  // namespace orrery::k8s
