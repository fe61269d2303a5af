#include "framework/scheduler.h"

#include <algorithm>

#include "core/error.h"

namespace orrery::fw {
namespace {

constexpr uint64_t kMaskPlugins = Scheduler::kMaskNoNodes - 1;

std::vector<uint16_t> filter_indices(const Profile& p) {
  std::vector<uint16_t> out;
  for (Plugin* f : p.filter) out.push_back(static_cast<uint16_t>(p.index_of(f)));
  return out;
}

}  // namespace

Scheduler::Scheduler(ClusterBackend& backend, std::vector<std::unique_ptr<Profile>> profiles,
                     SchedulerOptions options, Reservations* reservations)
    : backend_(backend),
      own_reservations_(reservations ? nullptr : std::make_unique<Reservations>()),
      reservations_(reservations ? reservations : own_reservations_.get()),
      profiles_(std::move(profiles)),
      options_(options),
      queue_(profiles_.empty() ? nullptr : profiles_[0]->queue_sort, options.queue),
      rng_(Rng::derive(options.seed, "scheduler")) {
  for (auto& p : profiles_) {
    // The profile's handle: its what-if services run here (a hand-built profile gets one).
    if (!p->handle) p->handle = std::make_unique<FrameworkRunner>(nullptr, p.get());
    p->handle->attach(*this);
    StrId name = intern(p->scheduler_name);
    if (profile_by_name_.count(name)) {
      throw InputError("two profiles named \"" + p->scheduler_name + "\"");
    }
    profile_by_name_[name] = p.get();
    filter_index_[p.get()] = filter_indices(*p);
  }
  queue_.set_hint_fn([this](const PodClassKey& key, uint64_t mask, const QueueEvent& event) {
    return hint(key, mask, event);
  });
  backend_.add_listener(this);
  reservations_->add_listener(this);
}

Scheduler::~Scheduler() {
  reservations_->remove_listener(this);
  backend_.remove_listener(this);
}

void Scheduler::on_released(const Reservation& r) {
  // A plan's or a capacity reservation ended: its room is free for the pods it blocked.
  queue_event(QueueEvent::kNominationCleared, r.node, kNoPod, r.priority, backend_.now_us());
}

Profile* Scheduler::profile_for(const Pod& pod) const {
  auto it = profile_by_name_.find(pod.spec->scheduler_name);
  return it == profile_by_name_.end() ? nullptr : it->second;
}

void Scheduler::enqueue_pending() {
  const ClusterState& st = backend_.state();
  for (PodId p : st.pods()) {
    const Pod& pod = st.pod(p);
    if (st.pod_node(p) != kNoNode || is_terminal(pod.phase) || !profile_for(pod)) continue;
    admit(p, st.pod_serial(p), pod.creation_us);
  }
}

PodClassKey Scheduler::class_key(PodId id, uint64_t serial) const {
  const ClusterState& st = backend_.state();
  const Pod& pod = st.pod(id);
  Profile* prof = profile_for(pod);
  if (!prof) return PodClassKey::unique(serial);
  PodClassKey k;
  k.spec = pod.spec.get();
  if (pod.ns != ns_cache_) {
    ns_cache_ = pod.ns;
    ns_cache_id_ = intern(pod.ns);
  }
  k.ns = ns_cache_id_;
  if (reservations_->nominated_node(serial) != kNoNode) k.nominated = serial;
  ClassPlugins& cp = class_plugins_[prof];
  const size_t count = prof->pre_filter.size() + prof->filter.size() + prof->post_filter.size();
  if (cp.count != count) {  // first use, or the profile changed
    cp.plugins.clear();
    for (const auto* list : {&prof->pre_filter, &prof->filter, &prof->post_filter}) {
      for (const Plugin* p : *list) {
        const auto idx = static_cast<uint16_t>(prof->index_of(p));
        if (std::none_of(cp.plugins.begin(), cp.plugins.end(),
                         [&](const auto& e) { return e.first == idx; })) {
          cp.plugins.emplace_back(idx, p);
        }
      }
    }
    std::sort(cp.plugins.begin(), cp.plugins.end());
    cp.count = count;
  }
  for (const auto& [idx, p] : cp.plugins) {
    const uint64_t salt = p->class_salt(st, id);
    if (salt == 0) continue;
    if (salt == Plugin::kUniqueClass || k.salt_plugin != 0) {  // a class of its own
      k.salt_plugin = PodClassKey::kUniqueSalt;
      k.salt = serial;
      return k;
    }
    k.salt_plugin = idx + 1u;
    k.salt = salt;
  }
  return k;
}

bool Scheduler::hint(const PodClassKey& key, uint64_t mask, const QueueEvent& event) const {
  if (mask & kMaskAny) return true;
  if ((mask & kMaskNoNodes) && event.kind == QueueEvent::kNodeAdded) return true;
  if (!key.spec) return true;
  auto it = profile_by_name_.find(key.spec->scheduler_name);
  if (it == profile_by_name_.end()) return true;
  const Profile& prof = *it->second;
  for (uint64_t m = mask & kMaskPlugins; m != 0; m &= m - 1) {
    const auto i = static_cast<size_t>(__builtin_ctzll(m));
    if (i >= prof.plugins.size() ||
        prof.plugins[i]->queueing_hint(event, backend_.state(), key) == QueueingHint::kQueue) {
      return true;
    }
  }
  return false;
}

void Scheduler::queue_event(QueueEvent::Kind kind, NodeId node, PodId pod, int32_t priority,
                            int64_t now_us) {
  queue_.on_event({kind, node, pod, priority}, now_us);
}

void Scheduler::drop_nomination(uint64_t serial) {
  const Reservation* r = reservations_->nomination(serial);
  if (!r) return;
  const Reservation n = *r;
  reservations_->clear_nomination(serial);
  const ClusterState& st = backend_.state();
  const int64_t now = backend_.now_us();
  if (queue_.contains(serial) && st.pod_alive(n.pod) && st.pod_serial(n.pod) == serial) {
    queue_.reclassify(serial, class_key(n.pod, serial), now);
  }
  queue_event(QueueEvent::kNominationCleared, n.node, kNoPod, n.priority, now);
}

bool Scheduler::has_ready_pod() {
  const int64_t now = backend_.now_us();
  if (queue_.active_size() > 0) return true;
  auto b = queue_.next_backoff_expiry();
  return b && *b <= now;
}

std::optional<int64_t> Scheduler::next_wakeup_us() {
  std::optional<int64_t> t = queue_.next_backoff_expiry();
  if (queue_.active_size() > 0) t = backend_.now_us();
  if (auto u = queue_.oldest_unschedulable_us()) {
    const int64_t flush = *u + queue_.options().max_unschedulable_us;
    if (!t || flush < *t) t = flush;
  }
  return t;
}

std::optional<ScheduleOutcome> Scheduler::schedule_next() {
  const int64_t now = backend_.now_us();
  queue_.flush_unschedulable_leftover(now);
  std::optional<QueuedPod> qp = queue_.pop(now);
  if (!qp) return std::nullopt;
  if (!qp->probe) return schedule_cycle(*qp);
  // A requeue-all probe: when it fails it leaves no trace, not even in the random stream or the
  // node rotation (a skipped retry in the hints mode changes neither).
  const Rng rng = rng_;
  const size_t start = next_start_node_index_;
  ScheduleOutcome o = schedule_cycle(*qp);
  if (!o.counted) {
    rng_ = rng;
    next_start_node_index_ = start;
  }
  return o;
}

std::vector<ScheduleOutcome> Scheduler::run_until_idle() {
  std::vector<ScheduleOutcome> out;
  while (auto o = schedule_next())
    if (o->counted) out.push_back(std::move(*o));
  return out;
}

size_t Scheduler::run_filters(Profile& prof, const CycleContext& cycle, NodeId* nodes, size_t n,
                              Rejections& rejections) {
  std::vector<uint16_t>& index = filter_index_[&prof];
  if (index.size() != prof.filter.size()) index = filter_indices(prof);  // profile changed
  for (size_t i = 0; i < prof.filter.size() && n > 0; ++i) {
    Plugin* p = prof.filter[i];
    if (!skipped_filters_.empty() &&
        std::find(skipped_filters_.begin(), skipped_filters_.end(), p) != skipped_filters_.end()) {
      continue;
    }
    rejections.set_current_plugin(index[i]);
    n = p->filter(cycle, nodes, n, rejections);
  }
  return n;
}

bool Scheduler::admit(PodId pod, uint64_t serial, int64_t timestamp_us) {
  const ClusterState& st = backend_.state();
  const Pod& p = st.pod(pod);
  Profile* prof = profile_for(p);
  if (!prof) return false;
  for (Plugin* pe : prof->pre_enqueue) {
    Status s = pe->pre_enqueue(st, pod);
    if (!s.is_ok()) {
      gated_[serial] = std::string(pe->name()) + ": " + s.message();
      return false;
    }
  }
  gated_.erase(serial);
  queue_.add({pod, serial, p.spec->priority, timestamp_us, 0, kNoNode}, class_key(pod, serial));
  return true;
}

const std::string* Scheduler::gated(uint64_t serial) const {
  auto it = gated_.find(serial);
  return it == gated_.end() ? nullptr : &it->second;
}

void Scheduler::on_pod_updated(const ClusterEvent& e) {
  const ClusterState& st = backend_.state();
  if (!st.pod_alive(e.pod) || st.pod_node(e.pod) != kNoNode) return;
  if (gated_.count(e.pod_serial)) {
    admit(e.pod, e.pod_serial, e.time_us);  // gates may be gone now
    return;
  }
  // The pod itself may now belong to another class (a new spec); and a change of labels may
  // matter to other pods' filters (spreading): an event the hints cannot judge.
  if (queue_.contains(e.pod_serial))
    queue_.reclassify(e.pod_serial, class_key(e.pod, e.pod_serial), e.time_us);
  queue_event(QueueEvent::kAll, kNoNode, e.pod, 0, e.time_us);
}

std::vector<NodeEvaluation> Scheduler::evaluate(PodId pod_id, bool details) {
  ClusterState& st = backend_.state();
  const Pod& pod = st.pod(pod_id);
  Profile* prof = profile_for(pod);
  if (!prof) {
    throw InputError("pod " + pod.key() + ": no profile for schedulerName \"" +
                     std::string(interned(pod.spec->scheduler_name)) + "\"");
  }
  CycleContext cycle{st, pod_id, pod, *pod.spec, backend_.now_us(), rng_};
  std::vector<NodeEvaluation> out;
  out.reserve(st.nodes().size());
  for (NodeId n : st.nodes()) out.push_back({n, true, {}, {}, 0, {}});
  std::string narrowed_reason;
  if (!evaluate_pre_filters(*prof, cycle, out, &narrowed_reason)) return out;
  const std::vector<NodeId> feasible = evaluate_filters(*prof, cycle, narrowed_reason, out);
  if (feasible.empty()) return out;
  std::span<const NodeId> nodes(feasible);
  std::string why;
  if (!run_pre_score(*prof, cycle, nodes, &why)) throw InputError("pod " + pod.key() + ": " + why);
  evaluate_scores(*prof, cycle, nodes, details, out);
  return out;
}

// evaluate()'s PreFilter: false when a plugin rejects the pod (every node then has its reasons);
// else the nodes a PreFilter result leaves out are infeasible, for *narrowed_reason.
bool Scheduler::evaluate_pre_filters(Profile& prof, const CycleContext& cycle,
                                     std::vector<NodeEvaluation>& out,
                                     std::string* narrowed_reason) {
  skipped_filters_.clear();
  std::vector<std::string> narrowed_by;
  for (Plugin* p : prof.pre_filter) {
    std::optional<std::vector<NodeId>> narrowed;
    Status s = p->pre_filter(cycle, &narrowed);
    if (s.is_skip()) {
      skipped_filters_.push_back(p);
      continue;
    }
    if (!s.is_ok()) {
      for (auto& e : out) {
        e.feasible = false;
        e.reasons = s.reasons;
      }
      return false;
    }
    if (narrowed) {
      narrowed_by.emplace_back(p->name());
      for (auto& e : out) {
        if (e.feasible &&
            std::find(narrowed->begin(), narrowed->end(), e.node) == narrowed->end()) {
          e.feasible = false;
        }
      }
    }
  }
  std::sort(narrowed_by.begin(), narrowed_by.end());
  std::string& reason = *narrowed_reason;
  for (const auto& nm : narrowed_by) reason += (reason.empty() ? "" : " ") + nm;
  reason = "node(s) didn't satisfy plugin(s) [" + reason + "]";
  return true;
}

// evaluate()'s Filter: every node PreFilter left in through the filters, recording why they reject
// it; the others get `narrowed_reason`. Returns the feasible nodes, in order.
std::vector<NodeId> Scheduler::evaluate_filters(Profile& prof, const CycleContext& cycle,
                                                const std::string& narrowed_reason,
                                                std::vector<NodeEvaluation>& out) {
  std::vector<NodeId> feasible;
  for (auto& e : out) {
    if (!e.feasible) {
      e.reasons = {narrowed_reason};
      continue;
    }
    NodeId one[1] = {e.node};
    scratch_rejections_.clear();
    if (run_filters(prof, cycle, one, 1, scratch_rejections_) == 1) {
      feasible.push_back(e.node);
      continue;
    }
    e.feasible = false;
    for (const Rejection& r : scratch_rejections_.items())
      prof.plugins[r.plugin]->describe(cycle.state, r, &e.reasons);
  }
  return feasible;
}

// evaluate()'s Score and NormalizeScore: each score plugin's normalized scores of the feasible
// `nodes` (0 when its PreScore skipped), added by weight to their totals, with details.
void Scheduler::evaluate_scores(Profile& prof, const CycleContext& cycle,
                                std::span<const NodeId> nodes, bool details,
                                std::vector<NodeEvaluation>& out) {
  std::vector<int64_t> scores(nodes.size());
  for (const WeightedPlugin& wp : prof.score) {
    const bool skipped = score_skipped(wp.plugin);
    std::vector<int64_t> raw(details ? nodes.size() : 0, 0);
    if (skipped) {
      std::fill(scores.begin(), scores.end(), 0);
    } else {
      wp.plugin->score(cycle, nodes, scores.data());
      if (details) raw = scores;
      wp.plugin->normalize(cycle, nodes, scores.data());
    }
    size_t i = 0;
    for (auto& e : out) {
      if (!e.feasible) continue;
      if (details) {
        e.scores.emplace_back(std::string(wp.plugin->name()), scores[i]);
        e.details.push_back(
            {std::string(wp.plugin->name()), raw[i], scores[i], wp.weight, skipped});
      }
      e.total += scores[i] * wp.weight;
      ++i;
    }
  }
}

ScheduleOutcome Scheduler::attempt(PodId pod_id) {
  const ClusterState& st = backend_.state();
  QueuedPod qp;
  qp.pod = pod_id;
  qp.serial = st.pod_serial(pod_id);
  qp.priority = st.pod(pod_id).spec->priority;
  qp.timestamp_us = backend_.now_us();
  queue_.remove(qp.serial);  // if enqueued: the cycle decides where it goes next
  return schedule_cycle(qp);
}

bool Scheduler::forget_in_flight(uint64_t serial) {
  for (size_t i = 0; i < in_flight_.size(); ++i) {
    if (in_flight_[i].serial == serial) {
      in_flight_[i] = in_flight_.back();
      in_flight_.pop_back();
      return true;
    }
  }
  return false;
}

void Scheduler::on_event(const ClusterEvent& e) {
  const ClusterState& st = backend_.state();
  const int64_t now = e.time_us;
  // Each cluster event becomes at most one queue event or more (QueueEvent): what changed for
  // the filters, so the queue's hints can tell which waiting pods it may help.
  switch (e.kind) {
    case EventKind::kPodAdded:
      if (st.pod_alive(e.pod) && st.pod_node(e.pod) == kNoNode) {
        const Pod& pod = st.pod(e.pod);
        if (!is_terminal(pod.phase)) admit(e.pod, e.pod_serial, now);
      } else if (st.pod_alive(e.pod) && !is_terminal(st.pod(e.pod).phase)) {
        queue_event(QueueEvent::kPodAssigned, st.pod_node(e.pod), e.pod,
                    st.pod(e.pod).spec->priority, now);
      }
      break;
    case EventKind::kPodBound: {
      const bool ours = forget_in_flight(e.pod_serial);
      queue_.remove(e.pod_serial);
      // Assumed by someone else until now (or bound without an assumption): new to our hints.
      if (!ours && st.pod_alive(e.pod) && st.pod_node(e.pod) != kNoNode) {
        queue_event(QueueEvent::kPodAssigned, st.pod_node(e.pod), e.pod,
                    st.pod(e.pod).spec->priority, now);
      }
      break;
    }
    case EventKind::kPodBindFailed: {
      int32_t priority = 0;
      for (const QueuedPod& qp : in_flight_) {
        if (qp.serial == e.pod_serial) {
          priority = qp.priority;
          queue_.add_backoff(qp, now, class_key(qp.pod, qp.serial));
          break;
        }
      }
      forget_in_flight(e.pod_serial);
      // The backend has unassigned the pod.
      queue_event(QueueEvent::kPodReleased, e.node, st.pod_alive(e.pod) ? e.pod : kNoPod, priority,
                  now);
      break;
    }
    case EventKind::kPodDeleted: {
      queue_.remove(e.pod_serial);
      gated_.erase(e.pod_serial);
      forget_in_flight(e.pod_serial);
      drop_nomination(e.pod_serial);
      // A pod that had finished released its resources then; a pending one held none.
      const bool counted = e.node != kNoNode && finished_.erase(e.pod_serial) == 0;
      queue_event(counted ? QueueEvent::kPodReleased : QueueEvent::kOther, e.node, kNoPod, 0, now);
      break;
    }
    case EventKind::kPodFinished: {
      finished_.insert(e.pod_serial);
      const bool alive = st.pod_alive(e.pod);
      queue_event(QueueEvent::kPodReleased, e.node, alive ? e.pod : kNoPod,
                  alive ? st.pod(e.pod).spec->priority : 0, now);
      break;
    }
    case EventKind::kNodeAdded: queue_event(QueueEvent::kNodeAdded, e.node, kNoPod, 0, now); break;
    case EventKind::kNodeUpdated:
      queue_event(QueueEvent::kNodeUpdated, e.node, kNoPod, 0, now);
      break;
    case EventKind::kNodeRemoved:
      for (uint64_t serial : reservations_->nominations_on(e.node)) drop_nomination(serial);
      reservations_->forget_node(e.node);
      queue_event(QueueEvent::kNodeRemoved, e.node, kNoPod, 0, now);
      break;
    case EventKind::kPodRunning: break;
    // Preemption reads which pods are terminating, and a refused deletion leaves its victim in
    // place: until their hints are worked out, both may help anyone (always safe).
    case EventKind::kPodTerminating:
    case EventKind::kPodDeleteFailed: queue_event(QueueEvent::kAll, e.node, e.pod, 0, now); break;
    case EventKind::kPodUpdated: on_pod_updated(e); break;
  }
  for (auto& prof : profiles_)
    for (auto& p : prof->plugins) p->on_event(e);
}

std::vector<ScheduleOutcome> schedule_snapshot(Scheduler& scheduler, SnapshotBackend& backend) {
  scheduler.enqueue_pending();
  std::vector<ScheduleOutcome> out;
  while (true) {
    if (auto o = scheduler.schedule_next()) {
      if (o->counted) out.push_back(std::move(*o));
      continue;
    }
    auto t = scheduler.queue().next_backoff_expiry();
    if (!t) break;
    backend.set_now_us(std::max(*t, backend.now_us()));
  }
  return out;
}

}  // namespace orrery::fw
