#include "plugins/defaultpreemption/default_preemption.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "plugins/helper/args.h"
#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

namespace {

// util.MoreImportantPod: higher priority, then earlier start; creation order breaks the remaining
// ties so the result does not depend on the node's pod list order.
bool more_important(const ClusterState& st, PodId a, PodId b) {
  const Pod& pa = st.pod(a);
  const Pod& pb = st.pod(b);
  if (pa.spec->priority != pb.spec->priority) return pa.spec->priority > pb.spec->priority;
  if (pa.creation_us != pb.creation_us) return pa.creation_us < pb.creation_us;
  return st.pod_serial(a) < st.pod_serial(b);
}

constexpr const char* kNoVictims = "No preemption victims found for incoming pod";

bool has_lower_priority_pod(const ClusterState& st, NodeId node, int32_t priority) {
  for (PodId p : st.pods_on(node))
    if (st.pod(p).spec->priority < priority) return true;
  return false;
}

struct Candidate {
  NodeId node;
  std::vector<PodId> victims;  // most important first
  int pdb_violations = 0;
};

// pickOneNodeForPreemption with upstream's default score functions.
size_t pick_one_node(const ClusterState& st, const std::vector<Candidate>& cands) {
  std::vector<size_t> pool(cands.size());
  for (size_t i = 0; i < pool.size(); ++i) pool[i] = i;
  auto priority = [&](PodId p) { return static_cast<int64_t>(st.pod(p).spec->priority); };
  const std::vector<std::function<int64_t(const Candidate&)>> funcs = {
      // The fewest PodDisruptionBudget violations.
      [&](const Candidate& c) { return -static_cast<int64_t>(c.pdb_violations); },
      // The lowest highest-priority victim.
      [&](const Candidate& c) { return -priority(c.victims.front()); },
      // The smallest sum of priorities (shifted to be non-negative).
      [&](const Candidate& c) {
        int64_t sum = 0;
        for (PodId v : c.victims)
          sum += priority(v) + int64_t{std::numeric_limits<int32_t>::max()} + 1;
        return -sum;
      },
      // The fewest victims.
      [&](const Candidate& c) { return -static_cast<int64_t>(c.victims.size()); },
      // The latest earliest-start among the highest-priority victims.
      [&](const Candidate& c) {
        int64_t max_prio = priority(c.victims.front());
        int64_t earliest = st.pod(c.victims.front()).creation_us;
        for (PodId v : c.victims) {
          const int64_t p = priority(v);
          const int64_t t = st.pod(v).creation_us;
          if (p == max_prio) {
            earliest = std::min(earliest, t);
          } else if (p > max_prio) {
            max_prio = p;
            earliest = t;
          }
        }
        return earliest;
      },
  };
  for (const auto& f : funcs) {
    std::vector<size_t> best;
    int64_t max_score = std::numeric_limits<int64_t>::min();
    for (size_t i : pool) {
      const int64_t s = f(cands[i]);
      if (s > max_score) {
        max_score = s;
        best.clear();
      }
      if (s == max_score) best.push_back(i);
    }
    if (best.size() == 1) return best[0];
    pool = std::move(best);
  }
  return pool.front();
}

}  // namespace

void split_by_pdb_violation(const ClusterState& st, const std::vector<PodId>& pods,
                            std::vector<PodId>* violating, std::vector<PodId>* non_violating) {
  const std::vector<PodDisruptionBudget>& pdbs = st.api_objects().pdbs;
  std::vector<int64_t> allowed(pdbs.size());
  for (size_t i = 0; i < pdbs.size(); ++i) allowed[i] = pdbs[i].disruptions_allowed;
  for (PodId p : pods) {
    const Pod& pod = st.pod(p);
    bool violated = false;
    if (!pod.spec->labels.empty()) {  // a pod without labels matches no budget
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const PodDisruptionBudget& b = pdbs[i];
        if (b.ns != pod.ns || !b.selector || b.selector->empty() ||
            !b.selector->matches(pod.spec->labels)) {
          continue;  // a nil or empty selector matches nothing
        }
        if (b.disrupted_pods.count(pod.name)) continue;  // already processed by the API server
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : non_violating)->push_back(p);
  }
}

