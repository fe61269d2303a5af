#include "framework/queue.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "core/rng.h"

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

// A class key for tests: classes are told apart by `salt` (no spec).
PodClassKey cls(uint64_t k) {
  PodClassKey key;
  key.salt_plugin = 1;
  key.salt = k;
  return key;
}

constexpr int64_t kSec = 1'000'000;

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

// Fails pods 1..n of class `k` at time `t` (first attempts).
void fail_all(SchedulingQueue& q, const std::vector<uint64_t>& serials, uint64_t k, int64_t t,
              uint64_t mask = ~uint64_t{0}) {
  for (uint64_t s : serials) q.add(qp(s, 0, t), cls(k));
  for (size_t i = 0; i < serials.size(); ++i) {
    auto p = q.pop(t);
    ASSERT_TRUE(p);
    q.add_unschedulable(*p, t, cls(k), mask);
  }
}

TEST(SchedulingQueue, HintsWakeOnlyTheClassesAnEventMayHelp) {
  SchedulingQueue q(nullptr);
  // Mask bit 0: helped by released pods; bit 1: by new nodes.
  q.set_hint_fn([](const PodClassKey&, uint64_t mask, const QueueEvent& e) {
    return ((mask & 1) && e.kind == QueueEvent::kPodReleased) ||
           ((mask & 2) && e.kind == QueueEvent::kNodeAdded);
  });
  fail_all(q, {1, 2}, /*class*/ 7, 0, /*mask*/ 1);
  fail_all(q, {3}, /*class*/ 8, 0, /*mask*/ 2);
  EXPECT_EQ(q.class_count(), 2u);
  q.on_event({QueueEvent::kPodAssigned}, 20 * kSec);
  EXPECT_EQ(q.active_size(), 0u) << "no class registered for assigned pods";
  q.on_event({QueueEvent::kNodeAdded}, 20 * kSec);
  EXPECT_FALSE(q.class_dirty(1));
  EXPECT_TRUE(q.class_dirty(3));
  auto p = q.pop(20 * kSec);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->serial, 3u);
  EXPECT_FALSE(q.pop(20 * kSec));
  q.on_event({QueueEvent::kPodReleased}, 21 * kSec);
  EXPECT_EQ(q.active_size(), 2u);
  q.check_invariants();
}

TEST(SchedulingQueue, OneFailureStandsForTheClassAndLeavesTheOthersUntouched) {
  SchedulingQueue q(nullptr);
  fail_all(q, {1, 2, 3}, 7, 0);
  EXPECT_EQ(q.class_count(), 1u);
  EXPECT_EQ(q.unschedulable_size(), 3u);
  q.move_all_to_active_or_backoff(20 * kSec);
  auto a = q.pop(20 * kSec);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->serial, 1u);  // the class's members in serial order
  EXPECT_EQ(a->attempts, 2);
  EXPECT_EQ(a->timestamp_us, 20 * kSec);       // moved by the event
  q.add_unschedulable(*a, 20 * kSec, cls(7));  // it fails: it stands for 2 and 3
  EXPECT_FALSE(q.pop(20 * kSec)) << "the class is clean again";
  EXPECT_EQ(q.unschedulable_size(), 3u);
  q.move_all_to_active_or_backoff(40 * kSec);
  a = q.pop(40 * kSec);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->serial, 1u);
  EXPECT_EQ(a->attempts, 3);
  // 1 is placed; a success does not clean the class: the next member follows.
  auto b = q.pop(40 * kSec);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->serial, 2u);
  EXPECT_EQ(b->attempts, 2) << "2's skipped retry left no trace";
  auto c = q.pop(40 * kSec);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->serial, 3u);
  EXPECT_EQ(c->attempts, 2);
  q.check_invariants();
}

TEST(SchedulingQueue, MovedMembersFollowTheirOwnBackoff) {
  SchedulingQueue q(nullptr);
  // Pod 1 failed for the third time at t = 0 (backoff 4 s), pod 2 for the first time (1 s).
  QueuedPod one = qp(1, 0, 0);
  one.attempts = 3;
  q.add_unschedulable(one, 0, cls(7));
  QueuedPod two = qp(2, 0, 0);
  two.attempts = 1;
  q.add_unschedulable(two, 0, cls(7));
  q.move_all_to_active_or_backoff(2 * kSec);
  EXPECT_EQ(q.active_size(), 1u);
  EXPECT_EQ(q.backoff_size(), 1u);
  auto p = q.pop(2 * kSec);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->serial, 2u);  // its backoff was over at the event
  EXPECT_EQ(p->timestamp_us, 2 * kSec);
  EXPECT_FALSE(q.pop(3 * kSec));
  EXPECT_EQ(q.next_backoff_expiry(), 4 * kSec);
  p = q.pop(5 * kSec);  // found expired at 5 s: enters the active heap then
  ASSERT_TRUE(p);
  EXPECT_EQ(p->serial, 1u);
  EXPECT_EQ(p->timestamp_us, 5 * kSec);
  EXPECT_EQ(p->attempts, 4);
  q.check_invariants();
}

