#include "sim/hpa.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace orrery::sim {

int32_t plain_metric_replicas(int32_t current, const std::vector<std::optional<double>>& measured,
                              int32_t pending, double target, double tolerance) {
  double sum = 0;
  int32_t ready = 0, missing = 0;
  for (const auto& m : measured) {
    if (m) {
      sum += *m;
      ++ready;
    } else {
      ++missing;
    }
  }
  if (ready == 0) return current;
  const double ratio = sum / ready / target;
  const bool rebalance_ignored = pending > 0 && ratio > 1.0;
  if (!rebalance_ignored && missing == 0) {
    if (std::fabs(1.0 - ratio) <= tolerance) return current;
    return static_cast<int32_t>(std::ceil(ratio * ready - 1e-9));  // 1e-9: float noise
  }
  // Missing pods at the target on a scale-down, at 0 on a scale-up; pending pods at 0 on a
  // scale-up (upstream fills their metrics so and recomputes the average).
  int32_t count = ready;
  if (missing > 0) {
    if (ratio < 1.0) sum += target * missing;
    count += missing;
  }
  if (rebalance_ignored) count += pending;
  const double new_ratio = sum / count / target;
  if (std::fabs(1.0 - new_ratio) <= tolerance || (ratio < 1.0 && new_ratio > 1.0) ||
      (ratio > 1.0 && new_ratio < 1.0))
    return current;
  return static_cast<int32_t>(std::ceil(new_ratio * count - 1e-9));
}

Hpa::Hpa(EventLoop& loop, ReplicaSet& target, const Demand& demand, HpaSpec spec, uint64_t seed)
    : loop_(loop),
      target_(target),
      demand_(demand),
      spec_(std::move(spec)),
      noise_rng_(Rng::derive(seed, "hpa/" + target.name())) {}

namespace {
constexpr uint32_t kSyncEvent = 0;
constexpr uint32_t kAccrueEvent = 1;
constexpr Time kAccruePeriod = kSecond;

int32_t running_count(const std::vector<ReplicaSet::ActivePod>& pods) {
  int32_t running = 0;
  for (const auto& p : pods) running += p.running ? 1 : 0;
  return running;
}
}  // namespace

void Hpa::accrue(Time now) {
  const auto pods = target_.active_pod_states();
  const int32_t running = running_count(pods);
  const double per_pod = running == 0 ? 0.0 : demand_.at(now) / running;
  // Pods no longer running leave the Service's endpoints and the metric with their accruals.
  std::erase_if(accruals_, [&](const Accruals& a) {
    return std::none_of(pods.begin(), pods.end(),
                        [&](const auto& p) { return p.running && p.serial == a.serial; });
  });
  for (const auto& p : pods) {
    if (!p.running) continue;
    auto it = std::find_if(accruals_.begin(), accruals_.end(),
                           [&](const Accruals& a) { return a.serial == p.serial; });
    if (it == accruals_.end()) it = accruals_.insert(accruals_.end(), Accruals{p.serial, {}});
    std::erase_if(it->samples, [&](const auto& s) { return s.first <= now - spec_.metric_window; });
    it->samples.emplace_back(now, per_pod);
  }
}

void Hpa::measure(Time now) {
  const auto pods = target_.active_pod_states();
  const int32_t running = running_count(pods);
  double factor = 1.0;
  if (spec_.metric_noise > 0) {
    const double s = spec_.metric_noise;
    factor = std::exp(s * noise_rng_.normal() - s * s / 2);
  }
  measured_.clear();
  if (running == 0) return;
  if (spec_.metric_window <= 0) {
    const double per_pod = demand_.at(now) * factor / running;
    for (const auto& p : pods)
      if (p.running) measured_.emplace_back(p.serial, per_pod);
    return;
  }
  for (const Accruals& a : accruals_) {
    double sum = 0;
    int32_t n = 0;
    for (const auto& [t, v] : a.samples)
      if (t > now - spec_.metric_window) sum += v, ++n;
    if (n > 0) measured_.emplace_back(a.serial, sum / n * factor);
  }
}

int32_t Hpa::pod_rate_proposal(int32_t current, Time now) {
  if (now >= next_measure_) {
    measure(now);
    next_measure_ = now + spec_.metric_period;
  }
  std::vector<std::optional<double>> values;
  int32_t pending = 0;
  for (const auto& p : target_.active_pod_states()) {
    if (!p.running) {
      ++pending;
      continue;
    }
    auto it = std::find_if(measured_.begin(), measured_.end(),
                           [&](const auto& m) { return m.first == p.serial; });
    values.push_back(it == measured_.end() ? std::nullopt : std::optional<double>(it->second));
  }
  return plain_metric_replicas(current, values, pending, spec_.target, spec_.tolerance);
}

void Hpa::start() {
  if (spec_.metric == HpaSpec::Metric::kPodRate && spec_.metric_window > 0)
    loop_.after(0, this, kAccrueEvent);
  loop_.after(0, this, kSyncEvent);
}

void Hpa::handle(const Event& e) {
  if (e.kind == kAccrueEvent) {
    accrue(loop_.now());
    loop_.after(kAccruePeriod, this, kAccrueEvent);
    return;
  }
  sync(loop_.now());
  loop_.after(spec_.sync_period, this, kSyncEvent);
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
    int32_t proposal = current;
    if (spec_.metric == HpaSpec::Metric::kPodRate) {
      proposal = pod_rate_proposal(current, now);
    } else {
      const double load = demand_.at(now);
      const double ratio = load / (spec_.target * current);
      if (std::fabs(1.0 - ratio) > spec_.tolerance) {
        proposal = static_cast<int32_t>(std::ceil(load / spec_.target - 1e-9));
      }
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
