#include "core/pod.h"

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

// One container's requests, optionally with the scheduler's defaults for missing cpu/memory.
Resources container_requests(const Container& c, bool nonzero) {
  Resources r = c.requests;
  if (nonzero) {
    if (!(c.requests_set & (1u << kCpu))) r[kCpu] = kDefaultMilliCpuRequest;
    if (!(c.requests_set & (1u << kMemory))) r[kMemory] = kDefaultMemoryRequest;
  }
  return r;
}

Resources aggregate_requests(const PodSpec& spec, bool nonzero) {
  Resources reqs;
  for (const Container& c : spec.containers) reqs += container_requests(c, nonzero);
  Resources sidecars;
  Resources init_max;
  for (const Container& c : spec.init_containers) {
    Resources cr = container_requests(c, nonzero);
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
  reqs += spec.overhead;
  return reqs;
}

}  // namespace

void PodSpec::finalize() {
  request = aggregate_requests(*this, false);
  nonzero_request = aggregate_requests(*this, true);
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
