#include "policies/federated/matcher.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "core/rng.h"
#include "policies/federated/bits.h"
#include "policies/federated/worker_groups.h"

namespace orrery::federated {
namespace {

// A random data centre: `groups` groups of `size` workers, each worker satisfying each of `k`
// constraints with probability `density`. Returns the groups and, for the naive reference, each
// worker's constraint set as a std::vector<bool>.
struct RandomDc {
  WorkerGroups groups;
  std::vector<std::vector<std::vector<bool>>> has;  // [group][worker][constraint]
};

RandomDc random_dc(Rng& rng, uint32_t groups, uint32_t size, uint32_t k, double density) {
  RandomDc dc{WorkerGroups(groups, size, k), {}};
  dc.has.assign(groups, std::vector<std::vector<bool>>(size, std::vector<bool>(k)));
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t i = 0; i < size; ++i)
      for (uint32_t c = 0; c < k; ++c)
        if (rng.bernoulli(density)) {
          dc.has[g][i][c] = true;
          dc.groups.set(g, c, i);
        }
  dc.groups.finalize();
  return dc;
}

TEST(Bits, NthAndFirstSetAgreeWithBruteForce) {
  Rng rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const size_t words = 1 + rng.below(4);
    std::vector<uint64_t> v(words);
    for (auto& w : v) w = rng.next() & rng.next();  // sparse-ish
    std::vector<size_t> set;
    for (size_t i = 0; i < words * 64; ++i)
      if (test_bit(v.data(), i)) set.push_back(i);
    ASSERT_EQ(popcount(v.data(), words), set.size());
    EXPECT_EQ(first_set(v.data(), words), set.empty() ? -1 : static_cast<int64_t>(set[0]));
    for (size_t k = 0; k < set.size(); ++k) ASSERT_EQ(nth_set(v.data(), words, k), set[k]);
    std::vector<size_t> seen;
    for_each_set(v.data(), words, [&](size_t i) { seen.push_back(i); });
    EXPECT_EQ(seen, set);
  }
}

TEST(WorkerGroups, MasksCountsAndLevelsFollowTheBitVectors) {
  Rng rng(11);
  RandomDc dc = random_dc(rng, 3, 70, 9, 0.4);
  for (uint32_t g = 0; g < 3; ++g) {
    size_t in_levels = 0;
    for (uint8_t level : dc.groups.levels(g)) {
      const uint64_t* lb = dc.groups.level_bits(g, level);
      for_each_set(lb, dc.groups.words(), [&](size_t i) {
        EXPECT_EQ(std::popcount(dc.groups.worker_mask(g, static_cast<uint32_t>(i))), level);
        ++in_levels;
      });
    }
    EXPECT_EQ(in_levels, 70u);  // every worker in exactly one level
    for (uint32_t i = 0; i < 70; ++i)
      for (uint32_t c = 0; c < 9; ++c)
        EXPECT_EQ(((dc.groups.worker_mask(g, i) >> c) & 1) != 0, dc.has[g][i][c]);
  }
}

// Algorithm 1 against naive set inclusion (C_T ⊆ C_W and available) on random data.
TEST(Matcher, SuitableWorkersEqualNaiveSetInclusion) {
  Rng rng(2024);
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t size = 1 + static_cast<uint32_t>(rng.below(200));
    const uint32_t k = 1 + static_cast<uint32_t>(rng.below(21));
    RandomDc dc = random_dc(rng, 2, size, k, rng.uniform(0.1, 0.9));
    Matcher m(dc.groups);
    Rng pick_rng(trial);
    for (int q = 0; q < 20; ++q) {
      const uint32_t g = static_cast<uint32_t>(rng.below(2));
      std::vector<uint64_t> avail(dc.groups.words());
      std::vector<bool> free(size);
      for (uint32_t i = 0; i < size; ++i)
        if (rng.bernoulli(0.6)) {
          free[i] = true;
          set_bit(avail.data(), i);
        }
      std::vector<uint32_t> task;
      ConstraintMask mask = 0;
      for (uint32_t c = 0; c < k; ++c)
        if (rng.bernoulli(0.15)) {
          task.push_back(c);
          mask |= ConstraintMask{1} << c;
        }
      // Naive: available and every task constraint among the worker's constraints.
      std::vector<uint32_t> suitable;
      for (uint32_t i = 0; i < size; ++i) {
        bool ok = free[i];
        for (uint32_t c : task) ok = ok && dc.has[g][i][c];
        if (ok) suitable.push_back(i);
      }
      for (Pick pick : {Pick::kRandom, Pick::kMinConstraints}) {
        const int32_t chosen = m.match(g, avail.data(), mask, pick, pick_rng);
        if (suitable.empty()) {
          EXPECT_EQ(chosen, -1);
          continue;
        }
        std::vector<uint32_t> got;
        for_each_set(m.last_result(), dc.groups.words(),
                     [&](size_t i) { got.push_back(static_cast<uint32_t>(i)); });
        ASSERT_EQ(got, suitable);
        ASSERT_GE(chosen, 0);
        EXPECT_TRUE(
            std::binary_search(suitable.begin(), suitable.end(), static_cast<uint32_t>(chosen)));
        if (pick == Pick::kMinConstraints) {
          // Naive argmin of the number of machine constraints, lowest index on ties.
          uint32_t best = suitable[0];
          auto count = [&](uint32_t i) {
            return std::count(dc.has[g][i].begin(), dc.has[g][i].end(), true);
          };
          for (uint32_t i : suitable)
            if (count(i) < count(best)) best = i;
          EXPECT_EQ(static_cast<uint32_t>(chosen), best);
        }
      }
    }
  }
}