TEST(SchedulingQueue, RequeueAllProbesEveryPodButCountsOnlyTheFirstFailure) {
  QueueOptions o;
  o.mode = QueueMode::kRequeueAll;
  SchedulingQueue q(nullptr, o);
  fail_all(q, {1, 2, 3}, 7, 0);
  fail_all(q, {4}, 8, 0, /*mask*/ 0);
  q.set_hint_fn([](const PodClassKey& k, uint64_t, const QueueEvent&) { return k.salt == 7; });
  q.on_event({QueueEvent::kPodReleased}, 20 * kSec);
  auto a = q.pop(20 * kSec);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->probe);
  EXPECT_EQ(a->serial, 1u);
  q.add_unschedulable(*a, 20 * kSec, cls(7));
  std::vector<uint64_t> probed;
  while (auto p = q.pop(20 * kSec)) {
    EXPECT_TRUE(p->probe) << p->serial;
    probed.push_back(p->serial);
    q.restore_probe(p->serial);
  }
  std::sort(probed.begin(), probed.end());
  EXPECT_EQ(probed, (std::vector<uint64_t>{2, 3, 4})) << "every other waiting pod was retried";
  EXPECT_EQ(q.unschedulable_size(), 4u);
  q.on_event({QueueEvent::kPodReleased}, 40 * kSec);
  std::vector<uint64_t> counted;
  while (auto p = q.pop(40 * kSec)) {
    if (p->probe) {
      q.restore_probe(p->serial);
      continue;
    }
    counted.push_back(p->serial);
    EXPECT_EQ(p->attempts, p->serial == 1 ? 3 : 2) << p->serial;
  }
  EXPECT_EQ(counted, (std::vector<uint64_t>{1, 2, 3}));
  q.check_invariants();
}

