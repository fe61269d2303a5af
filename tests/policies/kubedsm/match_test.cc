#include "policies/kubedsm/match.h"

#include <gtest/gtest.h>

#include <limits>

#include "random_models.h"

namespace orrery::kubedsm {
namespace {

using testing::units;

struct Best {
  size_t matched = 0;
  double frag = std::numeric_limits<double>::infinity();
};

// Every assignment of every pod to a node or the cloud: (|E| + 1)^n.
Best exhaustive(const std::vector<Vec2>& free, const std::vector<Vec2>& pods,
                const FragNorm& norm) {
  const size_t nodes = free.size();
  std::vector<size_t> a(pods.size(), 0);  // 0 = cloud, k = node k-1
  Best best;
  while (true) {
    std::vector<Vec2> f = free;
    size_t matched = 0;
    bool ok = true;
    for (size_t i = 0; i < pods.size(); ++i) {
      if (a[i] == 0) continue;
      f[a[i] - 1] -= pods[i];
      ++matched;
    }
    for (size_t n = 0; n < nodes; ++n) {
      // A node that receives nothing may stay over-committed.
      bool touched = false;
      for (size_t i = 0; i < pods.size(); ++i) touched |= a[i] == n + 1;
      if (touched && (f[n].cpu < 0 || f[n].mem < 0)) ok = false;
    }
    if (ok) {
      const double fr = edge_frag(f, norm);
      if (matched > best.matched || (matched == best.matched && fr < best.frag)) {
        best.matched = matched;
        best.frag = fr;
      }
    }
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
  return best;
}

void check_result(const std::vector<Vec2>& free, const std::vector<Vec2>& pods,
                  const FragNorm& norm, const MatchResult& r) {
  ASSERT_EQ(r.target.size(), pods.size());
  std::vector<Vec2> f = free;
  size_t matched = 0;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (r.target[i] == kCloud) continue;
    ASSERT_GE(r.target[i], 0);
    ASSERT_LT(static_cast<size_t>(r.target[i]), free.size());
    f[r.target[i]] -= pods[i];
    ++matched;
  }
  EXPECT_EQ(matched, r.matched);
  for (size_t n = 0; n < free.size(); ++n) {
    bool touched = false;
    for (int32_t t : r.target) touched |= t == static_cast<int32_t>(n);
    if (touched) {
      EXPECT_GE(f[n].cpu, 0) << "node " << n;
      EXPECT_GE(f[n].mem, 0) << "node " << n;
    }
  }
  EXPECT_NEAR(edge_frag(f, norm), r.frag, 1e-9);
}

// Property (issue acceptance): match() equals exhaustive search on random instances with
// <= 4 nodes and <= 6 pods: the same number of pods matched and the same least fragmentation.
TEST(Match, EqualsExhaustiveSearchOnRandomInstances) {
  Rng rng(42);
  Matcher matcher;
  for (int iter = 0; iter < 400; ++iter) {
    const int nodes = static_cast<int>(rng.uniform_int(0, 4));
    const int npods = static_cast<int>(rng.uniform_int(0, 6));
    std::vector<Vec2> free, cap;
    Vec2 total;
    for (int n = 0; n < nodes; ++n) {
      cap.push_back(units(rng.uniform_int(2, 8), rng.uniform_int(2, 8)));
      free.push_back(units(rng.uniform_int(0, cap.back().cpu / testing::kCore),
                           rng.uniform_int(0, cap.back().mem * 4 / testing::kGi)));
      total += cap.back();
    }
    if (nodes > 0 && rng.bernoulli(0.1)) free[0].cpu = -testing::kCore;  // over-committed
    // Few shapes, so that identical pods (the count-vector grouping) are common.
    std::vector<Vec2> shapes;
    const int nshapes = static_cast<int>(rng.uniform_int(1, 4));
    for (int s = 0; s < nshapes; ++s)
      shapes.push_back(units(rng.uniform_int(1, 4), rng.uniform_int(1, 4)));
    std::vector<Vec2> pods;
    for (int p = 0; p < npods; ++p) pods.push_back(shapes[rng.below(shapes.size())]);
    if (nodes == 0) total = units(1, 1);
    const FragNorm norm(total);

    const MatchResult& r = matcher.match(free, pods, norm);
    const Best b = exhaustive(free, pods, norm);
    SCOPED_TRACE("iteration " + std::to_string(iter));
    EXPECT_EQ(r.matched, b.matched);
    EXPECT_NEAR(r.frag, b.frag, 1e-9);
    check_result(free, pods, norm, r);
  }
}

TEST(Match, PrefersLeastFragmentationAmongMaximalPlacements) {
  // Two nodes; one pod fits on both. Putting it on the fuller node fills it completely
  // (consolidating the free space on the other node), which is what least fragmentation means.
  const std::vector<Vec2> free = {units(2, 2), units(4, 4)};
  const std::vector<Vec2> pods = {units(2, 2)};
  const FragNorm norm(units(8, 8));
  Matcher m;
  const MatchResult& r = m.match(free, pods, norm);
  EXPECT_EQ(r.matched, 1u);
  EXPECT_EQ(r.target[0], 0);
}

TEST(Match, MaximisesTheNumberOfPodsBeforeFragmentation) {
  // Greedy first-fit of the big pod on node 0 would strand both small pods; match fits all three.
  const std::vector<Vec2> free = {units(4, 4), units(2, 2)};
  const std::vector<Vec2> pods = {units(2, 2), units(2, 2), units(2, 2)};
  Matcher m;
  const MatchResult& r = m.match(free, pods, FragNorm(units(6, 6)));
  EXPECT_EQ(r.matched, 3u);
  EXPECT_NEAR(r.frag, 0.0, 1e-12);  // every node full
}

TEST(Match, HandlesEmptyInputs) {
  Matcher m;
  const FragNorm norm(units(4, 4));
  EXPECT_EQ(m.match({}, std::vector<Vec2>{units(1, 1)}, norm).matched, 0u);
  EXPECT_EQ(m.match({}, std::vector<Vec2>{units(1, 1)}, norm).target[0], kCloud);
  const MatchResult& r = m.match(std::vector<Vec2>{units(4, 4)}, {}, norm);
  EXPECT_EQ(r.matched, 0u);
  EXPECT_NEAR(r.frag, 1.0, 1e-12);  // one empty node holding all the capacity: b = 1
}

TEST(Match, ManyDistinctShapesFallBackToChunksAndStayFeasible) {
  // 17 distinct shapes: 2^17 count vectors exceed kMaxStates, so the pods are matched in chunks.
  std::vector<Vec2> pods;
  for (int i = 0; i < 17; ++i) pods.push_back({100 + i, (1 << 20) + i});
  const std::vector<Vec2> free = {{1000, 10 << 20}, {500, 5 << 20}, {300, 2 << 20}};
  const FragNorm norm({1800, 17 << 20});
  Matcher m;
  const MatchResult& r = m.match(free, pods, norm);
  check_result(free, pods, norm, r);
  // Capacity bounds: 1800m of cpu holds at most 17 pods of >= 100m, memory about 16.
  EXPECT_GE(r.matched, 14u);
}

TEST(Match, IsDeterministic) {
  Rng rng(7);
  std::vector<Vec2> free, pods;
  for (int n = 0; n < 6; ++n) free.push_back(units(rng.uniform_int(2, 8), rng.uniform_int(2, 8)));
  for (int p = 0; p < 12; ++p) pods.push_back(units(rng.uniform_int(1, 2), rng.uniform_int(1, 2)));
  const FragNorm norm(units(40, 40));
  Matcher a, b;
  const std::vector<int32_t> first = a.match(free, pods, norm).target;
  b.match(free, std::vector<Vec2>{units(1, 1)}, norm);  // warm b with other data
  EXPECT_EQ(first, b.match(free, pods, norm).target);
}

}  // namespace
}  // namespace orrery::kubedsm
