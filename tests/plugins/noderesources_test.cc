// NodeResourcesFit and NodeResourcesBalancedAllocation: filter reasons, and the scoring examples
// of upstream's least/most_allocated_test.go, requested_to_capacity_ratio_test.go and
// balanced_allocation_test.go, recomputed by hand in the comments.
#include <gtest/gtest.h>

#include "harness.h"
#include "plugins/noderesources/resource_allocation.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const char* kFit = "NodeResourcesFit";
const char* kBalanced = "NodeResourcesBalancedAllocation";

std::string fit_config(const std::string& strategy_yaml) {
  return config_with({kFit},
                     "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n" + strategy_yaml);
}

TEST(LeastAllocated, DifferentlySizedNodes) {
  // Pod requests 3000m cpu, 5000 bytes memory (two containers).
  // node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 → (25+50)/2 = 37
  // node2: cpu (6000-3000)*100/6000 = 50, memory 50 → 50
  Harness h(node_doc("node1", "{cpu: 4000m, memory: 10000}") +
                node_doc("node2", "{cpu: 6000m, memory: 10000}") +
                pod_doc("p", {"{cpu: 1000m, memory: 2000}", "{cpu: 2000m, memory: 3000}"}),
            config_with({kFit}));
  auto s = h.scores("p", kFit);
  EXPECT_EQ(s["node1"], 37);
  EXPECT_EQ(s["node2"], 50);
}

TEST(LeastAllocated, ExistingPodsWithExplicitZeroMemory) {
  // Existing pods request memory "0" explicitly: no non-zero default applies.
  // node1: cpu (10000-6000)*100/10000 = 40, memory (20000-0)*100/20000 = 100 → 70
  // node2: cpu 40, memory (20000-5000)*100/20000 = 75 → 57
  // The incoming pod has no containers, so its non-zero request is 0 as well.
  Harness h(node_doc("node1", "{cpu: 10000m, memory: 20000}") +
                node_doc("node2", "{cpu: 10000m, memory: 20000}") +
                pod_doc("a", {"{cpu: 3000m, memory: 0}"}, "nodeName: node1") +
                pod_doc("b", {"{cpu: 3000m, memory: 0}"}, "nodeName: node1") +
                pod_doc("c", {"{cpu: 3000m, memory: 0}"}, "nodeName: node2") +
                pod_doc("d", {"{cpu: 3000m, memory: 5000}"}, "nodeName: node2") + pod_doc("p", {}),
            config_with({kFit}));
  auto s = h.scores("p", kFit);
  EXPECT_EQ(s["node1"], 70);
  EXPECT_EQ(s["node2"], 57);
}

TEST(LeastAllocated, RequestAboveCapacityScoresZeroForThatResource) {
  // node1: cpu (4000 - 6000) → 0, memory 100 → 50; node2: cpu 0, memory 50 → 25.
  Harness h(node_doc("node1", "{cpu: 4000m, memory: 10000}") +
                node_doc("node2", "{cpu: 4000m, memory: 10000}") +
                pod_doc("a", {"{cpu: 3000m, memory: 0}"}, "nodeName: node1") +
                pod_doc("b", {"{cpu: 3000m, memory: 5000}"}, "nodeName: node2"),
            config_with({kFit}));
  // Score directly: the pod would not pass the filter (evaluate only scores feasible nodes).
  std::vector<ResourceSpec> res = default_scoring_resources();
  EXPECT_EQ(
      least_allocated_score(std::vector<int64_t>{6000, 0}, std::vector<int64_t>{4000, 10000}, res),
      50);
  EXPECT_EQ(least_allocated_score(std::vector<int64_t>{6000, 5000},
                                  std::vector<int64_t>{4000, 10000}, res),
            25);
}

