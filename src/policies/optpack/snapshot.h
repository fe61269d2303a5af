// From a cluster (ClusterState) to the optimisation model and back: which pods the packer may
// place or move, each pod's feasible nodes through the profile's own filter plugins, each node's
// capacity left by the pods it must not touch.
//
// Left out of the model, with a reason:
//  - protected pods — annotation orrery.io/optpack-protected: "true", DaemonSet-owned pods,
//    mirror/static pods (annotation kubernetes.io/config.mirror), priority >= 2000000000
//    (system-cluster-critical): never moved or evicted; their requests stay on their node;
//  - pods with inter-pod (anti-)affinity or topology spread constraints (their feasibility
//    depends on where the others go, which the model does not express) — kept where they are;
//  - terminating pods (they keep their room), pods of other schedulers, gated pods;
//  - pending pods larger than every node, or that no node passes the filters for.
// Feasible nodes come from the profile's placement-independent filters: NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity (and MachineConstraints when enabled); resource fit is
// the model's own constraints. A bound pod may always stay on its node.
#pragma once

#include <string>
#include <vector>

#include "core/cluster_state.h"
#include "framework/profile.h"
#include "policies/optpack/model.h"

namespace orrery::optpack {

inline constexpr const char* kProtectedAnnotation = "orrery.io/optpack-protected";
inline constexpr int32_t kSystemClusterCritical = 2000000000;

struct SkippedPod {
  std::string pod;  // ns/name
  std::string reason;
};

struct SnapshotModel {
  Model model;
  std::vector<PodId> pod_ids;    // model pod → cluster pod
  std::vector<NodeId> node_ids;  // model node → cluster node
  std::vector<SkippedPod> skipped;
  std::vector<std::string> warnings;
};

struct SnapshotLimits {
  size_t max_pods = 0;  // 0: no limit; a larger cluster is not solved (error)
  size_t max_nodes = 0;
};

// Why a pod must never be moved, or "" when it may be.
std::string protection_reason(const ClusterState& st, PodId p);

// Builds the model. Throws InputError when the cluster exceeds the limits.
SnapshotModel build_model(const ClusterState& st, fw::Profile& profile,
                          const SnapshotLimits& limits = {});

}  // namespace orrery::optpack