TEST(SchedulingQueue, FlushIsPerPodOldestFirst) {
  SchedulingQueue q(nullptr);
  // 1,000 pods of one class failing 1 ms apart.
  for (uint64_t s = 1; s <= 1000; ++s) {
    q.add(qp(s, 0, 0), cls(7));
    auto p = q.pop(static_cast<int64_t>(s) * 1000);
    q.add_unschedulable(*p, static_cast<int64_t>(s) * 1000, cls(7));
  }
  EXPECT_EQ(q.oldest_unschedulable_us(), 1000);
  q.flush_unschedulable_leftover(300 * kSec + 500'000);
  EXPECT_EQ(q.active_size(), 500u);  // failures at 1..500 ms
  EXPECT_EQ(q.unschedulable_size(), 500u);
  EXPECT_EQ(q.oldest_unschedulable_us(), 501'000);
  auto p = q.pop(300 * kSec + 500'000);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->serial, 1u);
  // A dirty class's members moved with it and are not unschedulable: no flush.
  q.move_all_to_active_or_backoff(300 * kSec + 600'000);
  EXPECT_FALSE(q.oldest_unschedulable_us());
  q.check_invariants();
}

TEST(SchedulingQueue, ReclassifiedPodJoinsItsNewClassState) {
  SchedulingQueue q(nullptr);
  q.set_hint_fn([](const PodClassKey& k, uint64_t, const QueueEvent&) { return k.salt == 8; });
  fail_all(q, {1}, 7, 0);
  fail_all(q, {2}, 8, 0);
  q.on_event({QueueEvent::kPodReleased}, 20 * kSec);  // class 8 is dirty, 7 is not
  EXPECT_EQ(q.active_size(), 1u);
  q.reclassify(1, cls(8), 20 * kSec);  // 1 joins a dirty class: it moves at once
  EXPECT_EQ(q.active_size(), 2u);
  EXPECT_EQ(q.class_count(), 1u);
  q.reclassify(2, cls(9), 20 * kSec);  // a moved pod keeps its place in a new class
  EXPECT_EQ(q.active_size(), 2u);
  EXPECT_EQ(q.class_count(), 2u);
  auto a = q.pop(20 * kSec);
  auto b = q.pop(20 * kSec);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->serial, 1u);
  EXPECT_EQ(b->serial, 2u);
  q.check_invariants();
}

// The hints mode against the brute-force mode on random operations: the same counted pops in
// the same order with the same bookkeeping, and the same waiting pods.
TEST(SchedulingQueue, HintsModeEqualsRequeueAllOnRandomOperations) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    Rng rng(seed);
    QueueOptions oh;
    oh.max_unschedulable_us = 60 * kSec;
    QueueOptions oa = oh;
    oa.mode = QueueMode::kRequeueAll;
    SchedulingQueue h(nullptr, oh), a(nullptr, oa);
    // Event kind k helps a class when bit k of its mask is set.
    auto hint = [](const PodClassKey&, uint64_t mask, const QueueEvent& e) {
      return ((mask >> e.kind) & 1) != 0;
    };
    h.set_hint_fn(hint);
    a.set_hint_fn(hint);
    int64_t now = 0;
    uint64_t next = 1;
    std::map<uint64_t, uint64_t> class_of;                               // queued pods
    auto prio = [](uint64_t k) { return static_cast<int32_t>(k % 3); };  // one per class
    int counted = 0;
    for (int step = 0; step < 3000; ++step) {
      const uint64_t op = rng.below(100);
      if (op < 18) {  // a new pod
        const uint64_t k = rng.below(5);
        h.add(qp(next, prio(k), now), cls(k));
        a.add(qp(next, prio(k), now), cls(k));
        class_of[next++] = k;
      } else if (op < 33) {
        // Coarse steps, so that times often hit backoff expiries and the flush exactly.
        now += static_cast<int64_t>(rng.below(16)) * kSec / 4;
      } else if (op < 50) {
        QueueEvent e;
        e.kind = static_cast<QueueEvent::Kind>(rng.below(7));
        h.on_event(e, now);
        a.on_event(e, now);
      } else if (op < 85) {  // a scheduling cycle
        h.flush_unschedulable_leftover(now);
        a.flush_unschedulable_leftover(now);
        auto ph = h.pop(now);
        std::optional<QueuedPod> pa;
        while ((pa = a.pop(now)) && pa->probe) a.restore_probe(pa->serial);
        ASSERT_EQ(ph.has_value(), pa.has_value());
        if (!ph) continue;
        ++counted;
        ASSERT_EQ(ph->serial, pa->serial);
        ASSERT_EQ(ph->attempts, pa->attempts);
        ASSERT_EQ(ph->timestamp_us, pa->timestamp_us);
        const uint64_t outcome = rng.below(10);
        const uint64_t k = class_of.at(ph->serial);
        if (outcome < 3) {  // scheduled
          class_of.erase(ph->serial);
        } else if (outcome < 9) {
          const uint64_t mask = rng.below(128);
          h.add_unschedulable(*ph, now, cls(k), mask);
          a.add_unschedulable(*pa, now, cls(k), mask);
        } else {
          h.add_backoff(*ph, now, cls(k));
          a.add_backoff(*pa, now, cls(k));
        }
      } else if (op < 92 && !class_of.empty()) {
        auto it = class_of.begin();
        std::advance(it, static_cast<long>(rng.below(class_of.size())));
        const uint64_t k = rng.below(5);
        // Classes share a priority: move only within it.
        if (prio(k) == prio(it->second)) {
          h.reclassify(it->first, cls(k), now);
          a.reclassify(it->first, cls(k), now);
          it->second = k;
        }
      } else if (!class_of.empty()) {
        auto it = class_of.begin();
        std::advance(it, static_cast<long>(rng.below(class_of.size())));
        h.remove(it->first);
        a.remove(it->first);
        class_of.erase(it);
      }
      ASSERT_NO_THROW(h.check_invariants());
      ASSERT_NO_THROW(a.check_invariants());
      ASSERT_EQ(h.size(), a.size());
      ASSERT_EQ(h.size(), class_of.size());
      ASSERT_EQ(h.class_count(), a.class_count());
      ASSERT_EQ(h.unschedulable_size(), a.unschedulable_size());
      ASSERT_EQ(h.backoff_size(), a.backoff_size());
      ASSERT_EQ(h.next_backoff_expiry(), a.next_backoff_expiry());
      ASSERT_EQ(h.oldest_unschedulable_us(), a.oldest_unschedulable_us());
    }
    EXPECT_GT(counted, 500);
  }
}

}  // namespace
}  // namespace orrery::fw
