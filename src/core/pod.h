// A pod: a shared, immutable PodSpec (many pods of one Deployment/Job/trace share it) plus the
// per-instance fields (names, owner, node, phase, times).
//
// Effective requests follow k8s.io/component-helpers/resource PodRequests (v1.34):
//   reqs = Σ app containers + Σ restartable (sidecar) init containers
//   init = max over init containers i of (requests_i + Σ sidecars declared before i)
//          (for a sidecar: Σ sidecars up to and including it)
//   request = max(reqs, init) + overhead
// The "non-zero" request used by scoring substitutes 100m CPU / 200 MiB memory for each container
// whose request for that resource is missing (not when it is explicitly zero).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/labels.h"
#include "core/resources.h"

namespace orrery {

inline constexpr int64_t kDefaultMilliCpuRequest = 100;                // schedutil
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // schedutil

enum class PodPhase : uint8_t { kPending, kRunning, kSucceeded, kFailed, kUnknown };
std::string_view to_string(PodPhase p);
std::optional<PodPhase> parse_pod_phase(std::string_view s);
inline bool is_terminal(PodPhase p) {
  return p == PodPhase::kSucceeded || p == PodPhase::kFailed;
}

struct Container {
  std::string name;
  std::string image;
  Resources requests;
  Resources limits;
  uint32_t requests_set = 0;  // bit r: requests[r] was given (distinguishes 0 from missing)
  bool restartable = false;   // init container with restartPolicy: Always (sidecar)
};

enum class SpreadWhenUnsatisfiable : uint8_t { kDoNotSchedule, kScheduleAnyway };
enum class InclusionPolicy : uint8_t { kHonor, kIgnore };

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  StrId topology_key = kNoStr;
  SpreadWhenUnsatisfiable when_unsatisfiable = SpreadWhenUnsatisfiable::kDoNotSchedule;
  LabelSelector selector;
  std::optional<int32_t> min_domains;
  InclusionPolicy node_affinity_policy = InclusionPolicy::kHonor;
  InclusionPolicy node_taints_policy = InclusionPolicy::kIgnore;
  std::vector<StrId> match_label_keys;
};

// One pod (anti-)affinity term (v1.PodAffinityTerm). The loader merges matchLabelKeys /
// mismatchLabelKeys into `selector` (key In / NotIn the pod's own value), as the API server does
// when the pod is created; the key lists are kept for reference.
struct PodAffinityTerm {
  std::optional<LabelSelector> selector;            // absent (null): matches no pod
  std::vector<StrId> namespaces;                    // as listed
  std::optional<LabelSelector> namespace_selector;  // absent: none; {}: every namespace
  StrId topology_key = kNoStr;
  std::vector<StrId> match_label_keys;
  std::vector<StrId> mismatch_label_keys;
  // Namespaces default to the pod's own when neither a list nor a selector is given.
  bool own_namespace_only() const { return namespaces.empty() && !namespace_selector; }
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;  // 1..100
  PodAffinityTerm term;
};

// spec.affinity.podAffinity or .podAntiAffinity.
struct PodAffinityRules {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
  bool empty() const { return required.empty() && preferred.empty(); }
};

struct PodSpec {
  LabelSet labels;
  LabelSet annotations;
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  Resources overhead;
  int32_t priority = 0;
  std::string priority_class_name;
  bool preempt_never = false;  // preemptionPolicy: Never
  StrId scheduler_name = intern("default-scheduler");
  LabelSet node_selector;
  std::vector<Toleration> tolerations;
  NodeAffinity node_affinity;
  std::vector<TopologySpreadConstraint> topology_spread;
  PodAffinityRules pod_affinity;
  PodAffinityRules pod_anti_affinity;
  uint64_t constraints = 0;  // orrery.io/constraints: machine constraints the task requires

  // Derived by finalize().
  Resources request;          // effective request (filtering, accounting); request[kPods] == 1
  Resources nonzero_request;  // with default cpu/memory for missing container requests (scoring)
  uint32_t request_mask = 0;  // non-zero components of `request`

  bool has_pod_affinity_terms() const {
    return !pod_affinity.empty() || !pod_anti_affinity.empty();
  }
  // Terms that count toward other pods' InterPodAffinity scores (required affinity, through
  // hardPodAffinityWeight, and preferred terms) and required anti-affinity terms (which filter
  // other pods).
  bool has_scoring_pod_affinity() const {
    return !pod_affinity.empty() || !pod_anti_affinity.preferred.empty();
  }
  bool has_required_pod_anti_affinity() const { return !pod_anti_affinity.required.empty(); }

  // Computes the derived fields; call after filling the spec in.
  void finalize();
};

// Convenience for building simple specs in code (simulator workloads, tests).
std::shared_ptr<PodSpec> make_simple_spec(const Resources& requests);

enum class OwnerKind : uint8_t {
  kNone,
  kReplicaSet,
  kDeployment,
  kJob,
  kStatefulSet,
  kDaemonSet,
  kOther
};
std::string_view to_string(OwnerKind k);
OwnerKind parse_owner_kind(std::string_view s);

struct OwnerRef {
  OwnerKind kind = OwnerKind::kNone;
  std::string name;
};

struct Pod {
  std::string ns = "default";
  std::string name;
  std::string uid;
  std::shared_ptr<const PodSpec> spec;
  OwnerRef owner;
  std::string node_name;  // spec.nodeName as read from input; ClusterState tracks the NodeId
  PodPhase phase = PodPhase::kPending;
  int64_t creation_us = 0;                    // creationTimestamp (unix µs) or simulated time
  bool terminating = false;                   // metadata.deletionTimestamp is set: being deleted
  std::vector<std::string> scheduling_gates;  // spec.schedulingGates: not scheduled while any

  std::string key() const { return ns + "/" + name; }
};

// "ns/name" → (ns, name); a bare "name" means namespace "default".
std::pair<std::string, std::string> split_pod_key(std::string_view key);

}  // namespace orrery
