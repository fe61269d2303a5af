// CARICO's model against the thesis: the properties of Appendix A (as property tests over seeded
// random non-negative matrices, with brute-force SVDs of the concatenated data as the oracle),
// the capacity scenarios of Figs 3.1/3.2, the capacity edge cases, the Kalman filters on step
// data and the dynamic EMA.
#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "policies/carico/capacity.h"
#include "policies/carico/ema.h"
#include "policies/carico/kalman.h"
#include "policies/carico/subspace.h"

namespace orrery::carico {
namespace {

Eigen::MatrixXd random_matrix(Rng& rng, int m, int n, double lo = 0, double hi = 1) {
  Eigen::MatrixXd a(m, n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) a(i, j) = lo + (hi - lo) * rng.uniform();
  return a;
}

double sigma1(const Eigen::MatrixXd& a) {
  return Eigen::JacobiSVD<Eigen::MatrixXd>(a).singularValues()(0);
}

// App. A.2: 0 ≤ a_ij ≤ b_ij ≤ 1 ⇒ σ1(A) ≤ σ1(B).
TEST(CaricoAppendixA, FirstSingularValueIsMonotoneUnderElementwiseIncrease) {
  Rng rng(11);
  for (int t = 0; t < 500; ++t) {
    const int m = 2 + static_cast<int>(rng.below(7)), n = 1 + static_cast<int>(rng.below(20));
    const Eigen::MatrixXd a = random_matrix(rng, m, n);
    Eigen::MatrixXd b = a;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        if (rng.uniform() < 0.5) b(i, j) = a(i, j) + (1 - a(i, j)) * rng.uniform();
    EXPECT_LE(svd_left(a, 1).sigma1(), svd_left(b, 1).sigma1() + 1e-12) << "trial " << t;
  }
}

// App. A.3: σ1([A, B]) ≥ max(σ1(A), σ1(B)) — why an undamped merge makes σ1 grow.
TEST(CaricoAppendixA, ConcatenationNeverLowersTheFirstSingularValue) {
  Rng rng(12);
  for (int t = 0; t < 500; ++t) {
    const int m = 2 + static_cast<int>(rng.below(7));
    const Eigen::MatrixXd a = random_matrix(rng, m, 1 + static_cast<int>(rng.below(15)));
    const Eigen::MatrixXd b = random_matrix(rng, m, 1 + static_cast<int>(rng.below(15)));
    Eigen::MatrixXd c(m, a.cols() + b.cols());
    c << a, b;
    EXPECT_GE(sigma1(c) + 1e-12, std::max(sigma1(a), sigma1(b)));
    // The undamped Subspace-Merge of full-rank subspaces gives the same σ1 (eq. 2.4).
    EXPECT_NEAR(merge(svd_left(a, m), 1, svd_left(b, m), 1, m).sigma1(), sigma1(c), 1e-9);
  }
}

// App. A.4: with γ = √w, w_A + w_B = 1, min(P_A(u_C), P_B(u_C)) ≤ σ1(C)² ≤ max(...), and the
// damped merge of the subspaces equals the SVD of the damped concatenation.
TEST(CaricoAppendixA, DampedMergeIsBoundedByTheProjectedSums) {
  Rng rng(13);
  for (int t = 0; t < 500; ++t) {
    const int m = 2 + static_cast<int>(rng.below(7));
    const Eigen::MatrixXd a = random_matrix(rng, m, 1 + static_cast<int>(rng.below(15)));
    const Eigen::MatrixXd b = random_matrix(rng, m, 1 + static_cast<int>(rng.below(15)), 0, 0.3);
    const double wa = rng.uniform(), wb = 1 - wa;
    const Subspace c = merge(svd_left(a, m), wa, svd_left(b, m), wb, m);
    const Eigen::VectorXd u = c.u1();
    const double pa = projected_sum(a, u), pb = projected_sum(b, u);
    const double s2 = c.sigma1() * c.sigma1();
    EXPECT_LE(std::min(pa, pb), s2 + 1e-9) << "trial " << t;
    EXPECT_GE(std::max(pa, pb) + 1e-9, s2) << "trial " << t;
    EXPECT_NEAR(s2, wa * pa + wb * pb, 1e-9);  // the convex combination itself (A.6)
    Eigen::MatrixXd damped(m, a.cols() + b.cols());
    damped << std::sqrt(wa) * a, std::sqrt(wb) * b;
    EXPECT_NEAR(c.sigma1(), sigma1(damped), 1e-9);
    // u1 is oriented non-negative (App. A.1.3).
    EXPECT_GE(u.minCoeff(), -1e-12);
  }
}

// Algorithm 1 without forgetting: chunk by chunk equals the SVD of the whole, to 1e-9.
TEST(CaricoAppendixA, IncrementalSvdOfChunksEqualsTheWholeSvd) {
  Rng rng(14);
  for (int t = 0; t < 100; ++t) {
    const int m = 2 + static_cast<int>(rng.below(7));
    const int chunks = 2 + static_cast<int>(rng.below(10));
    IncrementalSvd inc(m, 0.0);
    Eigen::MatrixXd whole(m, 0);
    for (int k = 0; k < chunks; ++k) {
      const Eigen::MatrixXd y = random_matrix(rng, m, 1 + static_cast<int>(rng.below(12)));
      inc.update(y);
      Eigen::MatrixXd grown(m, whole.cols() + y.cols());
      grown << whole, y;
      whole = grown;
    }
    const Subspace direct = svd_left(whole, m);
    const Subspace& s = inc.subspace();
    ASSERT_EQ(s.rank(), direct.rank());
    for (int j = 0; j < s.rank(); ++j) EXPECT_NEAR(s.sigma(j), direct.sigma(j), 1e-9);
    // U Σ² Uᵀ = A Aᵀ for both (the vectors of repeated singular values may differ by rotation).
    const Eigen::MatrixXd g1 = s.u * s.sigma.cwiseAbs2().asDiagonal() * s.u.transpose();
    const Eigen::MatrixXd g2 = whole * whole.transpose();
    EXPECT_LE((g1 - g2).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, g2.norm()));
    EXPECT_LE((s.u.col(0) - direct.u.col(0)).cwiseAbs().maxCoeff(), 1e-9);
  }
}

TEST(CaricoSubspace, ForgettingKeepsSigmaAtTheDataScale) {
  // Steady identical batches: without damping σ1 grows as √(batches); with it, it stays.
  Eigen::MatrixXd y(2, 10);
  y.row(0).setConstant(0.5);
  y.row(1).setConstant(0.2);
  IncrementalSvd grows(2, 0.0), damped(2, 0.5);
  for (int i = 0; i < 50; ++i) grows.update(y), damped.update(y);
  EXPECT_NEAR(damped.subspace().sigma1(), svd_left(y, 1).sigma1(), 1e-9);
  EXPECT_NEAR(grows.subspace().sigma1(), std::sqrt(50.0) * svd_left(y, 1).sigma1(), 1e-9);
}

// Fig. 3.1: the node learns a heavier workload in the direction it already uses → smaller k.
TEST(CaricoCapacity, ConflictingWorkloadLowersK) {
  Eigen::VectorXd y(2);
  y << 0.4, 0.2;  // CPU-focused node
  Eigen::VectorXd u_cpu(2);
  u_cpu << 0.95, std::sqrt(1 - 0.95 * 0.95);
  const double before = capacity_k(y, 0.2, u_cpu);
  const double after = capacity_k(y, 0.5, u_cpu);  // σ1 grew
  EXPECT_LT(after, before);
  EXPECT_NEAR(after, (1 - 0.4) / (0.5 * 0.95), 1e-12);
}

// Fig. 3.2: more usage, but in a direction the node has room in (complementary) → larger k.
TEST(CaricoCapacity, ComplementaryWorkloadRaisesK) {
  Eigen::VectorXd y(2);
  y << 0.1, 0.7;  // memory-focused node
  Eigen::VectorXd u_mem(2), u_cpu(2);
  u_mem << 0.3, std::sqrt(1 - 0.09);
  u_cpu << std::sqrt(1 - 0.09), 0.3;
  const double before = capacity_k(y, 0.3, u_mem);
  const double after = capacity_k(y, 0.5, u_cpu);  // σ1 grew, direction CPU
  EXPECT_GT(after, before);
  // And the prediction y + k σ1 u1 touches 1 in exactly one dimension.
  const Eigen::VectorXd pred = y + after * 0.5 * u_cpu;
  EXPECT_NEAR(pred.maxCoeff(), 1.0, 1e-12);
}

TEST(CaricoCapacity, EdgeCasesHaveTheirDocumentedValues) {
  Eigen::VectorXd y(2), u(2);
  y << 0.2, 0.3;
  u << 1.0, 0.0;
  EXPECT_EQ(capacity_k(y, 0.0, u, 1000), 1000);  // σ1 = 0: nothing learned → k_max
  Eigen::VectorXd neg(2);
  neg << -0.6, -0.8;
  EXPECT_EQ(capacity_k(y, 1.0, neg, 1000), 1000);  // no u1_i > 0 → k_max
  EXPECT_NEAR(capacity_k(y, 1.0, u, 1000), 0.8, 1e-12);  // u1_mem = 0 sets no bound
  Eigen::VectorXd full(2);
  full << 1.0, 0.3;
  EXPECT_EQ(capacity_k(full, 1.0, u, 1000), 0);  // y ≥ 1 → 0
  Eigen::VectorXd full_other(2);
  full_other << 0.2, 1.2;
  EXPECT_EQ(capacity_k(full_other, 1.0, u, 1000), 0);  // full even where u1 is 0
  Eigen::VectorXd nan(2);
  nan << std::nan(""), 0.3;
  EXPECT_EQ(capacity_k(nan, 1.0, u, 1000), 0);
  EXPECT_EQ(capacity_k(y, 1e-9, u, 50), 50);  // clamped to k_max
}

// §4.2.4: the two 1-D filters recover baseline and per-pod cost from noisy step data.
TEST(CaricoKalman, TwoFiltersConvergeOnStepData) {
  const double baseline = 6.0, cost = 0.75;
  Rng rng(21);
  PodCapacityEstimator est;
  const int steps[] = {0, 2, 5, 3, 6, 1, 4, 0, 7, 2};
  for (int n : steps) {
    for (int i = 0; i < 40; ++i) {
      const double c = baseline - cost * n + 0.05 * rng.normal();
      est.add(c, n, /*churn=*/i < 3);
    }
  }
  EXPECT_NEAR(est.baseline(), baseline, 0.15);
  EXPECT_NEAR(est.cost(), cost, 0.05);
  // Eq. 3.5 at the last state (2 pods): c / cost ≈ (6 − 1.5) / 0.75 = 6 pods.
  EXPECT_NEAR(est.pod_capacity(), 6.0, 0.5);
}

TEST(CaricoKalman, HaltsAtZeroCapacityAndUsesDualModeDuringChurn) {
  PodCapacityEstimator est;
  for (int i = 0; i < 200; ++i) est.add(4.0 - 0.5 * (i % 5), i % 5, false);
  const double b = est.baseline(), p = est.cost();
  const uint64_t halted = est.halted();
  // Capacity 0 with many pods: no update (it would shrink the cost), Pod-Capacity 0.
  for (int i = 0; i < 50; ++i) EXPECT_EQ(est.add(0.0, 12, false), 0.0);
  EXPECT_EQ(est.baseline(), b);
  EXPECT_EQ(est.cost(), p);
  EXPECT_EQ(est.halted(), halted + 50);
  // Churn: a spike in c is ignored and Pod-Capacity follows eq. 3.6.
  const double pc = est.add(0.1, 3, true);
  EXPECT_TRUE(est.dual_mode());
  EXPECT_NEAR(pc, b / p - 3, 1e-9);
  EXPECT_EQ(est.baseline(), b);
}

TEST(CaricoEma, SuppressesShortSpikesAndFollowsSustainedChange) {
  DynamicEma ema(1, EmaOptions{}, 10);
  Eigen::VectorXd low(1), high(1);
  low << 0.1;
  high << 0.9;
  for (int i = 0; i < 20; ++i) ema.add(low);
  // A 200 ms container spike (2 samples at 10 Hz).
  ema.add(high);
  ema.add(high);
  EXPECT_LT(ema.value()(0), 0.2);
  for (int i = 0; i < 10; ++i) ema.add(low);
  EXPECT_LT(std::abs(ema.value()(0) - 0.1), 0.1);
  // A sustained step: after 300 ms the fast α takes over and it converges within ~1 s.
  for (int i = 0; i < 12; ++i) ema.add(high);
  EXPECT_GT(ema.value()(0), 0.85);
}

}  // namespace
}  // namespace orrery::carico
