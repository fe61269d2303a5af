// The scheduling cycle (Scheduler::schedule_cycle), step by step as upstream's scheduleOne:
// schedulingCycle (PreFilter, Filter with node sampling, PostFilter on a FitError, PreScore, Score,
// NormalizeScore, selectHost, assume, Reserve, Permit), then Mutate and the binding part (PreBind,
// Bind, PostBind), and the what-if services of the profiles' handles (FrameworkRunner). The rest
// of the Scheduler is in scheduler.cc.
#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "framework/scheduler.h"

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

uint64_t plugin_bit(size_t index) {
  return index < 62 ? uint64_t{1} << index : Scheduler::kMaskAny;
}

}  // namespace

// What PreFilter made of the pod.
struct Scheduler::PreFilterOutcome {
  std::optional<std::vector<NodeId>> only;  // the nodes PreFilter results narrowed the search to
  std::vector<std::string> narrowed_by;     // the plugins whose results narrowed it
  uint64_t mask = 0;                        // the plugins that rejected the pod, for the hints
  Status status;                            // the PreFilter rejection, or ok
};

// Where the Score step left totals_: the top total and how many nodes have it, the weighted sum of
// the plugins that scored every node alike, and how many plugins' scores margin_scores_ holds.
struct Scheduler::ScoreSummary {
  int64_t top = 0;
  uint64_t ties = 0;
  int64_t uniform_total = 0;
  size_t recorded = 0;
};

// The what-if services of a profile's handle (handle.h), on the Scheduler running the profile.
Scheduler& FrameworkRunner::scheduler() const {
  if (!scheduler_) {
    throw std::logic_error("plugin asked for the what-if services of a profile no Scheduler runs");
  }
  return *scheduler_;
}

ClusterState& FrameworkRunner::mutable_state() {
  return scheduler().backend_.state();
}

bool FrameworkRunner::passes_filters(const CycleContext& cycle, NodeId node,
                                     std::vector<std::string>* reasons) {
  Scheduler& s = scheduler();
  Reservations::Applied held;
  ClusterState& st = s.backend_.state();
  s.reservations_->apply(st, st.pod_serial(cycle.pod_id), cycle.spec.priority, node, &held);
  NodeId one[1] = {node};
  scratch_.clear();
  const bool ok = s.run_filters(*profile_, cycle, one, 1, scratch_) == 1;
  Reservations::release(st, held);
  if (!ok && reasons) {
    reasons->clear();
    for (const Rejection& r : scratch_.items())
      profile_->plugins[r.plugin]->describe(cycle.state, r, reasons);
  }
  return ok;
}

void FrameworkRunner::removed_pod(const CycleContext& cycle, PodId pod, NodeId node) {
  for (Plugin* pl : profile_->pre_filter) pl->pre_filter_remove_pod(cycle, pod, node);
}

void FrameworkRunner::added_pod(const CycleContext& cycle, PodId pod, NodeId node) {
  for (Plugin* pl : profile_->pre_filter) pl->pre_filter_add_pod(cycle, pod, node);
}

ClusterBackend& FrameworkRunner::backend() {
  return scheduler().backend_;
}

// Runs one scheduling cycle for qp (scheduling_cycle), timed.
ScheduleOutcome Scheduler::schedule_cycle(QueuedPod qp) {
  const auto t0 = std::chrono::steady_clock::now();
  ScheduleOutcome out;
  out.pod = qp.pod;
  out.serial = qp.serial;
  scheduling_cycle(qp, out);
  out.wall_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  return out;
}

// The cycle's steps in order (schedule_cycle without the timing); each step that decides the
// pod's fate (placed, parked, dropped) ends the cycle.
void Scheduler::scheduling_cycle(QueuedPod& qp, ScheduleOutcome& out) {
  Profile* prof = profile_for_cycle(qp, out);
  if (!prof) return;
  ClusterState& st = backend_.state();
  const Pod& pod = st.pod(qp.pod);
  NodeId nominated = reservations_->nominated_node(qp.serial);
  if (nominated != kNoNode && !st.node_alive(nominated)) nominated = kNoNode;
  CycleContext cycle{st, qp.pod, pod, *pod.spec, backend_.now_us(), rng_, nominated};
  rejections_.clear();

  PreFilterOutcome pre;
  run_pre_filters(*prof, cycle, pre);
  const size_t n = pre.status.is_ok() ? find_nodes_that_fit(*prof, cycle, qp, pre.only, out) : 0;
  out.feasible_nodes = static_cast<int>(n);
  if (n == 0) {
    handle_fit_error(*prof, cycle, qp, pre, out);
    return;
  }
  // Score (skipped when a single node is feasible, as upstream).
  NodeId chosen = feasible_[0];
  if (n > 1 && !prioritize_and_select(*prof, cycle, qp, n, out, &chosen)) return;
  assume_and_bind(*prof, cycle, qp, chosen, out);
}

