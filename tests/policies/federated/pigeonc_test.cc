#include "policies/federated/pigeonc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fixtures.h"
#include "policies/federated/run.h"

namespace orrery::federated {
namespace {

ConstraintMask set(std::initializer_list<uint32_t> ids) {
  ConstraintMask m = 0;
  for (uint32_t i : ids) m |= ConstraintMask{1} << i;
  return m;
}

// §4.2's example: L1 workers (C1,C3,C5), (C1,C2), (C4); L2 workers (C2,C4), (C4), (C2,C4).
WorkerGroups paper_example() {
  WorkerGroups g(2, 3, 6);
  const std::vector<std::vector<std::vector<uint32_t>>> workers = {{{1, 3, 5}, {1, 2}, {4}},
                                                                   {{2, 4}, {4}, {2, 4}}};
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t w = 0; w < 3; ++w)
      for (uint32_t k : workers[c][w]) g.set(c, k, w);
  g.finalize();
  return g;
}

TEST(MasterChooser, ConstraintSetOccurrencesAsInThePaper) {
  WorkerGroups g = paper_example();
  MasterChooser ch(g);
  using Cs = std::vector<std::pair<ConstraintMask, uint32_t>>;
  auto cs = [&](uint32_t i) {
    auto s = ch.constraint_sets(i);
    return Cs(s.begin(), s.end());
  };
  // CS_1 = {(C1,C3,C5):1, (C1,C2):1, (C4):1}; CS_2 = {(C2,C4):2, (C4):1} (ascending masks).
  EXPECT_EQ(cs(0), (Cs{{set({1, 2}), 1}, {set({4}), 1}, {set({1, 3, 5}), 1}}));
  EXPECT_EQ(cs(1), (Cs{{set({4}), 1}, {set({2, 4}), 2}}));
  EXPECT_EQ(ch.weight(0, set({4})), 1u);
  EXPECT_EQ(ch.weight(1, set({4})), 3u);
  EXPECT_EQ(ch.weight(1, set({2})), 2u);
  EXPECT_EQ(ch.weight(0, set({1})), 2u);
  EXPECT_EQ(ch.weight(1, set({1})), 0u);
  EXPECT_EQ(ch.weight(0, 0), 3u);
}

TEST(MasterChooser, ReferenceCountingMergesSubsetsIntoSupersets) {
  MasterChooser ch(paper_example(), CsCounting::kReference);
  // L2: (C2,C4) recorded; (C4) and the second (C2,C4) are subsets of it: {(C2,C4):3}.
  auto s = ch.constraint_sets(1);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], (std::pair<ConstraintMask, uint32_t>{set({2, 4}), 3}));
  // So a task needing C2 counts 3 workers in L2, of which only 2 can run it.
  EXPECT_EQ(ch.weight(1, set({2})), 3u);
}

// Weighted random choice: Master i is picked with probability count_i / sum count; checked with
// a fixed seed and a tolerance of 5 standard deviations for the sample size.
TEST(MasterChooser, ChoiceFollowsConstraintSetCounts) {
  Rng rng(12345);
  WorkerGroups g(4, 50, 3);
  // Cluster i: workers 0..(10*(i+1))-1 satisfy C0; all satisfy C1; cluster 3 has no C2 at all,
  // the others have C2 on their first 5 workers.
  for (uint32_t c = 0; c < 4; ++c)
    for (uint32_t w = 0; w < 50; ++w) {
      if (w < 10 * (c + 1)) g.set(c, 0, w);
      g.set(c, 1, w);
      if (c < 3 && w < 5) g.set(c, 2, w);
    }
  g.finalize();
  MasterChooser ch(g);
  const int n = 100'000;
  for (ConstraintMask task : {set({0}), set({1}), set({0, 2})}) {
    std::vector<int> hits(4);
    double total = 0;
    for (uint32_t c = 0; c < 4; ++c) total += static_cast<double>(ch.weight(c, task));
    for (int s = 0; s < n; ++s) ++hits[ch.choose(task, rng)];
    for (uint32_t c = 0; c < 4; ++c) {
      const double p = static_cast<double>(ch.weight(c, task)) / total;
      const double sd = std::sqrt(n * p * (1 - p));
      EXPECT_NEAR(hits[c], n * p, 5 * sd + 1e-9) << "task " << task << " master " << c;
    }
  }
  EXPECT_EQ(ch.choose(set({2}), rng) == 3, false);  // never a master without suitable workers
  WorkerGroups none(1, 2, 2);
  none.finalize();
  MasterChooser empty(none);
  EXPECT_EQ(empty.choose(set({1}), rng), -1);
}

TEST(FairQueue, OneLongTaskPerFqwShortTasks) {
  FairQueue q(20);
  for (uint32_t i = 0; i < 400; ++i) q.push(i, 0, true);
  for (uint32_t i = 1000; i < 1050; ++i) q.push(i, 0, false);
  std::string pattern;
  for (int i = 0; i < 420; ++i) {
    const int64_t t = q.take_for(0);
    ASSERT_NE(t, PendingTasks::kNone);
    pattern += t >= 1000 ? 'L' : 'S';
  }
  EXPECT_EQ(std::count(pattern.begin(), pattern.end(), 'L'), 20);
  EXPECT_EQ(pattern.substr(0, 42), std::string(20, 'S') + "L" + std::string(20, 'S') + "L");
  // FIFO within each queue.
  FairQueue r(2);
  r.push(1, 0, true);
  r.push(2, 0, true);
  r.push(3, 0, true);
  r.push(10, 0, false);
  r.push(11, 0, false);
  std::vector<int64_t> order;
  for (int i = 0; i < 5; ++i) order.push_back(r.take_for(0));
  EXPECT_EQ(order, (std::vector<int64_t>{1, 2, 10, 3, 11}));
}

