// The ApiBackend's object codec: API objects (nlohmann JSON) to the model and back (objects.h:
// Node, Pod, PriorityClass through the snapshot reader; Pod → JSON for creation), and the bodies
// of the requests the action executor sends: Binding, policy/v1 Eviction, core/v1 Event and the
// merge PATCH of a pod update. Pure functions: no client, no loop, no state.
#pragma once

#include <string>

#include "core/pod.h"
#include "k8s/objects.h"

namespace orrery::k8s {

// "/api/v1/namespaces/{ns}/pods/{name}".
std::string pod_path(const std::string& ns, const std::string& name);
// The current UTC time as an RFC 3339 timestamp (seconds), for Events.
std::string rfc3339_now();

// v1 Binding of pod `p` (with its uid, when known) to the node `node_name`.
JsonValue binding_body(const Pod& p, const std::string& node_name);
// policy/v1 Eviction of ns/name.
JsonValue eviction_body(const std::string& ns, const std::string& name);
// core/v1 Event about pod `p`: Scheduled, FailedScheduling, Preempted, ... `now` is RFC 3339.
JsonValue event_body(const Pod& p, const std::string& type, const std::string& reason,
                     const std::string& message, const std::string& component,
                     const std::string& instance, const std::string& now);

// Whether `after` requests what `before` does (containers' requests and limits): a pod can change
// its requests only by being re-created (in-place resize is not used).
bool same_requests(const PodSpec& before, const PodSpec& after);
// The merge patch that turns `before` into `changed` (same requests): labels and annotations
// (removed ones as null), the scheduling gates when `gates` is set, the containers when an
// image changed.
JsonValue pod_patch(const Pod& before, const Pod& changed, bool gates);

}  // namespace orrery::k8s
