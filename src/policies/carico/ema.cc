#include "policies/carico/ema.h"

#include <algorithm>
#include <cmath>

namespace orrery::carico {

DynamicEma::DynamicEma(int dims, EmaOptions options, double hz)
    : opt_(options),
      sustain_samples_(std::max(1, static_cast<int>(std::ceil(options.sustain_s * hz - 1e-9)))),
      value_(Eigen::VectorXd::Zero(dims)),
      deviating_(Eigen::VectorXi::Zero(dims)) {}

const Eigen::VectorXd& DynamicEma::add(const Eigen::VectorXd& x) {
  if (!primed_) {
    value_ = x;
    primed_ = true;
    return value_;
  }
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double d = x(i) - value_(i);
    deviating_(i) = std::abs(d) > opt_.threshold ? deviating_(i) + 1 : 0;
    const double a = deviating_(i) >= sustain_samples_ ? opt_.alpha_fast : opt_.alpha_slow;
    value_(i) += a * d;
  }
  return value_;
}

}  // namespace orrery::carico
