// The scheduling queue, as kube-scheduler's PriorityQueue with QueueingHints: an active heap
// ordered by the QueueSort plugin, a backoff queue (exponential backoff per pod: 1 s doubling to
// 10 s), and the unschedulable pods, which move back only when a cluster event may help them
// (hints) or after they have waited 5 minutes (podMaxInUnschedulablePodsDuration).
//
// Semantics (both modes below implement exactly this; docs/simulator.md#the-scheduling-queue):
//
//  - Every queued pod belongs to an equivalence class (PodClassKey). A class has a rejection
//    record (an opaque mask, from its last counted failure) and is clean or dirty.
//  - Event E at time t: every clean class with unschedulable pods whose hint says E may help it
//    becomes dirty (hint(key, mask, E)); then every unschedulable pod of a dirty class moves to the
//    active heap
//    with timestamp t if its backoff (attempts) counted from its last failure is over, else to the
//    backoff queue, from which it enters the active heap with the timestamp of the pop that finds
//    it expired. Unschedulable pods of clean classes stay where they are.
//  - Pops follow (priority, timestamp, serial) (the QueueSort plugin must order by these alone);
//    every pop counts as an attempt: attempts + 1.
//  - A failed attempt (add_unschedulable) stands for its whole class: the pod becomes
//    unschedulable (failure time = now), the class becomes clean with the attempt's mask, and the
//    class's pods that had moved because it was dirty and have not been popped yet go back to
//    being unschedulable, with the attempts and failure time they had. Upstream with QueueingHints
//    never retries such pods, so their bookkeeping is what it would have been without the retry.
//  - Counting entries, independent of the class: new pods (add), retries after errors or
//    preemption in progress (add_backoff), and the flush: an unschedulable pod whose failure is
//    max_unschedulable_us old moves to the active heap (timestamp = now) at the next
//    flush_unschedulable_leftover.
//  - A pod whose class changes (reclassify: its nomination was cleared) keeps its place if it had
//    moved; if it is unschedulable and its new class is dirty, it moves at once. A class that
//    exists but has no unschedulable pods counts as dirty then (events were not asked about it);
//    a class created by the change takes over the pod's old class's record.
//
// Modes:
//  - kHints (default): an event costs one hint evaluation per class; a dirty class is one entry in
//    the active heap (its members, by timestamp then serial) and one in the backoff queue (its
//    members ordered by backoff expiry); the flush keeps classes ordered by their oldest failure.
//    No work per event or per failure is proportional to the number of waiting pods.
//  - kRequeueAll (debug oracle): per pod, by brute force. On every event every unschedulable pod
//    of a clean class also gets a *probe*: it is popped (QueuedPod::probe) and the scheduler runs
//    a full cycle for it that counts for nothing (restore_probe) if it fails. A probe that
//    succeeds means a hint or a class key was wrong: the run then differs from kHints, which the
//    byte-for-byte oracle test (tests/sim/queue_oracle_test.cc) detects.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "framework/plugin.h"
#include "framework/queueing_hint.h"

namespace orrery::fw {

enum class QueueMode : uint8_t { kHints, kRequeueAll };

struct QueueOptions {
  int64_t initial_backoff_us = 1'000'000;
  int64_t max_backoff_us = 10'000'000;
  int64_t max_unschedulable_us = 300'000'000;
  QueueMode mode = QueueMode::kHints;
};

class SchedulingQueue {
 public:
  // Whether `event` may make a pod of class `key`, whose last counted failure recorded `mask`,
  // schedulable. Without one, every event may help every class.
  using HintFn = std::function<bool(const PodClassKey& key, uint64_t mask, const QueueEvent&)>;

  // `sorter` provides less(); nullptr orders by priority (desc) then timestamp (asc).
  explicit SchedulingQueue(const Plugin* sorter, QueueOptions options = {});
  ~SchedulingQueue();
  void set_hint_fn(HintFn fn) { hint_ = std::move(fn); }