// Before the cycle: the pod's profile, or nullptr when the pod is not scheduled now (out says
// why): it is no longer pending, has no profile or is being deleted, or there are no nodes.
Profile* Scheduler::profile_for_cycle(const QueuedPod& qp, ScheduleOutcome& out) {
  const ClusterState& st = backend_.state();
  if (!st.pod_alive(qp.pod) || st.pod_serial(qp.pod) != qp.serial ||
      st.pod_node(qp.pod) != kNoNode) {
    out.message = "pod no longer pending";
    drop_probe(qp, out);
    return nullptr;
  }
  const Pod& pod = st.pod(qp.pod);
  Profile* prof = profile_for(pod);
  if (!prof) {
    out.message = "no profile for schedulerName " + std::string(interned(pod.spec->scheduler_name));
    drop_probe(qp, out);
    return nullptr;
  }
  if (pod.terminating) {
    // Upstream skipPodSchedule: a pod being deleted is dropped from the queue, not scheduled.
    out.message = "skip schedule deleting pod: " + pod.key();
    drop_probe(qp, out);
    return nullptr;
  }
  if (st.node_count() == 0) {
    if (qp.probe) {
      probe_failed(qp, out);
      return nullptr;
    }
    out.message = "no nodes available to schedule pods";  // upstream ErrNoNodesAvailable
    queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), kMaskNoNodes);
    return nullptr;
  }
  return prof;
}

// A probe for a pod that is not to be scheduled: it leaves the queue, and the attempt is not
// counted.
void Scheduler::drop_probe(const QueuedPod& qp, ScheduleOutcome& out) {
  if (qp.probe) {
    queue_.remove(qp.serial);
    out.counted = false;
  }
}

// A failed probe: nothing happened (framework/queue.h).
void Scheduler::probe_failed(const QueuedPod& qp, ScheduleOutcome& out) {
  queue_.restore_probe(qp.serial);
  out.message.clear();
  out.counted = false;
}

// PreFilter: the profile's PreFilter plugins until one rejects the pod, intersecting the node sets
// their results narrow the search to; the plugins that return Skip have their Filter skipped.
void Scheduler::run_pre_filters(Profile& prof, const CycleContext& cycle, PreFilterOutcome& pre) {
  skipped_filters_.clear();
  for (Plugin* p : prof.pre_filter) {
    std::optional<std::vector<NodeId>> narrowed;
    Status s = p->pre_filter(cycle, &narrowed);
    if (s.is_skip()) {
      skipped_filters_.push_back(p);  // its Filter is skipped for this pod
      continue;
    }
    if (!s.is_ok()) {
      if (s.plugin.empty()) s.plugin = std::string(p->name());
      pre.status = s;
      pre.mask |= plugin_bit(prof.index_of(p));
      break;
    }
    if (narrowed) {
      pre.mask |= plugin_bit(prof.index_of(p));
      pre.narrowed_by.emplace_back(p->name());
      if (!pre.only) {
        pre.only = std::move(narrowed);
      } else {  // intersect
        std::vector<NodeId> keep;
        for (NodeId n : *pre.only)
          if (std::find(narrowed->begin(), narrowed->end(), n) != narrowed->end())
            keep.push_back(n);
        pre.only = std::move(keep);
      }
    }
  }
}

// Filter (upstream findNodesThatFitPod), with the reservations visible to the pod applied: a pod
// that preempted tries its nominated node alone first (upstream evaluateNominatedNode), then node
// sampling over every node (or PreFilter's). Returns how many feasible nodes feasible_ holds.
size_t Scheduler::find_nodes_that_fit(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                                      const std::optional<std::vector<NodeId>>& only,
                                      ScheduleOutcome& out) {
  ClusterState& st = backend_.state();
  size_t n = 0;
  if (cycle.nominated_node != kNoNode) {
    hold_reservations(qp);
    NodeId one[1] = {cycle.nominated_node};
    scratch_rejections_.clear();
    if (run_filters(prof, cycle, one, 1, scratch_rejections_) == 1) {
      feasible_.assign(1, cycle.nominated_node);
      n = 1;
      out.evaluated_nodes = 1;
    }
    Reservations::release(st, held_);
  }
  if (n == 0) {
    hold_reservations(qp);
    n = find_feasible(prof, cycle, only, rejections_, &out.evaluated_nodes);
    Reservations::release(st, held_);
  }
  return n;
}

