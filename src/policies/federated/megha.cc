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
  beat_gen_.assign(lms_, 0);
  if (p_.quirks.update_lists) {
    went_busy_.assign(total_words_ * gms_, 0);
    free_entries_.assign(total_words_ * 64 * gms_, 0);
  }
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
  const int64_t slot = find_worker(gm, task);
  if (slot < 0) return false;
  send_verify(task, static_cast<uint32_t>(slot));
  return true;
}

int64_t MeghaSim::find_worker(uint32_t gm, uint32_t task) {
  const ConstraintMask need = w_.task_constraints[task];
  uint64_t* v = view(gm);
  uint32_t first_lm = 0;
  if (p_.lm_order == LmOrder::kRotate) {
    first_lm = rotor_[gm];
    rotor_[gm] = first_lm + 1 == lms_ ? 0 : first_lm + 1;
  }
  int64_t slot = -1;
  auto try_group = [&](uint32_t grp) {
    uint64_t* avail = v + static_cast<size_t>(grp) * words_;
    const int32_t i = matcher_.match(grp, avail, need, p_.pick, rng_[gm]);
    if (i < 0) return false;
    clear_bit(avail, static_cast<size_t>(i));
    slot = grp * stride_ + static_cast<uint32_t>(i);
    return true;
  };
  // Internal partitions (one per LM) first, then the external ones, LM by LM.
  for (uint32_t k = 0, lm = first_lm; k < lms_; ++k, lm = lm + 1 == lms_ ? 0 : lm + 1)
    if (try_group(lm * gms_ + gm)) return slot;
  for (uint32_t k = 0, lm = first_lm; k < lms_; ++k, lm = lm + 1 == lms_ ? 0 : lm + 1)
    for (uint32_t part = 0; part < gms_; ++part)
      if (part != gm && try_group(lm * gms_ + part)) return slot;
  return -1;
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

void MeghaSim::mark_changed(uint32_t slot, uint32_t except_gm, bool freed) {
  for (uint32_t g = 0; g < gms_; ++g) {
    if (g == except_gm) continue;
    set_bit(dirty(g), slot);
    if (!p_.quirks.update_lists) continue;
    if (!freed) {
      set_bit(went_busy_.data() + static_cast<size_t>(g) * total_words_, slot);
    } else {
      uint8_t& k = free_entries_[static_cast<size_t>(g) * total_words_ * 64 + slot];
      if (k < 255) ++k;
    }
  }
}

uint32_t MeghaSim::take_delta(uint32_t lm, uint32_t gm) {
  return make_delta(lm, gm, true);
}
uint32_t MeghaSim::peek_delta(uint32_t lm, uint32_t gm) {
  return make_delta(lm, gm, false);
}

uint32_t MeghaSim::make_delta(uint32_t lm, uint32_t gm, bool take) {
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
  if (p_.quirks.update_lists) {
    // [busy words][(slot << 8 | available entries) for each slot with some]
    buf.resize(n);
    uint64_t* busy = went_busy_.data() + static_cast<size_t>(gm) * total_words_ + off;
    uint8_t* free_n = free_entries_.data() + static_cast<size_t>(gm) * total_words_ * 64;
    for (size_t i = 0; i < n; ++i) {
      buf[i] = busy[i];
      for (uint64_t bits = d[i]; bits; bits &= bits - 1) {
        const size_t slot = (off + i) * 64 + static_cast<size_t>(std::countr_zero(bits));
        if (free_n[slot] > 0) buf.push_back(uint64_t{slot} << 8 | free_n[slot]);
        if (take) free_n[slot] = 0;
      }
      if (take) busy[i] = d[i] = 0;
    }
    return id;
  }
  buf.resize(2 * n);  // [changed words][state words]; keeps capacity across reuse
  const uint64_t* tr = truth_.data() + off;
  for (size_t i = 0; i < n; ++i) {
    buf[i] = d[i];
    buf[n + i] = tr[i] & d[i];
    if (take) d[i] = 0;
  }
  return id;
}

void MeghaSim::apply_state(uint32_t gm, uint32_t lm, uint32_t delta) {
  if (!p_.quirks.update_lists) {
    freed_.clear();
    apply_delta(gm, lm, delta);
    offer_freed(gm);
    return;
  }
  if (delta == kNoDelta) return;
  // GM.update_status: partition by partition, the busy workers first, then each available
  // entry goes to the earliest waiting task it fits (the view bit is left as it is) or, with
  // none, sets the view bit.
  const size_t off = static_cast<size_t>(lm) * gms_ * words_;
  const std::vector<uint64_t>& buf = deltas_[delta];
  uint64_t* v = view(gm);
  size_t next = static_cast<size_t>(gms_) * words_;  // the first available entry
  for (uint32_t part = 0; part < gms_; ++part) {
    for (size_t w = 0; w < words_; ++w) {
      const size_t i = part * words_ + w;
      v[off + i] &= ~buf[i];
    }
    const size_t end_slot = (off + (part + 1) * words_) * 64;
    for (; next < buf.size() && (buf[next] >> 8) < end_slot; ++next) {
      const auto slot = static_cast<uint32_t>(buf[next] >> 8);
      for (uint64_t k = buf[next] & 0xff; k > 0; --k) {
        const int64_t t =
            waiting_[gm].empty() ? PendingTasks::kNone : waiting_[gm].take_for(mask_of(slot));
        if (t == PendingTasks::kNone) {
          set_bit(v, slot);
        } else {
          send_verify(static_cast<uint32_t>(t), slot);
        }
      }
    }
  }
  free_deltas_.push_back(delta);
}

uint32_t MeghaSim::rejection_state(uint32_t lm, uint32_t gm) {
  const uint32_t delta = take_delta(lm, gm);
  if (!p_.quirks.drop_rejection_state) return delta;
  if (delta != kNoDelta) free_deltas_.push_back(delta);  // taken (lost to gm), not sent
  return kLiveDelta;
}

uint32_t MeghaSim::delivered_state(uint32_t lm, uint32_t gm, uint32_t delta, uint32_t gen) {
  if (delta != kLiveDelta) return delta;
  // The dict the rejection holds is the LM's pending update for gm until a heartbeat replaces
  // it; what it holds then went out with that heartbeat (approximated: nothing here).
  if (beat_gen_[lm] != gen) return kNoDelta;
  return peek_delta(lm, gm);
}

void MeghaSim::release(uint32_t task, uint32_t slot) {
  set_bit(truth_.data(), slot);
  mark_changed(slot, gm_of(task), true);  // §4.4: not reported to the task's GM by updates
}

void MeghaSim::accept(uint32_t task, uint32_t slot) {
  const uint32_t gm = gm_of(task);
  clear_bit(truth_.data(), slot);
  mark_changed(slot, gm, false);
  // gm knows; see the header. (The published LM leaves gm's pending entries as they are.)
  if (!p_.quirks.update_lists) clear_bit(dirty(gm), slot);
  ++n_.launches;
  if (faults_) slot_task_[slot] = task;
  send(lm_id(lm_of(slot)), faults_ ? faults_->workers_of(lm_of(slot)) : 0, kLaunch, task, slot);
}

void MeghaSim::requeue_rejected(uint32_t gm, uint32_t task) {
  if (p_.retry_rejected && place(gm, task)) {
    ++n_.retries_placed;
  } else {
    waiting_[gm].push_front(task, w_.task_constraints[task]);
    ++n_.queued;
  }
}

// ------------------------------------------------- quirks.batched_verify

uint32_t MeghaSim::new_batch(uint32_t gm, uint32_t lm) {
  uint32_t id;
  if (!free_batches_.empty()) {
    id = free_batches_.back();
    free_batches_.pop_back();
  } else {
    id = static_cast<uint32_t>(batches_.size());
    batches_.emplace_back();
  }
  Batch& b = batches_[id];
  b.gm = gm;
  b.lm = lm;
  b.delta = kNoDelta;
  b.gen = 0;
  b.maps.clear();
  return id;
}

void MeghaSim::send_batch(uint32_t id) {
  ++n_.verify_batches;
  send(batches_[id].gm, lm_id(batches_[id].lm), kVerifyBatch, id, 0);
}

void MeghaSim::arrive_batched(uint32_t gm, uint32_t first_task, uint32_t num_tasks) {
  constexpr uint32_t kNone = 0xffffffffu;
  uint32_t open = kNone;  // the batch being filled
  for (uint32_t task = first_task; task < first_task + num_tasks; ++task) {
    if (!w_.runnable[task]) continue;
    const int64_t found = find_worker(gm, task);
    if (found < 0) {
      waiting_[gm].push_back(task, w_.task_constraints[task]);
      ++n_.queued;
      continue;
    }
    const auto slot = static_cast<uint32_t>(found);
    if (open != kNone && batches_[open].lm != lm_of(slot)) {  // another LM: the batch goes
      send_batch(open);
      open = kNone;
    }
    if (open == kNone) open = new_batch(gm, lm_of(slot));
    batches_[open].maps.emplace_back(task, slot);
    ++n_.verify_requests;
    if (batches_[open].maps.size() == kMaxBatch) {
      send_batch(open);
      open = kNone;
    }
  }
  if (open != kNone) send_batch(open);
}

void MeghaSim::verify_batch(uint32_t id) {
  Batch& b = batches_[id];
  size_t rejected = 0;  // rejected mappings are kept, in order, at the front
  for (const auto& [task, slot] : b.maps) {
    if (test_bit(truth_.data(), slot)) {
      accept(task, slot);
      continue;
    }
    ++n_.inconsistencies;
    if (group_of(slot) % gms_ == b.gm) ++n_.inconsistencies_internal;
    if (faults_ && slot_task_[slot] != kNoTask && gm_of(slot_task_[slot]) == b.gm)
      report_release_[slot] = 1;  // see on_verify
    b.maps[rejected++] = {task, slot};
  }
  b.maps.resize(rejected);
  if (rejected == 0) {
    free_batches_.push_back(id);
    return;
  }
  ++n_.reject_batches;
  b.delta = rejection_state(b.lm, b.gm);
  b.gen = beat_gen_[b.lm];
  send(lm_id(b.lm), b.gm, kRejectBatch, id, 0);
}

void MeghaSim::reject_batch(uint32_t id) {
  const uint32_t gm = batches_[id].gm, lm = batches_[id].lm;
  // BatchedInconsistencyEvent.run: every rejected task back at the head of the queue (each
  // inserted at index 0), then the state is applied and its freed workers offered.
  for (const auto& m : batches_[id].maps) clear_bit(view(gm), m.second);
  const uint32_t delta = delivered_state(lm, gm, batches_[id].delta, batches_[id].gen);
  if (p_.quirks.update_lists) {  // apply_state offers at once: the queue first
    for (const auto& m : batches_[id].maps) requeue_rejected(gm, m.first);
    apply_state(gm, lm, delta);
  } else {
    freed_.clear();
    apply_delta(gm, lm, delta);
    for (const auto& m : batches_[id].maps) requeue_rejected(gm, m.first);
    offer_freed(gm);
  }
  free_batches_.push_back(id);
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
  if (p_.quirks.batched_verify) {
    arrive_batched(gm, job.first_task, job.num_tasks);
    return;
  }
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
    case kJobArrival: on_job_arrival(e); break;
    case kJobSubmit: arrive(static_cast<uint32_t>(e.a)); break;
    case kVerify: on_verify(e); break;
    case kReject: on_reject(e); break;
    case kVerifyBatch: verify_batch(static_cast<uint32_t>(e.a)); break;
    case kRejectBatch: reject_batch(static_cast<uint32_t>(e.a)); break;
    case kLaunch: on_launch(e, now); break;
    case kTaskEnd: on_task_end(e, now); break;
    case kCompletion: on_completion(e, now); break;
    case kCompletionGm: on_completion_gm(e, now); break;
    case kRegister:  // at the LM: a restarted GM
      mark_all_changed(static_cast<uint32_t>(e.b), static_cast<uint32_t>(e.a));
      send_update_now(static_cast<uint32_t>(e.b), static_cast<uint32_t>(e.a));
      break;
    case kHeartbeat: on_heartbeat(e); break;
    case kStatusUpdate: {
      const uint32_t gm = hi32(e.b), lm = lo32(e.b);
      apply_state(gm, lm, static_cast<uint32_t>(e.a));
      break;
    }
    case kSample:
      rec_.sample(now, queued());
      if (!rec_.all_done()) loop_.after(p_.sample_interval, this, kSample);
      break;
  }
}

