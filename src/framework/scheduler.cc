#include "framework/scheduler.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/error.h"

namespace orrery::fw {
namespace {

constexpr int kMinFeasibleNodesToFind = 100;
constexpr int kMinFeasibleNodesPercentageToFind = 5;
constexpr size_t kFilterChunk = 256;

// Adds w × one plugin's normalized scores to the totals (the first plugin sets them) and returns
// whether every score was within [kMinNodeScore, kMaxNodeScore]. Also finds the top total and
// how many nodes have it, for host selection (the last plugin's figures are the final ones).
// The range check is branch-free: s is in [0, 100] exactly when neither s nor s + 2^63 - 101 has
// its top bit set.
template <bool kFirst>
bool add_weighted(const int64_t* ps, int64_t w, int64_t* tot, size_t n, int64_t* top,
                  uint64_t* ties) {
  static_assert(kMinNodeScore == 0);
  constexpr uint64_t kBias = (uint64_t{1} << 63) - static_cast<uint64_t>(kMaxNodeScore + 1);
  uint64_t bad = 0;
  int64_t best = std::numeric_limits<int64_t>::min();
  uint64_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t s = static_cast<uint64_t>(ps[i]);
    bad |= s | (s + kBias);
    const int64_t v = static_cast<int64_t>((kFirst ? 0 : static_cast<uint64_t>(tot[i])) +
                                           s * static_cast<uint64_t>(w));
    tot[i] = v;
    if (v > best) {
      best = v;
      count = 0;
    }
    count += v == best;
  }
  *top = best;
  *ties = count;
  return (bad >> 63) == 0;
}

[[noreturn]] void out_of_range(const Plugin& p, int64_t score) {
  throw std::logic_error("plugin " + std::string(p.name()) + " returned score " +
                         std::to_string(score) + " out of [0, 100]");
}

constexpr uint64_t kMaskPlugins = Scheduler::kMaskNoNodes - 1;

uint64_t plugin_bit(size_t index) {
  return index < 62 ? uint64_t{1} << index : Scheduler::kMaskAny;
}

std::vector<uint16_t> filter_indices(const Profile& p) {
  std::vector<uint16_t> out;
  for (Plugin* f : p.filter) out.push_back(static_cast<uint16_t>(p.index_of(f)));
  return out;
}

}  // namespace

// What-if services for PostFilter plugins.
class Scheduler::Handle : public FrameworkHandle {
 public:
  Handle(Scheduler& s, Profile& p) : s_(s), p_(p) {}
  ClusterState& mutable_state() override { return s_.backend_.state(); }
  bool passes_filters(const CycleContext& cycle, NodeId node,
                      std::vector<std::string>* reasons) override {
    Reservations::Applied held;
    ClusterState& st = s_.backend_.state();
    s_.reservations_->apply(st, st.pod_serial(cycle.pod_id), cycle.spec.priority, node, &held);
    NodeId one[1] = {node};
    scratch_.clear();
    const bool ok = s_.run_filters(p_, cycle, one, 1, scratch_) == 1;
    Reservations::release(st, held);
    if (!ok && reasons) {
      reasons->clear();
      for (const Rejection& r : scratch_.items())
        p_.plugins[r.plugin]->describe(cycle.state, r, reasons);
    }
    return ok;
  }
  void removed_pod(const CycleContext& cycle, PodId pod, NodeId node) override {
    for (Plugin* pl : p_.pre_filter) pl->pre_filter_remove_pod(cycle, pod, node);
  }
  void added_pod(const CycleContext& cycle, PodId pod, NodeId node) override {
    for (Plugin* pl : p_.pre_filter) pl->pre_filter_add_pod(cycle, pod, node);
  }
  ClusterBackend& backend() override { return s_.backend_; }

 private:
  Scheduler& s_;
  Profile& p_;
  Rejections scratch_;
};

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