TEST(LeastAllocated, ResourceWeights) {
  // memory weight 2, cpu weight 1:
  // node1: (25*1 + 50*2) / 3 = 41; node2: (50*1 + 50*2) / 3 = 50
  Harness h(node_doc("node1", "{cpu: 4000m, memory: 10000}") +
                node_doc("node2", "{cpu: 6000m, memory: 10000}") +
                pod_doc("p", {"{cpu: 1000m, memory: 2000}", "{cpu: 2000m, memory: 3000}"}),
            fit_config("      scoringStrategy:\n        type: LeastAllocated\n"
                       "        resources: [{name: memory, weight: 2}, {name: cpu, weight: 1}]\n"));
  auto s = h.scores("p", kFit);
  EXPECT_EQ(s["node1"], 41);
  EXPECT_EQ(s["node2"], 50);
}

TEST(LeastAllocated, ExtendedResourceOnlyWhenRequested) {
  // Scoring resources cpu, memory, example.com/foo (weight 1 each).
  // Pod without foo: foo is bypassed → cpu 50, memory 50 → 50 on both nodes.
  // Pod with foo: 2: node2 has foo 10 → (10-2)*100/10 = 80 → (50+50+80)/3 = 60; node1 without
  // foo: foo left out → 50. (Upstream's example with foo 4 on node1 gives 50 as well.)
  const std::string nodes = node_doc("node1", "{cpu: 6000m, memory: 10000}") +
                            node_doc("node2", "{cpu: 6000m, memory: 10000, example.com/foo: 10}");
  const std::string cfg = fit_config(
      "      scoringStrategy:\n        type: LeastAllocated\n        resources: [{name: cpu}, "
      "{name: memory}, "
      "{name: example.com/foo}]\n");
  Harness plain(nodes + pod_doc("p", {"{cpu: 3000m, memory: 5000}"}), cfg);
  auto s = plain.scores("p", kFit);
  EXPECT_EQ(s["node1"], 50);
  EXPECT_EQ(s["node2"], 50);
  Harness foo(nodes + pod_doc("p", {"{cpu: 3000m, memory: 5000, example.com/foo: 2}"}), cfg);
  auto f = foo.evaluate("p");
  EXPECT_FALSE(f["node1"].feasible);
  EXPECT_EQ(f["node1"].reasons, std::vector<std::string>{"Insufficient example.com/foo"});
  EXPECT_EQ(foo.scores("p", kFit)["node2"], 60);
}

TEST(LeastAllocated, NonZeroDefaultsForMissingRequests) {
  // A pod without any request counts 100m cpu and 200Mi memory when scoring:
  // cpu (1000-100)*100/1000 = 90, memory (1Gi-200Mi)*100/1Gi = 80 (integer) → 85.
  Harness h(node_doc("n", "{cpu: 1000m, memory: 1Gi}") +
                node_doc("m", "{cpu: 1000m, memory: 1Gi}") + pod_doc("p", {""}),
            config_with({kFit}));
  EXPECT_EQ(h.scores("p", kFit)["n"], (90 + 80) / 2);
}

TEST(MostAllocated, UpstreamExamples) {
  // most_allocated_test.go "nothing scheduled, resources requested, differently sized nodes":
  // node1: cpu 3000*100/4000 = 75, memory 5000*100/10000 = 50 → 62
  // node2: cpu 3000*100/6000 = 50, memory 50 → 50
  Harness h(node_doc("node1", "{cpu: 4000m, memory: 10000}") +
                node_doc("node2", "{cpu: 6000m, memory: 10000}") +
                pod_doc("p", {"{cpu: 1000m, memory: 2000}", "{cpu: 2000m, memory: 3000}"}),
            fit_config("      scoringStrategy: {type: MostAllocated}\n"));
  auto s = h.scores("p", kFit);
  EXPECT_EQ(s["node1"], 62);
  EXPECT_EQ(s["node2"], 50);
  // Requests above capacity are clamped: (4000 clamp, 10000) of (4000, 20000) → (100 + 50)/2.
  EXPECT_EQ(most_allocated_score(std::vector<int64_t>{6000, 10000},
                                 std::vector<int64_t>{4000, 20000}, default_scoring_resources()),
            75);
}

