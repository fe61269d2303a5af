// The scheduling queue, as kube-scheduler's PriorityQueue: an active heap ordered by the
// QueueSort plugin, a backoff queue (exponential backoff per pod: 1 s doubling to 10 s), and the
// unschedulable set, whose pods move back when a cluster event may help them or after they have
// waited 5 minutes (podMaxInUnschedulablePodsDuration).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "framework/plugin.h"

namespace orrery::fw {

struct QueueOptions {
  int64_t initial_backoff_us = 1'000'000;
  int64_t max_backoff_us = 10'000'000;
  int64_t max_unschedulable_us = 300'000'000;
};

class SchedulingQueue {
 public:
  // `sorter` provides less(); nullptr orders by priority (desc) then timestamp (asc).
  explicit SchedulingQueue(const Plugin* sorter, QueueOptions options = {});

  // A new pending pod.
  void add(const QueuedPod& qp);
  // The next pod to schedule, moving pods whose backoff expired at `now_us` first.
  std::optional<QueuedPod> pop(int64_t now_us);
  // A failed attempt: the pod waits in the unschedulable set.
  void add_unschedulable(QueuedPod qp, int64_t now_us);
  // A failed attempt that should be retried after backoff without waiting for an event
  // (errors, preemption in progress).
  void add_backoff(QueuedPod qp, int64_t now_us);
  // A cluster event that may make pods schedulable: unschedulable pods move to the backoff queue
  // (or straight to active if their backoff is over).
  void move_all_to_active_or_backoff(int64_t now_us);
  // Moves pods that stayed unschedulable longer than max_unschedulable_us.
  void flush_unschedulable_leftover(int64_t now_us);
  // Forgets a pod (deleted, or bound by someone else).
  void remove(uint64_t serial);
  bool contains(uint64_t serial) const { return where_.count(serial) != 0; }

  size_t active_size() const { return active_count_; }
  size_t backoff_size() const { return backoff_count_; }
  size_t unschedulable_size() const { return unschedulable_.size(); }
  size_t size() const { return where_.size(); }
  // The earliest time a backing-off pod becomes active, if any.
  std::optional<int64_t> next_backoff_expiry();
  // When the longest-waiting unschedulable pod became unschedulable, if any.
  std::optional<int64_t> oldest_unschedulable_us() const;
  const QueueOptions& options() const { return options_; }
  int64_t backoff_duration_us(int attempts) const;

 private:
  enum class Where : uint8_t { kActive, kBackoff, kUnschedulable };
  struct Entry {
    QueuedPod qp;
    int64_t key_us;    // backoff expiry (backoff heap) or time it became unschedulable
    uint64_t version;  // matches where_ when the entry is current
  };
  struct Location {
    Where where;
    uint64_t version;
  };
  bool before(const QueuedPod& a, const QueuedPod& b) const;
  void push_active(QueuedPod qp);
  void push_backoff(QueuedPod qp, int64_t expiry);
  void flush_backoff(int64_t now_us);

  const Plugin* sorter_;
  QueueOptions options_;
  std::vector<Entry> active_;   // heap
  std::vector<Entry> backoff_;  // min-heap on key_us
  std::unordered_map<uint64_t, Entry> unschedulable_;
  std::unordered_map<uint64_t, Location> where_;
  uint64_t next_version_ = 1;
  size_t active_count_ = 0;
  size_t backoff_count_ = 0;
};

}  // namespace orrery::fw