void MeghaSim::on_job_arrival(const sim::Event& e) {
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
}

void MeghaSim::on_verify(const sim::Event& e) {  // at the LM
  const auto task = static_cast<uint32_t>(e.a);
  const auto slot = static_cast<uint32_t>(e.b);
  const uint32_t gm = gm_of(task);
  if (test_bit(truth_.data(), slot)) {
    accept(task, slot);
  } else {
    ++n_.inconsistencies;
    const uint32_t grp = group_of(slot);
    if (grp % gms_ == gm) ++n_.inconsistencies_internal;
    const uint32_t delta = rejection_state(grp / gms_, gm);
    const uint64_t a = delta == kLiveDelta ? pack(beat_gen_[grp / gms_], task) : task;
    // With faults, gm may map a worker its own task still holds: the task's completion
    // reached gm before it reached this LM (two links). gm learns of the worker's release
    // from nobody then (§4.4 keeps it out of gm's deltas), so this LM reports it after all.
    if (faults_ && slot_task_[slot] != kNoTask && gm_of(slot_task_[slot]) == gm)
      report_release_[slot] = 1;
    send(lm_id(grp / gms_), gm, kReject, a, pack(delta, slot));
  }
}

void MeghaSim::on_reject(const sim::Event& e) {  // at the GM
  const uint32_t task = lo32(e.a);
  const uint32_t slot = lo32(e.b);
  const uint32_t gm = gm_of(task), lm = group_of(slot) / gms_;
  // The rejection says the worker is busy; the state it carries is as new or newer.
  clear_bit(view(gm), slot);
  const uint32_t delta = delivered_state(lm, gm, hi32(e.b), hi32(e.a));
  if (p_.quirks.update_lists) {  // apply_state offers at once: the queue first
    requeue_rejected(gm, task);
    apply_state(gm, lm, delta);
    return;
  }
  // The rejected task is the oldest: retry it on the refreshed view first, else it goes back
  // to the head of the queue; then the freed workers go to the queue.
  freed_.clear();
  apply_delta(gm, lm, delta);
  requeue_rejected(gm, task);
  offer_freed(gm);
}

