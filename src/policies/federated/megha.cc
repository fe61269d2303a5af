#include "policies/federated/megha.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace orrery::federated {

MeghaSim::MeghaSim(sim::EventLoop& loop, const Workload& w, const ClusterConfig& c,
                   const SimParams& p, Recorder& rec)
    : loop_(loop),
      w_(w),
      c_(c),
      p_(p),
      rec_(rec),
      matcher_(c.groups),
      gms_(c.num_gms),
      lms_(c.num_lms),
      q_(c.groups.group_size()),
      words_(c.groups.words()),
      total_words_(static_cast<size_t>(c.groups.groups()) * c.groups.words()),
      stride_(static_cast<uint32_t>(c.groups.words() * 64)) {
  if (p_.heartbeat <= 0) p_.heartbeat = kMeghaHeartbeat;
  const sim::Trace& t = *w.trace;
  task_job_.resize(t.task_count());
  job_gm_.resize(t.jobs.size());
  for (uint32_t j = 0; j < t.jobs.size(); ++j) {
    job_gm_[j] = j % gms_;  // round-robin, as the reference simulator assigns jobs
    std::fill_n(task_job_.begin() + t.jobs[j].first_task, t.jobs[j].num_tasks, j);
  }
  rotor_.assign(gms_, 0);
  truth_.resize(total_words_);
  for (uint32_t grp = 0; grp < c.groups.groups(); ++grp)
    std::copy_n(c.groups.full(), words_, truth_.begin() + static_cast<ptrdiff_t>(grp * words_));
  view_.resize(total_words_ * gms_);
  for (uint32_t g = 0; g < gms_; ++g) std::copy(truth_.begin(), truth_.end(), view(g));
  dirty_.assign(total_words_ * gms_, 0);
  waiting_.resize(gms_);
  for (uint32_t g = 0; g < gms_; ++g)
    rng_.push_back(Rng::derive(p_.seed, "megha/gm/" + std::to_string(g)));
  beat_rng_ = Rng::derive(p_.seed, "megha/heartbeat");
}

sim::Time MeghaSim::next_beat() {
  if (p_.aligned_heartbeats) return p_.heartbeat;
  const double f = 1 + kHeartbeatJitter * (2 * beat_rng_.uniform() - 1);
  return std::max<sim::Time>(1, static_cast<sim::Time>(static_cast<double>(p_.heartbeat) * f));
}

size_t MeghaSim::queued() const {
  size_t n = 0;
  for (const PendingTasks& q : waiting_) n += q.size();
  return n;
}

void MeghaSim::start() {
  if (w_.arrival_order.empty()) return;
  // Arrivals are chained in (arrival, trace order) so the heap holds one at a time.
  const sim::Time first = w_.trace->jobs[w_.arrival_order[0]].arrival;
  for (uint32_t lm = 0; lm < lms_; ++lm) {
    if (p_.quirks.early_first_heartbeat) {
      // Every LM's first beat at the first arrival - 50 ms. Before time 0 (a trace starting
      // earlier than 50 ms) that beat would carry nothing, so the next one is the first.
      sim::Time t0 = first - kReferenceHeartbeatLead;
      if (t0 < 0) t0 += next_beat();
      loop_.at(t0, this, kHeartbeat, lm);
      continue;
    }
    const sim::Time offset =
        p_.aligned_heartbeats ? 0 : static_cast<sim::Time>(beat_rng_.below(p_.heartbeat));
    loop_.at(first + offset, this, kHeartbeat, lm);
  }
  loop_.at(first, this, kSample);
  loop_.at(first, this, kJobArrival, 0);
}

bool MeghaSim::place(uint32_t gm, uint32_t task) {
  const ConstraintMask need = w_.task_constraints[task];
  uint64_t* v = view(gm);
  uint32_t first_lm = 0;
  if (p_.lm_order == LmOrder::kRotate) {
    first_lm = rotor_[gm];
    rotor_[gm] = first_lm + 1 == lms_ ? 0 : first_lm + 1;
  }
  auto try_group = [&](uint32_t grp) {
    uint64_t* avail = v + static_cast<size_t>(grp) * words_;
    const int32_t i = matcher_.match(grp, avail, need, p_.pick, rng_[gm]);
    if (i < 0) return false;
    clear_bit(avail, static_cast<size_t>(i));
    send_verify(task, grp * stride_ + static_cast<uint32_t>(i));
    return true;
  };
  // Internal partitions (one per LM) first, then the external ones, LM by LM.
  for (uint32_t k = 0, lm = first_lm; k < lms_; ++k, lm = lm + 1 == lms_ ? 0 : lm + 1)
    if (try_group(lm * gms_ + gm)) return true;
  for (uint32_t k = 0, lm = first_lm; k < lms_; ++k, lm = lm + 1 == lms_ ? 0 : lm + 1)
    for (uint32_t part = 0; part < gms_; ++part)
      if (part != gm && try_group(lm * gms_ + part)) return true;
  return false;
}

