#include "framework/queue.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace orrery::fw {

std::string_view to_string(QueueEvent::Kind k) {
  switch (k) {
    case QueueEvent::kNodeAdded: return "NodeAdded";
    case QueueEvent::kNodeUpdated: return "NodeUpdated";
    case QueueEvent::kNodeRemoved: return "NodeRemoved";
    case QueueEvent::kPodAssigned: return "PodAssigned";
    case QueueEvent::kPodReleased: return "PodReleased";
    case QueueEvent::kNominationCleared: return "NominationCleared";
    case QueueEvent::kOther: return "Other";
    case QueueEvent::kAll: return "All";
  }
  return "?";
}

namespace {

bool backoff_after(int64_t ka, uint64_t va, int64_t kb, uint64_t vb) {
  return ka != kb ? ka > kb : va > vb;
}

}  // namespace

SchedulingQueue::SchedulingQueue(const Plugin* sorter, QueueOptions options)
    : sorter_(sorter), options_(options) {}

SchedulingQueue::~SchedulingQueue() = default;

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

PodClassKey SchedulingQueue::normalized(const PodClassKey& key, uint64_t serial) const {
  return key == PodClassKey{} ? PodClassKey::unique(serial) : key;
}

// ---------------------------------------------------------------- heaps

void SchedulingQueue::push_active(const QueuedPod& qp, uint64_t version, uint32_t cls) {
  active_.push_back({qp, 0, version, cls});
  // Max-heap on "scheduled first": the comparator says a < b when b goes first.
  std::push_heap(active_.begin(), active_.end(),
                 [this](const Entry& a, const Entry& b) { return before(b.qp, a.qp); });
}

void SchedulingQueue::push_backoff(const QueuedPod& qp, int64_t expiry, uint64_t version,
                                   uint32_t cls) {
  backoff_.push_back({qp, expiry, version, cls});
  std::push_heap(backoff_.begin(), backoff_.end(), [](const Entry& a, const Entry& b) {
    return backoff_after(a.key_us, a.version, b.key_us, b.version);
  });
}

void SchedulingQueue::push_own_active(Rec& r, int64_t ts) {
  r.version = next_version_++;
  r.qp.timestamp_us = ts;
  push_active(r.qp, r.version, kNoClass);
}

void SchedulingQueue::push_own_backoff(Rec& r, int64_t expiry) {
  r.version = next_version_++;
  r.expiry_us = expiry;
  push_backoff(r.qp, expiry, r.version, kNoClass);
}

bool SchedulingQueue::entry_current(const Entry& e, bool active) const {
  if (e.cls != kNoClass) {
    if (e.cls >= classes_.size()) return false;
    const Class& c = classes_[e.cls];
    return c.live && (active ? c.active_version : c.backoff_version) == e.version;
  }
  auto it = recs_.find(e.qp.serial);
  if (it == recs_.end() || it->second.version != e.version) return false;
  const State s = it->second.state;
  return active ? (s == State::kActive || s == State::kUnschedulable) : s == State::kBackoff;
}

// ---------------------------------------------------------------- classes

uint32_t SchedulingQueue::join_class(const PodClassKey& key, const Inherit* inherit,
                                     bool* created) {
  auto it = class_by_key_.find(key);
  if (created) *created = it == class_by_key_.end();
  if (it != class_by_key_.end()) {
    classes_[it->second].members++;
    return it->second;
  }
  // A new class starts clean; one created for a pod changing class keeps that pod's record.
  const bool dirty = inherit && inherit->dirty;
  const uint64_t mask = inherit ? inherit->mask : ~uint64_t{0};
  uint32_t idx;
  if (!free_classes_.empty()) {
    idx = free_classes_.back();
    free_classes_.pop_back();
  } else {
    idx = static_cast<uint32_t>(classes_.size());
    classes_.emplace_back();
  }
  Class& c = classes_[idx];
  c.key = key;
  c.live = true;
  c.dirty = dirty;
  c.mask = mask;
  c.members = 1;
  class_by_key_.emplace(key, idx);
  return idx;
}

void SchedulingQueue::leave_class(uint32_t cls) {
  Class& c = classes_[cls];
  if (--c.members > 0) return;
  class_by_key_.erase(c.key);
  c.live = false;
  list_clean(cls);
  c = Class{};  // its heap entries become stale
  free_classes_.push_back(cls);
}

