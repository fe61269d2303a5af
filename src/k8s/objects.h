// API objects (nlohmann JSON as the API server sends them) to orrery's model and back. Node and
// Pod JSON goes through the same reader as snapshot files (io/k8s_objects.h, read_k8s_object:
// straight from the JSON value, no text round trip), so `orrery serve` and `orrery schedule` read
// an object identically. What the API server's admission would have
// set is filled in first: a pod's spec.priority from its PriorityClass.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "io/k8s_objects.h"

namespace orrery::k8s {

using JsonValue = nlohmann::json;

// PriorityClass values by name, and the global default (if any).
struct PriorityClasses {
  std::map<std::string, PriorityClass> by_name;
  int32_t value_for(const std::string& name, bool* found) const;
  const PriorityClass* global_default() const;
};

// Throws InputError naming the object ("Pod default/web-1: spec.containers[0]...") when it is
// malformed. Unexpected fields are ignored.
Node node_from_json(const JsonValue& obj);
Pod pod_from_json(const JsonValue& obj, const PriorityClasses& classes);
PriorityClass priority_class_from_json(const JsonValue& obj);

// "ns/name" of an object (metadata.namespace defaults to "default"), or "name" for cluster
// objects when `namespaced` is false.
std::string object_key(const JsonValue& obj, bool namespaced = true);
std::string object_uid(const JsonValue& obj);
std::string resource_version(const JsonValue& obj);

// A hash of what the scheduler reads from an object (labels, annotations, spec without nodeName,
// allocatable, taints), so updates that only touch status or heartbeats are not events.
uint64_t scheduling_hash(const JsonValue& obj, bool is_pod);

// A v1 Pod for POST /api/v1/namespaces/{ns}/pods: metadata (name, namespace, labels,
// annotations, owner), containers with images and resources, schedulerName, priority,
// nodeSelector, tolerations, nodeName when set, schedulingGates. Spec fields orrery does not
// write back (affinity, topology spread) are left out.
JsonValue pod_to_json(const Pod& pod);

// A list object as `kubectl get -o json` prints it, without managedFields (snapshots).
JsonValue strip_for_snapshot(JsonValue obj, const std::string& kind, const std::string& api_version);

}  // namespace orrery::k8s