void MeghaSim::send_verify(uint32_t task, uint32_t slot) {
  ++n_.verify_requests;
  send(gm_of(task), lm_id(lm_of(slot)), kVerify, task, slot);
}

void MeghaSim::offer(uint32_t gm, uint32_t slot) {
  const int64_t t =
      waiting_[gm].empty() ? PendingTasks::kNone : waiting_[gm].take_for(mask_of(slot));
  if (t == PendingTasks::kNone) {
    set_bit(view(gm), slot);
  } else {
    send_verify(static_cast<uint32_t>(t), slot);  // stays busy in the view
  }
}

void MeghaSim::offer_freed(uint32_t gm) {
  uint64_t* v = view(gm);
  for (uint32_t slot : freed_) {
    if (!test_bit(v, slot)) continue;  // taken meanwhile (a retried task)
    clear_bit(v, slot);
    offer(gm, slot);
  }
}

void MeghaSim::mark_changed(uint32_t slot, uint32_t except_gm) {
  for (uint32_t g = 0; g < gms_; ++g)
    if (g != except_gm) set_bit(dirty(g), slot);
}

uint32_t MeghaSim::take_delta(uint32_t lm, uint32_t gm) {
  const size_t off = static_cast<size_t>(lm) * gms_ * words_;  // this LM's partitions
  const size_t n = static_cast<size_t>(gms_) * words_;
  uint64_t* d = dirty(gm) + off;
  if (!any(d, n)) return kNoDelta;
  uint32_t id;
  if (!free_deltas_.empty()) {
    id = free_deltas_.back();
    free_deltas_.pop_back();
  } else {
    id = static_cast<uint32_t>(deltas_.size());
    deltas_.emplace_back();
  }
  std::vector<uint64_t>& buf = deltas_[id];
  buf.resize(2 * n);  // [changed words][state words]; keeps capacity across reuse
  const uint64_t* tr = truth_.data() + off;
  for (size_t i = 0; i < n; ++i) {
    buf[i] = d[i];
    buf[n + i] = tr[i] & d[i];
    d[i] = 0;
  }
  return id;
}

void MeghaSim::apply_delta(uint32_t gm, uint32_t lm, uint32_t delta) {
  if (delta == kNoDelta) return;
  const size_t off = static_cast<size_t>(lm) * gms_ * words_;
  const size_t n = static_cast<size_t>(gms_) * words_;
  std::vector<uint64_t>& buf = deltas_[delta];
  uint64_t* v = view(gm) + off;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t changed = buf[i], state = buf[n + i];
    const uint64_t old = v[i];
    const uint64_t now = (old & ~changed) | (state & changed);
    v[i] = now;
    uint64_t became_free = now & ~old;  // offered to the queue by the caller
    while (became_free) {
      freed_.push_back(static_cast<uint32_t>((off + i) * 64 + std::countr_zero(became_free)));
      became_free &= became_free - 1;
    }
  }
  free_deltas_.push_back(delta);
}

void MeghaSim::arrive(uint32_t j) {
  const sim::TraceJob& job = w_.trace->jobs[j];
  rec_.job_arrived(j);
  const uint32_t gm = job_gm_[j];
  for (uint32_t i = 0; i < job.num_tasks; ++i) {
    const uint32_t task = job.first_task + i;
    if (!w_.runnable[task]) continue;
    if (!place(gm, task)) {
      waiting_[gm].push_back(task, w_.task_constraints[task]);
      ++n_.queued;
    }
  }
}

