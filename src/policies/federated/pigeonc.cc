#include "policies/federated/pigeonc.h"

#include <algorithm>
#include <map>
#include <string>

namespace orrery::federated {

MasterChooser::MasterChooser(const WorkerGroups& clusters, CsCounting counting) {
  cs_.resize(clusters.groups());
  for (uint32_t i = 0; i < clusters.groups(); ++i) {
    std::map<ConstraintMask, uint32_t> counts;  // ordered: CS_i by ascending set
    for (uint32_t w = 0; w < clusters.group_size(); ++w) {
      const ConstraintMask m = clusters.worker_mask(i, w);
      if (counting == CsCounting::kPaper) {
        ++counts[m];
        continue;
      }
      bool merged = false;  // kReference: worker order matters, as in the reference
      for (auto& [set, count] : counts)
        if ((m & set) == m) {
          ++count;
          merged = true;
        }
      if (!merged) counts[m] = 1;
    }
    cs_[i].assign(counts.begin(), counts.end());
  }
  with_.resize(std::max<uint32_t>(1, clusters.constraints()));
  for (uint32_t i = 0; i < cs_.size(); ++i)
    for (const auto& [set, count] : cs_[i]) {
      entries_.push_back({set, count, i});
      for_each_constraint(set, [&](uint32_t k) { with_[k].push_back(entries_.back()); });
    }
}

uint64_t MasterChooser::weight(uint32_t i, ConstraintMask task) const {
  uint64_t n = 0;
  for (const auto& [set, count] : cs_[i])
    if ((set & task) == task) n += count;  // C_T ⊆ X
  return n;
}

// count_i for every Master at once. Only CS entries containing the task's rarest constraint can
// contain the task's set, so only those are scanned (tasks with several constraints — most of
// the distinct sets — then touch a small fraction of the entries).
MasterChooser::Range MasterChooser::cumulative(ConstraintMask task) {
  auto [it, inserted] = cache_.try_emplace(task, Range{cum_.size(), 0});
  if (!inserted) return it->second;
  const auto masters = static_cast<uint32_t>(cs_.size());
  scratch_.assign(masters, 0);
  auto add = [&](const Entry& e) {
    if ((e.set & task) == task) scratch_[e.master] += e.count;
  };
  const bool known = with_.size() >= kMaxConstraints || (task >> with_.size()) == 0;
  if (task == 0) {
    for (const Entry& e : entries_) add(e);
  } else if (known) {  // else: an id no machine has, so no Master can run it
    const std::vector<Entry>* list = nullptr;
    for_each_constraint(task, [&](uint32_t k) {
      if (!list || with_[k].size() < list->size()) list = &with_[k];
    });
    for (const Entry& e : *list) add(e);
  }
  uint64_t total = 0;
  for (uint32_t m = 0; m < masters; ++m) {
    if (!scratch_[m]) continue;
    total += scratch_[m];
    cum_.push_back({static_cast<uint32_t>(total), m});
  }
  it->second.size = cum_.size() - it->second.offset;
  return it->second;
}

int32_t MasterChooser::choose(ConstraintMask task, Rng& rng) {
  const Range r = cumulative(task);
  if (r.size == 0) return -1;
  const Cum* first = cum_.data() + r.offset;
  const Cum* last = first + r.size;
  const auto x = static_cast<uint32_t>(rng.below(last[-1].cum));
  return static_cast<int32_t>(
      std::upper_bound(first, last, x, [](uint32_t v, const Cum& c) { return v < c.cum; })->master);
}

void FairQueue::push(uint32_t task, ConstraintMask constraints, bool short_job) {
  (short_job ? short_ : long_).push_back(task, constraints);
}

int64_t FairQueue::take_for(ConstraintMask worker) {
  const auto shorts = static_cast<double>(shorts_since_long_);
  const bool long_turn = !long_.empty() && (le_ ? shorts > fqw_ : shorts >= fqw_);
  if (!long_turn && !short_.empty()) {
    const int64_t t = short_.take_for(worker);
    if (t != PendingTasks::kNone) {
      ++shorts_since_long_;
      return t;
    }
  }
  if (!long_.empty()) {
    const int64_t t = long_.take_for(worker);
    if (t != PendingTasks::kNone) {
      shorts_since_long_ = 0;
      return t;
    }
  }
  if (long_turn && !short_.empty()) {  // no long task fits this worker
    const int64_t t = short_.take_for(worker);
    if (t != PendingTasks::kNone) {
      ++shorts_since_long_;
      return t;
    }
  }
  return PendingTasks::kNone;
}

PigeonCSim::PigeonCSim(sim::EventLoop& loop, const Workload& w, const ClusterConfig& c,
                       const SimParams& p, Recorder& rec, double cutoff_s, CsCounting counting)
    : loop_(loop),
      w_(w),
      c_(c),
      p_(p),
      rec_(rec),
      matcher_(c.groups),
      chooser_(c.groups, counting),
      masters_(c.groups.groups()),
      distributors_(std::max<uint32_t>(1, c.num_distributors)),
      words_(c.groups.words()),
      stride_(static_cast<uint32_t>(c.groups.words() * 64)) {
  if (p_.heartbeat <= 0) p_.heartbeat = kPigeonHeartbeat;
  const sim::Trace& t = *w.trace;
  task_job_.resize(t.task_count());
  job_short_.resize(t.jobs.size());
  for (uint32_t j = 0; j < t.jobs.size(); ++j) {
    std::fill_n(task_job_.begin() + t.jobs[j].first_task, t.jobs[j].num_tasks, j);
    job_short_[j] = t.jobs[j].mean_task_duration_s < cutoff_s;
  }
  avail_.resize(static_cast<size_t>(masters_) * words_);
  for (uint32_t m = 0; m < masters_; ++m)
    std::copy_n(c.groups.full(), words_, avail_.begin() + static_cast<ptrdiff_t>(m * words_));
  queues_.assign(masters_, FairQueue(c.fqw, p_.quirks.fair_queue_le));
  for (uint32_t m = 0; m < masters_; ++m)
    master_rng_.push_back(Rng::derive(p_.seed, "pigeonc/master/" + std::to_string(m)));
  for (uint32_t d = 0; d < distributors_; ++d)
    dist_rng_.push_back(Rng::derive(p_.seed, "pigeonc/distributor/" + std::to_string(d)));
  idle_count_.assign(masters_, c.groups.group_size());
  idle_seen_.assign(static_cast<size_t>(distributors_) * masters_, c.groups.group_size());
}

size_t PigeonCSim::queued() const {
  size_t n = 0;
  for (const FairQueue& q : queues_) n += q.size();
  return n;
}

void PigeonCSim::start() {
  if (w_.arrival_order.empty()) return;
  const sim::Time first = w_.trace->jobs[w_.arrival_order[0]].arrival;
  // One tick per period sends every Master's report (nothing depends on their phases: the
  // Distributors only record them).
  Rng phase = Rng::derive(p_.seed, "pigeonc/heartbeat-phase");
  const sim::Time offset =
      p_.aligned_heartbeats ? 0 : static_cast<sim::Time>(phase.below(p_.heartbeat));
  loop_.at(first + offset, this, kHeartbeat);
  loop_.at(first, this, kSample);
  loop_.at(first, this, kJobArrival, 0);
}

void PigeonCSim::free_worker(uint32_t master, uint32_t slot) {
  const uint32_t i = slot - master * stride_;
  const int64_t t = queues_[master].size()
                        ? queues_[master].take_for(c_.groups.worker_mask(master, i))
                        : PendingTasks::kNone;
  if (t == PendingTasks::kNone) {
    set_bit(avail_.data(), slot);
    ++idle_count_[master];
    return;
  }
  ++n_.launches;
  if (faults_) task_state_[static_cast<size_t>(t)] = kLaunched;
  send(master_id(master), faults_ ? faults_->workers_of(master) : 0, kLaunch,
       static_cast<uint64_t>(t), slot);
}

void PigeonCSim::arrive(uint32_t j) {
  const sim::TraceJob& job = w_.trace->jobs[j];
  rec_.job_arrived(j);
  const uint32_t d = j % distributors_;
  Rng& rng = dist_rng_[d];
  for (uint32_t i = 0; i < job.num_tasks; ++i) {
    const uint32_t task = job.first_task + i;
    if (!w_.runnable[task]) continue;
    const int32_t m = chooser_.choose(w_.task_constraints[task], rng);
    ++n_.tasks_to_masters;
    if (faults_) task_master_[task] = static_cast<uint32_t>(m);
    send(d, master_id(static_cast<uint32_t>(m)), kToMaster, task, static_cast<uint64_t>(m));
  }
}

void PigeonCSim::handle(const sim::Event& e) {
  const sim::Time now = loop_.now();
  if (faults_ && held(e)) return;
  switch (e.kind) {
    case kJobArrival: on_job_arrival(e); break;
    case kJobSubmit: arrive(static_cast<uint32_t>(e.a)); break;
    case kToMaster: on_to_master(e); break;
    case kLaunch: on_launch(e, now); break;
    case kTaskEnd: on_task_end(e, now); break;
    case kCompletion: on_completion(e, now); break;
    case kCompletionDist:
      task_reported_[e.a] = 1;
      rec_.task_reported(task_job_[static_cast<uint32_t>(e.a)], now);
      break;
    case kMasterUp: on_master_up(e); break;
    case kHeartbeat: on_heartbeat(); break;
    case kMasterReport: on_master_report(); break;
    case kSample:
      rec_.sample(now, queued());
      if (!rec_.all_done()) loop_.after(p_.sample_interval, this, kSample);
      break;
  }
}

void PigeonCSim::on_job_arrival(const sim::Event& e) {  // at a Distributor
  const sim::Trace& t = *w_.trace;
  const size_t pos = e.a;
  const uint32_t j = w_.arrival_order[pos];
  if (faults_ && faults_->down(j % distributors_)) {  // resubmitted when it is back
    loop_.at(faults_->up_at(j % distributors_), this, kJobSubmit, j);
  } else {
    arrive(j);
  }
  if (pos + 1 < w_.arrival_order.size())
    loop_.at(t.jobs[w_.arrival_order[pos + 1]].arrival, this, kJobArrival, pos + 1);
}

void PigeonCSim::on_to_master(const sim::Event& e) {
  const auto task = static_cast<uint32_t>(e.a);
  const auto m = static_cast<uint32_t>(e.b);
  if (faults_) {
    if (task_state_[task] != kUnknown) {  // sent again after a restart, and known
      ++duplicates_;
      return;
    }
    task_state_[task] = kQueued;  // kLaunched below or when a worker is freed for it
  }
  uint64_t* avail = avail_.data() + static_cast<size_t>(m) * words_;
  const Pick pick = p_.quirks.master_picks_min ? Pick::kMinConstraints : p_.pick;
  const int32_t i = matcher_.match(m, avail, w_.task_constraints[task], pick, master_rng_[m]);
  if (i >= 0) {
    clear_bit(avail, static_cast<size_t>(i));
    --idle_count_[m];
    ++n_.launches;
    if (faults_) task_state_[task] = kLaunched;
    send(master_id(m), faults_ ? faults_->workers_of(m) : 0, kLaunch, task,
         m * stride_ + static_cast<uint32_t>(i));
  } else {
    const bool is_short = job_short_[task_job_[task]];
    queues_[m].push(task, w_.task_constraints[task], is_short);
    ++(is_short ? n_.queued_short : n_.queued_long);
  }
}

void PigeonCSim::on_launch(const sim::Event& e, sim::Time now) {
  const auto task = static_cast<uint32_t>(e.a);
  rec_.task_started(task, now);
  loop_.after(w_.trace->task_duration[task], this, kTaskEnd, task, e.b);
}

void PigeonCSim::on_task_end(const sim::Event& e, sim::Time now) {
  rec_.task_ended(now);
  if (!faults_) {
    loop_.after(p_.network_delay, this, kCompletion, e.a, e.b);
  } else {  // two messages, on two links
    const uint32_t m = static_cast<uint32_t>(e.b) / stride_;
    send(faults_->workers_of(m), master_id(m), kCompletion, e.a, e.b);
    send(faults_->workers_of(m), distributor_of(static_cast<uint32_t>(e.a)), kCompletionDist, e.a,
         e.b);
  }
}

void PigeonCSim::on_completion(const sim::Event& e, sim::Time now) {
  // Reaches the Master and the job's Distributor.
  const auto task = static_cast<uint32_t>(e.a);
  const auto slot = static_cast<uint32_t>(e.b);
  ++n_.completions;
  free_worker(slot / stride_, slot);
  if (!faults_) rec_.task_reported(task_job_[task], now);  // else: kCompletionDist
}

void PigeonCSim::on_master_up(const sim::Event& e) {
  // At Distributor e.b: send Master e.a its unfinished tasks again.
  const auto m = static_cast<uint32_t>(e.a), d = static_cast<uint32_t>(e.b);
  for (uint32_t t = 0; t < task_master_.size(); ++t) {
    if (task_master_[t] != m || task_reported_[t] || distributor_of(t) != d) continue;
    ++resent_;
    send(d, master_id(m), kToMaster, t, m);
  }
}

void PigeonCSim::on_heartbeat() {  // every Master reports its idle workers to every Distributor
  n_.heartbeats += static_cast<uint64_t>(masters_) * distributors_;
  in_flight_ = idle_count_;
  loop_.after(p_.network_delay, this, kMasterReport);
  if (!rec_.all_done()) loop_.after(p_.heartbeat, this, kHeartbeat);
}

void PigeonCSim::on_master_report() {
  for (uint32_t d = 0; d < distributors_; ++d)
    if (!faults_ || !faults_->down(d))
      std::copy(in_flight_.begin(), in_flight_.end(),
                idle_seen_.begin() + static_cast<ptrdiff_t>(d) * masters_);
}

// ---------------------------------------------------------------- faults

bool PigeonCSim::held(const sim::Event& e) {
  uint32_t from = 0, to = 0;
  switch (e.kind) {
    case kToMaster:
      from = distributor_of(static_cast<uint32_t>(e.a));
      to = master_id(static_cast<uint32_t>(e.b));
      break;
    case kCompletion:
      from = faults_->workers_of(static_cast<uint32_t>(e.b) / stride_);
      to = master_id(static_cast<uint32_t>(e.b) / stride_);
      break;
    case kCompletionDist:
      from = faults_->workers_of(static_cast<uint32_t>(e.b) / stride_);
      to = distributor_of(static_cast<uint32_t>(e.a));
      break;
    case kJobSubmit: from = to = static_cast<uint32_t>(e.a % distributors_); break;
    case kMasterUp:
      from = master_id(static_cast<uint32_t>(e.a));
      to = static_cast<uint32_t>(e.b);
      break;
    default: return false;  // timers, launches, task ends, the reports' tick
  }
  const sim::Time until = faults_->held_until(from, to);
  if (until < 0) return false;
  loop_.at(until, this, e.kind, e.a, e.b);
  return true;
}

void PigeonCSim::set_faults(Faults* f) {
  faults_ = f;
  task_master_.assign(task_job_.size(), 0xffffffffu);
  task_state_.assign(task_job_.size(), kUnknown);
  task_reported_.assign(task_job_.size(), 0);
}

void PigeonCSim::on_crash(uint32_t component) {
  if (component < distributors_) return;         // see on_restart
  const uint32_t m = component - distributors_;  // its queues are gone
  queues_[m] = FairQueue(c_.fqw);
  for (uint32_t t = 0; t < task_master_.size(); ++t)
    if (task_master_[t] == m && task_state_[t] == kQueued) task_state_[t] = kUnknown;
}

void PigeonCSim::on_restart(uint32_t component) {
  if (component < distributors_) {  // its table of the Masters' reports is gone
    std::fill_n(idle_seen_.begin() + static_cast<ptrdiff_t>(component) * masters_, masters_, 0u);
    return;
  }
  const uint32_t m = component - distributors_;
  for (uint32_t d = 0; d < distributors_; ++d) send(component, d, kMasterUp, m, d);
}

}  // namespace orrery::federated
