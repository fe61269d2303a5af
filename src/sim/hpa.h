// HorizontalPodAutoscaler (autoscaling/v2) over a Demand signal, following upstream's
// podautoscaler controller:
//   - every sync period (15 s): usage ratio = load / (target × current replicas); if
//     |ratio - 1| <= tolerance (0.1) keep the current count, else desired = ceil(load / target)
//     (an External metric with an AverageValue target);
//   - stabilization: desired = min of the recommendations in the scale-up window (default 0 s)
//     when scaling up, max of those in the scale-down window (default 300 s) when scaling down;
//   - rate limits (behavior policies; defaults: up max(4 pods, 100 %) per 15 s, down 100 % per
//     15 s), then clamped to [min, max] replicas.
//
// With `metric` kPodRate the HPA does not read the demand itself but a Pods metric measured from
// the pods, as an HPA on a request-rate custom metric does (the authors of KubeDSM drive theirs
// with a load generator sending 5 req/s per drawn replica against a 5 req/s-per-pod target; genny
// data/scen.py): every `metric_period` the pods running at that moment are measured, each at
// (demand × noise) / (number of running pods) — the Service spreads the requests evenly — where
// noise = exp(σZ − σ²/2), Z ~ N(0, 1) drawn per measurement (σ = `metric_noise`, mean 1); at each
// sync the desired count is upstream's calcPlainMetricReplicas (plain_metric_replicas below) over
// the last measurement: pending pods ignored (counted as 0 on a scale-up), running pods started
// after the measurement missing (0 on a scale-up, the target on a scale-down).
// With a `metric_window` W > 0 each pod's value is its request rate averaged over the last W (as
// Prometheus' rate(counter[W]) behind a custom-metrics adapter reports it): every second each
// running pod accrues demand / running pods, and a measurement is the mean of a pod's accruals in
// (now − W, now] (a pod running for less than W: those since it started; none yet: missing). A
// change of the demand then reaches the HPA spread over W, and after a scale-down the survivors'
// averages under-read their new per-pod rate until W has passed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.h"

#include "sim/demand.h"
#include "sim/replicaset.h"

namespace orrery::sim {

struct ScalingPolicy {
  enum class Type : uint8_t { kPods, kPercent };
  Type type = Type::kPods;
  int32_t value = 0;
  Time period = 15 * kSecond;
};

struct ScalingRules {
  Time stabilization = 0;
  enum class Select : uint8_t { kMax, kMin, kDisabled } select = Select::kMax;
  std::vector<ScalingPolicy> policies;
};

struct HpaSpec {
  int32_t min_replicas = 1;
  int32_t max_replicas = 10;
  double target = 1.0;  // load units one pod absorbs (AverageValue)
  double tolerance = 0.1;
  Time sync_period = 15 * kSecond;
  // What the HPA reads (above): the demand signal itself (an External metric, AverageValue) or a
  // per-pod rate measured from the running pods.
  enum class Metric : uint8_t { kDemand, kPodRate } metric = Metric::kDemand;
  Time metric_period = 15 * kSecond;  // kPodRate: how often the pods are measured
  double metric_noise = 0;            // kPodRate: σ of the log of each measurement's factor
  Time metric_window = 0;             // kPodRate: each pod's rate averaged over this (0: now)
  ScalingRules up{0,
                  ScalingRules::Select::kMax,
                  {{ScalingPolicy::Type::kPods, 4, 15 * kSecond},
                   {ScalingPolicy::Type::kPercent, 100, 15 * kSecond}}};
  ScalingRules down{300 * kSecond,
                    ScalingRules::Select::kMax,
                    {{ScalingPolicy::Type::kPercent, 100, 15 * kSecond}}};
};

// Upstream's calcPlainMetricReplicas (pkg/controller/podautoscaler/replica_calculator.go) for a
// Pods metric with an AverageValue target: `measured` holds the metric of each running pod, absent
// for a running pod with no measurement yet ("missing"); `pending` counts pods not running yet
// (upstream's ignored pods). Returns `current` when no pod has a metric (upstream: an error, the
// HPA keeps the count).
int32_t plain_metric_replicas(int32_t current, const std::vector<std::optional<double>>& measured,
                              int32_t pending, double target, double tolerance);

class Hpa : public EventTarget {
 public:
  // `seed` draws the kPodRate measurement noise (stream "hpa/<replica set name>").
  Hpa(EventLoop& loop, ReplicaSet& target, const Demand& demand, HpaSpec spec, uint64_t seed = 0);
  // First sync at the current time, then every sync period.
  void start();
  // One reconciliation at `now` (public for tests).
  void sync(Time now);
  void handle(const Event& e) override;

  const HpaSpec& spec() const { return spec_; }
  int32_t last_desired() const { return last_desired_; }

 private:
  struct Rec {
    Time t;
    int32_t replicas;
  };
  int32_t stabilize(int32_t current, int32_t desired, Time now);
  int32_t rate_limit(int32_t current, int32_t desired, Time now) const;
  int32_t change_in_period(const std::vector<Rec>& events, Time period, Time now) const;
  int32_t pod_rate_proposal(int32_t current, Time now);
  void measure(Time now);
  void accrue(Time now);

  EventLoop& loop_;
  ReplicaSet& target_;
  const Demand& demand_;
  HpaSpec spec_;
  std::vector<Rec> recommendations_;
  std::vector<Rec> up_events_, down_events_;  // replica changes made
  int32_t last_desired_ = 0;
  // kPodRate: the last measurement (pod serials with their values) and when the next is due.
  Rng noise_rng_;
  std::vector<std::pair<uint64_t, double>> measured_;
  Time next_measure_ = 0;
  // kPodRate with a window: per pod serial, its accruals (one per second, oldest first).
  struct Accruals {
    uint64_t serial;
    std::vector<std::pair<Time, double>> samples;
  };
  std::vector<Accruals> accruals_;
};

}  // namespace orrery::sim
