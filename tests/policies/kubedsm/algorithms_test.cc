// Algorithms 1–7: property tests against brute force on small random instances, plus worked
// examples of the behaviour the paper describes.
#include "policies/kubedsm/algorithms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "core/error.h"
#include "random_models.h"

namespace orrery::kubedsm {
namespace {

using testing::reference_frag;
using testing::reference_qos;
using testing::units;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A random model plus `extra` new pods appended as (immovable) cloud pods: the candidates.
struct Instance {
  EdgeModel m;
  std::vector<uint32_t> candidates;
};

Instance random_instance(Rng& rng, int max_candidates) {
  Instance in;
  in.m = testing::random_model(rng, static_cast<int>(rng.uniform_int(1, 3)),
                               static_cast<int>(rng.uniform_int(1, 3)),
                               static_cast<int>(rng.uniform_int(0, 6)));
  const int extra = static_cast<int>(rng.uniform_int(0, max_candidates));
  for (int i = 0; i < extra; ++i)
    in.candidates.push_back(in.m.add_pod(static_cast<uint32_t>(rng.below(in.m.services.size())),
                                         kCloud, false, 1000 + i));
  return in;
}

// QoS of the model with `to_edge` counted on the edge and `to_cloud` on the cloud (node indices
// are irrelevant to QoS, so edge pods are put on node 0 without touching the usage).
double qos_with(const QosParams& q, EdgeModel m, const std::vector<uint32_t>& to_edge,
                const std::vector<uint32_t>& to_cloud) {
  for (uint32_t p : to_edge) m.pods[p].node = 0;
  for (uint32_t p : to_cloud) m.pods[p].node = kCloud;
  return reference_qos(q, m);
}

std::vector<uint32_t> subset(const std::vector<uint32_t>& items, uint32_t mask) {
  std::vector<uint32_t> s;
  for (size_t i = 0; i < items.size(); ++i)
    if (mask >> i & 1) s.push_back(items[i]);
  return s;
}

// Property (issue acceptance): makeDecision equals brute force over all subsets, without
// migration: the best QoS over every subset whose resources fit the edge's free resources.
TEST(MakeDecision, WithoutMigrationEqualsBruteForceOverAllSubsets) {
  Rng rng(101);
  SchedulerCore core;
  for (int iter = 0; iter < 300; ++iter) {
    const Instance in = random_instance(rng, 6);
    SCOPED_TRACE("iteration " + std::to_string(iter));
    double best = kNegInf;
    for (uint32_t mask = 0; mask < (1u << in.candidates.size()); ++mask) {
      const std::vector<uint32_t> s = subset(in.candidates, mask);
      const Vec2 sum = sum_requests(in.m, s);
      if (!sum.fits_in(in.m.total_capacity()) || !sum.fits_in(in.m.total_free())) continue;
      best = std::max(best, qos_with(core.config().qos, in.m, s, {}));
    }
    const Decision d = core.make_decision(in.m, in.candidates, false);
    EXPECT_NEAR(d.qos, best, 1e-9);
    EXPECT_NEAR(qos_with(core.config().qos, in.m, d.to_edge, {}), d.qos, 1e-9);
    EXPECT_EQ(d.to_edge.size() + d.to_cloud.size(), in.candidates.size());
    EXPECT_TRUE(d.offloads.empty());
    EXPECT_TRUE(d.reorders.empty());
  }
}

// Property (issue acceptance): with migration, makeDecision equals brute force over all subsets,
// each subset's offloads given by freeEdgeAsNeeded (Alg. 4 → 5).
TEST(MakeDecision, WithMigrationEqualsBruteForceOverAllSubsets) {
  Rng rng(202);
  SchedulerCore core;
  for (int iter = 0; iter < 300; ++iter) {
    const Instance in = random_instance(rng, 5);
    SCOPED_TRACE("iteration " + std::to_string(iter));
    double best = kNegInf;
    for (uint32_t mask = 0; mask < (1u << in.candidates.size()); ++mask) {
      const std::vector<uint32_t> s = subset(in.candidates, mask);
      const Vec2 sum = sum_requests(in.m, s);
      if (!sum.fits_in(in.m.total_capacity())) continue;
      ServiceCounts c = count_pods(in.m);
      for (uint32_t p : s) ++c.edge[in.m.pods[p].service];
      const std::vector<uint32_t> off = core.free_edge_as_needed(in.m, sum, c);
      // Offloads that cannot free the need (immovable pods) leave the subset without room.
      if (!sum.fits_in(in.m.total_free() + sum_requests(in.m, off))) continue;
      best = std::max(best, qos_with(core.config().qos, in.m, s, off));
    }
    const Decision d = core.make_decision(in.m, in.candidates, true);
    EXPECT_NEAR(d.qos, best, 1e-9);
    EXPECT_NEAR(qos_with(core.config().qos, in.m, d.to_edge, d.offloads), d.qos, 1e-9);
  }
}

// Whether `pods` can be packed into the nodes' free room (after `offloads` left), by trying every
// assignment of pods to nodes.
bool packs(const EdgeModel& m, const std::vector<uint32_t>& pods,
           const std::vector<uint32_t>& offloads) {
  std::vector<Vec2> free(m.node_count());
  for (size_t n = 0; n < m.node_count(); ++n) free[n] = m.free(n);
  for (uint32_t p : offloads) free[static_cast<size_t>(m.pods[p].node)] += m.request_of(p);
  std::function<bool(size_t)> place = [&](size_t i) {
    if (i == pods.size()) return true;
    const Vec2& r = m.request_of(pods[i]);
    for (Vec2& f : free) {
      if (!r.fits_in(f)) continue;
      f -= r;
      const bool ok = place(i + 1);
      f += r;
      if (ok) return true;
    }
    return false;
  };
  return place(0);
}

// Property: with FitCheck::kExact, makeDecision's QoS is the best over the subsets that pack node
// by node (after their offloads), with and without migration, and its edge pods do pack.
TEST(MakeDecision, ExactFitEqualsBruteForceOverPackableSubsets) {
  Rng rng(404);
  Config cfg;
  cfg.fit_check = FitCheck::kExact;
  SchedulerCore core(cfg);
  for (int iter = 0; iter < 300; ++iter) {
    const Instance in = random_instance(rng, 5);
    const bool migrate = iter % 2 == 1;
    SCOPED_TRACE("iteration " + std::to_string(iter));
    double best = kNegInf;
    for (uint32_t mask = 0; mask < (1u << in.candidates.size()); ++mask) {
      const std::vector<uint32_t> s = subset(in.candidates, mask);
      const Vec2 sum = sum_requests(in.m, s);
      if (!sum.fits_in(in.m.total_capacity())) continue;
      std::vector<uint32_t> off;
      if (migrate) {
        ServiceCounts c = count_pods(in.m);
        for (uint32_t p : s) ++c.edge[in.m.pods[p].service];
        off = core.free_edge_as_needed(in.m, sum, c);
      }
      if (!sum.fits_in(in.m.total_free() + sum_requests(in.m, off))) continue;
      if (!packs(in.m, s, off)) continue;
      best = std::max(best, qos_with(core.config().qos, in.m, s, off));
    }
    const Decision d = core.make_decision(in.m, in.candidates, migrate);
    EXPECT_NEAR(d.qos, best, 1e-9);
    EXPECT_TRUE(packs(in.m, d.to_edge, d.offloads));
  }
}

TEST(MakeDecision, ApproximateFitKeepsASubsetThatNoNodeHolds) {
  // Two nodes with 1 free core/unit each; a 2-unit pod fits the edge's free total but no node.
  // The paper's aggregate test (Alg. 3 line 13) sends it to the edge, where match fails and
  // applyDecision redirects it to the cloud; the exact check sends the 1-unit pod instead.
  EdgeModel m;
  m.add_node(units(4, 4));
  m.add_node(units(4, 4));
  const uint32_t small = m.add_service("small", units(1, 1), 1.0);
  const uint32_t wide = m.add_service("wide", units(2, 2), 1.0);
  for (int i = 0; i < 3; ++i) m.add_pod(small, 0, false);
  for (int i = 0; i < 3; ++i) m.add_pod(small, 1, false);
  m.add_pod(wide, 0, false);  // |P_wide| = 2: a wide pod is worth α/2, a small one α/7
  const uint32_t w = m.add_pod(wide, kCloud, false);
  const uint32_t sm = m.add_pod(small, kCloud, false);
  m.used[0] = units(3, 3);  // node 0 holds 3 small pods; the edge wide pod is counted elsewhere
  const std::vector<uint32_t> batch = {w, sm};

  SchedulerCore approx;
  const Placement a = approx.immediate_schedule(m, batch);
  EXPECT_EQ(a.decision.to_edge, std::vector<uint32_t>{w});
  EXPECT_TRUE(a.edge.empty());  // match cannot place it
  EXPECT_EQ(a.cloud.size(), 2u);

  Config cfg;
  cfg.fit_check = FitCheck::kExact;
  SchedulerCore exact(cfg);
  const Placement e = exact.immediate_schedule(m, batch);
  EXPECT_EQ(e.decision.to_edge, std::vector<uint32_t>{sm});
  ASSERT_EQ(e.edge.size(), 1u);
  EXPECT_EQ(e.edge[0].pod, sm);
}

TEST(FreeEdgeAsNeeded, OnlyOffloadsPodsThatFindRoomOnABoundedCloud) {
  // The edge is full of a (1 unit) and b (2 units) pods; the cloud has 1 unit left. b's pods would
  // be the cheaper loss, but only a's fit on the cloud; with an unbounded cloud b leaves.
  EdgeModel m;
  m.add_node(units(4, 4));
  const uint32_t a = m.add_service("a", units(1, 1), 1.0);
  const uint32_t b = m.add_service("b", units(2, 2), 1.0);
  m.add_pod(a, 0);
  m.add_pod(a, 0);
  for (int i = 0; i < 4; ++i) m.add_pod(b, kCloud, false);
  const uint32_t b_edge = m.add_pod(b, 0);
  SchedulerCore core;
  const ServiceCounts c = count_pods(m);
  const std::vector<uint32_t> unbounded = core.free_edge_as_needed(m, units(1, 1), c);
  ASSERT_EQ(unbounded.size(), 1u);
  EXPECT_EQ(unbounded[0], b_edge);

  m.cloud_bounded = true;
  m.cloud_free = {units(1, 1)};
  const std::vector<uint32_t> bounded = core.free_edge_as_needed(m, units(1, 1), c);
  ASSERT_EQ(bounded.size(), 1u);
  EXPECT_EQ(m.pods[bounded[0]].service, a);
  // Room for one offload only: a second a pod cannot leave, so 2 units cannot be freed.
  const std::vector<uint32_t> two = core.free_edge_as_needed(m, units(2, 2), c);
  EXPECT_EQ(two.size(), 1u);
  m.cloud_free = {};
  EXPECT_TRUE(core.free_edge_as_needed(m, units(1, 1), c).empty());
}

TEST(MakeDecision, DiscardsASubsetWhoseOffloadsHaveNowhereToGo) {
  // The edge is full of a's pods (target 0.5, over-served); b (target 0.5) waits on the cloud.
  // Swapping an a pod for b would raise QoS, but the cloud has no room for the offload.
  EdgeModel m;
  m.add_node(units(2, 2));
  const uint32_t a = m.add_service("a", units(1, 1), 0.5);
  const uint32_t b = m.add_service("b", units(1, 1), 0.5);
  m.add_pod(a, 0);
  m.add_pod(a, 0);
  const uint32_t bc = m.add_pod(b, kCloud);
  SchedulerCore core;
  EXPECT_EQ(core.make_decision(m, std::vector<uint32_t>{bc}, true).to_edge.size(), 1u);
  m.cloud_bounded = true;
  m.cloud_free = {units(0, 0)};
  const Decision d = core.make_decision(m, std::vector<uint32_t>{bc}, true);
  EXPECT_TRUE(d.to_edge.empty());
  EXPECT_TRUE(d.offloads.empty());
}

TEST(SuggestCandidates, EqualScoresGoToTheFirstService) {
  // Eq. 10's score is α/(|P_i|·size): x has 6 pods of size s, y 3 pods of size 2s, all on the
  // cloud, so both score α/(6s). The first service in model order wins the tie, not rounding.
  EdgeModel m;
  m.add_node(units(3, 7));
  const uint32_t x = m.add_service("x", units(1, 1), 1.0);
  const uint32_t y = m.add_service("y", units(2, 2), 1.0);
  for (int i = 0; i < 6; ++i) m.add_pod(x, kCloud);
  for (int i = 0; i < 3; ++i) m.add_pod(y, kCloud);
  Config cfg;
  cfg.m_c2e = 1;
  SchedulerCore core(cfg);
  const std::vector<uint32_t> first = core.suggest_candidates(m);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(m.pods[first[0]].service, x);
}

// makeDecision's feasibility test without migration is the aggregate one (Alg. 3 line 13), a
// relaxation of per-node packing: its QoS is never below the exact optimum over node assignments.
TEST(MakeDecision, WithoutMigrationIsAtLeastTheExactPackingOptimum) {
  Rng rng(303);
  SchedulerCore core;
  for (int iter = 0; iter < 200; ++iter) {
    const Instance in = random_instance(rng, 5);
    const size_t nodes = in.m.node_count();
    std::vector<size_t> a(in.candidates.size(), 0);
    double exact = kNegInf;
    while (true) {
      EdgeModel m = in.m;
      for (size_t i = 0; i < a.size(); ++i)
        m.move_pod(in.candidates[i], a[i] == 0 ? kCloud : static_cast<int32_t>(a[i] - 1));
      if (testing::placement_feasible(m) || a == std::vector<size_t>(a.size(), 0))
        exact = std::max(exact, reference_qos(core.config().qos, m));
      size_t i = 0;
      for (; i < a.size(); ++i) {
        if (a[i] < nodes) {
          ++a[i];
          break;
        }
        a[i] = 0;
      }
      if (i == a.size()) break;
    }
    EXPECT_GE(core.make_decision(in.m, in.candidates, false).qos, exact - 1e-9);
  }
}

// Property (issue acceptance): freeEdgeAsNeeded frees at least the need (or every movable edge
// pod), frees nothing more than it must, and picks by the re-sorted score (eq. 12) every time.
TEST(FreeEdgeAsNeeded, FreesAtLeastTheNeedGreedilyAndMinimally) {
  Rng rng(404);
  SchedulerCore core;
  for (int iter = 0; iter < 300; ++iter) {
    EdgeModel m = testing::random_model(rng, static_cast<int>(rng.uniform_int(1, 4)),
                                        static_cast<int>(rng.uniform_int(1, 4)),
                                        static_cast<int>(rng.uniform_int(0, 12)));
    for (ModelPod& p : m.pods) p.movable = rng.bernoulli(0.8);
    const Vec2 need = units(rng.uniform_int(0, 12), rng.uniform_int(0, 12));
    const ServiceCounts counts = count_pods(m);
    SCOPED_TRACE("iteration " + std::to_string(iter));
    const std::vector<uint32_t> freed = core.free_edge_as_needed(m, need, counts);

    Vec2 avail = m.total_free();
    ServiceCounts c = counts;
    std::vector<uint8_t> taken(m.pods.size(), 0);
    for (size_t step = 0; step < freed.size(); ++step) {
      const uint32_t p = freed[step];
      ASSERT_NE(m.pods[p].node, kCloud);
      ASSERT_TRUE(m.pods[p].movable);
      ASSERT_FALSE(taken[p]);
      // Still short before this eviction (minimality).
      EXPECT_FALSE(need.fits_in(avail));
      // Greedy: no other remaining service has a strictly better score (eq. 12).
      auto score = [&](uint32_t s) {
        const Service& sv = m.services[s];
        return (service_qos(core.config().qos, sv.qos_target, c.edge[s] - 1, c.total[s]) -
                service_qos(core.config().qos, sv.qos_target, c.edge[s], c.total[s])) /
               pod_size(sv.request, m.total_capacity());
      };
      for (uint32_t q = 0; q < m.pods.size(); ++q) {
        if (taken[q] || m.pods[q].node == kCloud || !m.pods[q].movable) continue;
        EXPECT_LE(score(m.pods[q].service), score(m.pods[p].service) + 1e-12);
      }
      taken[p] = 1;
      avail += m.request_of(p);
      --c.edge[m.pods[p].service];
    }
    bool any_left = false;
    for (uint32_t q = 0; q < m.pods.size(); ++q)
      any_left |= !taken[q] && m.pods[q].node != kCloud && m.pods[q].movable;
    EXPECT_TRUE(need.fits_in(avail) || !any_left);
  }
}

// reorderEdge (Alg. 6) equals brute force: the least fragmentation reachable by moving at most
// M_ER movable edge pods to any nodes with room, if below the current fragmentation.
TEST(ReorderEdge, EqualsBruteForceOverSmallSubsetsAndTargets) {
  Rng rng(505);
  for (int m_er : {1, 2, 3}) {
    Config cfg;
    cfg.m_er = m_er;
    cfg.frag = FragFormula::kOrrery;  // reference_frag is orrery's formula
    SchedulerCore core(cfg);
    for (int iter = 0; iter < 120; ++iter) {
      EdgeModel m = testing::random_model(rng, static_cast<int>(rng.uniform_int(1, 3)),
                                          static_cast<int>(rng.uniform_int(1, 3)),
                                          static_cast<int>(rng.uniform_int(0, 6)));
      for (ModelPod& p : m.pods) p.movable = rng.bernoulli(0.85);
      SCOPED_TRACE("M_ER " + std::to_string(m_er) + " iteration " + std::to_string(iter));
      std::vector<uint32_t> edge;
      for (uint32_t p = 0; p < m.pods.size(); ++p)
        if (m.pods[p].node != kCloud && m.pods[p].movable) edge.push_back(p);
      const double before = reference_frag(m);
      double best = before;
      for (uint32_t mask = 1; mask < (1u << edge.size()); ++mask) {
        const std::vector<uint32_t> s = subset(edge, mask);
        if (static_cast<int>(s.size()) > m_er) continue;
        std::vector<size_t> a(s.size(), 0);
        while (true) {
          EdgeModel t = m;
          for (uint32_t p : s) t.move_pod(p, kCloud);
          for (size_t i = 0; i < s.size(); ++i) t.move_pod(s[i], static_cast<int32_t>(a[i]));
          if (testing::placement_feasible(t)) best = std::min(best, reference_frag(t));
          size_t i = 0;
          for (; i < a.size(); ++i) {
            if (a[i] + 1 < m.node_count()) {
              ++a[i];
              break;
            }
            a[i] = 0;
          }
          if (i == a.size()) break;
        }
      }
      const std::vector<Move> moves = core.reorder_edge(m);
      EXPECT_LE(static_cast<int>(moves.size()), m_er);
      EdgeModel after = m;
      for (const Move& mv : moves) {
        EXPECT_EQ(mv.from, m.pods[mv.pod].node);
        EXPECT_NE(mv.from, mv.to);
        EXPECT_NE(mv.to, kCloud);
        after.move_pod(mv.pod, mv.to);
      }
      EXPECT_TRUE(testing::placement_feasible(after));
      if (best < before - 1e-9) {
        EXPECT_FALSE(moves.empty());
        EXPECT_NEAR(reference_frag(after), best, 1e-9);
      } else {
        EXPECT_TRUE(moves.empty());
      }
    }
  }
}

TEST(ReorderEdge, DisabledWhenMErIsZero) {
  Config cfg;
  cfg.m_er = 0;
  SchedulerCore core(cfg);
  EdgeModel m;
  m.add_node(units(4, 4));
  m.add_node(units(4, 4));
  m.add_service("a", units(1, 1), 1.0);
  m.add_pod(0, 0);
  m.add_pod(0, 1);
  EXPECT_TRUE(core.reorder_edge(m).empty());
  cfg.m_er = 1;
  SchedulerCore on(cfg);
  EXPECT_EQ(on.reorder_edge(m).size(), 1u);  // consolidating the two pods frees a whole node
}

// applyDecision (Alg. 7): whatever suggest decides, executing the migrations and then the edge
// placements in order never overfills a node, and every candidate ends up somewhere.
TEST(ApplyDecision, SuggestedPlacementsAreFeasible) {
  Rng rng(606);
  SchedulerCore core;
  for (int iter = 0; iter < 150; ++iter) {
    EdgeModel m = testing::random_model(rng, static_cast<int>(rng.uniform_int(1, 4)),
                                        static_cast<int>(rng.uniform_int(1, 4)),
                                        static_cast<int>(rng.uniform_int(0, 14)));
    SCOPED_TRACE("iteration " + std::to_string(iter));
    const std::vector<uint32_t> chosen = core.suggest_candidates(m);
    EXPECT_LE(static_cast<int>(chosen.size()), core.config().m_c2e);
    const Placement p = core.suggest(m);
    EXPECT_EQ(p.edge.size() + p.cloud.size(), chosen.size());
    EdgeModel after = m;
    for (const Move& mv : p.migrations) after.move_pod(mv.pod, mv.to);
    for (const Move& mv : p.edge) {
      EXPECT_EQ(mv.from, kCloud);
      after.move_pod(mv.pod, mv.to);
    }
    EXPECT_TRUE(testing::placement_feasible(after));
    // Never worse than doing nothing: the QoS reached is at least the current one when every
    // matched pod lands (unmatched ones may lower it below the decision's estimate).
    if (p.edge.size() == p.decision.to_edge.size()) {
      EXPECT_GE(reference_qos(core.config().qos, after),
                reference_qos(core.config().qos, m) - 1e-9);
    }
  }
}

TEST(SuggestCandidates, RespectTheBudgetAndMC2E) {
  Rng rng(707);
  for (SuggestBudget budget : {SuggestBudget::kFree, SuggestBudget::kReclaimable}) {
    Config cfg;
    cfg.suggest_budget = budget;
    cfg.m_c2e = 3;
    SchedulerCore core(cfg);
    for (int iter = 0; iter < 100; ++iter) {
      const EdgeModel m = testing::random_model(rng, 3, 3, 14);
      const std::vector<uint32_t> c = core.suggest_candidates(m);
      EXPECT_LE(c.size(), 3u);
      Vec2 limit = m.total_free();
      if (budget == SuggestBudget::kReclaimable)
        for (const ModelPod& p : m.pods)
          if (p.node != kCloud) limit += m.services[p.service].request;
      EXPECT_TRUE(sum_requests(m, c).fits_in(limit));
      for (uint32_t p : c) EXPECT_EQ(m.pods[p].node, kCloud);
    }
  }
}

// Algorithm 2's selection is greedy by eq. 10: every chosen pod's service had the best score
// among services that still had candidates and whose pods still fit the budget.
TEST(SuggestCandidates, PickByTheReSortedScore) {
  Rng rng(808);
  SchedulerCore core;
  for (int iter = 0; iter < 200; ++iter) {
    const EdgeModel m = testing::random_model(rng, static_cast<int>(rng.uniform_int(1, 3)),
                                              static_cast<int>(rng.uniform_int(1, 4)), 14);
    const std::vector<uint32_t> chosen = core.suggest_candidates(m);
    ServiceCounts c = count_pods(m);
    Vec2 budget = m.total_free();
    for (const ModelPod& p : m.pods)
      if (p.node != kCloud) budget += m.services[p.service].request;
    std::vector<int> left(m.services.size(), 0);
    for (const ModelPod& p : m.pods) {
      bool fits_a_node = false;  // larger than every edge node: never a candidate
      for (const Vec2& cap : m.capacity) fits_a_node |= m.services[p.service].request.fits_in(cap);
      left[p.service] += p.node == kCloud && fits_a_node ? 1 : 0;
    }
    auto score = [&](size_t s) {
      const Service& sv = m.services[s];
      return (service_qos(core.config().qos, sv.qos_target, c.edge[s] + 1, c.total[s]) -
              service_qos(core.config().qos, sv.qos_target, c.edge[s], c.total[s])) /
             pod_size(sv.request, m.total_capacity());
    };
    for (uint32_t p : chosen) {
      const uint32_t s = m.pods[p].service;
      for (size_t o = 0; o < m.services.size(); ++o) {
        if (left[o] == 0 || !m.services[o].request.fits_in(budget)) continue;
        EXPECT_LE(score(o), score(s) + 1e-12) << "iteration " << iter;
      }
      budget -= m.services[s].request;
      ++c.edge[s];
      --left[s];
    }
  }
}

// ---- worked examples ----

TEST(ImmediateSchedule, BatchGoesToTheServiceFurthestBelowItsTarget) {
  // Room for one 1-core pod. Service a has 3 of 4 pods on the edge (target 1, Δ = −0.25), b has
  // 0 of 1 (Δ = −1). The batch holds one new pod of each: b's pod is worth more QoS.
  EdgeModel m;
  m.add_node(units(4, 8));
  const uint32_t a = m.add_service("a", units(1, 1), 1.0);
  const uint32_t b = m.add_service("b", units(1, 1), 1.0);
  for (int i = 0; i < 3; ++i) m.add_pod(a, 0);
  const uint32_t na = m.add_pod(a, kCloud, false);
  const uint32_t nb = m.add_pod(b, kCloud, false);
  SchedulerCore core;
  const std::vector<uint32_t> batch = {na, nb};
  const Placement p = core.immediate_schedule(m, batch);
  ASSERT_EQ(p.edge.size(), 1u);
  EXPECT_EQ(p.edge[0].pod, nb);
  EXPECT_EQ(p.edge[0].to, 0);
  EXPECT_EQ(p.cloud, std::vector<uint32_t>{na});
  EXPECT_TRUE(p.migrations.empty());  // Alg. 1: no migration
}

TEST(ImmediateSchedule, PodLargerThanEveryEdgeNodeGoesToTheCloud) {
  EdgeModel m;
  m.add_node(units(2, 2));
  m.add_node(units(2, 2));
  const uint32_t big = m.add_service("big", units(3, 1), 1.0);  // 3 cores: no node has 3
  const uint32_t p = m.add_pod(big, kCloud, false);
  SchedulerCore core;
  const std::vector<uint32_t> batch = {p};
  const Placement pl = core.immediate_schedule(m, batch);
  EXPECT_TRUE(pl.edge.empty());
  EXPECT_EQ(pl.cloud, std::vector<uint32_t>{p});
}

TEST(Suggest, ReordersTheEdgeToMakeRoomForACloudPod) {
  // Two nodes with one free core each; a 2-core pod waits on the cloud. Moving a 1-core pod
  // consolidates the free space (Alg. 6) and the cloud pod then matches (Alg. 7).
  EdgeModel m;
  m.add_node(units(4, 4));
  m.add_node(units(4, 4));
  const uint32_t small = m.add_service("small", units(1, 1), 1.0);
  const uint32_t wide = m.add_service("wide", units(2, 2), 1.0);
  for (int i = 0; i < 3; ++i) m.add_pod(small, 0);
  for (int i = 0; i < 3; ++i) m.add_pod(small, 1);
  const uint32_t w = m.add_pod(wide, kCloud);
  SchedulerCore core;
  const Placement p = core.suggest(m);
  ASSERT_EQ(p.migrations.size(), 1u);
  EXPECT_NE(p.migrations[0].to, kCloud);
  ASSERT_EQ(p.edge.size(), 1u);
  EXPECT_EQ(p.edge[0].pod, w);
  EXPECT_EQ(p.edge[0].to, p.migrations[0].from);
}

TEST(Suggest, OffloadsAnOverServedServiceForAnUnderServedOne) {
  // The edge is full of a's pods (target 0.5, all 4 on the edge); b (target 0.5) has both pods on
  // the cloud. Swapping a pods for b pods lifts b to its target (+γ) for a small β loss on a;
  // swapping both gives a 2/4 (at target) and b 2/2, the highest QoS.
  EdgeModel m;
  m.add_node(units(4, 4));
  const uint32_t a = m.add_service("a", units(1, 1), 0.5);
  const uint32_t b = m.add_service("b", units(1, 1), 0.5);
  for (int i = 0; i < 4; ++i) m.add_pod(a, 0);
  m.add_pod(b, kCloud);
  m.add_pod(b, kCloud);
  SchedulerCore core;
  const Placement p = core.suggest(m);
  ASSERT_EQ(p.decision.offloads.size(), 2u);
  for (uint32_t off : p.decision.offloads) EXPECT_EQ(m.pods[off].service, a);
  ASSERT_EQ(p.edge.size(), 2u);
  for (const Move& mv : p.edge) EXPECT_EQ(m.pods[mv.pod].service, b);

  // The literal budget of Alg. 2 line 5 (free resources only) never offloads.
  Config literal;
  literal.suggest_budget = SuggestBudget::kFree;
  SchedulerCore lit(literal);
  const Placement q = lit.suggest(m);
  EXPECT_TRUE(q.decision.offloads.empty());
  EXPECT_TRUE(q.edge.empty());
}

TEST(Suggest, RespectsQosTargets) {
  // Room for 2 more pods. Service hi (target 1) has 1 of 3 on the edge; lo (target 0.1) has 1 of
  // 3 and already meets its target. Both cloud pods of hi come to the edge.
  EdgeModel m;
  m.add_node(units(4, 4));
  const uint32_t hi = m.add_service("hi", units(1, 1), 1.0);
  const uint32_t lo = m.add_service("lo", units(1, 1), 0.1);
  m.add_pod(hi, 0);
  m.add_pod(lo, 0);
  for (int i = 0; i < 2; ++i) {
    m.add_pod(hi, kCloud);
    m.add_pod(lo, kCloud);
  }
  SchedulerCore core;
  const Placement p = core.suggest(m);
  ASSERT_EQ(p.edge.size(), 2u);
  for (const Move& mv : p.edge) EXPECT_EQ(m.pods[mv.pod].service, hi);
}

TEST(Config, RejectsOutOfRangeLimits) {
  Config c;
  c.m_er = -1;
  EXPECT_THROW(c.validate(), InputError);
  c.m_er = 3;
  c.m_c2e = 40;
  EXPECT_THROW(c.validate(), InputError);
  c.m_c2e = 5;
  c.qos.beta = 2.0;
  EXPECT_THROW(SchedulerCore{c}, InputError);
}

}  // namespace
}  // namespace orrery::kubedsm
