// Pod-Capacity (thesis §3.5, eqs 3.5–3.6) from the Capacity signal with two separate 1-D Kalman
// filters (§4.2.4, the approach the thesis kept), on the model
//
//   capacity signal c = Baseline − Per-Pod-Cost · n        (n: running pods)
//
//   baseline filter   state B, measurement z = c + P̂·n       (every accepted sample)
//   cost filter       state P, measurement z = (B̂ − c) / n   (accepted samples with n ≥ 1)
//
// each a scalar random walk (predict: var += q; update: gain = var / (var + r)). Estimation halts
// (no filter update) while c = 0 — a resource is full and more pods would not lower c further,
// which would wrongly shrink the cost — and during churn windows (pods starting or stopping,
// whose container spikes bleed into c).
//
//   Pod-Capacity = c / P̂                 (eq. 3.5, normal mode)
//                = B̂ / P̂ − n            (eq. 3.6, dual mode: used during churn windows)
//
// Cold start: B̂ starts at the first accepted c measured with n = 0 (or c + n·P̂ otherwise), and
// P̂ at B̂ / prior_pods: until it has seen pods, a node assumes `prior_pods` would fill it.
// P̂ is kept ≥ min_cost · B̂ so a noisy estimate cannot promise unbounded pods.
#pragma once

#include <cstdint>

namespace orrery::carico {

class Kalman1D {
 public:
  Kalman1D(double q, double r) : q_(q), r_(r) {}
  void init(double x, double var) {
    x_ = x;
    var_ = var;
    ready_ = true;
  }
  bool ready() const { return ready_; }
  double update(double z);
  double value() const { return x_; }
  double variance() const { return var_; }
  void set_value(double x) { x_ = x; }

 private:
  double q_, r_;
  double x_ = 0, var_ = 1;
  bool ready_ = false;
};

struct PodCapacityOptions {
  double baseline_q = 1e-4, baseline_r = 0.05;  // relative to the baseline's scale (see .cc)
  double cost_q = 1e-2, cost_r = 0.05;
  double prior_pods = 4.0;
  double min_cost = 0.01;  // fraction of B̂
  double max_pod_capacity = 1000.0;
};

class PodCapacityEstimator {
 public:
  explicit PodCapacityEstimator(PodCapacityOptions options = {}) : opt_(options), b_(0, 0), p_(0, 0) {}

  // One Capacity-signal sample with `pods` running; `churn` is true inside a churn window.
  // Returns the Pod-Capacity to advertise.
  double add(double capacity, int pods, bool churn);

  double baseline() const { return b_.value(); }
  double cost() const { return p_.value(); }
  double pod_capacity() const { return pod_capacity_; }
  bool dual_mode() const { return dual_; }
  uint64_t halted() const { return halted_; }

 private:
  double cost_floor() const;
  PodCapacityOptions opt_;
  Kalman1D b_, p_;
  double scale_ = 1;  // B̂ at initialisation: q and r are relative to it
  double pod_capacity_ = 0;
  bool dual_ = false;
  uint64_t halted_ = 0;
};

}  // namespace orrery::carico
