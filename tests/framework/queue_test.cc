#include "framework/queue.h"

#include <gtest/gtest.h>

namespace orrery::fw {
namespace {

QueuedPod qp(uint64_t serial, int32_t prio, int64_t ts) {
  QueuedPod q;
  q.pod = static_cast<PodId>(serial);
  q.serial = serial;
  q.priority = prio;
  q.timestamp_us = ts;
  return q;
}

TEST(SchedulingQueue, PriorityThenTimestamp) {
  SchedulingQueue q(nullptr);
  q.add(qp(1, 0, 30));
  q.add(qp(2, 10, 50));
  q.add(qp(3, 0, 10));
  q.add(qp(4, 10, 40));
  std::vector<uint64_t> order;
  while (auto p = q.pop(0)) order.push_back(p->serial);
  EXPECT_EQ(order, (std::vector<uint64_t>{4, 2, 3, 1}));
}

TEST(SchedulingQueue, UnschedulableWaitsForEventThenBacksOff) {
  SchedulingQueue q(nullptr);
  q.add(qp(1, 0, 0));
  auto p = q.pop(0);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->attempts, 1);
  q.add_unschedulable(*p, 0);
  EXPECT_FALSE(q.pop(5'000'000)) << "unschedulable pods wait for an event";
  q.move_all_to_active_or_backoff(500'000);  // event before the 1 s backoff is over
  EXPECT_EQ(q.backoff_size(), 1u);
  EXPECT_FALSE(q.pop(900'000));
  EXPECT_EQ(q.next_backoff_expiry(), 1'000'000);
  auto again = q.pop(1'000'000);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->attempts, 2);
}

TEST(SchedulingQueue, BackoffDoublesUpToMax) {
  SchedulingQueue q(nullptr);
  EXPECT_EQ(q.backoff_duration_us(1), 1'000'000);
  EXPECT_EQ(q.backoff_duration_us(2), 2'000'000);
  EXPECT_EQ(q.backoff_duration_us(4), 8'000'000);
  EXPECT_EQ(q.backoff_duration_us(5), 10'000'000);
  EXPECT_EQ(q.backoff_duration_us(50), 10'000'000);
}

TEST(SchedulingQueue, LeftoverFlushAfterFiveMinutes) {
  SchedulingQueue q(nullptr);
  q.add(qp(1, 0, 0));
  auto p = q.pop(0);
  q.add_unschedulable(*p, 0);
  q.flush_unschedulable_leftover(299'000'000);
  EXPECT_EQ(q.unschedulable_size(), 1u);
  q.flush_unschedulable_leftover(300'000'000);
  EXPECT_EQ(q.active_size(), 1u);
}

TEST(SchedulingQueue, RemoveMakesEntriesStale) {
  SchedulingQueue q(nullptr);
  q.add(qp(1, 5, 0));
  q.add(qp(2, 0, 0));
  q.remove(1);
  auto p = q.pop(0);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->serial, 2u);
  EXPECT_FALSE(q.pop(0));
  EXPECT_EQ(q.size(), 0u);
}

}  // namespace
}  // namespace orrery::fw