void MeghaSim::on_launch(const sim::Event& e, sim::Time now) {  // at the worker
  const auto task = static_cast<uint32_t>(e.a);
  rec_.task_started(task, now);
  loop_.after(w_.trace->task_duration[task], this, kTaskEnd, task, e.b);
}

void MeghaSim::on_task_end(const sim::Event& e, sim::Time now) {
  rec_.task_ended(now);
  if (!faults_ && p_.quirks.lm_frees_at_task_end) {  // the LM at once, the GM one delay on
    release(static_cast<uint32_t>(e.a), static_cast<uint32_t>(e.b));
    loop_.after(p_.network_delay, this, kCompletionGm, e.a, e.b);
  } else if (!faults_) {
    loop_.after(p_.network_delay, this, kCompletion, e.a, e.b);
  } else {  // two messages, on two links
    const uint32_t lm = lm_of(static_cast<uint32_t>(e.b));
    send(faults_->workers_of(lm), lm_id(lm), kCompletion, e.a, e.b);
    send(faults_->workers_of(lm), gm_of(static_cast<uint32_t>(e.a)), kCompletionGm, e.a, e.b);
  }
}

void MeghaSim::on_completion(const sim::Event& e, sim::Time now) {
  const auto task = static_cast<uint32_t>(e.a);
  const auto slot = static_cast<uint32_t>(e.b);
  const uint32_t gm = gm_of(task);
  ++n_.completions;
  release(task, slot);
  if (faults_) {  // the LM's part only; the GM's is kCompletionGm
    slot_task_[slot] = kNoTask;
    if (report_release_[slot]) set_bit(dirty(gm), slot);  // see on_verify
    report_release_[slot] = 0;
    return;
  }
  rec_.task_reported(task_job_[task], now);
  offer(gm, slot);
}

