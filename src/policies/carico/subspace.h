// CARICO's local model (thesis §3.2–§3.3, §2.3.3–§2.3.4): subspaces (U, Σ) of [0,1]-normalised,
// NON-centred telemetry, the damped Subspace-Merge and Incremental-SVD built on it.
//
//   svd_left(A, r)            the r leading left singular vectors and values of A (eq. 2.2)
//   merge(A, wA, B, wB, r)    SVD([√wA·U_A Σ_A, √wB·U_B Σ_B]) — eq. 2.4 with §3.3's damping
//                             γ = √w; with wA + wB = 1, σ1(C)² is a convex combination of the
//                             columns' projected sums (App. A.4), so σ1 keeps the magnitude of
//                             the data instead of growing with every merge (App. A.3)
//   IncrementalSvd            Algorithm 1 with the damped merge as forgetting (w_new for each
//                             batch); w_new = 0 means no forgetting (plain concatenation)
//
// Orientation: singular vectors are defined up to sign. u1 of a non-negative matrix has a
// non-negative representative (Perron–Frobenius, App. A.1.3); every result here is normalised so
// that Σ u1 ≥ 0 (components that are slightly negative from rounding are left as they are;
// capacity.h ignores components ≤ 0). Other vectors are oriented so their largest-magnitude
// component is positive, which makes results deterministic.
#pragma once

#include <Eigen/Dense>

namespace orrery::carico {

struct Subspace {
  Eigen::MatrixXd u;      // m × r, orthonormal columns
  Eigen::VectorXd sigma;  // r, non-increasing, ≥ 0

  bool empty() const { return sigma.size() == 0; }
  int dims() const { return static_cast<int>(u.rows()); }
  int rank() const { return static_cast<int>(sigma.size()); }
  double sigma1() const { return empty() ? 0.0 : sigma(0); }
  Eigen::VectorXd u1() const { return empty() ? Eigen::VectorXd() : Eigen::VectorXd(u.col(0)); }
  // U Σ (m × r): the subspace as columns, what merges concatenate.
  Eigen::MatrixXd scaled() const { return u * sigma.asDiagonal(); }
};

// The rank-r (r ≥ 1; at most min(rows, cols)) left singular subspace of `a`.
Subspace svd_left(const Eigen::MatrixXd& a, int rank);

// Damped Subspace-Merge: SVD([√wa·U_a Σ_a, √wb·U_b Σ_b]) truncated to `rank`. Weights must be
// ≥ 0; an empty side is ignored (the other is returned re-truncated and scaled by its weight).
Subspace merge(const Subspace& a, double wa, const Subspace& b, double wb, int rank);

// P_M(u) = Σ_j (uᵀ m_j)² (App. A.4): the sum of squared scalar projections of M's columns on u.
double projected_sum(const Eigen::MatrixXd& m, const Eigen::VectorXd& u);

// Flips columns to the orientation described above.
void orient(Subspace& s);

class IncrementalSvd {
 public:
  // `w_new` ∈ [0, 1): the weight of each new batch in the damped merge (the old subspace gets
  // 1 − w_new). 0: no forgetting — Algorithm 1 exactly, SVD([U Σ, Y]).
  IncrementalSvd(int rank, double w_new) : rank_(rank), w_new_(w_new) {}

  // Adds a batch (m × b, b ≥ 1 columns).
  void update(const Eigen::MatrixXd& batch);
  const Subspace& subspace() const { return s_; }
  void reset() { s_ = Subspace{}; }

 private:
  int rank_;
  double w_new_;
  Subspace s_;
};

}  // namespace orrery::carico