bool SchedulingQueue::has_unschedulable(uint32_t cls) const {
  if (options_.mode != QueueMode::kRequeueAll) return !classes_[cls].by_failure.empty();
  for (const auto& [serial, r] : recs_)
    if (r.cls == cls && r.state == State::kUnschedulable) return true;
  return false;
}

void SchedulingQueue::list_clean(uint32_t cls) {
  Class& c = classes_[cls];
  const bool want = c.live && !c.dirty && !c.by_failure.empty();
  const bool listed = c.clean_pos != ~uint32_t{0};
  if (want == listed) return;
  if (want) {
    c.clean_pos = static_cast<uint32_t>(clean_.size());
    clean_.push_back(cls);
    return;
  }
  const uint32_t last = clean_.back();
  clean_[c.clean_pos] = last;
  classes_[last].clean_pos = c.clean_pos;
  clean_.pop_back();
  c.clean_pos = ~uint32_t{0};
}

bool SchedulingQueue::class_dirty(uint64_t serial) const {
  auto it = recs_.find(serial);
  return it != recs_.end() && classes_[it->second.cls].dirty;
}

void SchedulingQueue::make_dirty(uint32_t cls, int64_t now_us) {
  Class& c = classes_[cls];
  c.dirty = true;
  if (options_.mode == QueueMode::kRequeueAll) return;  // on_event moves the pods
  held_unsched_ -= c.by_failure.size();
  advance(c, now_us);
  held_backoff_ += c.waiting.size();
  if (!c.ready.empty()) {
    held_active_ += c.ready.size();
    add_group(c, now_us, std::move(c.ready));
    c.ready.clear();
  }
  refresh_entries(cls);
}

void SchedulingQueue::make_clean(uint32_t cls, int64_t now_us) {
  Class& c = classes_[cls];
  if (!c.dirty) return;
  c.dirty = false;
  if (options_.mode == QueueMode::kRequeueAll) {
    // Pods moved because the class was dirty and not popped yet are unschedulable again; they
    // keep their entries as probes (the oracle still tries them).
    for (auto& [serial, r] : recs_) {
      if (r.cls != cls || !r.class_moved) continue;
      if (r.state == State::kActive) --pod_active_;
      if (r.state == State::kBackoff) --pod_backoff_;
      r.state = State::kUnschedulable;
      r.class_moved = false;
      r.version = 0;
      ++unsched_;
      push_probe(r, now_us);
    }
    return;
  }
  held_backoff_ -= c.waiting.size();
  for (Group& g : c.groups) {
    held_active_ -= g.serials.size();
    if (g.serials.size() > c.ready.size()) std::swap(g.serials, c.ready);
    c.ready.merge(g.serials);
  }
  c.groups.clear();
  held_unsched_ += c.by_failure.size();
  refresh_entries(cls);
}

// ---------------------------------------------------------------- kHints: held members

void SchedulingQueue::advance(Class& c, int64_t now_us) {
  while (!c.waiting.empty() && c.waiting.begin()->first <= now_us) {
    c.ready.insert(c.waiting.begin()->second);
    c.waiting.erase(c.waiting.begin());
  }
}

void SchedulingQueue::add_group(Class& c, int64_t ts, std::set<uint64_t>&& serials) {
  if (!c.groups.empty() && c.groups.back().ts == ts) {
    std::set<uint64_t>& into = c.groups.back().serials;
    if (serials.size() > into.size()) std::swap(serials, into);
    into.merge(serials);
    return;
  }
  c.groups.push_back({ts, std::move(serials)});
}

bool SchedulingQueue::in_waiting(const Class& c, const Rec& r) const {
  return c.waiting.count({expiry_of(r), r.qp.serial}) != 0;
}

void SchedulingQueue::hold(Rec& r, int64_t now_us) {
  Class& c = classes_[r.cls];
  const uint64_t s = r.qp.serial;
  r.state = State::kHeld;
  r.version = 0;
  c.by_failure.insert({r.failed_us, s});
  const int64_t x = expiry_of(r);
  if (!c.dirty) {
    c.waiting.insert({x, s});
    ++held_unsched_;
  } else if (x <= now_us) {  // joins a dirty class: moves at once
    add_group(c, now_us, std::set<uint64_t>{s});
    ++held_active_;
  } else {
    c.waiting.insert({x, s});
    ++held_backoff_;
  }
  refresh_entries(r.cls);
}