TEST(RequestedToCapacityRatio, ShapeAndRounding) {
  // Shape {0: 10, 100: 0} (scores ×10 → 100..0), i.e. least-allocated-like.
  // node1: cpu 3000/4000 = 75 % → f = 100 - 75 = 25, memory 50 % → 50 → round(75/2) = 38
  // node2: cpu 50 %, memory 50 % → 50
  Harness h(
      node_doc("node1", "{cpu: 4000m, memory: 10000}") +
          node_doc("node2", "{cpu: 6000m, memory: 10000}") +
          pod_doc("p", {"{cpu: 1000m, memory: 2000}", "{cpu: 2000m, memory: 3000}"}),
      fit_config("      scoringStrategy:\n        type: RequestedToCapacityRatio\n"
                 "        requestedToCapacityRatio:\n"
                 "          shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]\n"));
  auto s = h.scores("p", kFit);
  EXPECT_EQ(s["node1"], 38);
  EXPECT_EQ(s["node2"], 50);
}

TEST(RequestedToCapacityRatio, BrokenLinearFunction) {
  // requested_to_capacity_ratio_test.go TestBrokenLinearFunction (scores already ×1).
  std::vector<ShapePoint> shape = {{10, 1}, {90, 9}};
  EXPECT_EQ(broken_linear(shape, 0), 1);
  EXPECT_EQ(broken_linear(shape, 10), 1);
  EXPECT_EQ(broken_linear(shape, 15), 1);  // 1 + 8*5/80 = 1 (integer)
  EXPECT_EQ(broken_linear(shape, 40), 4);  // 1 + 8*30/80 = 4
  EXPECT_EQ(broken_linear(shape, 90), 9);
  EXPECT_EQ(broken_linear(shape, 100), 9);
  std::vector<ShapePoint> bin = {{0, 0}, {100, 100}};
  // Bin packing: a resource above capacity scores f(100); zero-scored resources are left out of
  // the weighted mean.
  std::vector<ResourceSpec> res = default_scoring_resources();
  EXPECT_EQ(requested_to_capacity_ratio_score(std::vector<int64_t>{0, 5000},
                                              std::vector<int64_t>{4000, 10000}, res, bin),
            50);
  EXPECT_EQ(requested_to_capacity_ratio_score(std::vector<int64_t>{5000, 5000},
                                              std::vector<int64_t>{4000, 10000}, res, bin),
            75);
}

TEST(BalancedAllocation, UpstreamExamples) {
  // balanced_allocation_test.go "nothing scheduled, resources requested, differently sized nodes"
  // node1: cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5 → std = 0.125 → 87
  // node2: cpu 3000/6000 = 0.5, memory 0.5 → 100
  Harness h(node_doc("node1", "{cpu: 4000m, memory: 10000}") +
                node_doc("node2", "{cpu: 6000m, memory: 10000}") +
                pod_doc("p", {"{cpu: 1000m, memory: 2000}", "{cpu: 2000m, memory: 3000}"}),
            config_with({kBalanced}));
  auto s = h.scores("p", kBalanced);
  EXPECT_EQ(s["node1"], 87);
  EXPECT_EQ(s["node2"], 100);
  // Three resources: fractions 0.5, 0.25, 0.75: mean 0.5, std = sqrt((0+0.0625+0.0625)/3)
  // = 0.2041 → 79.
  EXPECT_EQ(balanced_allocation_score(std::vector<int64_t>{2, 1, 3}, std::vector<int64_t>{4, 4, 4}),
            79);
  // Fractions are capped at 1.
  EXPECT_EQ(balanced_allocation_score(std::vector<int64_t>{8, 2}, std::vector<int64_t>{4, 4}), 75);
}

TEST(BalancedAllocation, ThreeConfiguredResourcesUseTheGeneralFormula) {
  // The plugin's own loop on three resources: fractions 0.5, 0.25, 0.75 → 79 as above; on a node
  // without ephemeral storage only cpu and memory count: std = |0.5 - 0.25| / 2 → 87.
  Harness h(node_doc("three", "{cpu: 4000m, memory: 4000, ephemeral-storage: 4000}") +
                node_doc("two", "{cpu: 4000m, memory: 4000}") +
                pod_doc("p", {"{cpu: 2000m, memory: 1000, ephemeral-storage: 3000}"}),
            config_with({kBalanced},
                        "  pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n"
                        "    args:\n      resources: [{name: cpu, weight: 1}, "
                        "{name: memory, weight: 1}, {name: ephemeral-storage, "
                        "weight: 1}]\n"));
  auto s = h.scores("p", kBalanced);
  EXPECT_EQ(s["three"], 79);
  EXPECT_EQ(s["two"], 87);
}

