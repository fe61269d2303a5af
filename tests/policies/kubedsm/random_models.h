// Small random edge models for KubeDSM's property tests.
#pragma once

#include <vector>

#include "core/rng.h"
#include "policies/kubedsm/fragmentation.h"
#include "policies/kubedsm/model.h"
#include "policies/kubedsm/qos.h"

namespace orrery::kubedsm::testing {

inline constexpr int64_t kCore = 1000;     // millicores
inline constexpr int64_t kGi = 1LL << 30;  // bytes

// Resource vectors in small integer units so that fits are often tight and ties are frequent.
inline Vec2 units(int64_t cpu, int64_t mem) {
  return {cpu * kCore, mem * kGi / 4};
}

// A random model: `nodes` edge nodes, `services` services, `pods` placed pods (edge or cloud,
// respecting capacity), QoS targets drawn from {0, 0.25, 0.5, 1} or uniform.
inline EdgeModel random_model(Rng& rng, int nodes, int services, int pods) {
  EdgeModel m;
  for (int n = 0; n < nodes; ++n)
    m.add_node(units(rng.uniform_int(2, 8), rng.uniform_int(2, 8)), "n" + std::to_string(n));
  for (int s = 0; s < services; ++s) {
    const double targets[] = {0.0, 0.25, 0.5, 1.0};
    const double q = rng.bernoulli(0.5) ? targets[rng.below(4)] : rng.uniform();
    m.add_service("s" + std::to_string(s), units(rng.uniform_int(1, 3), rng.uniform_int(1, 3)), q);
  }
  for (int p = 0; p < pods; ++p) {
    const uint32_t s = static_cast<uint32_t>(rng.below(services));
    int32_t node = kCloud;
    if (nodes > 0 && rng.bernoulli(0.7)) {
      const int32_t n = static_cast<int32_t>(rng.below(nodes));
      if (m.services[s].request.fits_in(m.free(n))) node = n;
    }
    m.add_pod(s, node, true, static_cast<uint64_t>(p + 1));
  }
  return m;
}

// QoS(u) written out from eqs 1–4, independently of qos.cc.
inline double reference_qos(const QosParams& q, const EdgeModel& m) {
  double total = 0;
  for (size_t s = 0; s < m.services.size(); ++s) {
    int all = 0, edge = 0;
    for (const ModelPod& p : m.pods) {
      if (p.service != s) continue;
      ++all;
      if (p.node != kCloud) ++edge;
    }
    if (all == 0) continue;
    const double delta = static_cast<double>(edge) / all - m.services[s].qos_target;
    total += delta < 0 ? q.alpha * delta : q.beta * delta + q.gamma;
  }
  return total;
}

// Σ_k frag(E_k) written out from the definition in fragmentation.h.
inline double reference_frag(const EdgeModel& m) {
  const Vec2 t = m.total_capacity();
  double f = 0;
  for (size_t n = 0; n < m.node_count(); ++n) {
    const Vec2 fr = m.free(n);
    const double c = std::max(0.0, static_cast<double>(fr.cpu) / static_cast<double>(t.cpu));
    const double mm = std::max(0.0, static_cast<double>(fr.mem) / static_cast<double>(t.mem));
    const double b = std::min(c, mm);
    f += b * (2 - b) + 2 * std::abs(c - mm);
  }
  return f;
}

inline bool placement_feasible(const EdgeModel& m) {
  for (size_t n = 0; n < m.node_count(); ++n)
    if (!m.used[n].fits_in(m.capacity[n])) return false;
  return true;
}

}  // namespace orrery::kubedsm::testing
