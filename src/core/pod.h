// A pod: a shared, immutable PodSpec (many pods of one Deployment/Job/trace share it) plus the
// per-instance fields (names, owner, node, phase, times).
//
// Effective requests follow k8s.io/component-helpers/resource PodRequests (v1.34):
//   reqs = Σ app containers + Σ restartable (sidecar) init containers
//   init = max over init containers i of (requests_i + Σ sidecars declared before i)
//          (for a sidecar: Σ sidecars up to and including it)
//   request = max(reqs, init), then pod-level requests (spec.resources.requests: cpu, memory,
//             hugepages-*; PodLevelResources, beta and on in 1.34) replace it for the resources
//             they set, then + overhead
// The "non-zero" request used by scoring substitutes 100m CPU / 200 MiB memory for each container
// whose request for that resource is missing (not when it is explicitly zero), before pod-level
// requests replace the aggregate (resourceAllocationScorer.calculatePodResourceRequest). A pod
// counted on a node adds `node_nonzero_cpu/memory` to the node's non-zero figures instead
// (NodeInfo's PodInfo.CalculateResource): the same without pod-level requests; with them, the
// defaults apply only for cpu/memory that no container, pod-level request or overhead names.
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

// A container port bound on the node's network (hostPort > 0), sanitised as upstream's
// HostPortInfo: an empty hostIP is "0.0.0.0" (every address), an empty protocol "TCP".
struct HostPort {
  StrId ip = kNoStr;
  StrId protocol = kNoStr;
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  Resources requests;
  Resources limits;
  uint32_t requests_set = 0;         // bit r: requests[r] was given (distinguishes 0 from missing)
  bool restartable = false;          // init container with restartPolicy: Always (sidecar)
  std::vector<HostPort> host_ports;  // ports[] with a hostPort
};

enum class SpreadWhenUnsatisfiable : uint8_t { kDoNotSchedule, kScheduleAnyway };
enum class InclusionPolicy : uint8_t { kHonor, kIgnore };

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  StrId topology_key = kNoStr;
  SpreadWhenUnsatisfiable when_unsatisfiable = SpreadWhenUnsatisfiable::kDoNotSchedule;
  LabelSelector selector;
  // labelSelector was given: `{}` selects every pod of the namespace, an absent one none
  // (metav1.LabelSelectorAsSelector: nil → Nothing, empty → Everything).
  bool selector_set = false;
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

// One entry of spec.volumes, as far as the volume plugins read it: claims (persistentVolumeClaim,
// and generic ephemeral volumes, whose claim is named "<pod>-<volume>") and the in-tree disks
// VolumeRestrictions checks for conflicts. Other sources are kOther.
struct PodVolume {
  enum class Kind : uint8_t { kOther, kClaim, kEphemeral, kGcePd, kAwsEbs, kRbd, kIscsi };
  Kind kind = Kind::kOther;
  std::string name;  // volumes[].name
  // kClaim: claimName; kGcePd: pdName; kAwsEbs: volumeID; kIscsi: iqn; kRbd: image.
  std::string id;
  std::string pool;                   // kRbd: pool
  std::vector<std::string> monitors;  // kRbd: monitors
  bool read_only = false;
  bool operator==(const PodVolume&) const = default;
};

struct PodSpec {
  LabelSet labels;
  LabelSet annotations;
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  Resources overhead;
  uint32_t overhead_set = 0;  // bit r: overhead[r] was given
  // spec.resources.requests (pod-level resources, after API defaulting from pod-level limits), as
  // (resource, quantity) pairs: rare, so kept small.
  std::vector<std::pair<ResourceId, int64_t>> pod_requests;
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
  uint64_t constraints = 0;        // orrery.io/constraints: machine constraints the task requires
  std::vector<PodVolume> volumes;  // spec.volumes

  // A volume through a PersistentVolumeClaim (persistentVolumeClaim or ephemeral).
  bool has_claim_volumes() const {
    for (const PodVolume& v : volumes)
      if (v.kind == PodVolume::Kind::kClaim || v.kind == PodVolume::Kind::kEphemeral) return true;
    return false;
  }
  bool has_ephemeral_volumes() const {
    for (const PodVolume& v : volumes)
      if (v.kind == PodVolume::Kind::kEphemeral) return true;
    return false;
  }

  // Derived by finalize().
  Resources request;          // effective request (filtering, accounting); request[kPods] == 1
  Resources nonzero_request;  // with default cpu/memory for missing container requests (scoring)
  uint32_t request_mask = 0;  // non-zero components of `request`
  // The host ports the pod takes on its node (schedutil.GetHostPorts): restartable init
  // containers' (sidecars run all along) and app containers'; other init containers' are not.
  std::vector<HostPort> host_ports;
  // What the pod adds to its node's non-zero cpu/memory (ClusterState::nonzero_requested).
  int64_t node_nonzero_cpu = 0;
  int64_t node_nonzero_memory = 0;

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
  // API defaulting of pod-level requests from pod-level limits (pkg/apis/core/v1
  // defaultPodRequests), applied by the loader when spec.resources.limits is given: a supported
  // resource without a pod-level request gets the containers' aggregate request when a container
  // requests it (cpu and memory only), else the pod-level limit. Call before finalize().
  void default_pod_level_requests(const Resources& limits, uint32_t limits_set);
  // The pod-level request for `r`, if given.
  std::optional<int64_t> pod_request(ResourceId r) const {
    for (const auto& [id, v] : pod_requests)
      if (id == r) return v;
    return std::nullopt;
  }
};

// Convenience for building simple specs in code (simulator workloads, tests).
std::shared_ptr<PodSpec> make_simple_spec(const Resources& requests);

// Resources that may be set at pod level (component-helpers IsSupportedPodLevelResource): cpu,
// memory and hugepages-*.
bool is_supported_pod_level_resource(ResourceId r);

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
