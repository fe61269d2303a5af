// The cluster as one scheduler (or the simulator) sees it: nodes, pods, and per-node accounting
// kept incrementally so filtering and scoring never rescan pods.
//
// Layout for the hot path: per-resource arrays indexed by NodeId (struct of arrays), so a filter
// or score plugin walks contiguous int64 arrays. Node and pod ids are dense and stable; a removed
// node leaves a dead slot, a removed pod's slot is reused.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/api_objects.h"
#include "core/node.h"
#include "core/pod.h"

namespace orrery {

using NodeId = uint32_t;
using PodId = uint32_t;
using GroupId = uint32_t;
inline constexpr NodeId kNoNode = ~NodeId{0};
inline constexpr PodId kNoPod = ~PodId{0};
inline constexpr GroupId kNoGroup = ~GroupId{0};

class ClusterState {
 public:
  // ---- nodes ----
  // Adds a node; throws InputError if a live node has the same name.
  NodeId add_node(Node node);
  // Replaces a node's spec (labels, taints, allocatable, ...), keeping its pods.
  void update_node(NodeId id, Node node);
  // Removes a node; its pods must have been unassigned or removed first.
  void remove_node(NodeId id);

  bool node_alive(NodeId id) const { return id < nodes_.size() && alive_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  std::optional<NodeId> find_node(std::string_view name) const;
  // Live node ids in ascending order.
  const std::vector<NodeId>& nodes() const { return live_nodes_; }
  size_t node_count() const { return live_nodes_.size(); }
  size_t node_slots() const { return nodes_.size(); }  // every NodeId is < node_slots()
  // Changes with every add_node / update_node / remove_node (to a value no other state has had),
  // so plugins can keep per-node derived data (flags, ranks) and rebuild it only when nodes
  // changed.
  uint64_t node_epoch() const { return node_epoch_; }

  // ---- accounting, indexed by NodeId ----
  const int64_t* allocatable(ResourceId r) const { return allocatable_[r].data(); }
  // Σ effective requests of the pods counted on each node (requested(kPods) = pod count).
  const int64_t* requested(ResourceId r) const { return requested_[r].data(); }
  // Like requested() but with the scoring defaults (100m / 200Mi) for missing cpu/memory requests.
  const int64_t* nonzero_requested(ResourceId r) const {
    return r == kCpu      ? nonzero_cpu_.data()
           : r == kMemory ? nonzero_memory_.data()
                          : requested_[r].data();
  }
  // Per node, a number that changes (to a value no node of any state has had) whenever the node's
  // accounting changes: its allocatable or the requests counted on it. A plugin may cache a
  // per-node result computed from allocatable()/requested() and reuse it while the version holds.
  const uint64_t* node_versions() const { return node_version_.data(); }
  Resources allocatable_of(NodeId id) const;
  Resources requested_of(NodeId id) const;
  Resources free_of(NodeId id) const { return allocatable_of(id) - requested_of(id); }
  // Room held on a node for a pod that does not exist yet (fw::Reservations: a plan's pod still to
  // be created): `spec`'s requests are counted there like an assumed pod's, without a pod.
  // release_room() undoes exactly one hold_room().
  void hold_room(NodeId node, const PodSpec& spec) { count_requests(spec, node, 1); }
  void release_room(NodeId node, const PodSpec& spec) { count_requests(spec, node, -1); }

  // Pods counted on the node (bound or assumed, not terminal).
  const std::vector<PodId>& pods_on(NodeId id) const { return node_pods_[id]; }

  // Host ports in use on a node (NodeInfo.UsedPorts): the host ports of the pods counted there and
  // of held room, each (ip, protocol, port) with the number of users. Usually empty.
  struct UsedPort {
    HostPort port;
    int32_t users = 0;
  };
  const std::vector<UsedPort>& used_ports(NodeId id) const { return node_ports_[id]; }

  // ---- controller groups ----
  // Pods with an owner (ReplicaSet, Deployment, Job, ...) form a group per (namespace, owner kind,
  // owner name): the replicas a controller's selector matches. Their per-node counts are kept
  // incrementally (PodTopologySpread's default spreading reads them instead of scanning pods);
  // pods being deleted (terminating) are not counted, as upstream's countPodsMatchSelector.
  GroupId pod_group(PodId id) const { return pod_group_[id]; }
  // The group of (ns, kind, name) if any pod ever had it, else kNoGroup.
  GroupId find_group(std::string_view ns, OwnerKind kind, std::string_view name) const;
  // (node, number of the group's pods counted there) for every node holding some; unordered.
  const std::vector<std::pair<NodeId, int32_t>>& group_nodes(GroupId g) const {
    return group_nodes_[g];
  }
  int32_t group_count(GroupId g, NodeId node) const;

  // ---- pods with inter-pod (anti-)affinity terms ----
  // The counted pods (bound or assumed, not terminal) whose terms matter to other pods, kept
  // incrementally so the InterPodAffinity plugin does not scan every pod when only a few have
  // terms (upstream's HavePodsWithAffinityList / HavePodsWithRequiredAntiAffinityList). Unordered.
  // Pods with a required affinity or a preferred (anti-)affinity term (PodSpec::
  // has_scoring_pod_affinity: they score other pods; upstream's PodsWithAffinity also holds pods
  // with only required anti-affinity, which score nothing):
  const std::vector<PodId>& pods_with_scoring_affinity() const { return affinity_pods_[0]; }
  // Pods with a required anti-affinity term (they filter other pods):
  const std::vector<PodId>& pods_with_required_anti_affinity() const { return affinity_pods_[1]; }

  // ---- namespaces ----
  // Namespace objects (their labels, for pod affinity namespaceSelectors). A namespace without
  // an object has no labels, as kube-scheduler treats a namespace it cannot find. Throws
  // InputError for a duplicate name.
  void add_namespace(const std::string& name, LabelSet labels);
  // The labels of a namespace, or nullptr when there is no object for it.
  const LabelSet* namespace_labels(std::string_view name) const {
    auto it = namespaces_.find(name);
    return it == namespaces_.end() ? nullptr : &it->second;
  }
  // Every namespace object, by name.
  const std::map<std::string, LabelSet, std::less<>>& namespaces() const { return namespaces_; }

  // ---- other API objects (volumes, disruption budgets) ----
  // The dump's PVCs, PVs, StorageClasses, CSINodes and PodDisruptionBudgets (immutable; empty
  // when none were given).
  void set_api_objects(std::shared_ptr<const ApiObjects> objects) { api_ = std::move(objects); }
  const ApiObjects& api_objects() const;
  // The number of counted pods (bound or assumed, not terminal) with a persistentVolumeClaim
  // volume of claim ns/name: upstream's NodeInfo.PVCRefCounts summed over the nodes (the
  // snapshot's usedPVCSet, which VolumeRestrictions reads for ReadWriteOncePod claims).
  int claim_users(std::string_view ns, std::string_view claim) const;

  // ---- pods ----
  // Adds a pod. A pod whose node_name names a known node is assigned to it (and counted unless it
  // is terminal); an unknown node_name throws InputError. Duplicate ns/name throws InputError.
  PodId add_pod(Pod pod);
  // Assigns (binds or assumes) a pending pod to a node and counts its requests there.
  void assign(PodId id, NodeId node);
  // Releases the pod from its node; the pod becomes pending again.
  void unassign(PodId id);
  // Removes the pod (releasing its node first).
  void remove_pod(PodId id);
  // Terminal phases release the node's resources; the pod keeps its node for reporting.
  void set_phase(PodId id, PodPhase phase);

  // The pod is being deleted (deletionTimestamp set); it keeps its node's room until removed, but
  // leaves its controller group's counts (PodTopologySpread skips pods being deleted).
  void set_terminating(PodId id);
  // Replaces the pod's spec (an update or a mutation); its requests are re-counted on its node.
  void replace_spec(PodId id, std::shared_ptr<const PodSpec> spec);
  void set_scheduling_gates(PodId id, std::vector<std::string> gates) {
    pods_[id].scheduling_gates = std::move(gates);
  }
  bool pod_alive(PodId id) const { return id < pods_.size() && pod_alive_[id]; }
  const Pod& pod(PodId id) const { return pods_[id]; }
  NodeId pod_node(PodId id) const { return pod_node_[id]; }
  // A number unique to this pod for the life of the state (PodIds are reused, serials are not).
  uint64_t pod_serial(PodId id) const { return pod_serial_[id]; }
  std::optional<PodId> find_pod(std::string_view ns, std::string_view name) const;
  size_t pod_count() const { return pod_count_; }
  size_t pod_slots() const { return pods_.size(); }  // every PodId is < pod_slots()
  // Live pod ids in ascending order.
  std::vector<PodId> pods() const;

 private:
  void count_on_node(PodId id, NodeId node);
  void index_affinity(PodId id);
  void unindex_affinity(PodId id);
  void add_requests(const PodSpec& spec, NodeId node, int64_t sign);
  // add_requests plus the scoring (non-zero) requests and a new node version.
  void count_requests(const PodSpec& spec, NodeId node, int64_t sign);
  void count_ports(const PodSpec& spec, NodeId node, int64_t sign);
  void count_claims(PodId id, int sign);
  struct NodeGroup {
    GroupId group;
    uint32_t index;  // of the node's entry in group_nodes_[group]
  };
  std::vector<NodeGroup>::iterator node_group(GroupId g, NodeId node);
  void count_group(GroupId g, NodeId node);
  void uncount_group(GroupId g, NodeId node);
  void uncount(PodId id);
  void set_allocatable(NodeId id, const Resources& r);
  void touch(NodeId id);  // a new node_version

  std::vector<Node> nodes_;
  std::vector<uint8_t> alive_;
  std::vector<NodeId> live_nodes_;
  uint64_t node_epoch_ = 0;
  std::unordered_map<std::string, NodeId> node_by_name_;
  std::array<std::vector<int64_t>, kMaxResources> allocatable_;
  std::array<std::vector<int64_t>, kMaxResources> requested_;
  std::vector<int64_t> nonzero_cpu_;
  std::vector<int64_t> nonzero_memory_;
  std::vector<uint64_t> node_version_;
  std::vector<std::vector<PodId>> node_pods_;
  std::vector<std::vector<UsedPort>> node_ports_;

  std::vector<Pod> pods_;
  std::vector<uint8_t> pod_alive_;
  std::vector<NodeId> pod_node_;
  std::vector<uint32_t> pod_slot_on_node_;  // index in node_pods_ when counted, else ~0
  // pods_with_scoring_affinity / pods_with_required_anti_affinity, and each pod's index in them
  // (~0 when not a member).
  std::array<std::vector<PodId>, 2> affinity_pods_;
  std::vector<std::array<uint32_t, 2>> pod_affinity_slot_;
  std::map<std::string, LabelSet, std::less<>> namespaces_;
  std::shared_ptr<const ApiObjects> api_;
  std::unordered_map<std::string, int> claim_users_;  // "ns/claim" -> counted pods using it
  std::vector<uint64_t> pod_serial_;
  std::vector<GroupId> pod_group_;
  std::unordered_map<std::string, GroupId> group_by_key_;
  std::vector<std::vector<std::pair<NodeId, int32_t>>> group_nodes_;
  std::vector<std::vector<NodeGroup>> node_groups_;  // per node: its groups with pods counted
  uint64_t next_serial_ = 1;
  std::vector<PodId> free_pod_ids_;
  std::unordered_map<std::string, PodId> pod_by_key_;
  size_t pod_count_ = 0;
};

}  // namespace orrery
