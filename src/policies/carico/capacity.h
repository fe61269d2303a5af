// The Capacity signal k (thesis §3.4, eqs 3.3–3.4): how many units of the learned workload
// σ1·u1 can be added to the node's current usage y before any dimension reaches 1:
//
//   y_predict = y + k·σ1·u1,   k = max { k : y_predict,i < 1 for every i }
//            = min over i with u1_i > 0 of (1 − y_i) / (σ1·u1_i)     (the supremum)
//
// Edge cases, each with a documented value (README "Capacity k"):
//   - some y_i ≥ 1 (a dimension already full, or a NaN reading): k = 0 — no k ≥ 0 satisfies
//     the strict inequality in that dimension whatever the workload's direction;
//   - u1_i ≤ 0: adding the workload never raises dimension i, so it sets no bound;
//   - σ1 = 0 or no u1_i > 0 (no workload learned yet): k = k_max (the cap);
//   - otherwise k is clamped to [0, k_max].
#pragma once

#include <Eigen/Dense>

namespace orrery::carico {

inline constexpr double kDefaultMaxCapacity = 1000.0;

double capacity_k(const Eigen::VectorXd& y, double sigma1, const Eigen::VectorXd& u1,
                  double k_max = kDefaultMaxCapacity);

}  // namespace orrery::carico
