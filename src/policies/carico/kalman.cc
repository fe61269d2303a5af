#include "policies/carico/kalman.h"

#include <algorithm>
#include <cmath>

namespace orrery::carico {

double Kalman1D::update(double z) {
  var_ += q_;
  const double gain = var_ / (var_ + r_);
  x_ += gain * (z - x_);
  var_ *= 1.0 - gain;
  return x_;
}

double PodCapacityEstimator::cost_floor() const {
  return std::max(1e-12, opt_.min_cost * std::max(b_.value(), 1e-9));
}

double PodCapacityEstimator::add(double c, int pods, bool churn) {
  if (!std::isfinite(c)) c = 0;
  c = std::max(0.0, c);
  const double n = std::max(0, pods);
  if (!b_.ready()) {
    if (churn || c <= 0) {  // nothing trustworthy yet: advertise nothing
      ++halted_;
      pod_capacity_ = 0;
      dual_ = churn;
      return pod_capacity_;
    }
    // Cold start (see header). With pods already running, B̂ = c·(1 + n/prior) solves
    // c = B̂ − n·B̂/prior.
    const double base = n == 0 ? c : c * opt_.prior_pods / std::max(1e-9, opt_.prior_pods - n);
    scale_ = std::max(base, 1e-9);
    const double s2 = scale_ * scale_;
    b_ = Kalman1D(opt_.baseline_q * s2, opt_.baseline_r * s2);
    p_ = Kalman1D(opt_.cost_q * s2 / (opt_.prior_pods * opt_.prior_pods),
                  opt_.cost_r * s2 / (opt_.prior_pods * opt_.prior_pods));
    b_.init(scale_, 0.1 * s2);
    p_.init(scale_ / opt_.prior_pods, s2 / (opt_.prior_pods * opt_.prior_pods));
  } else if (churn || c <= 0) {
    ++halted_;  // §4.2.4: halt while capacity is 0 and while pods start or stop
  } else {
    b_.update(c + p_.value() * n);
    if (n >= 1) {
      p_.update((b_.value() - c) / n);
      p_.set_value(std::max(p_.value(), cost_floor()));
    }
  }
  const double cost = std::max(p_.value(), cost_floor());
  dual_ = churn;
  double pc = churn ? b_.value() / cost - n : c / cost;  // eq. 3.6 during churn, else eq. 3.5
  if (!std::isfinite(pc)) pc = 0;
  pod_capacity_ = std::clamp(pc, 0.0, opt_.max_pod_capacity);
  return pod_capacity_;
}

}  // namespace orrery::carico