int Scheduler::num_feasible_nodes_to_find(const Profile& prof, int num_all_nodes) const {
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  int percentage = prof.percentage_of_nodes_to_score >= 0 ? prof.percentage_of_nodes_to_score
                                                          : options_.percentage_of_nodes_to_score;
  if (percentage <= 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  if (percentage >= 100) return num_all_nodes;
  const int n = static_cast<int>(static_cast<int64_t>(num_all_nodes) * percentage / 100);
  return n < kMinFeasibleNodesToFind ? kMinFeasibleNodesToFind : n;
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

size_t Scheduler::find_feasible(Profile& prof, const CycleContext& cycle,
                                const std::optional<std::vector<NodeId>>& only,
                                Rejections& rejections, int* evaluated) {
  const std::vector<NodeId>& all = only ? *only : node_order_.get(backend_.state());
  const size_t num_nodes = all.size();
  feasible_.clear();
  *evaluated = 0;
  if (num_nodes == 0) return 0;
  const size_t to_find =
      static_cast<size_t>(num_feasible_nodes_to_find(prof, static_cast<int>(num_nodes)));
  const size_t start = next_start_node_index_ % num_nodes;
  size_t pos = 0;        // nodes taken from the rotation so far
  size_t processed = 0;  // nodes examined until the last needed feasible node
  // Each chunk is copied to the end of feasible_ and filtered there, so the nodes it keeps are
  // already in place.
  while (pos < num_nodes && feasible_.size() < to_find) {
    const size_t c = std::min(kFilterChunk, num_nodes - pos);
    size_t from = start + pos;
    if (from >= num_nodes) from -= num_nodes;
    const size_t base = feasible_.size();
    feasible_.resize(base + c);
    NodeId* chunk = feasible_.data() + base;
    const size_t first = std::min(c, num_nodes - from);  // up to the end of the rotation
    std::copy_n(all.data() + from, first, chunk);
    std::copy_n(all.data(), c - first, chunk + first);
    const size_t kept = run_filters(prof, cycle, chunk, c, rejections);
    const size_t need = to_find - base;
    if (kept >= need) {
      // The need-th kept node ends this search; find how far into the chunk it was (at least
      // need - 1 nodes came before it).
      const NodeId last = chunk[need - 1];
      size_t j = need - 1;
      for (size_t k = from + j; all[k < num_nodes ? k : k - num_nodes] != last; ++j, ++k) {
      }
      feasible_.resize(base + need);
      processed = pos + j + 1;
      pos += c;
      break;
    }
    feasible_.resize(base + kept);
    pos += c;
    processed = pos;
  }
  // Upstream advances nextStartNodeIndex modulo the number of all nodes, even when a PreFilter
  // narrowed the candidates.
  const size_t all_nodes = backend_.state().node_count();
  next_start_node_index_ = all_nodes ? (next_start_node_index_ + processed) % all_nodes : 0;
  *evaluated = static_cast<int>(processed);
  return feasible_.size();
}

bool Scheduler::run_pre_score(Profile& prof, const CycleContext& cycle,
                              std::span<const NodeId> nodes, std::string* why) {
  prescore_skipped_.clear();
  for (Plugin* p : prof.pre_score) {
    Status s = p->pre_score(cycle, nodes);
    if (s.is_skip()) {
      prescore_skipped_.push_back(p);
    } else if (!s.is_ok()) {
      *why = "running PreScore plugin \"" + std::string(p->name()) + "\": " + s.message();
      return false;
    }
  }
  return true;
}

bool Scheduler::score_skipped(const Plugin* p) const {
  return std::find(prescore_skipped_.begin(), prescore_skipped_.end(), p) !=
         prescore_skipped_.end();
}

void Scheduler::refresh_name_rank() {
  const ClusterState& st = backend_.state();
  if (name_rank_epoch_ == st.node_epoch()) return;
  std::vector<NodeId> order = st.nodes();
  std::sort(order.begin(), order.end(),
            [&](NodeId a, NodeId b) { return st.node(a).name < st.node(b).name; });
  name_rank_.assign(st.node_slots(), ~uint32_t{0});
  for (size_t i = 0; i < order.size(); ++i) name_rank_[order[i]] = static_cast<uint32_t>(i);
  name_rank_epoch_ = st.node_epoch();
}

ScoreMargin Scheduler::margin_of(size_t n, NodeId chosen, int64_t uniform_total,
                                 size_t plugins) const {
  size_t w = 0;
  while (feasible_[w] != chosen) ++w;
  size_t r = w == 0 ? 1 : 0;
  for (size_t i = 0; i < n; ++i)
    if (i != w && totals_[i] > totals_[r]) r = i;
  ScoreMargin m;
  m.winner_total = totals_[w] + uniform_total;
  m.runner_up_total = totals_[r] + uniform_total;
  m.runner_up = feasible_[r];
  for (size_t p = 0; p < plugins; ++p) {
    const std::vector<int64_t>& s = margin_scores_[p].scores;
    const int64_t gain = s[w] - s[r];
    if (gain > m.top_plugin_gain) {
      m.top_plugin_gain = gain;
      m.top_plugin = margin_scores_[p].plugin;
    }
  }
  return m;
}

NodeId Scheduler::select_host(const Profile& prof, size_t n, int64_t top, uint64_t ties) {
  if (prof.deterministic_ties) {
    refresh_name_rank();
    size_t best = 0;
    for (size_t i = 1; i < n; ++i) {
      if (totals_[i] > totals_[best] ||
          (totals_[i] == totals_[best] && name_rank_[feasible_[i]] < name_rank_[feasible_[best]])) {
        best = i;
      }
    }
    return feasible_[best];
  }
  // Uniform among the top-scored nodes, as upstream's reservoir sampling in selectHost, but with
  // one draw: pick one of the ties, find it.
  uint64_t pick = ties > 1 ? rng_.below(ties) : 0;
  if (ties == n) return feasible_[pick];  // every node is a top node
  const int64_t* tot = totals_.data();
  for (size_t i = 0; i < n; ++i) {
    if (tot[i] == top && pick-- == 0) return feasible_[i];
  }
  throw std::logic_error("select_host: top score not found");
}

void Scheduler::describe(const Profile& prof, const Rejections& rejections, Diagnosis* diag) const {
  std::vector<std::string> reasons;
  for (const Rejection& r : rejections.items()) {
    reasons.clear();
    prof.plugins[r.plugin]->describe(backend_.state(), r, &reasons);
    for (const std::string& s : reasons) diag->reason_counts[s]++;
  }
}

bool Scheduler::bind_cycle(Profile& prof, const CycleContext& cycle, NodeId node,
                           std::string* why) {
  ClusterState& st = backend_.state();
  st.assign(cycle.pod_id, node);  // assume
  auto fail = [&](size_t reserved, const Status& s) {
    for (size_t i = reserved; i-- > 0;) prof.reserve[i]->unreserve(cycle, node);
    st.unassign(cycle.pod_id);
    *why = s.plugin + ": " + s.message();
    return false;
  };
  for (size_t i = 0; i < prof.reserve.size(); ++i) {
    Status s = prof.reserve[i]->reserve(cycle, node);
    if (!s.is_ok()) {
      prof.reserve[i]->unreserve(cycle, node);
      return fail(i, s);
    }
  }
  for (Plugin* p : prof.permit) {
    Status s = p->permit(cycle, node);
    if (!s.is_ok()) return fail(prof.reserve.size(), s);
  }
  if (!prof.mutate.empty() && !mutate(prof, cycle, node, why)) {
    for (size_t i = prof.reserve.size(); i-- > 0;) prof.reserve[i]->unreserve(cycle, node);
    if (st.pod_alive(cycle.pod_id) && st.pod_node(cycle.pod_id) == node) st.unassign(cycle.pod_id);
    return false;
  }
  // PreBind and later see the pod as it is now (a Mutate plugin may have given it a new spec).
  const CycleContext now{cycle.state,  cycle.pod_id, cycle.pod,           *cycle.pod.spec,
                         cycle.now_us, cycle.rng,    cycle.nominated_node};
  for (Plugin* p : prof.pre_bind) {
    Status s = p->pre_bind(now, node);
    if (!s.is_ok()) return fail(prof.reserve.size(), s);
  }
  bool bound = false;
  for (Plugin* p : prof.bind) {
    Status s = p->bind(now, node, backend_);
    if (s.is_skip()) continue;
    if (!s.is_ok()) return fail(prof.reserve.size(), s);
    bound = true;
    break;
  }
  if (!bound) backend_.bind(cycle.pod_id, node);
  for (Plugin* p : prof.post_bind) p->post_bind(now, node);
  return true;
}

bool Scheduler::mutate(Profile& prof, const CycleContext& cycle, NodeId node, std::string* why) {
  // The cycle's context refers to the spec the pod had when the cycle started: keep it alive
  // until the next mutation, as the pod gets a new one (the rest of the cycle may still read it).
  mutated_from_ = backend_.state().pod(cycle.pod_id).spec;
  for (Plugin* p : prof.mutate) {
    std::optional<PodUpdate> u = p->mutate(cycle, node);
    if (!u) continue;
    if (!backend_.update_pod(cycle.pod_id, *u)) {
      *why = std::string(p->name()) + ": the pod is re-created with the change";
      return false;
    }
    ++mutations_;
  }
  return true;
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

ScheduleOutcome Scheduler::schedule_cycle(QueuedPod qp) {
  const auto t0 = std::chrono::steady_clock::now();
  ClusterState& st = backend_.state();
  ScheduleOutcome out;
  out.pod = qp.pod;
  out.serial = qp.serial;
  auto finish = [&]() -> ScheduleOutcome {
    out.wall_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    return out;
  };
  // A failed probe: nothing happened (framework/queue.h).
  auto probe_failed = [&]() -> ScheduleOutcome {
    queue_.restore_probe(qp.serial);
    out.message.clear();
    out.counted = false;
    return finish();
  };
  if (!st.pod_alive(qp.pod) || st.pod_serial(qp.pod) != qp.serial ||
      st.pod_node(qp.pod) != kNoNode) {
    out.message = "pod no longer pending";
    if (qp.probe) {
      queue_.remove(qp.serial);
      out.counted = false;
    }
    return finish();
  }
  const Pod& pod = st.pod(qp.pod);
  Profile* prof = profile_for(pod);
  if (!prof) {
    out.message = "no profile for schedulerName " + std::string(interned(pod.spec->scheduler_name));
    if (qp.probe) {
      queue_.remove(qp.serial);
      out.counted = false;
    }
    return finish();
  }
  if (pod.terminating) {
    // Upstream skipPodSchedule: a pod being deleted is dropped from the queue, not scheduled.
    out.message = "skip schedule deleting pod: " + pod.key();
    if (qp.probe) {
      queue_.remove(qp.serial);
      out.counted = false;
    }
    return finish();
  }
  if (st.node_count() == 0) {
    if (qp.probe) return probe_failed();
    out.message = "no nodes available to schedule pods";  // upstream ErrNoNodesAvailable
    queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), kMaskNoNodes);
    return finish();
  }
  NodeId nominated = reservations_->nominated_node(qp.serial);
  if (nominated != kNoNode && !st.node_alive(nominated)) nominated = kNoNode;
  CycleContext cycle{st, qp.pod, pod, *pod.spec, backend_.now_us(), rng_, nominated};
  rejections_.clear();

  // PreFilter.
  std::optional<std::vector<NodeId>> only;
  std::vector<std::string> narrowed_by;
  uint64_t mask = 0;  // the plugins that rejected the pod, for the queue's hints
  skipped_filters_.clear();
  Status pre_status;
  for (Plugin* p : prof->pre_filter) {
    std::optional<std::vector<NodeId>> narrowed;
    Status s = p->pre_filter(cycle, &narrowed);
    if (s.is_skip()) {
      skipped_filters_.push_back(p);  // its Filter is skipped for this pod
      continue;
    }
    if (!s.is_ok()) {
      if (s.plugin.empty()) s.plugin = std::string(p->name());
      pre_status = s;
      mask |= plugin_bit(prof->index_of(p));
      break;
    }
    if (narrowed) {
      mask |= plugin_bit(prof->index_of(p));
      narrowed_by.emplace_back(p->name());
      if (!only) {
        only = std::move(narrowed);
      } else {  // intersect
        std::vector<NodeId> keep;
        for (NodeId n : *only)
          if (std::find(narrowed->begin(), narrowed->end(), n) != narrowed->end())
            keep.push_back(n);
        only = std::move(keep);
      }
    }
  }

  size_t n = 0;
  Diagnosis diag;
  if (pre_status.is_ok()) {
    // A pod that preempted evaluates its nominated node first (upstream evaluateNominatedNode).
    if (nominated != kNoNode) {
      held_.pods.clear();
      held_.held.clear();
      reservations_->apply(st, qp.serial, qp.priority, kNoNode, &held_);
      NodeId one[1] = {nominated};
      scratch_rejections_.clear();
      if (run_filters(*prof, cycle, one, 1, scratch_rejections_) == 1) {
        feasible_.assign(1, nominated);
        n = 1;
        out.evaluated_nodes = 1;
      }
      Reservations::release(st, held_);
    }
    if (n == 0) {
      held_.pods.clear();
      held_.held.clear();
      reservations_->apply(st, qp.serial, qp.priority, kNoNode, &held_);
      n = find_feasible(*prof, cycle, only, rejections_, &out.evaluated_nodes);
      Reservations::release(st, held_);
    }
  }
  out.feasible_nodes = static_cast<int>(n);

  if (n == 0) {
    diag.num_all_nodes = st.node_count();
    for (const Rejection& r : rejections_.items()) mask |= plugin_bit(r.plugin);
    if (pre_status.is_ok()) {
      if (options_.failure_messages) describe(*prof, rejections_, &diag);
      if (only && only->size() < st.node_count()) {
        // Nodes excluded by a PreFilter result.
        std::sort(narrowed_by.begin(), narrowed_by.end());
        std::string names;
        for (const auto& nm : narrowed_by) names += (names.empty() ? "" : " ") + nm;
        diag.reason_counts["node(s) didn't satisfy plugin(s) [" + names + "]"] +=
            static_cast<int>(st.node_count() - only->size());
      }
    } else {
      diag.pre_filter_message = pre_status.message();
    }
    // PostFilter (preemption) runs for every FitError, a PreFilter rejection included, as
    // upstream's schedulingCycle. After a PreFilter rejection no node was filtered (no
    // rejections), so preemption finds no candidate: "preemption: 0/N nodes are available:
    // N Preemption is not helpful for scheduling." (upstream: every node has the PreFilter's
    // UnschedulableAndUnresolvable status; a resolvable PreFilter rejection, which no plugin
    // orrery ships returns, would make every node a candidate there).
    {
      Handle handle(*this, *prof);
      bool what_if = false;  // some PostFilter's verdict depends on more than the filters'
      for (Plugin* p : prof->post_filter) {
        PostFilterResult r = p->post_filter(cycle, handle, rejections_);
        if (!r.filters_decide) {
          mask |= plugin_bit(prof->index_of(p));
          what_if = true;
        }
        if (!r.message.empty()) diag.post_filter_message = r.message;
        if (r.clear_nomination && !qp.probe) drop_nomination(qp.serial);
        if (r.status.is_ok() && r.nominated_node != kNoNode) {
          out.nominated_node = r.nominated_node;
          out.victims = r.victims;
          break;
        }
      }
      // Preemption's what-if runs every filter the pod did not skip: any of them may change it.
      if (what_if) {
        for (const auto* list : {&prof->pre_filter, &prof->filter}) {
          for (Plugin* p : *list) {
            if (std::find(skipped_filters_.begin(), skipped_filters_.end(), p) ==
                skipped_filters_.end()) {
              mask |= plugin_bit(prof->index_of(p));
            }
          }
        }
      }
    }
    if (qp.probe && out.nominated_node == kNoNode) return probe_failed();
    if (options_.failure_messages) out.message = diag.message();
    qp.nominated_node = out.nominated_node;
    if (out.nominated_node != kNoNode) {
      // Lower-priority pods nominated to the same node may no longer fit there: drop their
      // nominations (upstream prepareCandidate).
      for (uint64_t serial : reservations_->nominations_below(out.nominated_node, qp.priority))
        drop_nomination(serial);
      reservations_->nominate(qp.serial, qp.pod, out.nominated_node, qp.priority);
    }
    if (mask == 0) mask = kMaskAny;
    // Queue the pod before deleting victims: their deletion events move it back to active.
    queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), mask);
    const std::string preemptor = pod.key();
    for (PodId v : out.victims) {
      if (st.pod_alive(v)) backend_.delete_pod(v, "preempted by " + preemptor);
    }
    return finish();
  }

  // Score (skipped when a single node is feasible, as upstream).
  NodeId chosen;
  if (n == 1) {
    chosen = feasible_[0];
  } else {
    std::span<const NodeId> nodes(feasible_.data(), n);
    std::string why;
    if (!run_pre_score(*prof, cycle, nodes, &why)) {
      // An error (e.g. NodeAffinity's preferred terms that do not parse). Upstream retries the pod
      // after a backoff; nothing but a change to the pod can fix it, so orrery parks it with the
      // unschedulable pods (retried on cluster events or the periodic flush) — on a static
      // snapshot the result is the same, without retrying forever.
      out.message = why;
      queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), kMaskAny);
      return finish();
    }
    // totals_ leave out the plugins whose score is the same on every node (uniform_score): a
    // common term changes neither the top nodes nor their order.
    totals_.resize(n);
    plugin_scores_.resize(n);
    int64_t top = 0;  // the top total and how many nodes have it
    uint64_t ties = n;
    bool first = true;
    int64_t uniform_total = 0;  // Σ weight × score of the plugins that score every node alike
    size_t recorded = 0;        // plugins in margin_scores_
    for (const WeightedPlugin& wp : prof->score) {
      if (score_skipped(wp.plugin)) continue;
      if (std::optional<int64_t> c = wp.plugin->uniform_score(cycle, nodes)) {
        if (*c < kMinNodeScore || *c > kMaxNodeScore) out_of_range(*wp.plugin, *c);
        uniform_total += *c * wp.weight;
        continue;
      }
      // The first plugin with weight 1 scores straight into the totals.
      int64_t* ps = first && wp.weight == 1 ? totals_.data() : plugin_scores_.data();
      wp.plugin->score(cycle, nodes, ps);
      wp.plugin->normalize(cycle, nodes, ps);
      if (options_.record_margins) {
        if (margin_scores_.size() <= recorded) margin_scores_.emplace_back();
        WeightedScores& ws = margin_scores_[recorded++];
        ws.plugin = std::string(wp.plugin->name());
        ws.scores.assign(ps, ps + n);
        for (int64_t& v : ws.scores) v *= wp.weight;
      }
      const bool in_range =
          first ? add_weighted<true>(ps, wp.weight, totals_.data(), n, &top, &ties)
                : add_weighted<false>(ps, wp.weight, totals_.data(), n, &top, &ties);
      first = false;
      if (!in_range) {
        for (size_t i = 0; i < n; ++i)
          if (ps[i] < kMinNodeScore || ps[i] > kMaxNodeScore) out_of_range(*wp.plugin, ps[i]);
      }
    }
    if (first) std::fill(totals_.begin(), totals_.end(), 0);  // no plugin scored
    chosen = select_host(*prof, n, top, ties);
    if (options_.record_margins) out.margin = margin_of(n, chosen, uniform_total, recorded);
  }

  // In flight before binding: a synchronous backend confirms (kPodBound) inside bind().
  in_flight_.push_back(qp);
  std::string why;
  if (!bind_cycle(*prof, cycle, chosen, &why)) {
    forget_in_flight(qp.serial);
    out.message = why;
    // Any event may help a pod that failed after a node was chosen.
    queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), kMaskAny);
    return finish();
  }
  if (qp.probe) queue_.remove(qp.serial);  // the probe was wrong: the pod is placed all the same
  out.scheduled = true;
  out.node = chosen;
  // The assumed pod now counts on its node (upstream's AssignedPodAdd); a preemptor placed
  // anywhere frees what its nomination set aside.
  queue_event(QueueEvent::kPodAssigned, chosen, qp.pod, qp.priority, backend_.now_us());
  drop_nomination(qp.serial);
  return finish();
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

  std::optional<std::vector<NodeId>> only;
  skipped_filters_.clear();
  std::vector<std::string> narrowed_by;
  for (Plugin* p : prof->pre_filter) {
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
      return out;
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
  std::string narrowed_reason;
  for (const auto& nm : narrowed_by) narrowed_reason += (narrowed_reason.empty() ? "" : " ") + nm;
  narrowed_reason = "node(s) didn't satisfy plugin(s) [" + narrowed_reason + "]";

  std::vector<NodeId> feasible;
  for (auto& e : out) {
    if (!e.feasible) {
      e.reasons = {narrowed_reason};
      continue;
    }
    NodeId one[1] = {e.node};
    scratch_rejections_.clear();
    if (run_filters(*prof, cycle, one, 1, scratch_rejections_) == 1) {
      feasible.push_back(e.node);
      continue;
    }
    e.feasible = false;
    for (const Rejection& r : scratch_rejections_.items())
      prof->plugins[r.plugin]->describe(st, r, &e.reasons);
  }
  if (feasible.empty()) return out;
  std::span<const NodeId> nodes(feasible);
  std::string why;
  if (!run_pre_score(*prof, cycle, nodes, &why)) throw InputError("pod " + pod.key() + ": " + why);
  std::vector<int64_t> scores(feasible.size());
  for (const WeightedPlugin& wp : prof->score) {
    const bool skipped = score_skipped(wp.plugin);
    std::vector<int64_t> raw(details ? feasible.size() : 0, 0);
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
  return out;
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
