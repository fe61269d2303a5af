// HorizontalPodAutoscaler (autoscaling/v2) over a Demand signal, following upstream's
// podautoscaler controller:
//   - every sync period (15 s): usage ratio = load / (target × current replicas); if
//     |ratio - 1| <= tolerance (0.1) keep the current count, else desired = ceil(load / target)
//     (an External metric with an AverageValue target);
//   - stabilization: desired = min of the recommendations in the scale-up window (default 0 s)
//     when scaling up, max of those in the scale-down window (default 300 s) when scaling down;
//   - rate limits (behavior policies; defaults: up max(4 pods, 100 %) per 15 s, down 100 % per
//     15 s), then clamped to [min, max] replicas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  ScalingRules up{0,
                  ScalingRules::Select::kMax,
                  {{ScalingPolicy::Type::kPods, 4, 15 * kSecond},
                   {ScalingPolicy::Type::kPercent, 100, 15 * kSecond}}};
  ScalingRules down{300 * kSecond,
                    ScalingRules::Select::kMax,
                    {{ScalingPolicy::Type::kPercent, 100, 15 * kSecond}}};
};

class Hpa : public EventTarget {
 public:
  Hpa(EventLoop& loop, ReplicaSet& target, const Demand& demand, HpaSpec spec);
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

  EventLoop& loop_;
  ReplicaSet& target_;
  const Demand& demand_;
  HpaSpec spec_;
  std::vector<Rec> recommendations_;
  std::vector<Rec> up_events_, down_events_;  // replica changes made
  int32_t last_desired_ = 0;
};

}  // namespace orrery::sim
