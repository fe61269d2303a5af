#include "core/cluster_state.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>

#include "core/error.h"

namespace orrery {
namespace {
constexpr uint32_t kNotCounted = ~uint32_t{0};

// Node epochs are unique across all ClusterState objects, so a cache keyed on an epoch can never
// mistake one state for another.
std::atomic<uint64_t> g_node_epoch{0};
uint64_t next_node_epoch() {
  return g_node_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
}
// Likewise node versions (0 is never used).
std::atomic<uint64_t> g_node_version{0};
}  // namespace

void ClusterState::touch(NodeId id) {
  node_version_[id] = g_node_version.fetch_add(1, std::memory_order_relaxed) + 1;
}

std::optional<NodeId> ClusterState::find_node(std::string_view name) const {
  auto it = node_by_name_.find(std::string(name));
  if (it == node_by_name_.end()) return std::nullopt;
  return it->second;
}

void ClusterState::set_allocatable(NodeId id, const Resources& r) {
  for (int i = 0; i < kMaxResources; ++i) allocatable_[i][id] = r.q[i];
  touch(id);
}

NodeId ClusterState::add_node(Node node) {
  if (node.name.empty()) throw InputError("node without a name");
  if (node_by_name_.count(node.name)) {
    throw InputError("duplicate node name \"" + node.name + "\"");
  }
  const NodeId id = static_cast<NodeId>(nodes_.size());
  node_by_name_.emplace(node.name, id);
  for (int i = 0; i < kMaxResources; ++i) {
    allocatable_[i].push_back(0);
    requested_[i].push_back(0);
  }
  nonzero_cpu_.push_back(0);
  nonzero_memory_.push_back(0);
  node_version_.push_back(0);
  node_pods_.emplace_back();
  node_ports_.emplace_back();
  node_groups_.emplace_back();
  alive_.push_back(1);
  nodes_.push_back(std::move(node));
  set_allocatable(id, nodes_[id].allocatable);
  live_nodes_.push_back(id);
  node_epoch_ = next_node_epoch();
  return id;
}

void ClusterState::update_node(NodeId id, Node node) {
  if (!node_alive(id)) throw std::logic_error("update_node: dead node");
  if (node.name != nodes_[id].name) {
    if (node_by_name_.count(node.name)) {
      throw InputError("duplicate node name \"" + node.name + "\"");
    }
    node_by_name_.erase(nodes_[id].name);
    node_by_name_.emplace(node.name, id);
  }
  nodes_[id] = std::move(node);
  set_allocatable(id, nodes_[id].allocatable);
  node_epoch_ = next_node_epoch();
}

void ClusterState::remove_node(NodeId id) {
  if (!node_alive(id)) throw std::logic_error("remove_node: dead node");
  if (!node_pods_[id].empty()) throw std::logic_error("remove_node: node still has pods");
  // Terminal pods that ran here keep pointing at the dead slot for reporting; node(id) stays
  // readable.
  alive_[id] = 0;
  node_by_name_.erase(nodes_[id].name);
  live_nodes_.erase(std::find(live_nodes_.begin(), live_nodes_.end(), id));
  for (int i = 0; i < kMaxResources; ++i) allocatable_[i][id] = 0;
  touch(id);
  node_epoch_ = next_node_epoch();
}

Resources ClusterState::allocatable_of(NodeId id) const {
  Resources r;
  for (int i = 0; i < kMaxResources; ++i) r.q[i] = allocatable_[i][id];
  return r;
}

Resources ClusterState::requested_of(NodeId id) const {
  Resources r;
  for (int i = 0; i < kMaxResources; ++i) r.q[i] = requested_[i][id];
  return r;
}

namespace {
std::string group_key(std::string_view ns, OwnerKind kind, std::string_view name) {
  std::string k;
  k.reserve(ns.size() + name.size() + 4);
  k.append(ns).push_back('\x1f');
  k.push_back(static_cast<char>('0' + static_cast<int>(kind)));
  k.push_back('\x1f');
  k.append(name);
  return k;
}
}  // namespace

GroupId ClusterState::find_group(std::string_view ns, OwnerKind kind, std::string_view name) const {
  auto it = group_by_key_.find(group_key(ns, kind, name));
  return it == group_by_key_.end() ? kNoGroup : it->second;
}

int32_t ClusterState::group_count(GroupId g, NodeId node) const {
  for (const NodeGroup& e : node_groups_[node])
    if (e.group == g) return group_nodes_[g][e.index].second;
  return 0;
}

// A group's entry for a node is found through the node's (short) list of groups rather than the
// group's list of nodes, which is long for a big Job or Deployment. The group's list keeps its
// order (append, swap with the last on removal).
std::vector<ClusterState::NodeGroup>::iterator ClusterState::node_group(GroupId g, NodeId node) {
  auto& ng = node_groups_[node];
  return std::find_if(ng.begin(), ng.end(), [g](const NodeGroup& e) { return e.group == g; });
}

void ClusterState::count_group(GroupId g, NodeId node) {
  auto it = node_group(g, node);
  auto& list = group_nodes_[g];
  if (it == node_groups_[node].end()) {
    node_groups_[node].push_back({g, static_cast<uint32_t>(list.size())});
    list.emplace_back(node, 1);
  } else {
    ++list[it->index].second;
  }
}

void ClusterState::uncount_group(GroupId g, NodeId node) {
  auto it = node_group(g, node);
  auto& list = group_nodes_[g];
  const uint32_t index = it->index;
  if (--list[index].second > 0) return;
  list[index] = list.back();
  list.pop_back();
  if (index < list.size()) node_group(g, list[index].first)->index = index;
  auto& ng = node_groups_[node];
  *it = ng.back();
  ng.pop_back();
}

// Only the pod's non-zero requests (request_mask; a pod typically requests 2-3 of the 16 slots).
void ClusterState::add_requests(const PodSpec& spec, NodeId node, int64_t sign) {
  for (uint32_t m = spec.request_mask; m != 0; m &= m - 1) {
    const int r = std::countr_zero(m);
    requested_[r][node] += sign * spec.request.q[r];
  }
}

void ClusterState::count_requests(const PodSpec& spec, NodeId node, int64_t sign) {
  add_requests(spec, node, sign);
  touch(node);
  nonzero_cpu_[node] += sign * spec.node_nonzero_cpu;
  nonzero_memory_[node] += sign * spec.node_nonzero_memory;
  if (!spec.host_ports.empty()) count_ports(spec, node, sign);
}

void ClusterState::count_ports(const PodSpec& spec, NodeId node, int64_t sign) {
  std::vector<UsedPort>& used = node_ports_[node];
  for (const HostPort& hp : spec.host_ports) {
    auto it = std::find_if(used.begin(), used.end(),
                           [&](const UsedPort& u) { return u.port == hp; });
    if (sign > 0) {
      if (it == used.end()) {
        used.push_back({hp, 1});
      } else {
        ++it->users;
      }
    } else if (it != used.end() && --it->users == 0) {
      *it = used.back();
      used.pop_back();
    }
  }
}

const ApiObjects& ClusterState::api_objects() const {
  static const ApiObjects kNone;
  return api_ ? *api_ : kNone;
}

int ClusterState::claim_users(std::string_view ns, std::string_view claim) const {
  if (claim_users_.empty()) return 0;
  std::string key;
  key.reserve(ns.size() + claim.size() + 1);
  key.append(ns).append("/").append(claim);
  auto it = claim_users_.find(key);
  return it == claim_users_.end() ? 0 : it->second;
}

void ClusterState::count_claims(PodId id, int sign) {
  const Pod& pod = pods_[id];
  for (const PodVolume& v : pod.spec->volumes) {
    if (v.kind != PodVolume::Kind::kClaim) continue;
    auto it = claim_users_.try_emplace(pod.ns + "/" + v.id, 0).first;
    if ((it->second += sign) <= 0) claim_users_.erase(it);
  }
}

void ClusterState::count_on_node(PodId id, NodeId node) {
  const PodSpec& spec = *pods_[id].spec;
  if (!spec.volumes.empty()) count_claims(id, 1);
  if (const GroupId g = pod_group_[id]; g != kNoGroup && !pods_[id].terminating) {
    count_group(g, node);
  }
  count_requests(spec, node, 1);
  pod_slot_on_node_[id] = static_cast<uint32_t>(node_pods_[node].size());
  node_pods_[node].push_back(id);
  if (spec.has_pod_affinity_terms()) index_affinity(id);
}

void ClusterState::index_affinity(PodId id) {
  const PodSpec& spec = *pods_[id].spec;
  if (pod_affinity_slot_.size() < pods_.size()) {
    pod_affinity_slot_.resize(pods_.size(), {kNotCounted, kNotCounted});
  }
  const bool member[2] = {spec.has_scoring_pod_affinity(), spec.has_required_pod_anti_affinity()};
  for (int i = 0; i < 2; ++i) {
    if (!member[i]) continue;
    pod_affinity_slot_[id][i] = static_cast<uint32_t>(affinity_pods_[i].size());
    affinity_pods_[i].push_back(id);
  }
}

void ClusterState::unindex_affinity(PodId id) {
  for (int i = 0; i < 2; ++i) {
    const uint32_t slot = pod_affinity_slot_[id][i];
    if (slot == kNotCounted) continue;
    std::vector<PodId>& list = affinity_pods_[i];
    const PodId last = list.back();
    list[slot] = last;
    pod_affinity_slot_[last][i] = slot;
    list.pop_back();
    pod_affinity_slot_[id][i] = kNotCounted;
  }
}

void ClusterState::add_namespace(const std::string& name, LabelSet labels) {
  if (!namespaces_.emplace(name, std::move(labels)).second) {
    throw InputError("duplicate namespace \"" + name + "\"");
  }
}

void ClusterState::uncount(PodId id) {
  const uint32_t slot = pod_slot_on_node_[id];
  if (slot == kNotCounted) return;
  const NodeId node = pod_node_[id];
  const PodSpec& spec = *pods_[id].spec;
  if (const GroupId g = pod_group_[id]; g != kNoGroup && !pods_[id].terminating) {
    uncount_group(g, node);
  }
  count_requests(spec, node, -1);
  if (!spec.volumes.empty()) count_claims(id, -1);
  if (spec.has_pod_affinity_terms()) unindex_affinity(id);
  std::vector<PodId>& list = node_pods_[node];
  const PodId last = list.back();
  list[slot] = last;
  pod_slot_on_node_[last] = slot;
  list.pop_back();
  pod_slot_on_node_[id] = kNotCounted;
}

PodId ClusterState::add_pod(Pod pod) {
  if (!pod.spec) throw std::logic_error("add_pod: pod without a spec");
  std::string key = pod.key();
  if (pod_by_key_.count(key)) throw InputError("duplicate pod \"" + key + "\"");
  NodeId node = kNoNode;
  if (!pod.node_name.empty()) {
    auto n = find_node(pod.node_name);
    if (!n) {
      throw InputError("pod \"" + key + "\": spec.nodeName \"" + pod.node_name +
                       "\" is not a known node");
    }
    node = *n;
  }
  GroupId group = kNoGroup;
  if (pod.owner.kind != OwnerKind::kNone) {
    auto [it, fresh] = group_by_key_.emplace(group_key(pod.ns, pod.owner.kind, pod.owner.name),
                                             static_cast<GroupId>(group_nodes_.size()));
    if (fresh) group_nodes_.emplace_back();
    group = it->second;
  }
  PodId id;
  if (!free_pod_ids_.empty()) {
    id = free_pod_ids_.back();
    free_pod_ids_.pop_back();
    pods_[id] = std::move(pod);
    pod_alive_[id] = 1;
    pod_node_[id] = kNoNode;
    pod_slot_on_node_[id] = kNotCounted;
    pod_serial_[id] = next_serial_++;
    pod_group_[id] = group;
  } else {
    id = static_cast<PodId>(pods_.size());
    pods_.push_back(std::move(pod));
    pod_alive_.push_back(1);
    pod_node_.push_back(kNoNode);
    pod_slot_on_node_.push_back(kNotCounted);
    pod_serial_.push_back(next_serial_++);
    pod_group_.push_back(group);
  }
  pod_by_key_.emplace(std::move(key), id);
  ++pod_count_;
  if (node != kNoNode) {
    pod_node_[id] = node;
    if (!is_terminal(pods_[id].phase)) count_on_node(id, node);
  }
  return id;
}

void ClusterState::assign(PodId id, NodeId node) {
  if (!pod_alive(id) || !node_alive(node)) throw std::logic_error("assign: dead pod or node");
  if (pod_node_[id] != kNoNode) throw std::logic_error("assign: pod already on a node");
  pod_node_[id] = node;
  pods_[id].node_name = nodes_[node].name;
  if (!is_terminal(pods_[id].phase)) count_on_node(id, node);
}

void ClusterState::unassign(PodId id) {
  if (!pod_alive(id)) throw std::logic_error("unassign: dead pod");
  uncount(id);
  pod_node_[id] = kNoNode;
  pods_[id].node_name.clear();
}

void ClusterState::remove_pod(PodId id) {
  if (!pod_alive(id)) throw std::logic_error("remove_pod: dead pod");
  uncount(id);
  pod_by_key_.erase(pods_[id].key());
  pods_[id] = Pod{};
  pod_alive_[id] = 0;
  pod_node_[id] = kNoNode;
  pod_group_[id] = kNoGroup;
  free_pod_ids_.push_back(id);
  --pod_count_;
}

void ClusterState::set_terminating(PodId id) {
  if (!pod_alive(id)) throw std::logic_error("set_terminating: dead pod");
  if (pods_[id].terminating) return;
  if (pod_slot_on_node_[id] != kNotCounted && pod_group_[id] != kNoGroup) {
    uncount_group(pod_group_[id], pod_node_[id]);
  }
  pods_[id].terminating = true;
}

void ClusterState::replace_spec(PodId id, std::shared_ptr<const PodSpec> spec) {
  if (!pod_alive(id)) throw std::logic_error("replace_spec: dead pod");
  if (!spec) throw std::logic_error("replace_spec: no spec");
  const NodeId node = pod_node_[id];
  const bool counted = pod_slot_on_node_[id] != kNotCounted;
  if (counted) uncount(id);
  pods_[id].spec = std::move(spec);
  if (counted) count_on_node(id, node);
}

void ClusterState::set_phase(PodId id, PodPhase phase) {
  if (!pod_alive(id)) throw std::logic_error("set_phase: dead pod");
  Pod& p = pods_[id];
  const bool was_counted = pod_slot_on_node_[id] != kNotCounted;
  p.phase = phase;
  if (is_terminal(phase) && was_counted) uncount(id);
  if (!is_terminal(phase) && !was_counted && pod_node_[id] != kNoNode) {
    count_on_node(id, pod_node_[id]);
  }
}

std::optional<PodId> ClusterState::find_pod(std::string_view ns, std::string_view name) const {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).append("/").append(name);
  auto it = pod_by_key_.find(key);
  if (it == pod_by_key_.end()) return std::nullopt;
  return it->second;
}

std::vector<PodId> ClusterState::pods() const {
  std::vector<PodId> out;
  out.reserve(pod_count_);
  for (PodId i = 0; i < pods_.size(); ++i)
    if (pod_alive_[i]) out.push_back(i);
  return out;
}

}  // namespace orrery
