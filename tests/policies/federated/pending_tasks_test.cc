#include "policies/federated/pending_tasks.h"

#include <gtest/gtest.h>

#include <deque>

#include "core/rng.h"

namespace orrery::federated {
namespace {

TEST(PendingTasks, HandsAWorkerToTheEarliestTaskItCanRun) {
  PendingTasks q;
  q.push_back(1, 0b011);
  q.push_back(2, 0b001);
  q.push_back(3, 0b100);
  EXPECT_EQ(q.take_for(0b001), 2);  // task 1 needs constraint 1 too
  EXPECT_EQ(q.take_for(0b001), PendingTasks::kNone);
  EXPECT_TRUE(q.any_for(0b111));
  EXPECT_EQ(q.take_for(0b111), 1);
  q.push_front(4, 0b100);  // a rejected task goes ahead of task 3
  EXPECT_EQ(q.take_for(0b100), 4);
  EXPECT_EQ(q.take_for(0b100), 3);
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.any_for(~ConstraintMask{0}));
}

// Property: the grouped queue behaves like one FIFO list scanned from the front.
TEST(PendingTasks, MatchesANaiveFifoOnRandomOperations) {
  Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    PendingTasks q;
    std::deque<std::pair<uint32_t, ConstraintMask>> naive;
    uint32_t next = 0;
    for (int op = 0; op < 2000; ++op) {
      const uint64_t r = rng.below(10);
      const ConstraintMask m = rng.next() & rng.next() & 0x3f;  // 6 constraints, sparse
      if (r < 4) {
        q.push_back(next, m);
        naive.emplace_back(next++, m);
      } else if (r < 5) {
        q.push_front(next, m);
        naive.emplace_front(next++, m);
      } else {
        const ConstraintMask worker = rng.next() & 0x3f;
        int64_t want = PendingTasks::kNone;
        for (auto it = naive.begin(); it != naive.end(); ++it)
          if ((it->second & worker) == it->second) {
            want = it->first;
            naive.erase(it);
            break;
          }
        ASSERT_EQ(q.take_for(worker), want);
      }
      ASSERT_EQ(q.size(), naive.size());
    }
  }
}

}  // namespace
}  // namespace orrery::federated
