#include "k8s/api_calls.h"

#include <array>

namespace orrery::k8s {

namespace {

constexpr std::array<ApiCallInfo, static_cast<size_t>(ApiCall::kCount)> kApiCalls = {{
    {"", "nodes", "list", "node informer (list)", false},
    {"", "nodes", "watch", "node informer (watch)", false},
    {"", "pods", "list", "pod informer (list)", false},
    {"", "pods", "watch", "pod informer (watch)", false},
    {"scheduling.k8s.io", "priorityclasses", "list", "PriorityClass informer (list)", false},
    {"scheduling.k8s.io", "priorityclasses", "watch", "PriorityClass informer (watch)", false},
    {"", "pods", "create", "pod re-creation by plans (KubeDSM, KubCG)", true},
    {"", "pods/binding", "create", "binding a pod to a node", true},
    {"", "pods/eviction", "create", "evicting a pod (preemption, plans)", true},
    {"", "pods", "patch", "in-place pod updates (labels, annotations, gates)", true},
    {"", "events", "create", "Scheduled / FailedScheduling / Preempted events", true},
    {"coordination.k8s.io", "leases", "get", "leader election", false},
    {"coordination.k8s.io", "leases", "create", "leader election", false},
    {"coordination.k8s.io", "leases", "update", "leader election", false},
    {"", "configmaps", "get", "plan journal (replacements of evicted pods)", false},
    {"", "configmaps", "create", "plan journal (replacements of evicted pods)", true},
    {"", "configmaps", "update", "plan journal (replacements of evicted pods)", true},
}};

}  // namespace

const ApiCallInfo& api_call_info(ApiCall call) {
  return kApiCalls[static_cast<size_t>(call)];
}
std::span<const ApiCallInfo> all_api_calls() {
  return kApiCalls;
}

}  // namespace orrery::k8s