// The published simulator's `fq_counter <= FQW`: FQW + 1 short tasks per long one.
TEST(FairQueue, ReferenceLessOrEqualGivesFqwPlusOneShortTasks) {
  FairQueue q(20, /*le=*/true);
  for (uint32_t i = 0; i < 400; ++i) q.push(i, 0, true);
  for (uint32_t i = 1000; i < 1050; ++i) q.push(i, 0, false);
  std::string pattern;
  for (int i = 0; i < 44; ++i) pattern += q.take_for(0) >= 1000 ? 'L' : 'S';
  EXPECT_EQ(pattern, std::string(21, 'S') + "L" + std::string(21, 'S') + "L");
  FairQueue r(2, true);  // FQW 2: S S S L S S S L
  for (uint32_t i = 0; i < 6; ++i) r.push(i, 0, true);
  for (uint32_t i = 10; i < 12; ++i) r.push(i, 0, false);
  std::vector<int64_t> order;
  for (int i = 0; i < 8; ++i) order.push_back(r.take_for(0));
  EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 10, 3, 4, 5, 11}));
}

TEST(FairQueue, LongTasksGetWorkersNoShortTaskCanUse) {
  FairQueue q(20);
  q.push(1, set({0}), true);           // short, needs C0
  q.push(2, 0, false);                 // long, needs nothing
  q.push(3, set({1}), false);          // long, needs C1
  EXPECT_EQ(q.take_for(set({1})), 2);  // no short task fits: the earliest fitting long one
  EXPECT_EQ(q.take_for(set({1})), 3);
  EXPECT_EQ(q.take_for(set({1})), PendingTasks::kNone);
  EXPECT_EQ(q.take_for(set({0})), 1);
  EXPECT_EQ(q.size(), 0u);
  // Long's turn, but no long task fits the worker: a short task gets it.
  FairQueue t(1);
  t.push(1, 0, true);
  t.push(2, 0, true);
  t.push(3, set({0}), false);
  EXPECT_EQ(t.take_for(0), 1);
  EXPECT_EQ(t.take_for(0), 2);
  EXPECT_EQ(t.take_for(set({0})), 3);
}

// A master with one worker: tasks queue at the master and run back to back; short jobs'
// tasks go ahead of a long job's.
TEST(PigeonCSim, QueuedTasksRunWhenTheWorkerFrees) {
  ClusterConfig c = parse_cluster_config(testing::pigeon_json({{"1"}}, 1, 20, 5), "p.json");
  // Job 0: long (mean 10 >= cutoff 5), 2 tasks; job 1: short, 1 task, arrives later.
  auto t = testing::trace("0 2 10 10 10\n1 1 1 1\n");
  Workload w = make_workload(t, testing::no_constraints(1), 1, c);
  RunOptions o;
  o.wall_clock = false;
  RunOutput r = run_federated(w, c, o);
  ASSERT_EQ(r.jobs.size(), 2u);
  // Task 0 runs [0.001, 10.001] and is reported at 10.0015; the short task gets the worker
  // next: launched 10.0015 + 0.0005, runs 1 s, reported at 11.0025.
  EXPECT_EQ(r.jobs[1].finish, 11'002'500);
  // Then the long job's second task: launched 11.003, ends 21.003, reported 21.0035.
  EXPECT_EQ(r.jobs[0].finish, 21'003'500);
  EXPECT_EQ(r.summary["messages"]["tasks_queued_long"], 1);
  EXPECT_EQ(r.summary["messages"]["tasks_queued_short"], 1);
}

// The published PigeonC Master's "random" file picks the suitable worker with the fewest
// constraints. One Master, worker 0 with C0, worker 1 without: a long unconstrained task
// arrives first, then a task needing C0. Picking worker 0 for the first task (random does, on
// some seeds) makes the second wait 10 s; the reference never does.
TEST(PigeonCSim, ReferenceMasterPicksTheMinConstraintsWorker) {
  ClusterConfig c = parse_cluster_config(testing::pigeon_json({{"10"}}), "p.json");
  auto t = testing::trace("0 1 10 10\n1 1 1 1\n");
  int delayed_random = 0, delayed_ref = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    Workload w = make_workload(t, testing::no_constraints(1), seed, c,
                               std::vector<ConstraintOverride>{{1, 0, 1}});
    RunOptions o;
    o.seed = seed;
    o.wall_clock = false;
    RunOutput r = run_federated(w, c, o);
    delayed_random += r.jobs[1].delay_s() > 8;
    set_reference(Arch::kPigeonC, true, &o);
    EXPECT_TRUE(o.quirks.master_picks_min);
    RunOutput ref = run_federated(w, c, o);
    delayed_ref += ref.jobs[1].delay_s() > 8;
    EXPECT_NEAR(ref.jobs[1].delay_s(), 0.0015, 1e-9);
    EXPECT_EQ(ref.summary["cluster"]["reference_quirks"].size(), 2u);
    EXPECT_EQ(ref.summary["cluster"]["match"], "random");  // the setting, not what the Master does
  }
  EXPECT_GT(delayed_random, 0);
  EXPECT_EQ(delayed_ref, 0);
}

}  // namespace
}  // namespace orrery::federated