// Takes a held member out of its class's structures (the caller refreshes the class's entries).
void SchedulingQueue::unhold(Rec& r) {
  Class& c = classes_[r.cls];
  const uint64_t s = r.qp.serial;
  c.by_failure.erase({r.failed_us, s});
  if (c.waiting.erase({expiry_of(r), s})) {
    if (c.dirty) {
      --held_backoff_;
    } else {
      --held_unsched_;
    }
    return;
  }
  if (c.ready.erase(s)) {
    --held_unsched_;
    return;
  }
  for (auto g = c.groups.begin(); g != c.groups.end(); ++g) {
    if (g->serials.erase(s)) {
      --held_active_;
      if (g->serials.empty()) c.groups.erase(g);
      return;
    }
  }
  throw std::logic_error("SchedulingQueue: held pod not found in its class");
}

void SchedulingQueue::refresh_entries(uint32_t cls) {
  Class& c = classes_[cls];
  if (c.dirty && !c.groups.empty()) {
    const int64_t ts = c.groups.front().ts;
    const uint64_t head = *c.groups.front().serials.begin();
    if (c.active_version == 0 || c.active_ts != ts || c.active_head != head) {
      QueuedPod qp = recs_.at(head).qp;
      qp.timestamp_us = ts;
      c.active_version = next_version_++;
      c.active_ts = ts;
      c.active_head = head;
      push_active(qp, c.active_version, cls);
    }
  } else {
    c.active_version = 0;
  }
  if (c.dirty && !c.waiting.empty()) {
    const int64_t key = c.waiting.begin()->first;
    if (c.backoff_version == 0 || c.backoff_key != key) {
      c.backoff_version = next_version_++;
      c.backoff_key = key;
      push_backoff(recs_.at(c.waiting.begin()->second).qp, key, c.backoff_version, cls);
    }
  } else {
    c.backoff_version = 0;
  }
  if (!c.dirty && !c.by_failure.empty()) {
    const int64_t key = c.by_failure.begin()->first;
    if (c.flush_version == 0 || c.flush_key != key) {
      c.flush_version = next_version_++;
      c.flush_key = key;
      flush_.push_back({QueuedPod{}, key, c.flush_version, cls});
      std::push_heap(flush_.begin(), flush_.end(), [](const Entry& a, const Entry& b) {
        return backoff_after(a.key_us, a.version, b.key_us, b.version);
      });
    }
  } else {
    c.flush_version = 0;
  }
  list_clean(cls);
}

QueuedPod SchedulingQueue::pop_class(uint32_t cls) {
  Class& c = classes_[cls];
  Group& g = c.groups.front();
  const uint64_t s = *g.serials.begin();
  const int64_t ts = g.ts;
  g.serials.erase(g.serials.begin());
  if (g.serials.empty()) c.groups.pop_front();
  --held_active_;
  auto it = recs_.find(s);
  c.by_failure.erase({it->second.failed_us, s});
  QueuedPod qp = it->second.qp;
  qp.timestamp_us = ts;
  qp.attempts++;
  recs_.erase(it);
  leave_class(cls);
  if (classes_[cls].live) refresh_entries(cls);
  return qp;
}

// ---------------------------------------------------------------- kRequeueAll

void SchedulingQueue::move_unschedulable(Rec& r, int64_t now_us) {
  --unsched_;
  if (r.version != 0) --probes_;
  r.class_moved = true;
  const int64_t x = expiry_of(r);
  if (x <= now_us) {
    r.state = State::kActive;
    ++pod_active_;
    push_own_active(r, now_us);
  } else {
    r.state = State::kBackoff;
    ++pod_backoff_;
    push_own_backoff(r, x);
  }
}

void SchedulingQueue::push_probe(Rec& r, int64_t now_us) {
  if (r.version == 0) ++probes_;
  r.version = next_version_++;
  QueuedPod qp = r.qp;
  qp.timestamp_us = now_us;
  push_active(qp, r.version, kNoClass);
}

// ---------------------------------------------------------------- operations

void SchedulingQueue::add(const QueuedPod& qp, const PodClassKey& key) {
  if (recs_.count(qp.serial)) return;
  const uint32_t cls = join_class(normalized(key, qp.serial), nullptr);
  Rec& r = recs_[qp.serial];
  r.qp = qp;
  r.qp.probe = false;
  r.cls = cls;
  r.state = State::kActive;
  ++pod_active_;
  push_own_active(r, qp.timestamp_us);
}

