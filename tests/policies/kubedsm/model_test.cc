// QoS model (eqs 1–6, 11), fragmentation properties, and model validation.
#include <gtest/gtest.h>

#include "core/error.h"
#include "policies/kubedsm/fragmentation.h"
#include "policies/kubedsm/model.h"
#include "policies/kubedsm/qos.h"
#include "random_models.h"

namespace orrery::kubedsm {
namespace {

using testing::units;

TEST(Qos, FIsPiecewiseLinearWithBonusAtTheTarget) {
  const QosParams p{2.0, 0.5, 100.0};
  EXPECT_DOUBLE_EQ(qos_f(p, -0.5), -1.0);
  EXPECT_DOUBLE_EQ(qos_f(p, 0.0), 100.0);
  EXPECT_DOUBLE_EQ(qos_f(p, 0.5), 100.25);
}

TEST(Qos, ServiceQosUsesTheEdgeFraction) {
  const QosParams p{1.0, 0.1, 10.0};
  EXPECT_DOUBLE_EQ(service_qos(p, 1.0, 1, 4), -0.75);    // Δ = 0.25 − 1
  EXPECT_DOUBLE_EQ(service_qos(p, 0.5, 2, 4), 10.0);     // Δ = 0
  EXPECT_DOUBLE_EQ(service_qos(p, 0.25, 2, 4), 10.025);  // Δ = 0.25
  EXPECT_DOUBLE_EQ(service_qos(p, 0.5, 0, 0), 0.0);      // no pods: no term
}

TEST(Qos, TotalQosMatchesTheEquationsOnRandomModels) {
  Rng rng(3);
  const QosParams p;
  for (int i = 0; i < 100; ++i) {
    const EdgeModel m = testing::random_model(rng, 3, 4, 10);
    EXPECT_NEAR(total_qos(p, m, count_pods(m)), testing::reference_qos(p, m), 1e-12);
  }
}

TEST(Qos, MigrationCountFollowsEquation6) {
  EXPECT_EQ(migrations(kCloud, kCloud), 0);
  EXPECT_EQ(migrations(2, 2), 0);
  EXPECT_EQ(migrations(kCloud, 1), 1);
  EXPECT_EQ(migrations(1, kCloud), 1);
  EXPECT_EQ(migrations(0, 1), 1);
}

TEST(Qos, PodSizeIsTheGeometricMeanOfNormalisedRequests) {
  EXPECT_DOUBLE_EQ(pod_size({1000, 1 << 30}, {4000, 4LL << 30}), 0.25);
  EXPECT_DOUBLE_EQ(pod_size({1000, 4LL << 30}, {4000, 4LL << 30}), 0.5);
}

TEST(Qos, ParametersMustFollowEquation5) {
  EXPECT_NO_THROW((QosParams{1.0, 0.0, 10.0}.validate()));
  EXPECT_THROW((QosParams{1.0, 1.0, 10.0}.validate()), InputError);   // β < α
  EXPECT_THROW((QosParams{1.0, -0.1, 10.0}.validate()), InputError);  // 0 ≤ β
  EXPECT_THROW((QosParams{1.0, 0.1, 0.5}.validate()), InputError);    // α ≪ γ
}

// ---- fragmentation (orrery's definition, see fragmentation.h) ----

TEST(Fragmentation, IsZeroExactlyWhenEveryNodeIsFull) {
  const FragNorm n(units(8, 8));
  EXPECT_DOUBLE_EQ(node_frag({0, 0}, n), 0.0);
  EXPECT_GT(node_frag(units(1, 0), n), 0.0);
  EXPECT_GT(node_frag(units(0, 1), n), 0.0);
  EXPECT_GT(node_frag(units(1, 1), n), 0.0);
  EXPECT_DOUBLE_EQ(node_frag({-1000, -5}, n), 0.0);  // over-committed: no free space
}

TEST(Fragmentation, IsAdditiveOverNodes) {
  Rng rng(11);
  for (int i = 0; i < 50; ++i) {
    const EdgeModel m = testing::random_model(rng, 4, 3, 8);
    double sum = 0;
    const FragNorm n(m.total_capacity());
    for (size_t k = 0; k < m.node_count(); ++k) sum += node_frag(m.free(k), n);
    EXPECT_NEAR(edge_frag(m), sum, 1e-12);
    EXPECT_NEAR(edge_frag(m), testing::reference_frag(m), 1e-12);
  }
}

TEST(Fragmentation, ConsolidatedFreeSpaceScoresLowerThanScattered) {
  const FragNorm n(units(8, 8));
  Rng rng(5);
  for (int i = 0; i < 200; ++i) {
    const int64_t a = rng.uniform_int(1, 4), b = rng.uniform_int(1, 4);
    // Balanced free space a and b on two nodes vs a + b on one node.
    EXPECT_LT(node_frag(units(a + b, a + b), n) + node_frag({0, 0}, n),
              node_frag(units(a, a), n) + node_frag(units(b, b), n));
    // Moving free space onto the node that has more of it lowers frag.
    const int64_t lo = std::min(a, b), hi = std::max(a, b);
    EXPECT_LT(node_frag(units(hi + 1, hi + 1), n) + node_frag(units(lo - 1, lo - 1), n),
              node_frag(units(hi, hi), n) + node_frag(units(lo, lo), n));
  }
}

TEST(Fragmentation, StrandedResourcesScoreHigherThanCoLocatedOnes) {
  const FragNorm n(units(8, 8));
  for (int64_t x = 1; x <= 8; ++x) {
    // Free cpu on one node and free memory on another vs both on one node.
    EXPECT_GT(node_frag(units(x, 0), n) + node_frag(units(0, x), n),
              node_frag(units(x, x), n) + node_frag({0, 0}, n));
    // A unit of stranded cpu costs at least as much as a unit of balanced space.
    EXPECT_GE(node_frag(units(x, 0), n), node_frag(units(x, x), n) / 2);
  }
}

// ---- validation (bad input) ----

TEST(Model, RejectsQosTargetsOutsideTheUnitInterval) {
  for (double q : {-0.1, 1.5, std::nan("")}) {
    EdgeModel m;
    m.add_service("web", units(1, 1), q);
    try {
      m.validate();
      FAIL() << "accepted target " << q;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("service web: QoS target"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("[0, 1]"), std::string::npos) << e.what();
    }
  }
}

TEST(Model, RejectsServicesWithoutCpuOrMemoryRequests) {
  for (Vec2 r : {Vec2{0, 1 << 30}, Vec2{1000, 0}}) {
    EdgeModel m;
    m.add_service("batch", r, 1.0);
    try {
      m.validate();
      FAIL();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("service batch: pods must request cpu and memory"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Model, MovePodKeepsUsageConsistent) {
  EdgeModel m;
  m.add_node(units(4, 4));
  m.add_node(units(4, 4));
  m.add_service("a", units(1, 2), 1.0);
  const uint32_t p = m.add_pod(0, 0);
  EXPECT_EQ(m.used[0], units(1, 2));
  m.move_pod(p, 1);
  EXPECT_EQ(m.used[0], Vec2{});
  EXPECT_EQ(m.used[1], units(1, 2));
  m.move_pod(p, kCloud);
  EXPECT_EQ(m.total_free(), units(8, 8));
}

}  // namespace
}  // namespace orrery::kubedsm
