#include "plugins/noderesources/balanced_allocation.h"

#include <set>

#include "core/error.h"
#include "plugins/helper/args.h"
#include "plugins/helper/names.h"

namespace orrery::plugins {

BalancedAllocationArgs BalancedAllocationArgs::parse(const yaml::Ctx& args) {
  BalancedAllocationArgs a;
  expect_arg_keys(args, {"resources"});
  if (!args.defined() || !args.has("resources")) return a;
  yaml::Ctx list = args.child("resources");
  list.expect_seq();
  a.resources.clear();
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    yaml::Ctx item = list.item(i);
    item.expect_map();
    expect_arg_keys(item, {"name", "weight"});
    ResourceSpec r;
    r.name = item.child("name").str();
    if (!seen.insert(r.name).second) item.child("name").fail("Duplicate value: \"" + r.name + "\"");
    try {
      r.id = resource_id(r.name);
    } catch (const InputError& e) {
      item.child("name").fail(e.what());
    }
    r.weight = item.i64_or("weight", 0);
    if (r.weight == 0) r.weight = 1;
    if (r.weight != 1) item.child("weight").fail("must be 1");
    a.resources.push_back(std::move(r));
  }
  if (a.resources.empty()) a.resources = default_scoring_resources();
  return a;
}

NodeResourcesBalancedAllocation::NodeResourcesBalancedAllocation(BalancedAllocationArgs args)
    : table_(std::move(args.resources), /*use_requested=*/true) {}

std::string_view NodeResourcesBalancedAllocation::name() const {
  return names::kNodeResourcesBalancedAllocation;
}

fw::Status NodeResourcesBalancedAllocation::pre_score(const fw::CycleContext& cycle,
                                                      std::span<const NodeId>) {
  table_.pod_requests(cycle.spec, pod_req_);
  for (size_t k = 0; k < table_.size(); ++k)
    if (pod_req_[k] != 0) return fw::Status::ok();
  return fw::Status::skip();  // best-effort pod (kubernetes#129138)
}

void NodeResourcesBalancedAllocation::score(const fw::CycleContext& cycle,
                                            std::span<const NodeId> nodes, int64_t* scores) {
  table_.bind(cycle.state, pod_req_);
  table_.balanced(nodes, scores);
}

}  // namespace orrery::plugins