DefaultPreemptionArgs DefaultPreemptionArgs::parse(const yaml::Ctx& args) {
  DefaultPreemptionArgs a;
  expect_arg_keys(args, {"minCandidateNodesPercentage", "minCandidateNodesAbsolute"});
  if (!args.defined()) return a;
  a.min_candidate_nodes_percentage =
      args.i64_or("minCandidateNodesPercentage", a.min_candidate_nodes_percentage);
  a.min_candidate_nodes_absolute =
      args.i64_or("minCandidateNodesAbsolute", a.min_candidate_nodes_absolute);
  if (a.min_candidate_nodes_percentage < 0 || a.min_candidate_nodes_percentage > 100) {
    args.child("minCandidateNodesPercentage").fail("not in valid range [0, 100]");
  }
  if (a.min_candidate_nodes_absolute < 0 || a.min_candidate_nodes_absolute > INT32_MAX) {
    args.child("minCandidateNodesAbsolute").fail("not in valid range [0, inf)");
  }
  if (a.min_candidate_nodes_percentage == 0 && a.min_candidate_nodes_absolute == 0) {
    args.fail("minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero");
  }
  return a;
}

DefaultPreemption::DefaultPreemption(DefaultPreemptionArgs args, bool deterministic)
    : args_(args), deterministic_(deterministic) {}

std::string_view DefaultPreemption::name() const {
  return names::kDefaultPreemption;
}

size_t DefaultPreemption::num_candidates(size_t num_nodes) const {
  int64_t n = static_cast<int64_t>(num_nodes) * args_.min_candidate_nodes_percentage / 100;
  if (n < args_.min_candidate_nodes_absolute) n = args_.min_candidate_nodes_absolute;
  if (n > static_cast<int64_t>(num_nodes)) n = static_cast<int64_t>(num_nodes);
  return static_cast<size_t>(n);
}

bool DefaultPreemption::select_victims_on_node(const fw::CycleContext& cycle, fw::Handle& handle,
                                               NodeId node, std::vector<PodId>* victims,
                                               std::vector<std::string>* reasons,
                                               int* pdb_violations) {
  ClusterState& st = handle.mutable_state();
  victims->clear();
  int violations = 0;
  std::vector<PodId> potential;
  for (PodId p : st.pods_on(node))
    if (st.pod(p).spec->priority < cycle.spec.priority) potential.push_back(p);
  if (potential.empty()) {
    *reasons = {kNoVictims};
    return false;
  }
  for (PodId v : potential) {
    st.unassign(v);
    handle.removed_pod(cycle, v, node);
  }
  auto restore = [&](const std::vector<PodId>& pods) {
    for (PodId v : pods) {
      st.assign(v, node);
      handle.added_pod(cycle, v, node);
    }
  };
  if (!handle.passes_filters(cycle, node, reasons)) {
    restore(potential);
    return false;
  }
  std::sort(potential.begin(), potential.end(),
            [&](PodId a, PodId b) { return more_important(st, a, b); });
  // Reprieve as many as possible: first the victims whose eviction would violate a
  // PodDisruptionBudget, then the others, each group from the most important.
  std::vector<PodId> violating, non_violating;
  split_by_pdb_violation(st, potential, &violating, &non_violating);
  auto reprieve = [&](PodId v) {
    st.assign(v, node);
    handle.added_pod(cycle, v, node);
    if (handle.passes_filters(cycle, node)) return true;
    st.unassign(v);
    handle.removed_pod(cycle, v, node);
    victims->push_back(v);
    return false;
  };
  for (PodId v : violating)
    if (!reprieve(v)) ++violations;
  for (PodId v : non_violating) reprieve(v);
  if (!violating.empty() && !non_violating.empty()) {
    std::sort(victims->begin(), victims->end(),
              [&](PodId a, PodId b) { return more_important(st, a, b); });
  }
  if (pdb_violations) *pdb_violations = violations;
  restore(*victims);
  if (victims->empty()) {
    *reasons = {"expected at least one victim pod on node " + st.node(node).name};
    return false;
  }
  return true;
}

