// `orrery serve`: a standalone secondary scheduler on a real cluster. The pieces:
//
//   ApiBackend (informers + actions) ── fw::Scheduler (full queue and cycle, profiles from the
//   configuration) driven by ServeDriver on a RealTimeLoop; LeaderElector gates binding;
//   an HTTP endpoint serves /healthz, /readyz (informers synced) and /metrics.
//
// ServeDriver is the per-pod driver for a live world: like fw::SchedulerDriver it wakes on events
// and queue timers and runs cycles, and in addition it records each outcome through a
// SchedulingRecorder (metrics, Events: Scheduled, FailedScheduling with the "0/N nodes are
// available: ..." message, Preempted) and schedules only while it may act (leading, not shutting
// down). With --policy, the same recorder is the runtime's fw::CycleObserver.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "framework/policy.h"
#include "framework/reservations.h"
#include "framework/scheduler.h"
#include "io/yaml_util.h"
#include "k8s/api_backend.h"
#include "k8s/leader.h"
#include "k8s/scheduling_recorder.h"
#include "obs/metrics.h"

namespace orrery::k8s {

class ServeDriver : public fw::EventListener, public fw::TimerTarget {
 public:
  // `may_act` (loop thread) says whether cycles may run now (leadership, shutdown).
  ServeDriver(ApiBackend& backend, fw::RealTimeLoop& loop,
              std::vector<std::unique_ptr<fw::Profile>> profiles, fw::SchedulerOptions options,
              ServeMetrics* metrics, std::function<bool()> may_act);
  ~ServeDriver() override;
  void start();  // after the informers synced: queues every pending pod
  void wake();   // run cycles soon (e.g. leadership gained)
  fw::Scheduler& scheduler() { return *scheduler_; }
  void on_event(const fw::ClusterEvent& e) override;
  void on_timer(uint64_t tag) override;
  uint64_t scheduled() const { return recorder_.scheduled(); }

 private:
  void run();
  ApiBackend& backend_;
  fw::RealTimeLoop& loop_;
  fw::Reservations reservations_;
  std::unique_ptr<fw::Scheduler> scheduler_;
  SchedulingRecorder recorder_;  // metrics and Events of each outcome
  std::function<bool()> may_act_;
  fw::TimerId timer_ = fw::kNoTimer;
  int64_t timer_at_ = INT64_MAX;
};

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
  // A policy of the catalog (built by `policy_factory`, e.g. the planners kubedsm and
  // kube-optpack) instead of the per-pod ServeDriver. It gets a Runtime over the ApiBackend and
  // the loop, `policy_args` and `config_path`; its plans run as API calls verified by watch
  // events (framework/plan.h). With leader election it starts when this replica leads.
  // In either mode a leader that loses the lease exits (code 1), as kube-scheduler does, so no
  // stale cache or plan acts; no acting request leaves after its renew deadline (client.h).
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
