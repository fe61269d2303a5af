// The QoS model of KubeDSM (paper §4.2, eqs 1–6) and the pod size of eq. 11.
//
//   Δ(i,u)   = (pods of S_i on the edge) / |P_i| − Q_i                         (eq. 2)
//   F(x)     = α·x for x < 0,  β·x + γ for x ≥ 0,  with 0 ≤ β < α ≪ γ          (eqs 3, 5)
//   QoS(i,u) = F(Δ(i,u)),  QoS(u) = Σ_i QoS(i,u)                              (eqs 4, 1)
//   θ(i,j)   = migrations of pod P_ij between u' and u                         (eq. 6)
//   size(p)  = sqrt(p_cpu / M_CPU × p_mem / M_MEM)                             (eq. 11)
//
// ecmus (the authors' implementation, alg/QoS.go) uses a concave function of the edge share
// r = edge/|P_i| instead of F (`qosFunction: sqrt`):
//
//   QoS_sqrt(r, Q) = 0.8·sqrt(r/Q) for r < Q,  0.99 at r = Q (within 1e-9),
//                    0.99 + 0.01·(r − Q)/(1 − Q) for r > Q
//
// It rewards bringing a pod of the service furthest below its target most (the slope of sqrt
// falls with r), where eq. 3's α is the same for every service below target.
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

enum class QosShape : uint8_t {
  kLinear,  // eq. 3 (F with α, β, γ)
  kSqrt,    // ecmus's concave function (above)
};

struct QosParams {
  double alpha = 1.0;                  // penalty slope below the target
  double beta = 0.1;                   // reward slope at or above the target
  double gamma = 100.0;                // bonus for meeting the target
  QosShape shape = QosShape::kLinear;  // eq. 3's F, or ecmus's square root

  // Throws InputError unless 0 <= beta < alpha < gamma (eq. 5; "≪" is the user's business).
  void validate() const;
};

// F (eq. 3).
inline double qos_f(const QosParams& p, double delta) {
  return delta < 0 ? p.alpha * delta : p.beta * delta + p.gamma;
}

// ecmus's QoS of edge share r against target q (above).
inline double qos_sqrt(double r, double q) {
  constexpr double kSatisfied = 0.99, kPre = 0.8;
  if (std::abs(r - q) < 1e-9) return kSatisfied;
  if (r >= q) return kSatisfied + (r - q) * (1 - kSatisfied) / (1 - q);
  return kPre * std::sqrt(r / q);
}

// QoS(i,u) for a service with `edge` of `total` pods on the edge (eqs 2, 4).
inline double service_qos(const QosParams& p, double target, int64_t edge, int64_t total) {
  if (total <= 0) return 0.0;
  const double r = static_cast<double>(edge) / static_cast<double>(total);
  return p.shape == QosShape::kSqrt ? qos_sqrt(r, target) : qos_f(p, r - target);
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

// ecmus's size of a pod (`podSize: ecmus`; alg/cloud.go, CalcDeFragmentation against the largest
// node): (r_cpu / max_k C_k,cpu) · (r_mem / max_k C_k,mem), no square root. Precondition: largest
// > 0 in both components.
inline double pod_size_ecmus(const Vec2& r, const Vec2& largest) {
  return static_cast<double>(r.cpu) / static_cast<double>(largest.cpu) *
         (static_cast<double>(r.mem) / static_cast<double>(largest.mem));
}

}  // namespace orrery::kubedsm
