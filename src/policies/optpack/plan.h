// From the optimiser's answer to actions: the step list `orrery solve` prints and a verified
// fw::Plan (framework/plan.h) in dependency order — every eviction first (independent of each
// other), then per moved pod its re-creation (a ReplicaSet/Deployment/Job pod: waiting for the
// controller's replacement; a bare pod: re-created from its spec) after its own eviction, then
// every bind after all the evictions.
#pragma once

#include <string>
#include <vector>

#include "framework/plan.h"
#include "policies/optpack/snapshot.h"

namespace orrery::optpack {

struct PlanStep {
  std::string action;  // "evict" | "create" | "bind"
  std::string pod;     // ns/name
  std::string node;    // evict: the node it leaves; create/bind: its new node
};

struct Placement {
  std::string pod;
  std::string from, to;  // "" = none
};

struct Changes {
  std::vector<Placement> placements;  // every model pod, before and after
  std::vector<PlanStep> steps;
  int moves = 0, evictions = 0, new_binds = 0;
};

Changes describe_changes(const SnapshotModel& sm, const Assignment& a);

// The fw::Plan carrying out `a` on the cluster `st` was built from.
fw::Plan build_plan(const ClusterState& st, const SnapshotModel& sm, const Assignment& a,
                    const std::string& name = "optpack");

}  // namespace orrery::optpack