namespace {

// PodEligibleToPreemptOthers' second test: the pod nominated a node where lower-priority pods are
// still being deleted by an earlier preemption (`terminating`), and it is not now unresolvable.
bool victim_terminating_on_nominated(const fw::CycleContext& cycle,
                                     const fw::Rejections& rejections,
                                     const std::unordered_set<uint64_t>& terminating) {
  if (cycle.nominated_node == kNoNode) return false;
  const ClusterState& st = cycle.state;
  bool nominated_unresolvable = false;
  for (const fw::Rejection& r : rejections.items())
    if (r.node == cycle.nominated_node) nominated_unresolvable = r.unresolvable;
  if (nominated_unresolvable) return false;
  for (PodId p : st.pods_on(cycle.nominated_node)) {
    if (st.pod(p).spec->priority < cycle.spec.priority && terminating.count(st.pod_serial(p))) {
      return true;
    }
  }
  return false;
}

// The nodes where removing pods may help: the Unschedulable (resolvable) ones, ascending, once.
std::vector<NodeId> potential_nodes(const fw::Rejections& rejections) {
  std::vector<NodeId> potential;
  for (const fw::Rejection& r : rejections.items())
    if (!r.unresolvable) potential.push_back(r.node);
  // Filters reject nodes in the order of a rotation over the ascending node list, so this is
  // usually an ascending run rotated: put it in order without a full sort.
  auto run_end = std::is_sorted_until(potential.begin(), potential.end());
  if (run_end != potential.end()) {
    if (std::is_sorted(run_end, potential.end()) && potential.back() < potential.front()) {
      std::rotate(potential.begin(), run_end, potential.end());
    } else {
      std::sort(potential.begin(), potential.end());
    }
  }
  potential.erase(std::unique(potential.begin(), potential.end()), potential.end());
  return potential;
}

// Dry-runs preemption on the potential nodes in rotation from `offset` until `wanted` of them
// yield victims (the candidates); counts the reasons of the others. Returns how many nodes got a
// status (the nodes that were tried and are not candidates).
size_t find_candidates(DefaultPreemption& preemption, const fw::CycleContext& cycle,
                       fw::Handle& handle, const std::vector<NodeId>& potential, size_t offset,
                       size_t wanted, std::vector<Candidate>* candidates,
                       std::map<std::string, int>* reason_counts) {
  const ClusterState& st = cycle.state;
  size_t statuses = 0;
  std::vector<PodId> victims;
  std::vector<std::string> reasons;
  int violations = 0;
  int no_victims = 0;  // nodes without lower-priority pods (the common case under overload)
  for (size_t i = 0; i < potential.size(); ++i) {
    const NodeId node = potential[(offset + i) % potential.size()];
    if (!has_lower_priority_pod(st, node, cycle.spec.priority)) {
      ++statuses;  // what select_victims_on_node says, without its what-if
      ++no_victims;
      continue;
    }
    if (preemption.select_victims_on_node(cycle, handle, node, &victims, &reasons, &violations)) {
      candidates->push_back({node, victims, violations});
      if (candidates->size() >= wanted) break;
    } else {
      ++statuses;
      for (const std::string& r : reasons) (*reason_counts)[r]++;
    }
  }
  if (no_victims > 0) (*reason_counts)[kNoVictims] += no_victims;
  return statuses;
}

// Without a candidate: "0/N nodes are available: <count reason, ...sorted>.", where the nodes
// without a status count as "Preemption is not helpful for scheduling".
std::string no_candidate_message(size_t all_nodes, size_t statuses,
                                 std::map<std::string, int>& reason_counts) {
  if (all_nodes > statuses) {
    reason_counts["Preemption is not helpful for scheduling"] +=
        static_cast<int>(all_nodes - statuses);
  }
  std::vector<std::string> items;
  for (const auto& [reason, count] : reason_counts)
    items.push_back(std::to_string(count) + " " + reason);
  std::sort(items.begin(), items.end());
  std::string joined;
  for (const auto& s : items) joined += (joined.empty() ? "" : ", ") + s;
  return "0/" + std::to_string(all_nodes) + " nodes are available: " + joined + ".";
}

}  // namespace