void SchedulingQueue::flush_backoff(int64_t now_us) {
  auto cmp = [](const Entry& a, const Entry& b) {
    return backoff_after(a.key_us, a.version, b.key_us, b.version);
  };
  while (!backoff_.empty()) {
    const Entry& top = backoff_.front();
    const bool current = entry_current(top, false);
    if (current && top.key_us > now_us) break;
    std::pop_heap(backoff_.begin(), backoff_.end(), cmp);
    const Entry e = backoff_.back();
    backoff_.pop_back();
    if (!current) continue;
    if (e.cls == kNoClass) {
      Rec& r = recs_.at(e.qp.serial);
      --pod_backoff_;
      ++pod_active_;
      r.state = State::kActive;
      push_own_active(r, now_us);
      continue;
    }
    Class& c = classes_[e.cls];
    c.backoff_version = 0;
    advance(c, now_us);
    held_backoff_ -= c.ready.size();
    held_active_ += c.ready.size();
    if (!c.ready.empty()) add_group(c, now_us, std::move(c.ready));
    c.ready.clear();
    refresh_entries(e.cls);
  }
}

std::optional<QueuedPod> SchedulingQueue::pop(int64_t now_us) {
  flush_backoff(now_us);
  auto cmp = [this](const Entry& a, const Entry& b) { return before(b.qp, a.qp); };
  while (!active_.empty()) {
    std::pop_heap(active_.begin(), active_.end(), cmp);
    const Entry e = active_.back();
    active_.pop_back();
    if (!entry_current(e, true)) continue;  // stale entry (removed or moved)
    if (e.cls != kNoClass) {
      classes_[e.cls].active_version = 0;
      return pop_class(e.cls);
    }
    auto it = recs_.find(e.qp.serial);
    Rec& r = it->second;
    QueuedPod qp = e.qp;
    qp.attempts++;
    if (r.state == State::kUnschedulable) {  // a probe: the pod stays unschedulable
      r.version = 0;
      --probes_;
      qp.probe = true;
      return qp;
    }
    --pod_active_;
    const uint32_t cls = r.cls;
    recs_.erase(it);
    leave_class(cls);
    return qp;
  }
  return std::nullopt;
}

void SchedulingQueue::add_unschedulable(QueuedPod qp, int64_t now_us, const PodClassKey& key,
                                        uint64_t mask) {
  remove(qp.serial);
  const uint32_t cls = join_class(normalized(key, qp.serial), nullptr);
  make_clean(cls, now_us);
  classes_[cls].mask = mask;
  Rec& r = recs_[qp.serial];
  r.qp = qp;
  r.qp.probe = false;
  r.failed_us = now_us;
  r.cls = cls;
  if (options_.mode == QueueMode::kRequeueAll) {
    r.state = State::kUnschedulable;
    r.version = 0;
    ++unsched_;
  } else {
    hold(r, now_us);
  }
}

void SchedulingQueue::add_backoff(QueuedPod qp, int64_t now_us, const PodClassKey& key) {
  remove(qp.serial);
  const uint32_t cls = join_class(normalized(key, qp.serial), nullptr);
  Rec& r = recs_[qp.serial];
  r.qp = qp;
  r.qp.probe = false;
  r.failed_us = now_us;
  r.cls = cls;
  r.state = State::kBackoff;
  ++pod_backoff_;
  push_own_backoff(r, now_us + backoff_duration_us(qp.attempts));
}

void SchedulingQueue::restore_probe(uint64_t serial) {
  auto it = recs_.find(serial);
  if (it == recs_.end() || it->second.state != State::kUnschedulable) {
    throw std::logic_error("SchedulingQueue::restore_probe: not a probed pod");
  }
}

void SchedulingQueue::on_event(const QueueEvent& event, int64_t now_us) {
  auto helps = [&](const Class& c) {
    return event.kind == QueueEvent::kAll || !hint_ || hint_(c.key, c.mask, event);
  };
  if (options_.mode != QueueMode::kRequeueAll) {
    // Only clean classes with unschedulable pods can change anything.
    helped_.clear();
    for (uint32_t cls : clean_)
      if (helps(classes_[cls])) helped_.push_back(cls);
    for (uint32_t cls : helped_) make_dirty(cls, now_us);
    return;
  }
  // Brute force: every clean class is asked (for one without unschedulable pods the answer does
  // not matter: a pod joining it moves anyway, see reclassify).
  for (uint32_t i = 0; i < classes_.size(); ++i) {
    const Class& c = classes_[i];
    if (c.live && !c.dirty && helps(c)) make_dirty(i, now_us);
  }
  for (auto& [serial, r] : recs_) {
    if (r.state != State::kUnschedulable) continue;
    if (classes_[r.cls].dirty) {
      move_unschedulable(r, now_us);
    } else if (r.version == 0) {
      push_probe(r, now_us);
    }
  }
}