  // A default-constructed key (as tests pass) stands for a class of the pod alone.
  // A new pending pod (its first attempt counts).
  void add(const QueuedPod& qp, const PodClassKey& key = {});
  // The next pod to schedule, moving pods whose backoff expired at `now_us` first. A probe
  // (QueuedPod::probe, kRequeueAll only) must end with restore_probe() if it fails.
  std::optional<QueuedPod> pop(int64_t now_us);
  // A counted failed attempt: the pod waits unschedulable; it stands for its class, which becomes
  // clean with `mask` (passed to the hint function).
  void add_unschedulable(QueuedPod qp, int64_t now_us, const PodClassKey& key = {},
                         uint64_t mask = ~uint64_t{0});
  // A failed attempt that should be retried after backoff without waiting for an event
  // (errors, a failed binding); the retry counts.
  void add_backoff(QueuedPod qp, int64_t now_us, const PodClassKey& key = {});
  // A probe that failed: the pod stays unschedulable as it was.
  void restore_probe(uint64_t serial);
  // A cluster event (see the semantics above).
  void on_event(const QueueEvent& event, int64_t now_us);
  // An event every class may use (QueueEvent::kAll).
  void move_all_to_active_or_backoff(int64_t now_us);
  // The pod's class key changed (e.g. its nomination was cleared).
  void reclassify(uint64_t serial, const PodClassKey& key, int64_t now_us);
  // Moves pods that stayed unschedulable max_unschedulable_us or longer.
  void flush_unschedulable_leftover(int64_t now_us);
  // Forgets a pod (deleted, or bound by someone else).
  void remove(uint64_t serial);
  bool contains(uint64_t serial) const { return recs_.count(serial) != 0; }

  // Pods ready to pop (with probes), backing off, unschedulable; every queued pod.
  size_t active_size() const { return pod_active_ + held_active_ + probes_; }
  size_t backoff_size() const { return pod_backoff_ + held_backoff_; }
  size_t unschedulable_size() const { return held_unsched_ + unsched_; }
  size_t size() const { return recs_.size(); }
  // Live equivalence classes, and whether the class of a queued pod is dirty (tests).
  size_t class_count() const { return class_by_key_.size(); }
  bool class_dirty(uint64_t serial) const;
  // The earliest time a backing-off pod becomes active, if any.
  std::optional<int64_t> next_backoff_expiry();
  // When the longest-waiting unschedulable pod became unschedulable, if any.
  std::optional<int64_t> oldest_unschedulable_us();
  const QueueOptions& options() const { return options_; }
  int64_t backoff_duration_us(int attempts) const;
  // Recounts every size and cross-checks the structures; throws std::logic_error (tests).
  void check_invariants() const;

 private:
  enum class State : uint8_t {
    kActive,         // own entry in the active heap (counts)
    kBackoff,        // own entry in the backoff heap (counts)
    kHeld,           // kHints: held by its class (unschedulable, or moved with its dirty class)
    kUnschedulable,  // kRequeueAll: unschedulable (may have a probe entry in the active heap)
  };
  struct Rec {
    QueuedPod qp;
    int64_t failed_us = 0;  // time of the last counted failure
    int64_t expiry_us = 0;  // kBackoff: backoff expiry
    uint64_t version = 0;   // of its own heap entry; 0: none
    uint32_t cls = 0;
    State state = State::kActive;
    bool class_moved = false;  // kRequeueAll, kActive/kBackoff: moved because its class was dirty
  };
  struct Entry {
    QueuedPod qp;  // ordering; a class entry: its first member, timestamp of its group
    int64_t key_us;
    uint64_t version;
    uint32_t cls;  // kNoClass: a pod's own entry
  };
  struct Group {
    int64_t ts;
    std::set<uint64_t> serials;
  };
  struct Class {
    PodClassKey key;
    bool live = false;
    bool dirty = false;
    uint32_t members = 0;  // queued pods of the class (any state, not in a cycle)
    uint64_t mask = ~uint64_t{0};
    // Current heap entries (0: none) and what they were pushed for.
    uint64_t active_version = 0, backoff_version = 0, flush_version = 0;
    int64_t active_ts = 0, backoff_key = 0, flush_key = 0;
    uint64_t active_head = 0;
    uint32_t clean_pos = ~uint32_t{0};  // kHints: index in clean_, if listed there
    // kHints, held members: all of them by failure time (the flush); those whose backoff had not
    // expired when last looked at, by expiry; the others by serial (clean) or, while dirty, in
    // groups by the timestamp they moved with.
    std::set<std::pair<int64_t, uint64_t>> by_failure;
    std::set<std::pair<int64_t, uint64_t>> waiting;
    std::set<uint64_t> ready;
    std::deque<Group> groups;
  };
  static constexpr uint32_t kNoClass = ~uint32_t{0};