// Applies the reservations the pod must respect (others' nominations, plans, capacity) to the
// state, into held_; Reservations::release(state, held_) takes them back.
void Scheduler::hold_reservations(const QueuedPod& qp) {
  held_.pods.clear();
  held_.held.clear();
  reservations_->apply(backend_.state(), qp.serial, qp.priority, kNoNode, &held_);
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

// A FitError (no feasible node, or a PreFilter rejection): explains it, runs PostFilter, then parks
// the pod with the unschedulable ones, nominated where preemption made room, and deletes the
// victims.
void Scheduler::handle_fit_error(Profile& prof, const CycleContext& cycle, QueuedPod& qp,
                                 PreFilterOutcome& pre, ScheduleOutcome& out) {
  Diagnosis diag;
  uint64_t mask = pre.mask;  // the plugins that rejected the pod, for the queue's hints
  for (const Rejection& r : rejections_.items()) mask |= plugin_bit(r.plugin);
  explain_fit_error(prof, pre, &diag);
  run_post_filters(prof, cycle, qp, &mask, &diag, out);
  if (qp.probe && out.nominated_node == kNoNode) {
    probe_failed(qp, out);
    return;
  }
  if (options_.failure_messages) out.message = diag.message();
  qp.nominated_node = out.nominated_node;
  if (out.nominated_node != kNoNode) nominate(qp, out.nominated_node);
  if (mask == 0) mask = kMaskAny;
  // Queue the pod before deleting victims: their deletion events move it back to active.
  queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), mask);
  const ClusterState& st = backend_.state();
  const std::string preemptor = cycle.pod.key();
  for (PodId v : out.victims) {
    if (st.pod_alive(v)) backend_.delete_pod(v, "preempted by " + preemptor);
  }
}

// The FitError's diagnosis: the PreFilter rejection, or why the filters rejected nodes (with
// failure_messages) and how many nodes the PreFilter results left out.
void Scheduler::explain_fit_error(const Profile& prof, PreFilterOutcome& pre,
                                  Diagnosis* diag) const {
  const ClusterState& st = backend_.state();
  diag->num_all_nodes = st.node_count();
  if (!pre.status.is_ok()) {
    diag->pre_filter_message = pre.status.message();
    return;
  }
  if (options_.failure_messages) describe(prof, rejections_, diag);
  if (pre.only && pre.only->size() < st.node_count()) {
    // Nodes excluded by a PreFilter result.
    std::sort(pre.narrowed_by.begin(), pre.narrowed_by.end());
    std::string names;
    for (const auto& nm : pre.narrowed_by) names += (names.empty() ? "" : " ") + nm;
    diag->reason_counts["node(s) didn't satisfy plugin(s) [" + names + "]"] +=
        static_cast<int>(st.node_count() - pre.only->size());
  }
}

void Scheduler::describe(const Profile& prof, const Rejections& rejections, Diagnosis* diag) const {
  std::vector<std::string> reasons;
  for (const Rejection& r : rejections.items()) {
    reasons.clear();
    prof.plugins[r.plugin]->describe(backend_.state(), r, &reasons);
    for (const std::string& s : reasons) diag->reason_counts[s]++;
  }
}

// PostFilter (preemption) runs for every FitError, a PreFilter rejection included, as upstream's
// schedulingCycle, until one nominates a node (out then has it and the victims). After a PreFilter
// rejection no node was filtered (no rejections), so preemption finds no candidate: "preemption:
// 0/N nodes are available: N Preemption is not helpful for scheduling." (upstream: every node has
// the PreFilter's UnschedulableAndUnresolvable status; a resolvable PreFilter rejection, which no
// plugin orrery ships returns, would make every node a candidate there).
void Scheduler::run_post_filters(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                                 uint64_t* mask, Diagnosis* diag, ScheduleOutcome& out) {
  bool what_if = false;  // some PostFilter's verdict depends on more than the filters'
  for (Plugin* p : prof.post_filter) {
    PostFilterResult r = p->post_filter(cycle, *prof.handle, rejections_);
    if (!r.filters_decide) {
      *mask |= plugin_bit(prof.index_of(p));
      what_if = true;
    }
    if (!r.message.empty()) diag->post_filter_message = r.message;
    if (r.clear_nomination && !qp.probe) drop_nomination(qp.serial);
    if (r.status.is_ok() && r.nominated_node != kNoNode) {
      out.nominated_node = r.nominated_node;
      out.victims = r.victims;
      break;
    }
  }
  // Preemption's what-if runs every filter the pod did not skip: any of them may change it.
  if (what_if) *mask |= what_if_mask(prof);
}

