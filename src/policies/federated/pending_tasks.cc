#include "policies/federated/pending_tasks.h"

namespace orrery::federated {

void PendingTasks::Ring::grow() {
  const size_t cap = buf.empty() ? 8 : buf.size() * 2;
  std::vector<Entry> next(cap);
  for (size_t i = 0; i < n; ++i) next[i] = buf[(head + i) & (buf.size() - 1)];
  buf.swap(next);
  head = 0;
}

void PendingTasks::Ring::push_back(Entry e) {
  if (n == buf.size()) grow();
  buf[(head + n) & (buf.size() - 1)] = e;
  ++n;
}

void PendingTasks::Ring::push_front(Entry e) {
  if (n == buf.size()) grow();
  head = (head + buf.size() - 1) & (buf.size() - 1);
  buf[head] = e;
  ++n;
}

PendingTasks::Entry PendingTasks::Ring::pop_front() {
  Entry e = buf[head];
  head = (head + 1) & (buf.size() - 1);
  --n;
  return e;
}

uint32_t PendingTasks::class_for(ConstraintMask constraints) {
  auto [it, inserted] = class_of_.try_emplace(constraints, static_cast<uint32_t>(rings_.size()));
  if (inserted) {
    rings_.emplace_back();
    class_mask_.push_back(constraints);
    active_pos_.push_back(kInactive);
  }
  return it->second;
}

void PendingTasks::activate(uint32_t c) {
  if (active_pos_[c] != kInactive) {
    active_head_[active_pos_[c]] = rings_[c].front().seq;
    return;
  }
  active_pos_[c] = static_cast<uint32_t>(active_.size());
  active_.push_back(c);
  active_mask_.push_back(class_mask_[c]);
  active_head_.push_back(rings_[c].front().seq);
}

void PendingTasks::push_back(uint32_t task, ConstraintMask constraints) {
  const uint32_t c = class_for(constraints);
  rings_[c].push_back({back_seq_++, task});
  ++size_;
  if (active_pos_[c] == kInactive) activate(c);
}

void PendingTasks::push_front(uint32_t task, ConstraintMask constraints) {
  const uint32_t c = class_for(constraints);
  rings_[c].push_front({--front_seq_, task});
  ++size_;
  activate(c);  // the head changed
}

size_t PendingTasks::best_for(ConstraintMask worker) const {
  const size_t n = active_.size();
  size_t best = n;
  int64_t best_seq = std::numeric_limits<int64_t>::max();
  const ConstraintMask excluded = ~worker;
  for (size_t i = 0; i < n; ++i) {
    if ((active_mask_[i] & excluded) == 0 && active_head_[i] < best_seq) {
      best_seq = active_head_[i];
      best = i;
    }
  }
  return best;
}

bool PendingTasks::any_for(ConstraintMask worker) const {
  const ConstraintMask excluded = ~worker;
  for (ConstraintMask m : active_mask_)
    if ((m & excluded) == 0) return true;
  return false;
}

int64_t PendingTasks::take_for(ConstraintMask worker) {
  const size_t i = best_for(worker);
  if (i == active_.size()) return kNone;
  const uint32_t c = active_[i];
  Ring& r = rings_[c];
  const Entry e = r.pop_front();
  --size_;
  if (r.n) {
    active_head_[i] = r.front().seq;
  } else {  // swap-remove from the active set
    const size_t last = active_.size() - 1;
    active_[i] = active_[last];
    active_mask_[i] = active_mask_[last];
    active_head_[i] = active_head_[last];
    active_pos_[active_[i]] = static_cast<uint32_t>(i);
    active_.pop_back();
    active_mask_.pop_back();
    active_head_.pop_back();
    active_pos_[c] = kInactive;
  }
  return e.task;
}

}  // namespace orrery::federated