  bool before(const QueuedPod& a, const QueuedPod& b) const;
  int64_t expiry_of(const Rec& r) const { return r.failed_us + backoff_duration_us(r.qp.attempts); }
  PodClassKey normalized(const PodClassKey& key, uint64_t serial) const;
  // A class created for a pod changing class starts with that pod's old class's record.
  struct Inherit {
    bool dirty;
    uint64_t mask;
  };
  uint32_t join_class(const PodClassKey& key, const Inherit* inherit, bool* created = nullptr);
  // Whether a clean class has unschedulable pods (if not, an event cannot matter to it).
  bool has_unschedulable(uint32_t cls) const;
  // kHints: keeps clean_ = the clean classes with unschedulable pods.
  void list_clean(uint32_t cls);
  void leave_class(uint32_t cls);
  void push_active(const QueuedPod& qp, uint64_t version, uint32_t cls);
  void push_backoff(const QueuedPod& qp, int64_t expiry, uint64_t version, uint32_t cls);
  void push_own_active(Rec& r, int64_t ts);
  void push_own_backoff(Rec& r, int64_t expiry);
  void flush_backoff(int64_t now_us);
  bool entry_current(const Entry& e, bool active) const;
  // A class found dirty by an event.
  void make_dirty(uint32_t cls, int64_t now_us);
  // A counted failure of the class.
  void make_clean(uint32_t cls, int64_t now_us);
  // kHints.
  void hold(Rec& r, int64_t now_us);
  void unhold(Rec& r);
  bool in_waiting(const Class& c, const Rec& r) const;
  void advance(Class& c, int64_t now_us);
  void add_group(Class& c, int64_t ts, std::set<uint64_t>&& serials);
  QueuedPod pop_class(uint32_t cls);
  void refresh_entries(uint32_t cls);
  // kRequeueAll.
  void move_unschedulable(Rec& r, int64_t now_us);
  void push_probe(Rec& r, int64_t now_us);

  const Plugin* sorter_;
  QueueOptions options_;
  HintFn hint_;
  std::vector<Entry> active_;   // heap
  std::vector<Entry> backoff_;  // min-heap on key_us
  std::vector<Entry> flush_;    // kHints: clean classes by oldest failure (min-heap on key_us)
  std::unordered_map<uint64_t, Rec> recs_;
  std::vector<Class> classes_;
  std::vector<uint32_t> free_classes_;
  std::vector<uint32_t> clean_;   // kHints: the classes an event's hints are asked for
  std::vector<uint32_t> helped_;  // scratch for on_event
  std::unordered_map<PodClassKey, uint32_t, PodClassKeyHash> class_by_key_;
  uint64_t next_version_ = 1;
  size_t pod_active_ = 0, pod_backoff_ = 0;                       // own entries
  size_t held_active_ = 0, held_backoff_ = 0, held_unsched_ = 0;  // kHints
  size_t unsched_ = 0, probes_ = 0;                               // kRequeueAll
};

}  // namespace orrery::fw
