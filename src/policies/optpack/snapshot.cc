#include "policies/optpack/snapshot.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "framework/cycle.h"
#include "framework/diagnosis.h"

namespace orrery::optpack {

namespace {

bool annotation_is(const LabelSet& a, std::string_view key, std::string_view value) {
  const std::optional<std::string_view> v = a.get(key);
  return v && (value.empty() || *v == value);
}

bool placement_independent(std::string_view plugin) {
  return plugin == "NodeUnschedulable" || plugin == "NodeName" || plugin == "TaintToleration" ||
         plugin == "NodeAffinity" || plugin == "MachineConstraints";
}

// The nodes (cluster ids) that pass the profile's placement-independent filters for pod p.
std::vector<NodeId> feasible_nodes(const ClusterState& st, fw::Profile& prof, PodId p, Rng& rng) {
  // A bound pod is asked as if it were pending again: its spec.nodeName is where it runs now,
  // not a constraint (the NodeName filter would otherwise pin it).
  Pod pod = st.pod(p);
  pod.node_name.clear();
  fw::CycleContext cycle{st, p, pod, *pod.spec, 0, rng};
  std::optional<std::vector<NodeId>> only;
  std::set<const fw::Plugin*> skipped;
  for (fw::Plugin* pl : prof.pre_filter) {
    if (!placement_independent(pl->name())) continue;
    std::optional<std::vector<NodeId>> narrowed;
    fw::Status s = pl->pre_filter(cycle, &narrowed);
    if (s.is_skip()) {
      skipped.insert(pl);
      continue;
    }
    if (!s.is_ok()) return {};
    if (narrowed) {
      if (!only) {
        only = std::move(narrowed);
      } else {
        std::vector<NodeId> keep;
        for (NodeId n : *only)
          if (std::find(narrowed->begin(), narrowed->end(), n) != narrowed->end())
            keep.push_back(n);
        only = std::move(keep);
      }
    }
  }
  std::vector<NodeId> nodes = only ? *only : st.nodes();
  std::sort(nodes.begin(), nodes.end());
  fw::Rejections rej;
  size_t n = nodes.size();
  for (fw::Plugin* pl : prof.filter) {
    if (!placement_independent(pl->name()) || skipped.count(pl)) continue;
    n = pl->filter(cycle, nodes.data(), n, rej);
  }
  nodes.resize(n);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace

std::string protection_reason(const ClusterState& st, PodId p) {
  const Pod& pod = st.pod(p);
  if (annotation_is(pod.spec->annotations, kProtectedAnnotation, "true"))
    return std::string("annotation ") + kProtectedAnnotation + ": \"true\"";
  if (pod.owner.kind == OwnerKind::kDaemonSet) return "owned by a DaemonSet";
  if (annotation_is(pod.spec->annotations, "kubernetes.io/config.mirror", ""))
    return "mirror (static) pod";
  if (pod.spec->priority >= kSystemClusterCritical)
    return "priority >= system-cluster-critical (2000000000)";
  return "";
}

namespace {

// Records pod p as left out of the model, with the reason.
void skip(SnapshotModel& out, const ClusterState& st, PodId p, std::string why) {
  out.skipped.push_back({st.pod(p).key(), std::move(why)});
}

// Fills out.node_ids (and warnings on nodes without capacity); returns cluster node → model node.
std::map<NodeId, int> index_nodes(const ClusterState& st, SnapshotModel& out) {
  std::map<NodeId, int> node_index;
  for (NodeId n : st.nodes()) {
    node_index[n] = static_cast<int>(out.node_ids.size());
    out.node_ids.push_back(n);
    const Resources a = st.allocatable_of(n);
    if (a[kCpu] <= 0 && a[kMemory] <= 0)
      out.warnings.push_back("node " + st.node(n).name + " has no cpu or memory capacity");
  }
  return node_index;
}

// Classifies the live pods: movable ones, and skipped ones (bound ones among them go to `fixed`).
void classify_pods(const ClusterState& st, const fw::Profile& profile, SnapshotModel& out,
                   std::vector<PodId>& movable, std::vector<PodId>& fixed) {
  for (PodId p : st.pods()) {
    const Pod& pod = st.pod(p);
    if (is_terminal(pod.phase)) continue;
    const bool bound = st.pod_node(p) != kNoNode;
    std::string why;
    if (pod.terminating)
      why = "terminating";
    else if (!bound && !pod.scheduling_gates.empty())
      why = "has scheduling gates";
    else if (pod.spec->scheduler_name != intern(profile.scheduler_name))
      why = "schedulerName is not " + profile.scheduler_name;
    else if (std::string r = protection_reason(st, p); !r.empty())
      why = "protected: " + r;
    else if (pod.spec->has_pod_affinity_terms() || !pod.spec->topology_spread.empty())
      why = "inter-pod affinity / topology spread constraints are not modelled";
    if (!why.empty()) {
      if (bound) fixed.push_back(p);
      skip(out, st, p, why + (bound ? " (kept on its node)" : " (left pending)"));
      continue;
    }
    movable.push_back(p);
  }
}

// The model's dimensions and node capacities (less the fixed pods' requests); returns the dims.
std::vector<ResourceId> add_dims_and_nodes(const ClusterState& st,
                                           const std::vector<PodId>& movable,
                                           const std::vector<PodId>& fixed,
                                           std::map<NodeId, int>& node_index, SnapshotModel& out) {
  Model& m = out.model;
  // Dimensions: every resource a movable pod requests, and the pod count.
  std::vector<ResourceId> dims = {kCpu, kMemory, kPods};
  for (PodId p : movable)
    for (int r = 0; r < resource_count(); ++r)
      if (st.pod(p).spec->request[r] > 0 &&
          std::find(dims.begin(), dims.end(), static_cast<ResourceId>(r)) == dims.end())
        dims.push_back(static_cast<ResourceId>(r));
  m.dims = static_cast<int>(dims.size());
  for (ResourceId r : dims) m.dim_names.emplace_back(resource_name(r));
  for (NodeId n : out.node_ids) {
    m.node_names.push_back(st.node(n).name);
    for (ResourceId r : dims) m.cap.push_back(st.allocatable(r)[n]);
  }
  for (PodId p : fixed) {
    const int j = node_index[st.pod_node(p)];
    for (size_t d = 0; d < dims.size(); ++d)
      m.cap[j * dims.size() + d] -= st.pod(p).spec->request[dims[d]];
  }
  return dims;
}

// Why a pod whose feasible nodes (`row`) all lack room is skipped.
std::string unplaceable_reason(const ClusterState& st, const Pod& pod,
                               const std::vector<ResourceId>& dims, const std::vector<uint8_t>& row,
                               const SnapshotModel& out) {
  std::string why = "no node passes its filters (left pending)";
  // Name a resource no feasible node has enough of, with the largest offer.
  for (ResourceId r : dims) {
    int64_t most = -1;
    for (size_t j = 0; j < out.node_ids.size(); ++j)
      if (row[j]) most = std::max(most, st.allocatable(r)[out.node_ids[j]]);
    if (most >= 0 && pod.spec->request[r] > most) {
      why = "larger than every node it may run on: requests " +
            format_resource_quantity(r, pod.spec->request[r]) + " " +
            std::string(resource_name(r)) + ", the most any offers is " +
            format_resource_quantity(r, most) + " (left pending)";
      break;
    }
  }
  if (std::find(row.begin(), row.end(), 1) != row.end() && why.starts_with("no node passes"))
    why = "larger than every node it may run on (left pending)";
  return why;
}

// Keeps the movable pods some node could hold (`kept`, with their feasibility `rows`).
void keep_placeable(const ClusterState& st, fw::Profile& profile, Rng& rng,
                    const std::vector<ResourceId>& dims, const std::vector<PodId>& movable,
                    std::map<NodeId, int>& node_index, SnapshotModel& out,
                    std::vector<std::vector<uint8_t>>& rows, std::vector<PodId>& kept) {
  for (PodId p : movable) {
    const Pod& pod = st.pod(p);
    const bool bound = st.pod_node(p) != kNoNode;
    std::vector<uint8_t> row(out.node_ids.size(), 0);
    for (NodeId n : feasible_nodes(st, profile, p, rng)) row[node_index[n]] = 1;
    if (bound) row[node_index[st.pod_node(p)]] = 1;
    bool fits_some = bound;
    for (size_t j = 0; j < out.node_ids.size() && !fits_some; ++j) {
      if (!row[j]) continue;
      bool ok = true;
      for (ResourceId r : dims)
        ok = ok && pod.spec->request[r] <= st.allocatable(r)[out.node_ids[j]];
      fits_some = ok;
    }
    if (!fits_some) {
      skip(out, st, p, unplaceable_reason(st, pod, dims, row, out));
      continue;
    }
    kept.push_back(p);
    rows.push_back(std::move(row));
  }
}

// Adds the kept pods to the model: names, requests, priority tiers, placement, feasibility.
void add_pods(const ClusterState& st, const std::vector<ResourceId>& dims,
              const std::vector<PodId>& kept, const std::vector<std::vector<uint8_t>>& rows,
              std::map<NodeId, int>& node_index, SnapshotModel& out) {
  Model& m = out.model;
  std::set<int32_t, std::greater<>> prios;
  for (PodId p : kept) prios.insert(st.pod(p).spec->priority);
  m.tier_priority.assign(prios.begin(), prios.end());
  for (size_t i = 0; i < kept.size(); ++i) {
    const PodId p = kept[i];
    const Pod& pod = st.pod(p);
    m.pod_names.push_back(pod.key());
    for (ResourceId r : dims) m.req.push_back(pod.spec->request[r]);
    m.tier.push_back(static_cast<int>(std::distance(
        m.tier_priority.begin(),
        std::find(m.tier_priority.begin(), m.tier_priority.end(), pod.spec->priority))));
    m.where.push_back(st.pod_node(p) == kNoNode ? kUnplaced : node_index[st.pod_node(p)]);
    out.pod_ids.push_back(p);
  }
  m.feasible.clear();
  for (const auto& row : rows) m.feasible.insert(m.feasible.end(), row.begin(), row.end());
}

}  // namespace

SnapshotModel build_model(const ClusterState& st, fw::Profile& profile,
                          const SnapshotLimits& limits) {
  SnapshotModel out;
  Rng rng = Rng::derive(0, "optpack-filters");
  if (limits.max_nodes && st.node_count() > limits.max_nodes)
    throw InputError("the cluster has " + std::to_string(st.node_count()) +
                     " nodes, more than the solve limit of " + std::to_string(limits.max_nodes));
  std::map<NodeId, int> node_index = index_nodes(st, out);
  // Classify the pods.
  std::vector<PodId> movable;
  std::vector<PodId> fixed;  // their requests stay on their node
  classify_pods(st, profile, out, movable, fixed);
  if (limits.max_pods && movable.size() > limits.max_pods)
    throw InputError("the cluster has " + std::to_string(movable.size()) +
                     " movable pods, more than the solve limit of " +
                     std::to_string(limits.max_pods));
  const std::vector<ResourceId> dims = add_dims_and_nodes(st, movable, fixed, node_index, out);
  // Pods: drop pending ones no node could ever hold.
  std::vector<std::vector<uint8_t>> rows;
  std::vector<PodId> kept;
  keep_placeable(st, profile, rng, dims, movable, node_index, out, rows, kept);
  add_pods(st, dims, kept, rows, node_index, out);
  out.model.validate();
  return out;
}

}  // namespace orrery::optpack
