// Helpers for simulator tests: a tiny fit-and-spread policy that does not depend on the
// kube-default plugins, and builders for nodes and pods.
#pragma once

#include <memory>
#include <string>

#include "core/node.h"
#include "core/pod.h"
#include "framework/plugin.h"
#include "framework/policy.h"
#include "framework/profile.h"
#include "framework/scheduler_driver.h"

namespace orrery::sim::testing {

// Filter: every requested resource fits and NoSchedule/NoExecute taints are tolerated.
// Score: least requested cpu (spreads).
class FitAll : public fw::Plugin {
 public:
  std::string_view name() const override { return "FitAll"; }
  uint32_t extension_points() const override { return fw::kFilter | fw::kScore; }
  size_t filter(const fw::CycleContext& c, NodeId* nodes, size_t n, fw::Rejections& rej) override {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      const NodeId id = nodes[i];
      bool fits = !c.state.node(id).unschedulable;
      for (const Taint& t : c.state.node(id).taints) {
        if (t.effect != TaintEffect::kPreferNoSchedule && !tolerates(c.spec.tolerations, t)) {
          fits = false;
        }
      }
      for (ResourceId r = 0; r < kMaxResources && fits; ++r) {
        if (!(c.spec.request_mask & (1u << r))) continue;
        fits = c.state.requested(r)[id] + c.spec.request[r] <= c.state.allocatable(r)[id];
      }
      if (fits) {
        nodes[k++] = id;
      } else {
        rej.add(id, 0, 0, false);
      }
    }
    return k;
  }
  void describe(const ClusterState&, const fw::Rejection&,
                std::vector<std::string>* r) const override {
    r->push_back("Insufficient resources");
  }
  void score(const fw::CycleContext& c, std::span<const NodeId> nodes, int64_t* s) override {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeId id = nodes[i];
      const int64_t alloc = c.state.allocatable(kCpu)[id];
      s[i] = alloc > 0 ? (alloc - c.state.requested(kCpu)[id]) * 100 / alloc : 0;
      if (s[i] < 0) s[i] = 0;
    }
  }
};

inline std::unique_ptr<fw::Component> make_fitall(fw::PolicyContext& ctx,
                                                  fw::DecisionLatency latency = {},
                                                  bool deterministic = true) {
  auto prof = std::make_unique<fw::Profile>();
  prof->deterministic_ties = deterministic;
  prof->add(std::make_unique<FitAll>(), fw::kFilter | fw::kScore, 1);
  std::vector<std::unique_ptr<fw::Profile>> profiles;
  profiles.push_back(std::move(prof));
  fw::SchedulerOptions opt;
  opt.seed = ctx.seed;
  opt.percentage_of_nodes_to_score = 100;
  if (ctx.args.defined()) latency = fw::parse_decision_latency(ctx.args.child("decision_latency"));
  return std::make_unique<fw::SchedulerDriver>(ctx, std::move(profiles), opt, latency);
}

inline void register_test_policies(fw::PolicyRegistry& reg) {
  reg.add("fitall", "test: fit every resource, least-requested cpu",
          [](fw::PolicyContext& ctx) { return make_fitall(ctx); });
  reg.add("fitall-random", "test: like fitall with seeded random ties",
          [](fw::PolicyContext& ctx) { return make_fitall(ctx, {}, false); });
}

inline Node make_node(const std::string& name, int64_t milli_cpu, int64_t memory,
                      int64_t pods = 110, Tier tier = Tier::kUnknown) {
  Node n;
  n.name = name;
  n.capacity[kCpu] = milli_cpu;
  n.capacity[kMemory] = memory;
  n.capacity[kPods] = pods;
  n.allocatable = n.capacity;
  if (tier == Tier::kEdge) n.labels.set("orrery.io/tier", "edge");
  if (tier == Tier::kCloud) n.labels.set("orrery.io/tier", "cloud");
  n.derive_orrery_fields(name);
  return n;
}

inline std::shared_ptr<PodSpec> make_spec(int64_t milli_cpu, int64_t memory) {
  Resources r;
  r[kCpu] = milli_cpu;
  r[kMemory] = memory;
  return make_simple_spec(r);
}

inline Pod make_pod(const std::string& name, std::shared_ptr<const PodSpec> spec) {
  Pod p;
  p.name = name;
  p.spec = std::move(spec);
  return p;
}

inline constexpr int64_t kGi = int64_t{1} << 30;
inline constexpr int64_t kMi = int64_t{1} << 20;

}  // namespace orrery::sim::testing