void MeghaSim::handle(const sim::Event& e) {
  const sim::Time now = loop_.now();
  if (faults_ && held(e)) return;
  switch (e.kind) {
    case kJobArrival: {
      const sim::Trace& t = *w_.trace;
      const size_t pos = e.a;  // position in arrival order
      const uint32_t j = w_.arrival_order[pos];
      if (faults_ && faults_->down(job_gm_[j])) {  // the client resubmits when the GM is back
        loop_.at(faults_->up_at(job_gm_[j]), this, kJobSubmit, j);
      } else {
        arrive(j);
      }
      if (pos + 1 < w_.arrival_order.size())
        loop_.at(t.jobs[w_.arrival_order[pos + 1]].arrival, this, kJobArrival, pos + 1);
      break;
    }
    case kJobSubmit: arrive(static_cast<uint32_t>(e.a)); break;
    case kVerify: {  // at the LM
      const auto task = static_cast<uint32_t>(e.a);
      const auto slot = static_cast<uint32_t>(e.b);
      const uint32_t gm = gm_of(task);
      if (test_bit(truth_.data(), slot)) {
        clear_bit(truth_.data(), slot);
        mark_changed(slot, gm);
        clear_bit(dirty(gm), slot);  // gm knows; see the header
        ++n_.launches;
        if (faults_) slot_task_[slot] = task;
        send(lm_id(lm_of(slot)), faults_ ? faults_->workers_of(lm_of(slot)) : 0, kLaunch, task,
             slot);
      } else {
        ++n_.inconsistencies;
        const uint32_t grp = group_of(slot);
        if (grp % gms_ == gm) ++n_.inconsistencies_internal;
        uint32_t delta = take_delta(grp / gms_, gm);
        if (p_.quirks.drop_rejection_state && delta != kNoDelta) {
          free_deltas_.push_back(delta);  // taken (the changes are lost to gm) but not sent
          delta = kNoDelta;
        }
        // With faults, gm may map a worker its own task still holds: the task's completion
        // reached gm before it reached this LM (two links). gm learns of the worker's release
        // from nobody then (§4.4 keeps it out of gm's deltas), so this LM reports it after all.
        if (faults_ && slot_task_[slot] != kNoTask && gm_of(slot_task_[slot]) == gm)
          report_release_[slot] = 1;
        send(lm_id(grp / gms_), gm, kReject, task, pack(delta, slot));
      }
      break;
    }
    case kReject: {  // at the GM
      const auto task = static_cast<uint32_t>(e.a);
      const uint32_t slot = lo32(e.b);
      const uint32_t gm = gm_of(task);
      freed_.clear();
      apply_delta(gm, group_of(slot) / gms_, hi32(e.b));
      clear_bit(view(gm), slot);  // the rejection itself says it is busy
      // The rejected task is the oldest: retry it on the refreshed view first, else it goes back
      // to the head of the queue; then the freed workers go to the queue.
      if (p_.retry_rejected && place(gm, task)) {
        ++n_.retries_placed;
      } else {
        waiting_[gm].push_front(task, w_.task_constraints[task]);
        ++n_.queued;
      }
      offer_freed(gm);
      break;
    }
    case kLaunch: {  // at the worker
      const auto task = static_cast<uint32_t>(e.a);
      rec_.task_started(task, now);
      loop_.after(w_.trace->task_duration[task], this, kTaskEnd, task, e.b);
      break;
    }
    case kTaskEnd:
      rec_.task_ended(now);
      if (!faults_) {
        loop_.after(p_.network_delay, this, kCompletion, e.a, e.b);
      } else {  // two messages, on two links
        const uint32_t lm = lm_of(static_cast<uint32_t>(e.b));
        send(faults_->workers_of(lm), lm_id(lm), kCompletion, e.a, e.b);
        send(faults_->workers_of(lm), gm_of(static_cast<uint32_t>(e.a)), kCompletionGm, e.a, e.b);
      }
      break;
    case kCompletion: {  // the worker's message reaches its LM and the task's GM
      const auto task = static_cast<uint32_t>(e.a);
      const auto slot = static_cast<uint32_t>(e.b);
      const uint32_t gm = gm_of(task);
      ++n_.completions;
      set_bit(truth_.data(), slot);
      mark_changed(slot, gm);  // §4.4: not reported to gm by status updates
      if (faults_) {           // the LM's part only; the GM's is kCompletionGm
        slot_task_[slot] = kNoTask;
        if (report_release_[slot]) set_bit(dirty(gm), slot);  // see kVerify
        report_release_[slot] = 0;
        break;
      }
      rec_.task_reported(task_job_[task], now);
      offer(gm, slot);
      break;
    }
    case kCompletionGm: {
      const auto task = static_cast<uint32_t>(e.a);
      rec_.task_reported(task_job_[task], now);
      offer(gm_of(task), static_cast<uint32_t>(e.b));
      break;
    }
    case kRegister:  // at the LM: a restarted GM
      mark_all_changed(static_cast<uint32_t>(e.b), static_cast<uint32_t>(e.a));
      send_update_now(static_cast<uint32_t>(e.b), static_cast<uint32_t>(e.a));
      break;
    case kHeartbeat: {  // LM e.a sends every GM its changes since the last update
      const auto lm = static_cast<uint32_t>(e.a);
      for (uint32_t g = 0; g < gms_ && !(faults_ && faults_->down(lm_id(lm))); ++g) {
        ++n_.status_updates;
        // An empty update changes nothing at the GM: counted, not simulated.
        const uint32_t delta = take_delta(lm, g);
        if (delta != kNoDelta) send(lm_id(lm), g, kStatusUpdate, delta, pack(g, lm));
      }
      if (!rec_.all_done()) loop_.after(next_beat(), this, kHeartbeat, lm);
      break;
    }
    case kStatusUpdate: {
      const uint32_t gm = hi32(e.b), lm = lo32(e.b);
      freed_.clear();
      apply_delta(gm, lm, static_cast<uint32_t>(e.a));
      offer_freed(gm);
      break;
    }
    case kSample:
      rec_.sample(now, queued());
      if (!rec_.all_done()) loop_.after(p_.sample_interval, this, kSample);
      break;
  }
}

