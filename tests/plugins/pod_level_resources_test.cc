// Pod-level resources (spec.resources, PodLevelResources beta and on in 1.34) through the
// NodeResourcesFit filter and scorer, with the counts kept on nodes (NodeInfo.NonZeroRequested).
#include <gtest/gtest.h>

#include "harness.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

TEST(PodLevelResources, FitFiltersOnPodLevelRequests) {
  // The containers ask 200m but the pod-level request is 2 cpus: n1 (1 cpu) does not fit.
  Harness h(node_doc("n1", "{cpu: 1, memory: 4Gi}") + node_doc("n2", "{cpu: 4, memory: 4Gi}") +
                pod_doc("p", {"{cpu: 200m}"}, "resources: {requests: {cpu: \"2\"}}"),
            config_with({"NodeResourcesFit"}));
  auto e = h.evaluate("p");
  EXPECT_EQ(e["n1"].reasons, std::vector<std::string>{"Insufficient cpu"});
  EXPECT_TRUE(e["n2"].feasible);
  EXPECT_EQ(h.state().pod(h.pod("p")).spec->request[kCpu], 2000);
}

TEST(PodLevelResources, NodeNonZeroCountsFollowPodInfoCalculateResource) {
  // n1 runs a pod with pod-level memory 1Gi and containers [cpu 500m] and [nothing]: cpu is named
  // by a container, so the node counts 500m (no 100m default for the second container). n2 runs a
  // pod without pod-level resources: [cpu 500m, memory 512Mi], [memory 512Mi] → 600m, 1Gi.
  // Incoming pod: 1 cpu, 1Gi. LeastAllocated on 4 cpu / 8Gi nodes:
  //   n1: cpu (4000-1500)*100/4000 = 62, memory (8-2)*100/8 = 75 → 137/2 = 68
  //   n2: cpu (4000-1600)*100/4000 = 60, memory 75 → 135/2 = 67
  // (counting n1's pod with per-container defaults, as the incoming-pod scorer does, would give 67)
  Harness h(node_doc("n1", "{cpu: 4, memory: 8Gi}") + node_doc("n2", "{cpu: 4, memory: 8Gi}") +
                pod_doc("a", {"{cpu: 500m}", ""},
                        "nodeName: n1\nresources: {requests: {memory: 1Gi}}") +
                pod_doc("b", {"{cpu: 500m, memory: 512Mi}", "{memory: 512Mi}"}, "nodeName: n2") +
                pod_doc("p", {"{cpu: 1, memory: 1Gi}"}),
            config_with({"NodeResourcesFit"}));
  EXPECT_EQ(h.state().nonzero_requested(kCpu)[0], 500);
  EXPECT_EQ(h.state().nonzero_requested(kCpu)[1], 600);
  auto s = h.scores("p", "NodeResourcesFit");
  EXPECT_EQ(s["n1"], 68);
  EXPECT_EQ(s["n2"], 67);
}

TEST(PodLevelResources, IncomingPodScoredWithPodLevelRequests) {
  // calculatePodResourceRequest: pod-level cpu 2 replaces the containers' 100m + 100m default.
  // n1 (4 cpu, 8Gi, empty): cpu (4000-2000)*100/4000 = 50, memory (8Gi - 2·200Mi) → 95 → 72
  Harness h(node_doc("n1", "{cpu: 4, memory: 8Gi}") +
                pod_doc("p", {"{cpu: 100m}", ""}, "resources: {requests: {cpu: \"2\"}}"),
            config_with({"NodeResourcesFit"}));
  EXPECT_EQ(h.state().pod(h.pod("p")).spec->nonzero_request[kCpu], 2000);
  EXPECT_EQ(h.scores("p", "NodeResourcesFit")["n1"], 72);
}

}  // namespace
}  // namespace orrery::plugins