TEST(BalancedAllocation, UsesRealRequestsAndSkipsBestEffortPods) {
  // Balanced uses real requests (no non-zero defaults): a pod without requests is best-effort and
  // the plugin's PreScore skips it, so it scores 0 on every node.
  Harness h(node_doc("a", "{cpu: 1000m, memory: 1Gi}") +
                node_doc("b", "{cpu: 2000m, memory: 1Gi}") + pod_doc("p", {""}) +
                pod_doc("q", {"{cpu: 500m}"}),
            config_with({kBalanced}));
  auto p = h.scores("p", kBalanced);
  EXPECT_EQ(p["a"], 0);
  EXPECT_EQ(p["b"], 0);
  // q: node a: cpu 0.5, memory 0 → std 0.25 → 75; node b: cpu 0.25 → 87.
  auto q = h.scores("q", kBalanced);
  EXPECT_EQ(q["a"], 75);
  EXPECT_EQ(q["b"], 87);
}

TEST(Fit, FilterReasonsAndUpstreamOrder) {
  Harness h(node_doc("full", "{cpu: 1000m, memory: 1Gi, pods: 1}") +
                node_doc("small", "{cpu: 500m, memory: 256Mi}") +
                node_doc("big", "{cpu: 4000m, memory: 8Gi}") +
                pod_doc("x", {"{cpu: 100m}"}, "nodeName: full") +
                pod_doc("p", {"{cpu: 800m, memory: 512Mi}"}),
            config_with({kFit}));
  auto e = h.evaluate("p");
  EXPECT_EQ(e["full"].reasons, (std::vector<std::string>{"Too many pods"}));
  EXPECT_EQ(e["small"].reasons,
            (std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
  EXPECT_TRUE(e["big"].feasible);
}

TEST(Fit, PodsWithoutRequestsOnlyNeedAPodSlot) {
  Harness h(node_doc("tiny", "{cpu: 10m, memory: 1Ki}") + pod_doc("p", {""}), config_with({kFit}));
  EXPECT_TRUE(h.evaluate("p")["tiny"].feasible);
}

TEST(Fit, IgnoredExtendedResources) {
  const std::string objs = node_doc("n", "{cpu: 1, memory: 1Gi}") +
                           pod_doc("p", {"{cpu: 100m, example.com/foo: 1, vendor.io/bar: 2}"});
  Harness strict(objs, config_with({kFit}));
  EXPECT_EQ(
      strict.evaluate("p")["n"].reasons,
      (std::vector<std::string>{"Insufficient example.com/foo", "Insufficient vendor.io/bar"}));
  Harness lenient(objs, fit_config("      ignoredResources: [example.com/foo]\n"
                                   "      ignoredResourceGroups: [vendor.io]\n"));
  EXPECT_TRUE(lenient.evaluate("p")["n"].feasible);
}

TEST(Fit, UnresolvableOnlyWhenTheWholeNodeIsTooSmall) {
  // Preemption skips nodes whose allocatable is below the request; a full but big enough node
  // stays a candidate.
  Harness h(node_doc("small", "{cpu: 500m, memory: 1Gi}") +
                node_doc("busy", "{cpu: 2000m, memory: 1Gi}") +
                pod_doc("x", {"{cpu: 1500m}"}, "nodeName: busy") +
                pod_doc("p", {"{cpu: 1000m}"}, "priority: 10"),
            config_with({kFit, "DefaultPreemption"}));
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  ASSERT_FALSE(outs.empty());
  // busy is a candidate (x has priority 0 < 10); small never is.
  EXPECT_EQ(h.state().node(outs[0].nominated_node).name, "busy");
}

}  // namespace
}  // namespace orrery::plugins
