// The priority-optimal packer's solvers: brute force agreement (tier-by-tier optimum), the
// branch-and-bound against CBC, plan invariants, the paper's Figure 1, get_timeout.
#include <gtest/gtest.h>

#include <functional>

#include "policies/optpack/bnb.h"
#include "policies/optpack/budget.h"
#include "policies/optpack/cbc_solver.h"
#include "policies/optpack/heuristic.h"
#include "policies/optpack/optimizer.h"
#include "random_instances.h"

namespace orrery::optpack {
namespace {

using testing::random_model;
using testing::RandomShape;

// The tier-by-tier optimum by exhaustive enumeration: the lexicographic maximum of
// (placed 0..0, −disruption 0..0, placed 0..1, −disruption 0..1, ...), which is what Algorithm 1
// computes when every call is optimal.
std::vector<int> brute_force(const Model& m) {
  std::vector<int> best;
  Assignment a(m.pods(), kUnplaced);
  std::function<void(int)> rec = [&](int p) {
    if (p == m.pods()) {
      if (!respects_capacity(m, a)) return;
      std::vector<int> key;
      for (int t = 0; t < m.tiers(); ++t) {
        key.push_back(placed_upto(m, a, t));
        key.push_back(-disruption_upto(m, a, t));
      }
      if (best.empty() || key > best) best = key;
      return;
    }
    for (int j = kUnplaced; j < m.nodes(); ++j) {
      if (j != kUnplaced && !m.can_host(p, j)) continue;
      a[p] = j;
      rec(p + 1);
    }
    a[p] = kUnplaced;
  };
  rec(0);
  return best;
}

std::vector<int> key_of(const OptimizeResult& r) {
  std::vector<int> key;
  for (const TierReport& t : r.tiers) {
    key.push_back(t.placement.value);
    key.push_back(-t.disruption_phase.value);
  }
  return key;
}

OptimizeOptions exact(bool bnb, bool cbc, bool ls = true) {
  OptimizeOptions o;
  o.timeout_s = 30;  // notional: deterministic work units, never reached on these sizes
  o.alpha = 1.0;
  o.deterministic = true;
  o.use_bnb = bnb;
  o.use_cbc = cbc;
  o.use_local_search = ls;
  return o;
}

TEST(OptpackExactness, BranchAndBoundEqualsBruteForceOnSmallInstances) {
  RandomShape shape;  // <= 4 nodes, <= 8 pods, <= 3 tiers
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const Model m = random_model(seed, shape);
    const OptimizeResult r = optimize(m, exact(true, false));
    ASSERT_TRUE(respects_capacity(m, r.assignment)) << "seed " << seed;
    for (const TierReport& t : r.tiers) {
      EXPECT_EQ(t.placement.status, SolveStatus::kOptimal) << "seed " << seed;
      EXPECT_EQ(t.disruption_phase.status, SolveStatus::kOptimal) << "seed " << seed;
    }
    EXPECT_EQ(key_of(r), brute_force(m)) << "seed " << seed;
  }
}

TEST(OptpackExactness, BranchAndBoundWithoutLocalSearchEqualsBruteForce) {
  RandomShape shape;
  shape.running = 0.9;  // mostly running pods: phase 2 matters
  for (uint64_t seed = 100; seed <= 140; ++seed) {
    const Model m = random_model(seed, shape);
    const OptimizeResult r = optimize(m, exact(true, false, false));
    EXPECT_EQ(key_of(r), brute_force(m)) << "seed " << seed;
  }
}

TEST(OptpackExactness, CbcEqualsBruteForceOnSmallInstances) {
  RandomShape shape;
  for (uint64_t seed = 200; seed <= 230; ++seed) {
    const Model m = random_model(seed, shape);
    const OptimizeResult r = optimize(m, exact(false, true, false));
    ASSERT_TRUE(respects_capacity(m, r.assignment)) << "seed " << seed;
    for (const TierReport& t : r.tiers)
      EXPECT_EQ(t.placement.status, SolveStatus::kOptimal) << "seed " << seed;
    EXPECT_EQ(key_of(r), brute_force(m)) << "seed " << seed;
  }
}

// Each phase of Algorithm 1 solved by both exact solvers from the same start: whenever both
// prove optimality, they agree on the value.
TEST(OptpackExactness, BranchAndBoundAndCbcAgreeOnRandomFourToEightNodeInstances) {
  RandomShape shape;
  shape.min_nodes = 4;
  shape.max_nodes = 8;
  shape.min_pods = 6;
  shape.max_pods = 14;
  int compared = 0;
  for (uint64_t seed = 1000; seed < 1200; ++seed) {
    const Model m = random_model(seed, shape);
    Fixings fix(m.tiers());
    Assignment a(m.pods(), kUnplaced);
    for (int t = 0; t < m.tiers(); ++t) {
      for (Phase ph : {Phase::kPlace, Phase::kDisrupt}) {
        PhaseProblem pb{&m, t, ph, fix};
        if (ph == Phase::kPlace) a = greedy_start(pb, a);
        Deadline d1(0.2, true), d2(0.2, true);
        const PhaseOutcome b = branch_and_bound(pb, a, d1);
        const PhaseOutcome c = solve_with_cbc(pb, a, d2);
        ASSERT_TRUE(pb.satisfies(b.best)) << "seed " << seed;
        ASSERT_TRUE(pb.satisfies(c.best)) << "seed " << seed;
        if (b.optimal && c.optimal) {
          EXPECT_EQ(b.cost, c.cost) << "seed " << seed << " tier " << t;
          ++compared;
        }
        a = b.cost <= c.cost ? b.best : c.best;
        if (ph == Phase::kPlace)
          fix.min_placed[t] = placed_upto(m, a, t);
        else
          fix.max_disruption[t] = disruption_upto(m, a, t);
      }
    }
  }
  EXPECT_GE(compared, 300);  // hundreds of proven pairs
}

TEST(OptpackPlan, NeverOverCapacityNeverWorseForAHigherTier) {
  RandomShape shape;
  shape.max_nodes = 6;
  shape.max_pods = 20;
  shape.running = 0.8;
  for (uint64_t seed = 300; seed < 360; ++seed) {
    const Model m = random_model(seed, shape);
    OptimizeOptions o;
    o.timeout_s = 0.02;
    o.deterministic = true;
    const OptimizeResult r = optimize(m, o);
    ASSERT_TRUE(respects_capacity(m, r.assignment)) << "seed " << seed;
    // Lexicographically no worse: the first tier whose count changed gained pods.
    for (const TierReport& t : r.tiers) {
      if (t.placed_after == t.placed_before) continue;
      EXPECT_GT(t.placed_after, t.placed_before) << "seed " << seed;
      break;
    }
    EXPECT_GE(r.tiers.front().placed_after, r.tiers.front().placed_before);
  }
}

// The paper's Figure 1: two 4 GiB nodes, pods of 2 and 2 GiB on separate nodes, a pending 3 GiB
// pod. One move and no eviction place all three.
TEST(OptpackExample, PaperFigureOneNeedsExactlyOneMove) {
  const int64_t gi = int64_t{1} << 30;
  Model m;
  m.dims = 1;
  m.dim_names = {"memory"};
  m.tier_priority = {0};
  m.add_node("node-1", {4 * gi});
  m.add_node("node-2", {4 * gi});
  m.add_pod("pod-1", {2 * gi}, 0, 0);
  m.add_pod("pod-2", {2 * gi}, 0, 1);
  m.add_pod("pod-3", {3 * gi}, 0, kUnplaced);
  const OptimizeResult r = optimize(m, exact(true, true));
  EXPECT_EQ(r.tiers[0].placed_before, 2);
  EXPECT_EQ(r.tiers[0].placed_after, 3);
  EXPECT_EQ(r.tiers[0].placement.status, SolveStatus::kOptimal);
  EXPECT_EQ(r.tiers[0].disruption, 1);  // exactly one move, no eviction (an eviction costs 2)
  EXPECT_EQ(r.tiers[0].disruption_phase.status, SolveStatus::kOptimal);
  int moved = 0;
  for (int p = 0; p < 2; ++p) moved += r.assignment[p] != m.where[p];
  EXPECT_EQ(moved, 1);
  EXPECT_NE(r.assignment[0], kUnplaced);
  EXPECT_NE(r.assignment[1], kUnplaced);
  EXPECT_TRUE(r.improves_on_current());
}

TEST(OptpackBudget, GetTimeoutSharesAlphaPerTierHalvedPerPhaseAndCarriesUnusedTime) {
  TimeBudget b(10.0, 0.8, 4);  // α·T/K = 2 s per tier, 1 s per phase
  EXPECT_DOUBLE_EQ(b.next_phase(), 1.0);
  b.used(0.25);
  EXPECT_DOUBLE_EQ(b.next_phase(), 1.75);  // 0.75 s carried forward
  b.used(1.75);
  EXPECT_DOUBLE_EQ(b.next_phase(), 1.0);
  b.used(2.0);  // overran: nothing carried
  EXPECT_DOUBLE_EQ(b.next_phase(), 1.0);
}

TEST(OptpackBudget, DeterministicModeGivesTheSameAnswerTwice) {
  RandomShape shape;
  shape.max_nodes = 8;
  shape.max_pods = 40;
  const Model m = random_model(77, shape);
  OptimizeOptions o;
  o.timeout_s = 0.05;
  o.deterministic = true;
  o.seed = 5;
  EXPECT_EQ(optimize(m, o).assignment, optimize(m, o).assignment);
}

// No time at all: the call keeps its start (Figure 1: the current placement, pod-3 pending) and
// says TIMEOUT; nothing is over capacity.
TEST(OptpackBudget, ZeroBudgetKeepsTheStartAndSaysTimeout) {
  const int64_t gi = int64_t{1} << 30;
  Model m;
  m.dims = 1;
  m.dim_names = {"memory"};
  m.tier_priority = {0};
  m.add_node("node-1", {4 * gi});
  m.add_node("node-2", {4 * gi});
  m.add_pod("pod-1", {2 * gi}, 0, 0);
  m.add_pod("pod-2", {2 * gi}, 0, 1);
  m.add_pod("pod-3", {3 * gi}, 0, kUnplaced);
  OptimizeOptions o;
  o.timeout_s = 0;
  const OptimizeResult r = optimize(m, o);
  EXPECT_TRUE(respects_capacity(m, r.assignment));
  EXPECT_EQ(r.assignment, m.where);
  EXPECT_EQ(r.tiers[0].placement.status, SolveStatus::kTimeout);
  EXPECT_EQ(r.tiers[0].disruption_phase.status, SolveStatus::kOptimal);  // nothing moved
  EXPECT_FALSE(r.improves_on_current());
}

}  // namespace
}  // namespace orrery::optpack