void MeghaSim::on_completion_gm(const sim::Event& e, sim::Time now) {
  const auto task = static_cast<uint32_t>(e.a);
  if (!faults_) ++n_.completions;  // quirks.lm_frees_at_task_end
  rec_.task_reported(task_job_[task], now);
  offer(gm_of(task), static_cast<uint32_t>(e.b));
}

void MeghaSim::on_heartbeat(const sim::Event& e) {
  // LM e.a sends every GM its changes since the last update.
  const auto lm = static_cast<uint32_t>(e.a);
  ++beat_gen_[lm];  // the LM's pending dicts are replaced (quirks.drop_rejection_state)
  for (uint32_t g = 0; g < gms_ && !(faults_ && faults_->down(lm_id(lm))); ++g) {
    ++n_.status_updates;
    // An empty update changes nothing at the GM: counted, not simulated.
    const uint32_t delta = take_delta(lm, g);
    if (delta != kNoDelta) send(lm_id(lm), g, kStatusUpdate, delta, pack(g, lm));
  }
  if (!rec_.all_done()) loop_.after(next_beat(), this, kHeartbeat, lm);
}

// ---------------------------------------------------------------- faults

void MeghaSim::set_faults(Faults* f) {
  faults_ = f;
  // The fault paths (snapshots, two-link completions) keep our state deltas and timing.
  p_.quirks.update_lists = false;
  p_.quirks.lm_frees_at_task_end = false;
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
      to = gm_of(lo32(e.a));
      break;
    case kVerifyBatch:
      from = batches_[e.a].gm;
      to = lm_id(batches_[e.a].lm);
      break;
    case kRejectBatch:
      from = lm_id(batches_[e.a].lm);
      to = batches_[e.a].gm;
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
