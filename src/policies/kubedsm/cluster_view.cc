#include "policies/kubedsm/cluster_view.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.h"

namespace orrery::kubedsm {
namespace {

Vec2 sizing_request(const PodSpec& spec) {
  return {spec.nonzero_request[kCpu], spec.nonzero_request[kMemory]};
}

}  // namespace

int32_t ClusterView::edge_index(NodeId n) const {
  for (size_t i = 0; i < edge_nodes.size(); ++i)
    if (edge_nodes[i] == n) return static_cast<int32_t>(i);
  return kCloud;
}

bool is_edge_node(const Node& n) {
  return n.tier == Tier::kEdge;
}

bool accepts_pods(const Node& n) {
  if (n.unschedulable) return false;
  for (const Taint& t : n.taints)
    if (t.effect == TaintEffect::kNoSchedule || t.effect == TaintEffect::kNoExecute) return false;
  return true;
}

std::string service_key(const Pod& p) {
  if (p.owner.kind != OwnerKind::kNone)
    return fmt::format("{}/{}", to_string(p.owner.kind), p.owner.name);
  return fmt::format("Pod/{}", p.key());
}

double qos_target(const Pod& p, const std::string& key, const ViewOptions& o) {
  if (auto a = p.spec->annotations.get(std::string_view(kQosAnnotation))) {
    const std::string text(*a);
    char* end = nullptr;
    const double q = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(q >= 0.0 && q <= 1.0))
      throw InputError(fmt::format(
          "pod {} ({}): annotation {}: expected a number in [0, 1] (the fraction of the "
          "service's pods that should run on the edge), got \"{}\"",
          p.key(), key, kQosAnnotation, text));
    return q;
  }
  auto it = o.qos_targets.find(key);
  if (it == o.qos_targets.end() && p.owner.kind != OwnerKind::kNone)
    it = o.qos_targets.find(p.owner.name);  // settings may name the deployment only
  return it != o.qos_targets.end() ? it->second : o.default_qos;
}

ClusterView build_view(const ClusterState& s, const ViewOptions& o, std::span<const PodId> batch,
                       const fw::PlanExecutor& plans) {
  ClusterView v;
  EdgeModel& m = v.model;
  // Edge nodes, in NodeId order.
  for (NodeId n : s.nodes()) {
    const Node& node = s.node(n);
    if (!is_edge_node(node)) continue;
    v.edge_nodes.push_back(n);
    const Vec2 cap{s.allocatable(kCpu)[n], s.allocatable(kMemory)[n]};
    m.add_node(cap, node.name);
    Vec2 used{s.nonzero_requested(kCpu)[n], s.nonzero_requested(kMemory)[n]};
    if (!accepts_pods(node)) used = {std::max(used.cpu, cap.cpu), std::max(used.mem, cap.mem)};
    m.used.back() = used;
  }
  // Cloud nodes pods may go to, with their free room (the model's bounded cloud).
  std::vector<NodeId> cloud_nodes;
  m.cloud_bounded = o.bounded_cloud;
  for (NodeId n : s.nodes()) {
    const Node& node = s.node(n);
    if (is_edge_node(node) || !accepts_pods(node)) continue;
    cloud_nodes.push_back(n);
    const Resources free = s.free_of(n);
    m.cloud_free.push_back({free[kCpu], free[kMemory]});
  }
  // Room that plans will still bind.
  for (const fw::PendingBind& b : plans.pending_binds()) {
    const Vec2 r = b.pod != kNoPod ? sizing_request(*s.pod(b.pod).spec)
                                   : Vec2{b.request[kCpu], b.request[kMemory]};
    const int32_t e = v.edge_index(b.node);
    if (e != kCloud) {
      m.used[static_cast<size_t>(e)] += r;
      continue;
    }
    // As KubeDsm::choose_cloud counts it.
    for (size_t c = 0; c < cloud_nodes.size(); ++c)
      if (cloud_nodes[c] == b.node) m.cloud_free[c] -= Vec2{b.request[kCpu], b.request[kMemory]};
  }

  std::map<std::string, uint32_t> service_of;
  auto service = [&](const Pod& p) -> uint32_t {
    std::string key = service_key(p);
    const Vec2 r = sizing_request(*p.spec);
    auto it = service_of.find(key);
    if (it != service_of.end() && !(m.services[it->second].request == r)) {
      // Same owner, different request (e.g. a rollout): a service of its own.
      key = fmt::format("{} (cpu={}m, memory={})", key, r.cpu, r.mem);
      it = service_of.find(key);
    }
    if (it != service_of.end()) return it->second;
    const uint32_t id = m.add_service(key, r, qos_target(p, service_key(p), o));
    v.service_keys.push_back(key);
    service_of.emplace(key, id);
    return id;
  };

  const std::vector<PodId> pods = s.pods();
  for (PodId id : pods) {
    const Pod& p = s.pod(id);
    if (p.spec->scheduler_name != o.scheduler_name || is_terminal(p.phase)) continue;
    const NodeId node = s.pod_node(id);
    if (node == kNoNode) continue;  // pending: only the batch's pods (below)
    if (p.terminating) continue;    // being deleted: holds its node until PodDeleted
    const uint64_t serial = s.pod_serial(id);
    const bool movable = p.phase == PodPhase::kRunning && p.owner.kind != OwnerKind::kNone &&
                         !plans.involves(serial);
    const uint32_t svc = service(p);
    // Usage is already in `used` (from the state): place without counting it again.
    m.pods.push_back({svc, v.edge_index(node), movable, serial});
    v.pod_ids.push_back(id);
  }
  for (PodId id : batch) {
    if (!s.pod_alive(id) || s.pod_node(id) != kNoNode) continue;
    const Pod& p = s.pod(id);
    v.batch.push_back(m.add_pod(service(p), kCloud, false, s.pod_serial(id)));
    v.pod_ids.push_back(id);
  }
  return v;
}

}  // namespace orrery::kubedsm
