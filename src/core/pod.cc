#include "core/pod.h"

#include <bit>

namespace orrery {

std::string_view to_string(PodPhase p) {
  switch (p) {
    case PodPhase::kPending: return "Pending";
    case PodPhase::kRunning: return "Running";
    case PodPhase::kSucceeded: return "Succeeded";
    case PodPhase::kFailed: return "Failed";
    case PodPhase::kUnknown: return "Unknown";
  }
  return "Unknown";
}

std::optional<PodPhase> parse_pod_phase(std::string_view s) {
  if (s.empty() || s == "Pending") return PodPhase::kPending;
  if (s == "Running") return PodPhase::kRunning;
  if (s == "Succeeded") return PodPhase::kSucceeded;
  if (s == "Failed") return PodPhase::kFailed;
  if (s == "Unknown") return PodPhase::kUnknown;
  return std::nullopt;
}

std::string_view to_string(OwnerKind k) {
  switch (k) {
    case OwnerKind::kNone: return "";
    case OwnerKind::kReplicaSet: return "ReplicaSet";
    case OwnerKind::kDeployment: return "Deployment";
    case OwnerKind::kJob: return "Job";
    case OwnerKind::kStatefulSet: return "StatefulSet";
    case OwnerKind::kDaemonSet: return "DaemonSet";
    case OwnerKind::kOther: return "Other";
  }
  return "";
}

OwnerKind parse_owner_kind(std::string_view s) {
  if (s.empty()) return OwnerKind::kNone;
  if (s == "ReplicaSet") return OwnerKind::kReplicaSet;
  if (s == "Deployment") return OwnerKind::kDeployment;
  if (s == "Job") return OwnerKind::kJob;
  if (s == "StatefulSet") return OwnerKind::kStatefulSet;
  if (s == "DaemonSet") return OwnerKind::kDaemonSet;
  return OwnerKind::kOther;
}

namespace {

constexpr uint32_t kCpuMemory = (1u << kCpu) | (1u << kMemory);

// One container's requests, with the scheduler's defaults for cpu/memory (those in `defaults`)
// when the container does not name them (component-helpers NonMissingContainerRequests).
Resources container_requests(const Container& c, uint32_t defaults) {
  Resources r = c.requests;
  const uint32_t missing = defaults & ~c.requests_set;
  if (missing & (1u << kCpu)) r[kCpu] = kDefaultMilliCpuRequest;
  if (missing & (1u << kMemory)) r[kMemory] = kDefaultMemoryRequest;
  return r;
}

// component-helpers AggregateContainerRequests: apps + sidecars, at least every init phase.
Resources aggregate_requests(const PodSpec& spec, uint32_t defaults) {
  Resources reqs;
  for (const Container& c : spec.containers) reqs += container_requests(c, defaults);
  Resources sidecars;
  Resources init_max;
  for (const Container& c : spec.init_containers) {
    Resources cr = container_requests(c, defaults);
    if (c.restartable) {
      reqs += cr;
      sidecars += cr;
      cr = sidecars;
    } else {
      cr += sidecars;
    }
    init_max.max_with(cr);
  }
  reqs.max_with(init_max);
  return reqs;
}

// The pod-level requests that count (supported resources only).
uint32_t pod_level_mask(const PodSpec& spec) {
  uint32_t m = 0;
  for (const auto& [r, v] : spec.pod_requests)
    if (is_supported_pod_level_resource(r)) m |= 1u << r;
  return m;
}

// component-helpers PodRequests (v1.34, no status resources): the containers' aggregate, pod-level
// requests in place of it for the resources they set, plus overhead.
Resources effective_requests(const PodSpec& spec, uint32_t defaults, uint32_t pod_level) {
  Resources r = aggregate_requests(spec, defaults);
  for (const auto& [id, v] : spec.pod_requests)
    if (pod_level & (1u << id)) r[id] = v;
  r += spec.overhead;
  return r;
}

}  // namespace

bool is_supported_pod_level_resource(ResourceId r) {
  return r == kCpu || r == kMemory || resource_name(r).starts_with("hugepages-");
}

void PodSpec::default_pod_level_requests(const Resources& limits, uint32_t limits_set) {
  if (limits_set == 0) return;
  uint32_t container_keys = 0;
  for (const Container& c : containers) container_keys |= c.requests_set;
  for (const Container& c : init_containers) container_keys |= c.requests_set;
  const Resources aggregate = aggregate_requests(*this, 0);
  uint32_t given = 0;
  for (const auto& [r, v] : pod_requests) given |= 1u << r;
  // Overcommittable supported resources (cpu, memory) from the containers' requests first.
  for (uint32_t bits = container_keys & kCpuMemory & ~given; bits != 0; bits &= bits - 1) {
    const auto r = static_cast<ResourceId>(std::countr_zero(bits));
    pod_requests.emplace_back(r, aggregate[r]);
    given |= 1u << r;
  }
  for (uint32_t bits = limits_set & ~given; bits != 0; bits &= bits - 1) {
    const auto r = static_cast<ResourceId>(std::countr_zero(bits));
    if (!is_supported_pod_level_resource(r)) continue;
    pod_requests.emplace_back(r, limits[r]);
    given |= 1u << r;
  }
}

void PodSpec::finalize() {
  const uint32_t pod_level = pod_level_mask(*this);
  request = effective_requests(*this, 0, pod_level);
  nonzero_request = effective_requests(*this, kCpuMemory, pod_level);
  if (pod_level == 0) {
    node_nonzero_cpu = nonzero_request[kCpu];
    node_nonzero_memory = nonzero_request[kMemory];
  } else {
    // getNonMissingContainerRequests with pod-level requests set: defaults only for cpu/memory
    // that the pod's requests do not name at all (no container, pod-level request or overhead).
    uint32_t keys = pod_level | overhead_set | overhead.nonzero_mask();
    for (const Container& c : containers) keys |= c.requests_set;
    for (const Container& c : init_containers) keys |= c.requests_set;
    const uint32_t missing = kCpuMemory & ~keys;
    const Resources nz = missing ? effective_requests(*this, missing, pod_level) : request;
    node_nonzero_cpu = nz[kCpu];
    node_nonzero_memory = nz[kMemory];
  }
  host_ports.clear();
  for (const Container& c : init_containers)
    if (c.restartable) host_ports.insert(host_ports.end(), c.host_ports.begin(), c.host_ports.end());
  for (const Container& c : containers)
    host_ports.insert(host_ports.end(), c.host_ports.begin(), c.host_ports.end());
  // Every pod takes one of the node's pod slots (allocatable "pods").
  request[kPods] = 1;
  nonzero_request[kPods] = 1;
  request_mask = request.nonzero_mask();
}

std::shared_ptr<PodSpec> make_simple_spec(const Resources& requests) {
  auto spec = std::make_shared<PodSpec>();
  Container c;
  c.name = "main";
  c.requests = requests;
  c.requests_set = requests.nonzero_mask();
  spec->containers.push_back(std::move(c));
  spec->finalize();
  return spec;
}

std::pair<std::string, std::string> split_pod_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return {"default", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

}  // namespace orrery
