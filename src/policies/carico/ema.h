// Dynamic exponential moving average (thesis §4.2.2): container start/stop spikes last ≈ 200 ms
// and must not move the signal, sustained changes must. Each dimension follows
//
//   ema ← ema + α·(x − ema),   α = α_fast while |x − ema| > threshold has held for at least
//                              `sustain` consecutive samples (≥ 300 ms at the polling rate),
//                              α = α_slow otherwise
//
// so a 2-sample spike at 10 Hz moves the output by at most ~2·α_slow of its height, while a step
// switches to α_fast after 300 ms and converges in a few more samples.
#pragma once

#include <Eigen/Dense>

namespace orrery::carico {

struct EmaOptions {
  double alpha_slow = 0.05;
  double alpha_fast = 0.5;
  double threshold = 0.05;  // deviation that counts as a change (in [0,1] units)
  double sustain_s = 0.3;   // a change longer than this is sustained
};

class DynamicEma {
 public:
  DynamicEma(int dims, EmaOptions options, double hz);
  // Feeds one sample (every component finite, in [0,1]); returns the filtered value.
  const Eigen::VectorXd& add(const Eigen::VectorXd& x);
  const Eigen::VectorXd& value() const { return value_; }
  bool primed() const { return primed_; }

 private:
  EmaOptions opt_;
  int sustain_samples_;
  Eigen::VectorXd value_;
  Eigen::VectorXi deviating_;  // consecutive samples beyond the threshold, per dimension
  bool primed_ = false;
};

}  // namespace orrery::carico
