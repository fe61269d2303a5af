#include "framework/queue.h"

#include <algorithm>

namespace orrery::fw {

SchedulingQueue::SchedulingQueue(const Plugin* sorter, QueueOptions options)
    : sorter_(sorter), options_(options) {}

bool SchedulingQueue::before(const QueuedPod& a, const QueuedPod& b) const {
  if (sorter_) return sorter_->less(a, b);
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.timestamp_us != b.timestamp_us) return a.timestamp_us < b.timestamp_us;
  return a.serial < b.serial;
}

int64_t SchedulingQueue::backoff_duration_us(int attempts) const {
  int64_t d = options_.initial_backoff_us;
  for (int i = 1; i < attempts && d < options_.max_backoff_us; ++i) d *= 2;
  return std::min(d, options_.max_backoff_us);
}

void SchedulingQueue::push_active(QueuedPod qp) {
  const uint64_t v = next_version_++;
  where_[qp.serial] = {Where::kActive, v};
  active_.push_back({qp, 0, v});
  // Max-heap on "scheduled first": the comparator says a < b when b goes first.
  std::push_heap(active_.begin(), active_.end(),
                 [this](const Entry& a, const Entry& b) { return before(b.qp, a.qp); });
  ++active_count_;
}

void SchedulingQueue::push_backoff(QueuedPod qp, int64_t expiry) {
  const uint64_t v = next_version_++;
  where_[qp.serial] = {Where::kBackoff, v};
  backoff_.push_back({qp, expiry, v});
  std::push_heap(backoff_.begin(), backoff_.end(), [](const Entry& a, const Entry& b) {
    return a.key_us != b.key_us ? a.key_us > b.key_us : a.version > b.version;
  });
  ++backoff_count_;
}

void SchedulingQueue::add(const QueuedPod& qp) {
  if (where_.count(qp.serial)) return;
  push_active(qp);
}

void SchedulingQueue::flush_backoff(int64_t now_us) {
  auto cmp = [](const Entry& a, const Entry& b) {
    return a.key_us != b.key_us ? a.key_us > b.key_us : a.version > b.version;
  };
  while (!backoff_.empty()) {
    const Entry& top = backoff_.front();
    auto it = where_.find(top.qp.serial);
    const bool current = it != where_.end() && it->second.where == Where::kBackoff &&
                         it->second.version == top.version;
    if (current && top.key_us > now_us) break;
    std::pop_heap(backoff_.begin(), backoff_.end(), cmp);
    Entry e = backoff_.back();
    backoff_.pop_back();
    if (!current) continue;
    --backoff_count_;
    e.qp.timestamp_us = now_us;
    push_active(e.qp);
  }
}

std::optional<QueuedPod> SchedulingQueue::pop(int64_t now_us) {
  flush_backoff(now_us);
  auto cmp = [this](const Entry& a, const Entry& b) { return before(b.qp, a.qp); };
  while (!active_.empty()) {
    std::pop_heap(active_.begin(), active_.end(), cmp);
    Entry e = active_.back();
    active_.pop_back();
    auto it = where_.find(e.qp.serial);
    if (it == where_.end() || it->second.where != Where::kActive ||
        it->second.version != e.version) {
      continue;  // stale entry (removed or moved)
    }
    where_.erase(it);
    --active_count_;
    e.qp.attempts++;
    return e.qp;
  }
  return std::nullopt;
}

void SchedulingQueue::add_unschedulable(QueuedPod qp, int64_t now_us) {
  remove(qp.serial);
  const uint64_t v = next_version_++;
  where_[qp.serial] = {Where::kUnschedulable, v};
  unschedulable_[qp.serial] = {qp, now_us, v};
}

void SchedulingQueue::add_backoff(QueuedPod qp, int64_t now_us) {
  remove(qp.serial);
  push_backoff(qp, now_us + backoff_duration_us(qp.attempts));
}

void SchedulingQueue::move_all_to_active_or_backoff(int64_t now_us) {
  if (unschedulable_.empty()) return;
  // Deterministic order: by serial.
  std::vector<QueuedPod> pods;
  pods.reserve(unschedulable_.size());
  for (auto& [serial, e] : unschedulable_) pods.push_back(e.qp);
  std::sort(pods.begin(), pods.end(),
            [](const QueuedPod& a, const QueuedPod& b) { return a.serial < b.serial; });
  for (QueuedPod& qp : pods) {
    // Backoff counts from the failed attempt, i.e. when the pod became unschedulable.
    const int64_t expiry = unschedulable_[qp.serial].key_us + backoff_duration_us(qp.attempts);
    unschedulable_.erase(qp.serial);
    where_.erase(qp.serial);
    if (expiry <= now_us) {
      qp.timestamp_us = now_us;
      push_active(qp);
    } else {
      push_backoff(qp, expiry);
    }
  }
}

void SchedulingQueue::flush_unschedulable_leftover(int64_t now_us) {
  std::vector<QueuedPod> pods;
  for (auto& [serial, e] : unschedulable_)
    if (now_us - e.key_us >= options_.max_unschedulable_us) pods.push_back(e.qp);
  std::sort(pods.begin(), pods.end(),
            [](const QueuedPod& a, const QueuedPod& b) { return a.serial < b.serial; });
  for (QueuedPod& qp : pods) {
    unschedulable_.erase(qp.serial);
    where_.erase(qp.serial);
    qp.timestamp_us = now_us;
    push_active(qp);
  }
}

void SchedulingQueue::remove(uint64_t serial) {
  auto it = where_.find(serial);
  if (it == where_.end()) return;
  switch (it->second.where) {
    case Where::kActive: --active_count_; break;
    case Where::kBackoff: --backoff_count_; break;
    case Where::kUnschedulable: unschedulable_.erase(serial); break;
  }
  where_.erase(it);  // heap entries become stale and are skipped when reached
}

std::optional<int64_t> SchedulingQueue::next_backoff_expiry() {
  auto cmp = [](const Entry& a, const Entry& b) {
    return a.key_us != b.key_us ? a.key_us > b.key_us : a.version > b.version;
  };
  while (!backoff_.empty()) {
    const Entry& top = backoff_.front();
    auto it = where_.find(top.qp.serial);
    if (it != where_.end() && it->second.where == Where::kBackoff &&
        it->second.version == top.version) {
      return top.key_us;
    }
    std::pop_heap(backoff_.begin(), backoff_.end(), cmp);
    backoff_.pop_back();
  }
  return std::nullopt;
}

std::optional<int64_t> SchedulingQueue::oldest_unschedulable_us() const {
  std::optional<int64_t> best;
  for (const auto& [serial, e] : unschedulable_)
    if (!best || e.key_us < *best) best = e.key_us;
  return best;
}

}  // namespace orrery::fw
