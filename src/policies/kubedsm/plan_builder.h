// From an applyDecision Placement to executable plans (Algorithm 7, lines 4–18, and §5.3 on
// migrations).
//
// Kubernetes has no migration; KubeDSM migrates a pod of a Deployment by replacing it:
//   delete-first (the paper's Table 3 and its implementation; the default): delete the pod, wait
//     for the ReplicaSet to create the replacement, bind the replacement to the target;
//   create-first: create a copy owned by the same controller (annotation
//     orrery.io/migrated-from), bind it to the target, wait until it runs, delete the original.
//     The controller then holds one pod too many for a moment; use it only where the controller
//     tolerates that.
// Every migration's target must have room when its turn comes. sequence_moves() orders the
// migrations so that it does; migrations that wait on each other in a cycle (a swap) take the
// two-step route of §5.3: first to the cloud, and from the cloud to the target after the others.
#pragma once

#include <functional>
#include <vector>

#include "framework/plan.h"
#include "policies/kubedsm/algorithms.h"
#include "policies/kubedsm/cluster_view.h"

namespace orrery::kubedsm {

enum class MigrationStyle : uint8_t { kDeleteFirst, kCreateFirst };

struct PlannedMove {
  uint32_t pod = 0;  // model pod
  int32_t from = kCloud;
  int32_t to = kCloud;
  bool migration = true;  // false: a pending pod's first bind
};

// Migrations of `p` (offloads, then reorders) in an order where each finds room on its target,
// splitting cyclic ones edge→cloud→edge, followed by the edge binds of the decision's pods
// (migrations of existing cloud pods, or first binds of batch pods). Pure.
// The order does not depend on the migration style: a migration frees its source and takes its
// target, and the two are different nodes.
std::vector<PlannedMove> sequence_moves(const EdgeModel& m, const Placement& p,
                                        std::span<const uint32_t> batch);

struct BuiltPlans {
  std::vector<fw::Plan> plans;
  std::vector<int> migrations;   // per plan: migration moves in it
  int edge_binds = 0;            // batch pods planned onto edge nodes
  int cloud_binds = 0;           // batch pods planned onto cloud nodes
  std::vector<uint32_t> parked;  // batch pods for the cloud that found no cloud node with room
};

struct PlanOptions {
  MigrationStyle style = MigrationStyle::kDeleteFirst;
  bool wait_running = true;  // delete-first: also wait until the replacement runs
  int64_t step_timeout_us = 0;
  // Picks the cloud node for a pod (kNoNode: none has room; the pod stays pending).
  std::function<NodeId(PodId)> cloud_node;
  // Names replacement pods for create-first ("<name>-m<k>").
  std::function<std::string(const Pod&)> replacement_name;
};

// Plans for a placement (Alg. 7): one single-bind plan per batch pod going to the cloud; the
// edge part as one sequential plan when it contains migrations (each step depends on the previous
// ones), else one plan per bind (independent binds need not wait for each other).
BuiltPlans build_plans(const ClusterView& v, const ClusterState& s, const Placement& p,
                       const PlanOptions& o);

}  // namespace orrery::kubedsm
