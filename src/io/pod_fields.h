// Strict field checks for pod templates written by hand (scenario files): every key of the
// objects orrery reads must be a field of the Kubernetes v1 type it belongs to (ObjectMeta,
// PodSpec, Container, ResourceRequirements, Toleration, Affinity and its terms,
// TopologySpreadConstraint, LabelSelector, PodSchedulingGate; k8s.io/api/core/v1 as of v1.34),
// as `kubectl apply --validate=strict` demands. An unknown key is an error with FILE:LINE and the
// closest field name. Objects orrery does not read (volumes, probes, securityContext, env, ...)
// are not looked into.
//
// Snapshots (`kubectl get -o yaml`) are not held to this: the API server already validated them,
// and newer servers may add fields.
#pragma once

#include <string>
#include <vector>

#include "io/yaml_util.h"

namespace orrery {

// Checks `metadata` (ObjectMeta) and `spec` (PodSpec); either may be undefined. Throws
// InputError on an unknown field. Appends to `warnings` one line per field that kube-scheduler
// reads but orrery does not model (nodeName, volumes, resourceClaims), naming where it is.
void check_pod_template_fields(const yaml::Ctx& metadata, const yaml::Ctx& spec,
                               std::vector<std::string>* warnings);

}  // namespace orrery