fw::PostFilterResult DefaultPreemption::post_filter(const fw::CycleContext& cycle,
                                                    fw::Handle& handle,
                                                    const fw::Rejections& rejections) {
  fw::PostFilterResult result;
  const ClusterState& st = cycle.state;
  auto fail = [&](const std::string& msg) {
    result.status = fw::Status::unschedulable(name(), msg);
    result.message = "preemption: " + msg;
    return result;
  };
  // 1) Is the pod eligible to preempt?
  if (cycle.spec.preempt_never) {
    result.filters_decide = true;
    return fail("not eligible due to preemptionPolicy=Never.");
  }
  if (victim_terminating_on_nominated(cycle, rejections, terminating_)) {
    return fail("not eligible due to a terminating pod on the nominated node.");
  }

  // 2) Nodes where removing pods may help, dry-run from a random offset.
  const std::vector<NodeId> potential = potential_nodes(rejections);
  const size_t all_nodes = st.node_count();
  std::vector<Candidate> candidates;
  std::map<std::string, int> reason_counts;
  size_t statuses = 0;
  if (!potential.empty()) {
    const size_t offset = deterministic_ ? 0 : cycle.rng.below(potential.size());
    const size_t wanted = num_candidates(potential.size());
    statuses = find_candidates(*this, cycle, handle, potential, offset, wanted, &candidates,
                               &reason_counts);
  }
  if (candidates.empty()) {
    result.clear_nomination = true;
    // With no node where removing pods may help, only the filters' verdicts can change that.
    result.filters_decide = potential.empty();
    return fail(no_candidate_message(all_nodes, statuses, reason_counts));
  }

  // 3) The best candidate.
  const Candidate& best = candidates[candidates.size() == 1 ? 0 : pick_one_node(st, candidates)];
  result.status = fw::Status::ok();
  result.nominated_node = best.node;
  result.victims = best.victims;
  for (PodId v : best.victims) terminating_.insert(st.pod_serial(v));
  return result;
}

void DefaultPreemption::on_event(const fw::ClusterEvent& event) {
  if (event.kind == fw::EventKind::kPodDeleted || event.kind == fw::EventKind::kPodFinished) {
    terminating_.erase(event.pod_serial);
  }
}

// Preemption finds no candidate while no node has lower-priority pods whose removal makes the
// pod fit (or, for a nominated pod, while a victim is still terminating). That changes when a pod
// is released (resources, terminating victims), a lower-priority pod is assigned (a new victim),
// a node appears or changes, or a nomination the what-if honours is cleared. What-if verdicts of
// the filters themselves are covered by their own hints (the scheduler records every filter the
// pod ran when preemption failed).
fw::QueueingHint DefaultPreemption::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                  const fw::PodClassKey& waiting) const {
  switch (event.kind) {
    case fw::QueueEvent::kPodReleased:
    case fw::QueueEvent::kNodeAdded:
    case fw::QueueEvent::kNodeUpdated:
    case fw::QueueEvent::kAll: return fw::QueueingHint::kQueue;
    case fw::QueueEvent::kPodAssigned: return queue_if(event.priority < waiting.spec->priority);
    case fw::QueueEvent::kNominationCleared: return queue_if(nomination_may_help(event, waiting));
    default: return fw::QueueingHint::kSkip;
  }
}

uint64_t DefaultPreemption::class_salt(const ClusterState&, PodId) const {
  return 0;  // the spec (priority, preemption policy); nominations have their own classes
}

}  // namespace orrery::plugins