// The mask bits of the PreFilter and Filter plugins the pod did not skip.
uint64_t Scheduler::what_if_mask(const Profile& prof) const {
  uint64_t mask = 0;
  for (const auto* list : {&prof.pre_filter, &prof.filter}) {
    for (Plugin* p : *list) {
      if (std::find(skipped_filters_.begin(), skipped_filters_.end(), p) ==
          skipped_filters_.end()) {
        mask |= plugin_bit(prof.index_of(p));
      }
    }
  }
  return mask;
}

// Nominates `node` for the preemptor. Lower-priority pods nominated to the same node may no longer
// fit there: their nominations are dropped first (upstream prepareCandidate).
void Scheduler::nominate(const QueuedPod& qp, NodeId node) {
  for (uint64_t serial : reservations_->nominations_below(node, qp.priority))
    drop_nomination(serial);
  reservations_->nominate(qp.serial, qp.pod, node, qp.priority);
}

// Score (upstream prioritizeNodes, then selectHost) over feasible_[0..n): *chosen is the node the
// pod goes to. False when a PreScore plugin failed: the pod then waits with the unschedulable pods.
bool Scheduler::prioritize_and_select(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                                      size_t n, ScheduleOutcome& out, NodeId* chosen) {
  std::span<const NodeId> nodes(feasible_.data(), n);
  std::string why;
  if (!run_pre_score(prof, cycle, nodes, &why)) {
    // An error (e.g. NodeAffinity's preferred terms that do not parse). Upstream retries the pod
    // after a backoff; nothing but a change to the pod can fix it, so orrery parks it with the
    // unschedulable pods (retried on cluster events or the periodic flush) — on a static
    // snapshot the result is the same, without retrying forever.
    out.message = why;
    queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), kMaskAny);
    return false;
  }
  const ScoreSummary sum = prioritize_nodes(prof, cycle, nodes);
  *chosen = select_host(prof, n, sum.top, sum.ties);
  if (options_.record_margins) out.margin = margin_of(n, *chosen, sum.uniform_total, sum.recorded);
  return true;
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

// Score and NormalizeScore: the weighted normalized scores summed into totals_, each checked to be
// within [kMinNodeScore, kMaxNodeScore]. totals_ leave out the plugins whose score is the same on
// every node (uniform_score): a common term changes neither the top nodes nor their order.
Scheduler::ScoreSummary Scheduler::prioritize_nodes(Profile& prof, const CycleContext& cycle,
                                                    std::span<const NodeId> nodes) {
  const size_t n = nodes.size();
  totals_.resize(n);
  plugin_scores_.resize(n);
  ScoreSummary sum;
  sum.ties = n;
  bool first = true;
  for (const WeightedPlugin& wp : prof.score) {
    if (score_skipped(wp.plugin)) continue;
    if (std::optional<int64_t> c = wp.plugin->uniform_score(cycle, nodes)) {
      if (*c < kMinNodeScore || *c > kMaxNodeScore) out_of_range(*wp.plugin, *c);
      sum.uniform_total += *c * wp.weight;
      continue;
    }
    // The first plugin with weight 1 scores straight into the totals.
    int64_t* ps = first && wp.weight == 1 ? totals_.data() : plugin_scores_.data();
    wp.plugin->score(cycle, nodes, ps);
    wp.plugin->normalize(cycle, nodes, ps);
    if (options_.record_margins) record_margin_scores(wp, ps, n, sum.recorded++);
    const bool in_range =
        first ? add_weighted<true>(ps, wp.weight, totals_.data(), n, &sum.top, &sum.ties)
              : add_weighted<false>(ps, wp.weight, totals_.data(), n, &sum.top, &sum.ties);
    first = false;
    if (!in_range) {
      for (size_t i = 0; i < n; ++i)
        if (ps[i] < kMinNodeScore || ps[i] > kMaxNodeScore) out_of_range(*wp.plugin, ps[i]);
    }
  }
  if (first) std::fill(totals_.begin(), totals_.end(), 0);  // no plugin scored
  return sum;
}

