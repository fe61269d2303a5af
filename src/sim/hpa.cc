#include "sim/hpa.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace orrery::sim {

Hpa::Hpa(EventLoop& loop, ReplicaSet& target, const Demand& demand, HpaSpec spec)
    : loop_(loop), target_(target), demand_(demand), spec_(std::move(spec)) {}

void Hpa::start() {
  loop_.after(0, this, 0);
}

void Hpa::handle(const Event&) {
  sync(loop_.now());
  loop_.after(spec_.sync_period, this, 0);
}

int32_t Hpa::change_in_period(const std::vector<Rec>& events, Time period, Time now) const {
  int32_t sum = 0;
  for (const Rec& e : events)
    if (e.t > now - period) sum += e.replicas;
  return sum;
}

int32_t Hpa::stabilize(int32_t current, int32_t desired, Time now) {
  int32_t up = desired, down = desired;
  for (const Rec& r : recommendations_) {
    if (r.t > now - spec_.up.stabilization) up = std::min(up, r.replicas);
    if (r.t > now - spec_.down.stabilization) down = std::max(down, r.replicas);
  }
  // Record the unstabilized recommendation; forget those older than both windows.
  const Time keep = std::max(spec_.up.stabilization, spec_.down.stabilization);
  std::erase_if(recommendations_, [&](const Rec& r) { return r.t <= now - keep; });
  recommendations_.push_back({now, desired});
  int32_t rec = current;
  if (rec < up) rec = up;
  if (rec > down) rec = down;
  return rec;
}

int32_t Hpa::rate_limit(int32_t current, int32_t desired, Time now) const {
  if (desired > current) {
    if (spec_.up.select == ScalingRules::Select::kDisabled) return current;
    const bool pick_max = spec_.up.select == ScalingRules::Select::kMax;
    int32_t limit = pick_max ? INT32_MIN : INT32_MAX;
    for (const ScalingPolicy& p : spec_.up.policies) {
      const int32_t start = current - change_in_period(up_events_, p.period, now) +
                            change_in_period(down_events_, p.period, now);
      const int32_t proposed =
          p.type == ScalingPolicy::Type::kPods
              ? start + p.value
              : static_cast<int32_t>(std::ceil(start * (1.0 + p.value / 100.0)));
      limit = pick_max ? std::max(limit, proposed) : std::min(limit, proposed);
    }
    if (spec_.up.policies.empty()) limit = INT32_MAX;
    limit = std::max(limit, current);
    return std::min({desired, limit, spec_.max_replicas});
  }
  if (desired < current) {
    if (spec_.down.select == ScalingRules::Select::kDisabled) return current;
    const bool pick_max = spec_.down.select == ScalingRules::Select::kMax;
    int32_t limit = pick_max ? INT32_MAX : INT32_MIN;
    for (const ScalingPolicy& p : spec_.down.policies) {
      const int32_t start = current - change_in_period(up_events_, p.period, now) +
                            change_in_period(down_events_, p.period, now);
      const int32_t proposed = p.type == ScalingPolicy::Type::kPods
                                   ? start - p.value
                                   : static_cast<int32_t>(start * (1.0 - p.value / 100.0));
      // "Max" selects the policy allowing the biggest change, i.e. the fewest replicas.
      limit = pick_max ? std::min(limit, proposed) : std::max(limit, proposed);
    }
    if (spec_.down.policies.empty()) limit = INT32_MIN;
    limit = std::min(limit, current);
    return std::max({desired, limit, spec_.min_replicas});
  }
  return desired;
}

void Hpa::sync(Time now) {
  const int32_t current = target_.replicas();
  int32_t desired;
  if (current == 0 && spec_.min_replicas != 0) {
    return;  // scaling disabled (upstream: replicas set to 0 by hand)
  } else if (current > spec_.max_replicas) {
    desired = spec_.max_replicas;
  } else if (current < spec_.min_replicas) {
    desired = spec_.min_replicas;
  } else {
    const double load = demand_.at(now);
    const double ratio = load / (spec_.target * current);
    int32_t proposal = current;
    if (std::fabs(1.0 - ratio) > spec_.tolerance) {
      proposal = static_cast<int32_t>(std::ceil(load / spec_.target - 1e-9));
    }
    desired = rate_limit(current, stabilize(current, proposal, now), now);
  }
  last_desired_ = desired;
  if (desired == current) return;
  // Remember the change for the rate limits; drop events older than every policy period.
  Time longest = 0;
  for (const auto* rules : {&spec_.up, &spec_.down})
    for (const ScalingPolicy& p : rules->policies) longest = std::max(longest, p.period);
  for (auto* ev : {&up_events_, &down_events_})
    std::erase_if(*ev, [&](const Rec& r) { return r.t <= now - longest; });
  if (desired > current) {
    up_events_.push_back({now, desired - current});
  } else {
    down_events_.push_back({now, current - desired});
  }
  target_.set_replicas(desired);
}

}  // namespace orrery::sim