void SchedulingQueue::move_all_to_active_or_backoff(int64_t now_us) {
  on_event(QueueEvent{}, now_us);
}

void SchedulingQueue::reclassify(uint64_t serial, const PodClassKey& key, int64_t now_us) {
  auto it = recs_.find(serial);
  if (it == recs_.end()) return;
  Rec& r = it->second;
  const PodClassKey k = normalized(key, serial);
  const uint32_t old = r.cls;
  if (classes_[old].key == k) return;
  bool held = false;
  if (r.state == State::kHeld) {
    Class& oc = classes_[old];
    if (oc.dirty) {
      // It moved with its class: it keeps its place, now as its own (counting) entry.
      int64_t ts = -1;
      for (const Group& g : oc.groups)
        if (g.serials.count(serial)) ts = g.ts;
      const bool waiting = in_waiting(oc, r);
      unhold(r);
      if (waiting) {
        r.state = State::kBackoff;
        ++pod_backoff_;
        push_own_backoff(r, expiry_of(r));
      } else {
        r.state = State::kActive;
        ++pod_active_;
        push_own_active(r, ts);
      }
    } else {
      unhold(r);
      held = true;
    }
    refresh_entries(old);
  }
  r.class_moved = false;  // kRequeueAll: likewise
  const Inherit inherit{classes_[old].dirty, classes_[old].mask};
  bool created = false;
  const uint32_t nc = join_class(k, &inherit, &created);
  // An existing class with no unschedulable pods was not asked about events: nothing is known
  // against the pod, which therefore moves (a new class has the pod's own record).
  if (!created && !classes_[nc].dirty && !has_unschedulable(nc)) {
    classes_[nc].dirty = true;
    if (options_.mode != QueueMode::kRequeueAll) refresh_entries(nc);
  }
  r.cls = nc;
  leave_class(old);
  if (held) hold(r, now_us);
  if (r.state == State::kUnschedulable && classes_[nc].dirty) move_unschedulable(r, now_us);
}

void SchedulingQueue::flush_unschedulable_leftover(int64_t now_us) {
  const int64_t max = options_.max_unschedulable_us;
  if (options_.mode == QueueMode::kRequeueAll) {
    for (auto& [serial, r] : recs_) {
      if (r.state != State::kUnschedulable || now_us - r.failed_us < max) continue;
      --unsched_;
      if (r.version != 0) --probes_;
      r.state = State::kActive;
      r.class_moved = false;
      ++pod_active_;
      push_own_active(r, now_us);
    }
    return;
  }
  auto cmp = [](const Entry& a, const Entry& b) {
    return backoff_after(a.key_us, a.version, b.key_us, b.version);
  };
  while (!flush_.empty()) {
    const Entry& top = flush_.front();
    const bool current = top.cls < classes_.size() && classes_[top.cls].live &&
                         classes_[top.cls].flush_version == top.version;
    if (current && now_us - top.key_us < max) break;
    std::pop_heap(flush_.begin(), flush_.end(), cmp);
    const Entry e = flush_.back();
    flush_.pop_back();
    if (!current) continue;
    Class& c = classes_[e.cls];
    c.flush_version = 0;
    while (!c.by_failure.empty() && now_us - c.by_failure.begin()->first >= max) {
      Rec& r = recs_.at(c.by_failure.begin()->second);
      unhold(r);
      r.state = State::kActive;
      ++pod_active_;
      push_own_active(r, now_us);
    }
    refresh_entries(e.cls);
  }
}

void SchedulingQueue::remove(uint64_t serial) {
  auto it = recs_.find(serial);
  if (it == recs_.end()) return;
  Rec& r = it->second;
  const uint32_t cls = r.cls;
  const bool held = r.state == State::kHeld;
  switch (r.state) {
    case State::kActive: --pod_active_; break;
    case State::kBackoff: --pod_backoff_; break;
    case State::kHeld: unhold(r); break;
    case State::kUnschedulable:
      --unsched_;
      if (r.version != 0) --probes_;
      break;
  }
  recs_.erase(it);  // heap entries become stale and are skipped when reached
  leave_class(cls);
  if (held && classes_[cls].live) refresh_entries(cls);
}