// record_margins: keeps one plugin's weighted scores of the n nodes as margin_scores_[index].
void Scheduler::record_margin_scores(const WeightedPlugin& wp, const int64_t* ps, size_t n,
                                     size_t index) {
  if (margin_scores_.size() <= index) margin_scores_.emplace_back();
  WeightedScores& ws = margin_scores_[index];
  ws.plugin = std::string(wp.plugin->name());
  ws.scores.assign(ps, ps + n);
  for (int64_t& v : ws.scores) v *= wp.weight;
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

// The chosen node: assume, Reserve, Permit, Mutate and binding (bind_cycle). On a failure the pod
// waits with the unschedulable pods; on success it counts on its node for the queue's hints.
void Scheduler::assume_and_bind(Profile& prof, const CycleContext& cycle, const QueuedPod& qp,
                                NodeId chosen, ScheduleOutcome& out) {
  // In flight before binding: a synchronous backend confirms (kPodBound) inside bind().
  in_flight_.push_back(qp);
  std::string why;
  if (!bind_cycle(prof, cycle, chosen, &why)) {
    forget_in_flight(qp.serial);
    out.message = why;
    // Any event may help a pod that failed after a node was chosen.
    queue_.add_unschedulable(qp, backend_.now_us(), class_key(qp.pod, qp.serial), kMaskAny);
    return;
  }
  if (qp.probe) queue_.remove(qp.serial);  // the probe was wrong: the pod is placed all the same
  out.scheduled = true;
  out.node = chosen;
  // The assumed pod now counts on its node (upstream's AssignedPodAdd); a preemptor placed
  // anywhere frees what its nomination set aside.
  queue_event(QueueEvent::kPodAssigned, chosen, qp.pod, qp.priority, backend_.now_us());
  drop_nomination(qp.serial);
}

// Assume, Reserve, Permit and Mutate, then the binding part; false (with *why) when a plugin
// failed, after the reservations and the assumption were undone.
bool Scheduler::bind_cycle(Profile& prof, const CycleContext& cycle, NodeId node,
                           std::string* why) {
  ClusterState& st = backend_.state();
  st.assign(cycle.pod_id, node);  // assume
  for (size_t i = 0; i < prof.reserve.size(); ++i) {
    Status s = prof.reserve[i]->reserve(cycle, node);
    if (!s.is_ok()) {
      prof.reserve[i]->unreserve(cycle, node);
      return unreserve_and_forget(prof, cycle, node, i, s, why);
    }
  }
  for (Plugin* p : prof.permit) {
    Status s = p->permit(cycle, node);
    if (!s.is_ok()) return unreserve_and_forget(prof, cycle, node, prof.reserve.size(), s, why);
  }
  if (!prof.mutate.empty() && !mutate(prof, cycle, node, why)) {
    for (size_t i = prof.reserve.size(); i-- > 0;) prof.reserve[i]->unreserve(cycle, node);
    if (st.pod_alive(cycle.pod_id) && st.pod_node(cycle.pod_id) == node) st.unassign(cycle.pod_id);
    return false;
  }
  return binding_cycle(prof, cycle, node, why);
}

// Undoes bind_cycle after plugin status s failed: Unreserve of the first `reserved` Reserve
// plugins, in reverse, then the assumption. Returns false, with *why.
bool Scheduler::unreserve_and_forget(Profile& prof, const CycleContext& cycle, NodeId node,
                                     size_t reserved, const Status& s, std::string* why) {
  for (size_t i = reserved; i-- > 0;) prof.reserve[i]->unreserve(cycle, node);
  backend_.state().unassign(cycle.pod_id);
  *why = s.plugin + ": " + s.message();
  return false;
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

// The binding part (upstream bindingCycle): PreBind, Bind (the first plugin that does not skip;
// the backend when all do) and PostBind. False (with *why) when a plugin failed, undone as above.
bool Scheduler::binding_cycle(Profile& prof, const CycleContext& cycle, NodeId node,
                              std::string* why) {
  // PreBind and later see the pod as it is now (a Mutate plugin may have given it a new spec).
  const CycleContext now{cycle.state,  cycle.pod_id, cycle.pod,           *cycle.pod.spec,
                         cycle.now_us, cycle.rng,    cycle.nominated_node};
  for (Plugin* p : prof.pre_bind) {
    Status s = p->pre_bind(now, node);
    if (!s.is_ok()) return unreserve_and_forget(prof, cycle, node, prof.reserve.size(), s, why);
  }
  bool bound = false;
  for (Plugin* p : prof.bind) {
    Status s = p->bind(now, node, backend_);
    if (s.is_skip()) continue;
    if (!s.is_ok()) return unreserve_and_forget(prof, cycle, node, prof.reserve.size(), s, why);
    bound = true;
    break;
  }
  if (!bound) backend_.bind(cycle.pod_id, node);
  for (Plugin* p : prof.post_bind) p->post_bind(now, node);
  return true;
}

}  // namespace orrery::fw