// ---------------------------------------------------------------- faults

void MeghaSim::set_faults(Faults* f) {
  faults_ = f;
  slot_task_.assign(total_words_ * 64, kNoTask);
  report_release_.assign(total_words_ * 64, 0);
}

bool MeghaSim::held(const sim::Event& e) {
  uint32_t from = 0, to = 0;
  switch (e.kind) {
    case kVerify: {
      from = gm_of(static_cast<uint32_t>(e.a));
      to = lm_id(lm_of(static_cast<uint32_t>(e.b)));
      break;
    }
    case kReject:
      from = lm_id(lm_of(lo32(e.b)));
      to = gm_of(static_cast<uint32_t>(e.a));
      break;
    case kCompletion:
      from = faults_->workers_of(lm_of(static_cast<uint32_t>(e.b)));
      to = lm_id(lm_of(static_cast<uint32_t>(e.b)));
      break;
    case kCompletionGm:
      from = faults_->workers_of(lm_of(static_cast<uint32_t>(e.b)));
      to = gm_of(static_cast<uint32_t>(e.a));
      break;
    case kStatusUpdate:
      from = lm_id(lo32(e.b));
      to = hi32(e.b);
      break;
    case kRegister:
      from = static_cast<uint32_t>(e.a);
      to = lm_id(static_cast<uint32_t>(e.b));
      break;
    case kJobSubmit: from = to = job_gm_[e.a]; break;
    default: return false;  // timers, launches and task ends (workers never fail here)
  }
  const sim::Time until = faults_->held_until(from, to);
  if (until < 0) return false;
  loop_.at(until, this, e.kind, e.a, e.b);
  return true;
}

void MeghaSim::mark_all_changed(uint32_t lm, uint32_t gm) {
  uint64_t* d = dirty(gm);
  for (uint32_t part = 0; part < gms_; ++part) {
    const uint32_t grp = lm * gms_ + part;
    for (size_t w = 0; w < words_; ++w) d[grp * words_ + w] |= c_.groups.full()[w];
    for (uint32_t i = 0; i < q_; ++i) {
      const uint32_t slot = grp * stride_ + i;
      if (slot_task_[slot] != kNoTask && gm_of(slot_task_[slot]) == gm) clear_bit(d, slot);
    }
  }
}

void MeghaSim::send_update_now(uint32_t lm, uint32_t gm) {
  ++n_.status_updates;
  const uint32_t delta = take_delta(lm, gm);
  if (delta != kNoDelta) send(lm_id(lm), gm, kStatusUpdate, delta, pack(gm, lm));
}

void MeghaSim::on_crash(uint32_t component) {
  if (component < gms_) {  // the GM's view is gone; until it registers again it knows nothing
    std::fill_n(view(component), total_words_, uint64_t{0});
    return;
  }
  const size_t off = static_cast<size_t>(component - gms_) * gms_ * words_;  // the LM's deltas
  for (uint32_t g = 0; g < gms_; ++g) std::fill_n(dirty(g) + off, gms_ * words_, uint64_t{0});
}

void MeghaSim::on_restart(uint32_t component) {
  if (component < gms_) {
    for (uint32_t lm = 0; lm < lms_; ++lm) send(component, lm_id(lm), kRegister, component, lm);
    return;
  }
  const uint32_t lm = component - gms_;  // its pending deltas are gone: full snapshots
  for (uint32_t g = 0; g < gms_; ++g) {
    mark_all_changed(lm, g);
    send_update_now(lm, g);
  }
}

}  // namespace orrery::federated
