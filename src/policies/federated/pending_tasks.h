// Tasks waiting for a worker at one scheduling entity (a Megha GM, a PigeonC Master's short or
// long queue), in FIFO order. When a worker becomes free the entity hands it to the earliest
// waiting task whose placement constraints the worker satisfies (as the reference simulators
// do). Tasks are grouped by constraint set, so that lookup is one pass over the distinct
// constraint sets waiting — a few hundred at most — instead of over every waiting task (queues
// reach hundreds of thousands of tasks under PigeonC at high load).
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "policies/federated/bits.h"

namespace orrery::federated {

class PendingTasks {
 public:
  static constexpr int64_t kNone = -1;

  void push_back(uint32_t task, ConstraintMask constraints);
  // Puts a task ahead of every waiting task (a mapping the LM rejected goes back to the head).
  void push_front(uint32_t task, ConstraintMask constraints);
  // Removes and returns the earliest waiting task whose constraints are a subset of `worker`,
  // or kNone.
  int64_t take_for(ConstraintMask worker);
  // True when some waiting task could run on a worker with constraint set `worker`.
  bool any_for(ConstraintMask worker) const;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t distinct_waiting() const { return active_.size(); }

 private:
  struct Entry {
    int64_t seq;
    uint32_t task;
  };
  struct Ring {  // FIFO with power-of-two capacity; keeps its memory when drained
    std::vector<Entry> buf;
    size_t head = 0, n = 0;
    void push_back(Entry e);
    void push_front(Entry e);
    Entry pop_front();
    const Entry& front() const { return buf[head]; }
    void grow();
  };

  uint32_t class_for(ConstraintMask constraints);
  void activate(uint32_t c);
  size_t best_for(ConstraintMask worker) const;  // position in active_, or active_.size()

  std::unordered_map<ConstraintMask, uint32_t> class_of_;  // lookups only, never iterated
  std::vector<Ring> rings_;                                // [class]
  std::vector<ConstraintMask> class_mask_;                 // [class]
  std::vector<uint32_t> active_pos_;                       // [class] -> index in active_
  // Non-empty classes, struct-of-arrays for the scan in take_for().
  std::vector<uint32_t> active_;
  std::vector<ConstraintMask> active_mask_;
  std::vector<int64_t> active_head_;  // seq of the class's first task
  int64_t back_seq_ = 0, front_seq_ = 0;
  size_t size_ = 0;
  static constexpr uint32_t kInactive = std::numeric_limits<uint32_t>::max();
};

}  // namespace orrery::federated
