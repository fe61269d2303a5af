#include "k8s/api_calls.h"

#include <array>

namespace orrery::k8s {

namespace {

constexpr std::array<ApiCallInfo, static_cast<size_t>(ApiCall::kCount)> kApiCalls = {{
    {"", "nodes", "list", "node informer (list)"},
    {"", "nodes", "watch", "node informer (watch)"},
    {"", "pods", "list", "pod informer (list)"},
    {"", "pods", "watch", "pod informer (watch)"},
    {"scheduling.k8s.io", "priorityclasses", "list", "PriorityClass informer (list)"},
    {"scheduling.k8s.io", "priorityclasses", "watch", "PriorityClass informer (watch)"},
    {"", "pods", "create", "pod re-creation by plans (KubeDSM, KubCG)"},
    {"", "pods/binding", "create", "binding a pod to a node"},
    {"", "pods/eviction", "create", "evicting a pod (preemption, plans)"},
    {"", "pods", "patch", "in-place pod updates (labels, annotations, gates)"},
    {"", "events", "create", "Scheduled / FailedScheduling / Preempted events"},
    {"coordination.k8s.io", "leases", "get", "leader election"},
    {"coordination.k8s.io", "leases", "create", "leader election"},
    {"coordination.k8s.io", "leases", "update", "leader election"},
    {"", "configmaps", "get", "plan journal (replacements of evicted pods)"},
    {"", "configmaps", "create", "plan journal (replacements of evicted pods)"},
    {"", "configmaps", "update", "plan journal (replacements of evicted pods)"},
}};

}  // namespace

const ApiCallInfo& api_call_info(ApiCall call) { return kApiCalls[static_cast<size_t>(call)]; }
std::span<const ApiCallInfo> all_api_calls() { return kApiCalls; }

}  // namespace orrery::k8s
