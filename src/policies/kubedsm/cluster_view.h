// The bridge from a ClusterState to KubeDSM's EdgeModel (paper §5.1: the event handler's "cluster
// state"): which nodes are edge nodes, which pods KubeDSM manages, their services and QoS
// targets, and the room plans in flight have reserved.
//
// Conventions (README "Running KubeDSM"):
//  - a node is an edge node when its label orrery.io/tier is "edge"; every other node is cloud;
//    an edge node that is unschedulable or carries a NoSchedule/NoExecute taint keeps its pods
//    but offers no free room;
//  - KubeDSM manages the pods whose schedulerName is the configured one (default "kubedsm");
//  - a pod's service is its owner (e.g. ReplicaSet "web"); a bare pod is its own service; pods of
//    one service with different requests form separate services (§4.1.2 assumes one request);
//  - a service's QoS target Q_i comes from the pod (template) annotation
//    kubedsm.orrery.io/qos-target, else from the policy's per-service settings, else 1;
//  - KubeDSM sizes pods by their cpu and memory requests; a container without one counts with
//    kube-scheduler's defaults (100m, 200Mi), as upstream's scoring does.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/cluster_state.h"
#include "framework/plan.h"
#include "policies/kubedsm/model.h"

namespace orrery::kubedsm {

inline constexpr const char* kQosAnnotation = "kubedsm.orrery.io/qos-target";

struct ViewOptions {
  StrId scheduler_name = intern("kubedsm");
  std::map<std::string, double> qos_targets;  // service key → Q_i (after annotations)
  double default_qos = 1.0;
  // Offloads need room on a cloud node (EdgeModel::cloud_bounded); false: the paper's unbounded
  // cloud (§4.1.1).
  bool bounded_cloud = true;
};

struct ClusterView {
  EdgeModel model;
  std::vector<NodeId> edge_nodes;         // model node → NodeId
  std::vector<PodId> pod_ids;             // model pod → PodId
  std::vector<std::string> service_keys;  // model service → key
  std::vector<uint32_t> batch;            // model pods of the batch (pending, on the "cloud")
  int32_t edge_index(NodeId n) const;     // kCloud when not an edge node of the model
};

bool is_edge_node(const Node& n);
// An edge or cloud node new pods may go to.
bool accepts_pods(const Node& n);
// "ReplicaSet/web", "Pod/ns/name" for a bare pod.
std::string service_key(const Pod& p);
// Q_i of a pod's service: annotation, then options, then the default. Throws InputError naming
// the pod and annotation when the annotation is not a number in [0, 1].
double qos_target(const Pod& p, const std::string& key, const ViewOptions& o);

// Builds the model: edge nodes with their usage plus the binds `plans` still owe them; managed
// pods that are placed (movable when running, owned by a controller, not terminating and not in a
// plan); and the pending pods of `batch` as immovable cloud pods (the candidates of Alg. 1).
ClusterView build_view(const ClusterState& s, const ViewOptions& o, std::span<const PodId> batch,
                       const fw::PlanExecutor& plans);

}  // namespace orrery::kubedsm
