#include "plugins/noderesources/fit.h"

#include <algorithm>

#include "core/error.h"
#include "plugins/helper/args.h"
#include "plugins/helper/hints.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

namespace {

// v1helper.IsExtendedResourceName: a domain-prefixed name that is not native (no
// "kubernetes.io/" in it) and not a quota "requests." name.
bool is_extended(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;
  return name.find("kubernetes.io/") == std::string_view::npos && !name.starts_with("requests.");
}

std::vector<ResourceSpec> read_resources(const yaml::Ctx& c) {
  std::vector<ResourceSpec> out;
  c.expect_seq();
  for (size_t i = 0; i < c.size(); ++i) {
    yaml::Ctx item = c.item(i);
    item.expect_map();
    expect_arg_keys(item, {"name", "weight"});
    ResourceSpec r;
    r.name = item.child("name").str();
    try {
      r.id = resource_id(r.name);
    } catch (const InputError& e) {
      item.child("name").fail(e.what());
    }
    r.weight = item.i64_or("weight", 0);
    if (r.weight == 0) r.weight = 1;  // upstream defaulting
    if (r.weight < 0 || r.weight > 100) {
      item.child("weight").fail("resource weight of " + r.name + " not in valid range (0, 100]");
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

NodeResourcesFitArgs NodeResourcesFitArgs::parse(const yaml::Ctx& args) {
  NodeResourcesFitArgs a;
  expect_arg_keys(args, {"ignoredResources", "ignoredResourceGroups", "scoringStrategy"});
  if (!args.defined()) return a;
  if (args.has("ignoredResources")) a.ignored_resources = args.child("ignoredResources").str_list();
  if (args.has("ignoredResourceGroups")) {
    yaml::Ctx g = args.child("ignoredResourceGroups");
    a.ignored_resource_groups = g.str_list();
    for (size_t i = 0; i < a.ignored_resource_groups.size(); ++i) {
      if (a.ignored_resource_groups[i].find('/') != std::string::npos) {
        g.item(i).fail("resource group name can't contain '/'");
      }
    }
  }
  yaml::Ctx ss = args.child("scoringStrategy");
  if (!ss.defined()) return a;
  expect_arg_keys(ss, {"type", "resources", "requestedToCapacityRatio"});
  const std::string type = ss.str_or("type", "");
  if (type == "LeastAllocated") {
    a.strategy = ScoringStrategy::kLeastAllocated;
  } else if (type == "MostAllocated") {
    a.strategy = ScoringStrategy::kMostAllocated;
  } else if (type == "RequestedToCapacityRatio") {
    a.strategy = ScoringStrategy::kRequestedToCapacityRatio;
  } else {
    (ss.has("type") ? ss.child("type") : ss)
        .fail("Unsupported value: \"" + type +
              "\": supported values: \"LeastAllocated\", \"MostAllocated\", "
              "\"RequestedToCapacityRatio\"");
  }
  if (ss.has("resources")) {
    a.resources = read_resources(ss.child("resources"));
    if (a.resources.empty()) a.resources = default_scoring_resources();
  }
  yaml::Ctx rtcr = ss.child("requestedToCapacityRatio");
  if (a.strategy == ScoringStrategy::kRequestedToCapacityRatio && !rtcr.defined()) {
    a.shape = {{0, 100}, {100, 0}};  // upstream default: {0: 10, 100: 0}
  }
  if (rtcr.defined()) {
    expect_arg_keys(rtcr, {"shape"});
    yaml::Ctx shape = rtcr.child("shape");
    if (!shape.defined() || shape.size() == 0) shape.fail("at least one point must be specified");
    shape.expect_seq();
    for (size_t i = 0; i < shape.size(); ++i) {
      yaml::Ctx p = shape.item(i);
      p.expect_map();
      expect_arg_keys(p, {"utilization", "score"});
      const int64_t u = p.i64_or("utilization", 0);
      const int64_t s = p.i64_or("score", 0);
      if (u < 0 || u > 100) p.child("utilization").fail("not in valid range [0, 100]");
      if (s < 0 || s > 10) p.child("score").fail("not in valid range [0, 10]");
      if (i > 0 && a.shape.back().utilization >= u) {
        p.child("utilization").fail("utilization values must be sorted in increasing order");
      }
      // Shape scores are 0..10 (MaxCustomPriorityScore), scaled to the node score range.
      a.shape.push_back({u, s * (fw::kMaxNodeScore / 10)});
    }
  }
  return a;
}

NodeResourcesFit::NodeResourcesFit(NodeResourcesFitArgs args)
    : args_(std::move(args)), table_(args_.resources, /*use_requested=*/false) {}

std::string_view NodeResourcesFit::name() const {
  return names::kNodeResourcesFit;
}

bool NodeResourcesFit::ignored(ResourceId r) const {
  const std::string_view name = resource_name(r);
  if (!is_extended(name)) return false;
  for (const auto& n : args_.ignored_resources)
    if (n == name) return true;
  const std::string_view group = name.substr(0, name.find('/'));
  for (const auto& g : args_.ignored_resource_groups)
    if (g == group) return true;
  return false;
}

fw::Status NodeResourcesFit::pre_filter(const fw::CycleContext& cycle,
                                        std::optional<std::vector<NodeId>>*) {
  num_checks_ = 0;
  const Resources& req = cycle.spec.request;
  for (int r = 0; r < kMaxResources; ++r) {
    if (r == kPods || req.q[r] <= 0) continue;
    if (r > kEphemeralStorage && ignored(static_cast<ResourceId>(r))) continue;
    check_ids_[num_checks_] = static_cast<ResourceId>(r);
    check_req_[num_checks_] = req.q[r];
    ++num_checks_;
  }
  return fw::Status::ok();
}

namespace {

// The fit loop for K requested resources (K < 0: any number, given at run time). Most pods
// request cpu and memory, so K = 2 is unrolled.
template <int K>
size_t fit_nodes(const ClusterState& st, const ResourceId* ids, const int64_t* req_in,
                 size_t checks, NodeId* nodes, size_t n, fw::Rejections& rejections) {
  const int64_t* pods_alloc = st.allocatable(kPods);
  const int64_t* pods_used = st.requested(kPods);
  const size_t count = K >= 0 ? static_cast<size_t>(K) : checks;
  const int64_t* alloc[kMaxResources];
  const int64_t* used[kMaxResources];
  int64_t req[kMaxResources];
  uint32_t bit[kMaxResources];
  for (size_t k = 0; k < count; ++k) {
    alloc[k] = st.allocatable(ids[k]);
    used[k] = st.requested(ids[k]);
    req[k] = req_in[k];
    bit[k] = 1u << ids[k];
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId id = nodes[i];
    uint32_t insufficient = pods_used[id] + 1 > pods_alloc[id] ? 1u << kPods : 0u;
    for (size_t k = 0; k < count; ++k)
      if (req[k] > alloc[k][id] - used[k][id]) insufficient |= bit[k];
    if (insufficient == 0) {
      nodes[kept++] = id;
      continue;
    }
    bool unresolvable = false;  // a request above the node's whole allocatable
    for (size_t k = 0; k < count; ++k) unresolvable = unresolvable || req[k] > alloc[k][id];
    rejections.add(id, 0, insufficient, unresolvable);
  }
  return kept;
}

}  // namespace

size_t NodeResourcesFit::filter(const fw::CycleContext& cycle, NodeId* nodes, size_t n,
                                fw::Rejections& rejections) {
  switch (num_checks_) {
    case 0: return fit_nodes<0>(cycle.state, check_ids_, check_req_, 0, nodes, n, rejections);
    case 1: return fit_nodes<1>(cycle.state, check_ids_, check_req_, 1, nodes, n, rejections);
    case 2: return fit_nodes<2>(cycle.state, check_ids_, check_req_, 2, nodes, n, rejections);
    default:
      return fit_nodes<-1>(cycle.state, check_ids_, check_req_, num_checks_, nodes, n, rejections);
  }
}

void NodeResourcesFit::describe(const ClusterState&, const fw::Rejection& r,
                                std::vector<std::string>* reasons) const {
  // Upstream order: pods, cpu, memory, ephemeral-storage, then scalar resources.
  if (r.arg & (1u << kPods)) reasons->push_back("Too many pods");
  for (int id = 0; id < kMaxResources; ++id) {
    if (id == kPods || !(r.arg & (1u << id))) continue;
    reasons->push_back("Insufficient " + std::string(resource_name(static_cast<ResourceId>(id))));
  }
}

fw::Status NodeResourcesFit::pre_score(const fw::CycleContext& cycle, std::span<const NodeId>) {
  table_.pod_requests(cycle.spec, pod_req_);
  return fw::Status::ok();
}

void NodeResourcesFit::score(const fw::CycleContext& cycle, std::span<const NodeId> nodes,
                             int64_t* scores) {
  table_.bind(cycle.state, pod_req_);
  switch (args_.strategy) {
    case ScoringStrategy::kLeastAllocated: table_.least_allocated(nodes, scores); break;
    case ScoringStrategy::kMostAllocated: table_.most_allocated(nodes, scores); break;
    case ScoringStrategy::kRequestedToCapacityRatio: {
      const size_t k = table_.size();
      int64_t requested[kMaxResources], allocatable[kMaxResources];
      table_.score_with(ResourceTable::kFirstCustom, nodes, scores, [&](NodeId id) {
        table_.node_values(id, requested, allocatable);
        return requested_to_capacity_ratio_score({requested, k}, {allocatable, k},
                                                 table_.resources(), args_.shape);
      });
      break;
    }
  }
}

// Free resources grow only when a pod releases them, a nomination is cleared or a node appears or
// changes; an assigned pod or a removed node can only take them away.
fw::QueueingHint NodeResourcesFit::queueing_hint(const fw::QueueEvent& event, const ClusterState&,
                                                 const fw::PodClassKey& waiting) const {
  switch (event.kind) {
    case fw::QueueEvent::kPodReleased:
    case fw::QueueEvent::kNodeAdded:
    case fw::QueueEvent::kNodeUpdated:
    case fw::QueueEvent::kAll: return fw::QueueingHint::kQueue;
    case fw::QueueEvent::kNominationCleared: return queue_if(nomination_may_help(event, waiting));
    default: return fw::QueueingHint::kSkip;
  }
}

uint64_t NodeResourcesFit::class_salt(const ClusterState&, PodId) const {
  return 0;  // the spec's requests
}

}  // namespace orrery::plugins
