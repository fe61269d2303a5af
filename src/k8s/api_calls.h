// Every Kubernetes API call orrery makes, in one table. Requests name their entry (ApiClient
// checks it), and a test checks that deploy/rbac.yaml grants each one, so the RBAC manifest is
// least privilege by construction: a new call without a rule fails the test.
#pragma once

#include <span>
#include <string_view>

namespace orrery::k8s {

struct ApiCallInfo {
  std::string_view group;        // "" for the core group
  std::string_view resource;     // plural, with "/subresource" when one is used
  std::string_view verb;         // RBAC verb: get, list, watch, create, update, patch, delete
  std::string_view description;  // what orrery uses it for
  // Changes the cluster on a scheduler's behalf (binds, evictions, pod writes, Events, the plan
  // journal): sent only while the replica may act (ApiClient::set_action_gate). Reads and the
  // leader election's own Lease calls are not.
  bool acts = false;
};

enum class ApiCall : int {
  kListNodes,
  kWatchNodes,
  kListPods,
  kWatchPods,
  kListPriorityClasses,
  kWatchPriorityClasses,
  kCreatePod,
  kBindPod,
  kEvictPod,
  kPatchPod,
  kCreateEvent,
  kGetLease,
  kCreateLease,
  kUpdateLease,
  kGetConfigMap,
  kCreateConfigMap,
  kUpdateConfigMap,
  kCount
};

const ApiCallInfo& api_call_info(ApiCall call);
std::span<const ApiCallInfo> all_api_calls();

}  // namespace orrery::k8s
