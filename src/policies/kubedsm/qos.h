// The QoS model of KubeDSM (paper §4.2, eqs 1–6) and the pod size of eq. 11.
//
//   Δ(i,u)   = (pods of S_i on the edge) / |P_i| − Q_i                         (eq. 2)
//   F(x)     = α·x for x < 0,  β·x + γ for x ≥ 0,  with 0 ≤ β < α ≪ γ          (eqs 3, 5)
//   QoS(i,u) = F(Δ(i,u)),  QoS(u) = Σ_i QoS(i,u)                              (eqs 4, 1)
//   θ(i,j)   = migrations of pod P_ij between u' and u                         (eq. 6)
//   size(p)  = sqrt(p_cpu / M_CPU × p_mem / M_MEM)                             (eq. 11)
//
// A service with no pods contributes 0 (Δ is undefined; the term is the same in every decision,
// so the choice does not affect any comparison).
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "policies/kubedsm/model.h"

namespace orrery::kubedsm {

struct QosParams {
  double alpha = 1.0;    // penalty slope below the target
  double beta = 0.1;     // reward slope at or above the target
  double gamma = 100.0;  // bonus for meeting the target

  // Throws InputError unless 0 <= beta < alpha < gamma (eq. 5; "≪" is the user's business).
  void validate() const;
};

// F (eq. 3).
inline double qos_f(const QosParams& p, double delta) {
  return delta < 0 ? p.alpha * delta : p.beta * delta + p.gamma;
}

// QoS(i,u) for a service with `edge` of `total` pods on the edge (eqs 2, 4).
inline double service_qos(const QosParams& p, double target, int64_t edge, int64_t total) {
  if (total <= 0) return 0.0;
  return qos_f(p, static_cast<double>(edge) / static_cast<double>(total) - target);
}

// Per-service pod counts of a placement: |P_i| and the number of them on the edge.
struct ServiceCounts {
  std::vector<int64_t> total;
  std::vector<int64_t> edge;
};
ServiceCounts count_pods(const EdgeModel& m);

// QoS(u) (eq. 1) for the given counts.
double total_qos(const QosParams& p, const EdgeModel& m, const ServiceCounts& c);

// θ(i,j) (eq. 6): 0 when the pod stays, 1 between cloud and edge, 1 between two edge nodes
// (the eq. counts that as 2 changes of u, halved).
int migrations(int32_t before, int32_t after);

// size(pod) (eq. 11), with `total` = (M_CPU, M_MEM). Precondition: total > 0 in both components.
inline double pod_size(const Vec2& r, const Vec2& total) {
  return std::sqrt(static_cast<double>(r.cpu) / static_cast<double>(total.cpu) *
                   (static_cast<double>(r.mem) / static_cast<double>(total.mem)));
}

}  // namespace orrery::kubedsm
