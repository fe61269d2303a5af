// share_finish (timeline.h), a template so the hot path inlines Θ.
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

namespace orrery::kubcg {

template <class Theta>
std::vector<double> share_finish(const std::vector<double>& work, Theta theta) {
  const size_t n = work.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return work[a] != work[b] ? work[a] < work[b] : a < b; });
  std::vector<double> out(n);
  double t = 0, done = 0;  // wall time elapsed; solo work every remaining pod has done
  for (size_t k = 0; k < n; ++k) {
    const size_t i = order[k];
    const int active = static_cast<int>(n - k);
    t += std::max(0.0, work[i] - done) * theta(active);
    done = std::max(done, work[i]);
    out[i] = t;
  }
  return out;
}

}  // namespace orrery::kubcg
