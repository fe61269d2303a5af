// Random small models for the optpack property tests.
#pragma once

#include <string>

#include "core/rng.h"
#include "policies/optpack/model.h"

namespace orrery::optpack::testing {

struct RandomShape {
  int min_nodes = 2, max_nodes = 4;
  int min_pods = 3, max_pods = 8;
  int max_tiers = 3;
  double feasible = 0.85;  // chance a (pod, node) pair is allowed
  double running = 0.6;    // chance a pod starts on a node (where it fits)
};

inline Model random_model(uint64_t seed, const RandomShape& s) {
  Rng rng = Rng::derive(seed, "optpack-test");
  Model m;
  const bool pods_dim = rng.uniform_int(0, 1) == 1;
  m.dims = pods_dim ? 3 : 2;
  m.dim_names = {"cpu", "memory"};
  if (pods_dim) m.dim_names.push_back("pods");
  const int n = static_cast<int>(rng.uniform_int(s.min_nodes, s.max_nodes));
  const int np = static_cast<int>(rng.uniform_int(s.min_pods, s.max_pods));
  const int tiers = static_cast<int>(rng.uniform_int(1, s.max_tiers));
  for (int t = 0; t < tiers; ++t) m.tier_priority.push_back(1000 - 100 * t);
  for (int j = 0; j < n; ++j) {
    std::vector<int64_t> c = {rng.uniform_int(800, 2000), rng.uniform_int(800, 2000)};
    if (pods_dim) c.push_back(rng.uniform_int(1, 4));
    m.add_node("n" + std::to_string(j), c);
  }
  std::vector<std::vector<int64_t>> load(n, std::vector<int64_t>(m.dims, 0));
  for (int p = 0; p < np; ++p) {
    std::vector<int64_t> r = {rng.uniform_int(100, 1000), rng.uniform_int(100, 1000)};
    if (pods_dim) r.push_back(1);
    const int t = static_cast<int>(rng.uniform_int(0, tiers - 1));
    const int i = m.add_pod("p" + std::to_string(p), r, t);
    for (int j = 0; j < n; ++j)
      m.feasible[static_cast<size_t>(i) * n + j] = rng.uniform() < s.feasible ? 1 : 0;
    if (rng.uniform() < s.running) {
      const int j = static_cast<int>(rng.uniform_int(0, n - 1));
      bool fits = m.can_host(i, j);
      for (int d = 0; d < m.dims; ++d) fits = fits && load[j][d] + r[d] <= m.capacity(j)[d];
      if (fits) {
        m.where[i] = j;
        for (int d = 0; d < m.dims; ++d) load[j][d] += r[d];
      }
    }
  }
  return m;
}

}  // namespace orrery::optpack::testing
