#include "policies/carico/capacity.h"

#include <algorithm>
#include <cmath>

namespace orrery::carico {

double capacity_k(const Eigen::VectorXd& y, double sigma1, const Eigen::VectorXd& u1,
                  double k_max) {
  for (Eigen::Index i = 0; i < y.size(); ++i)
    if (!(y(i) < 1.0)) return 0.0;  // full (or NaN): nothing fits
  if (!(sigma1 > 0) || u1.size() != y.size()) return k_max;
  double k = k_max;
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    const double step = sigma1 * u1(i);
    if (!(step > 0)) continue;
    k = std::min(k, (1.0 - std::max(0.0, y(i))) / step);
  }
  return std::clamp(k, 0.0, k_max);
}

}  // namespace orrery::carico
