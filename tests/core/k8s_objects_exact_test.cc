// The loader's fields for kube-scheduler exactness on real cluster dumps: pod-level resources,
// deletionTimestamp, host ports, node images, and the kubelet defaults orrery must not invent.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/k8s_objects.h"

namespace orrery {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_k8s_objects(text, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(K8sObjectsExact, PodLevelResources) {
  const char* yaml = R"(kind: Pod
metadata: {name: p}
spec:
  resources:
    requests: {memory: 1Gi}
    limits: {cpu: "2", memory: 2Gi}
  overhead: {cpu: 100m}
  containers:
  - name: a
    resources: {requests: {cpu: 300m}}
  - name: b
)";
  K8sObjects o = parse_k8s_objects(yaml, "p.yaml");
  const PodSpec& s = *o.pods.at(0).spec;
  // Defaulting: cpu from the containers' aggregate (300m), memory given.
  EXPECT_EQ(s.pod_requests[kCpu], 300);
  EXPECT_EQ(s.pod_requests[kMemory], 1LL << 30);
  EXPECT_EQ(s.request[kCpu], 400) << "pod-level 300m + overhead 100m";
  EXPECT_EQ(s.request[kMemory], 1LL << 30);
  EXPECT_EQ(s.nonzero_request[kCpu], 400) << "pod-level cpu replaces the per-container defaults";
}

TEST(K8sObjectsExact, PodLevelResourcesRejectUnsupportedNames) {
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: p}\nspec:\n  resources:\n    requests: "
                     "{nvidia.com/gpu: 1}\n  containers: []\n"),
            "bad.yaml:5: spec.resources.requests.nvidia.com/gpu: unsupported pod-level resource "
            "(expected cpu, memory or hugepages-*)");
}

TEST(K8sObjectsExact, DeletionTimestampMarksPodTerminating) {
  K8sObjects o = parse_k8s_objects(
      "kind: Pod\nmetadata: {name: p, deletionTimestamp: \"2024-05-01T12:00:00Z\"}\n"
      "spec: {containers: []}\n---\nkind: Pod\nmetadata: {name: q}\nspec: {containers: []}\n",
      "p.yaml");
  EXPECT_TRUE(o.pods.at(0).terminating);
  EXPECT_FALSE(o.pods.at(1).terminating);
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: p, deletionTimestamp: soon}\nspec: {}\n"),
            "bad.yaml:2: metadata.deletionTimestamp: expected an RFC 3339 timestamp such as "
            "2024-05-01T12:00:00Z");
}

}  // namespace
}  // namespace orrery