// §4.3.2's example: worker A has (1,2,3,4), worker B (1,2); a task needing (1,2) gets B under
// Minimum Constraints, leaving A for a later task needing 3.
TEST(Matcher, MinConstraintsPicksTheFewestConstraintWorker) {
  WorkerGroups g(1, 2, 5);
  for (uint32_t c : {1, 2, 3, 4}) g.set(0, c, 0);  // worker A = index 0
  for (uint32_t c : {1, 2}) g.set(0, c, 1);        // worker B = index 1
  g.finalize();
  Matcher m(g);
  Rng rng(1);
  uint64_t avail = 0b11;
  const ConstraintMask task1 = (1u << 1) | (1u << 2);
  EXPECT_EQ(m.match(0, &avail, task1, Pick::kMinConstraints, rng), 1);
  avail &= ~uint64_t{0b10};  // B now busy
  EXPECT_EQ(m.match(0, &avail, ConstraintMask{1} << 3, Pick::kMinConstraints, rng), 0);
  EXPECT_EQ(m.match(0, &avail, task1 | (ConstraintMask{1} << 0), Pick::kMinConstraints, rng), -1);
}

TEST(Matcher, RandomPicksSuitableWorkersUniformly) {
  // 130 workers (3 words); the task fits the 40 odd-numbered workers below 80.
  WorkerGroups g(1, 130, 1);
  for (uint32_t i = 1; i < 80; i += 2) g.set(0, 0, i);
  g.finalize();
  Matcher m(g);
  Rng rng(99);
  std::vector<uint64_t> avail(g.words());
  for (uint32_t i = 0; i < 130; ++i) set_bit(avail.data(), i);
  std::vector<int> hits(130);
  const int n = 40'000;
  for (int s = 0; s < n; ++s) ++hits[m.match(0, avail.data(), 1, Pick::kRandom, rng)];
  // Each of the 40 workers: expected 1000 hits, sd = sqrt(n p (1-p)) ~ 31; allow 5 sd.
  const double p = 1.0 / 40, sd = std::sqrt(n * p * (1 - p));
  for (uint32_t i = 0; i < 130; ++i) {
    if (i % 2 == 1 && i < 80) {
      EXPECT_NEAR(hits[i], n * p, 5 * sd) << "worker " << i;
    } else {
      EXPECT_EQ(hits[i], 0) << "worker " << i;
    }
  }
}

TEST(WorkerGroups, ReplicationRepeatsGroups) {
  Rng rng(3);
  RandomDc dc = random_dc(rng, 2, 10, 4, 0.5);
  WorkerGroups r = dc.groups.replicated(3);
  ASSERT_EQ(r.groups(), 6u);
  for (uint32_t g = 0; g < 6; ++g)
    for (uint32_t i = 0; i < 10; ++i)
      EXPECT_EQ(r.worker_mask(g, i), dc.groups.worker_mask(g % 2, i));
  EXPECT_EQ(r.distinct_masks(), dc.groups.distinct_masks());
}

}  // namespace
}  // namespace orrery::federated