std::optional<int64_t> SchedulingQueue::next_backoff_expiry() {
  auto cmp = [](const Entry& a, const Entry& b) {
    return backoff_after(a.key_us, a.version, b.key_us, b.version);
  };
  while (!backoff_.empty()) {
    if (entry_current(backoff_.front(), false)) return backoff_.front().key_us;
    std::pop_heap(backoff_.begin(), backoff_.end(), cmp);
    backoff_.pop_back();
  }
  return std::nullopt;
}

std::optional<int64_t> SchedulingQueue::oldest_unschedulable_us() {
  if (options_.mode == QueueMode::kRequeueAll) {
    std::optional<int64_t> best;
    for (const auto& [serial, r] : recs_)
      if (r.state == State::kUnschedulable && (!best || r.failed_us < *best)) best = r.failed_us;
    return best;
  }
  auto cmp = [](const Entry& a, const Entry& b) {
    return backoff_after(a.key_us, a.version, b.key_us, b.version);
  };
  while (!flush_.empty()) {
    const Entry& top = flush_.front();
    if (top.cls < classes_.size() && classes_[top.cls].live &&
        classes_[top.cls].flush_version == top.version) {
      return top.key_us;
    }
    std::pop_heap(flush_.begin(), flush_.end(), cmp);
    flush_.pop_back();
  }
  return std::nullopt;
}

void SchedulingQueue::check_invariants() const {
  auto fail = [](const std::string& what) {
    throw std::logic_error("SchedulingQueue invariant: " + what);
  };
  size_t active = 0, backoff = 0, unsched = 0, probes = 0, held = 0;
  std::vector<uint32_t> members(classes_.size(), 0);
  std::vector<size_t> held_of(classes_.size(), 0);
  for (const auto& [serial, r] : recs_) {
    if (r.qp.serial != serial) fail("record serial");
    if (r.cls >= classes_.size() || !classes_[r.cls].live) fail("record of a dead class");
    members[r.cls]++;
    switch (r.state) {
      case State::kActive: ++active; break;
      case State::kBackoff: ++backoff; break;
      case State::kHeld:
        ++held;
        held_of[r.cls]++;
        if (!classes_[r.cls].by_failure.count({r.failed_us, serial})) fail("held, not by failure");
        break;
      case State::kUnschedulable:
        ++unsched;
        if (r.version != 0) ++probes;
        break;
    }
    if (r.class_moved && (options_.mode != QueueMode::kRequeueAll || !classes_[r.cls].dirty))
      fail("moved by a clean class");
  }
  if (active != pod_active_ || backoff != pod_backoff_) fail("own entry counts");
  if (unsched != unsched_ || probes != probes_) fail("requeue-all counts");
  size_t h_active = 0, h_backoff = 0, h_unsched = 0, live = 0;
  for (uint32_t i = 0; i < classes_.size(); ++i) {
    const Class& c = classes_[i];
    if (!c.live) continue;
    ++live;
    if (c.members != members[i]) fail("class member count");
    auto k = class_by_key_.find(c.key);
    if (k == class_by_key_.end() || k->second != i) fail("class key map");
    size_t in = c.waiting.size() + c.ready.size();
    for (const Group& g : c.groups) in += g.serials.size();
    if (in != held_of[i] || c.by_failure.size() != held_of[i]) fail("held members of a class");
    if (c.dirty && !c.ready.empty()) fail("dirty class with unmoved ready members");
    if (!c.dirty && !c.groups.empty()) fail("clean class with groups");
    if (c.dirty) {
      h_backoff += c.waiting.size();
      h_active += in - c.waiting.size();
    } else {
      h_unsched += in;
    }
    for (size_t g = 1; g < c.groups.size(); ++g)
      if (c.groups[g - 1].ts >= c.groups[g].ts) fail("group order");
  }
  if (live != class_by_key_.size()) fail("live classes");
  if (h_active != held_active_ || h_backoff != held_backoff_ || h_unsched != held_unsched_)
    fail("held counts");
  (void)held;
}

}  // namespace orrery::fw
