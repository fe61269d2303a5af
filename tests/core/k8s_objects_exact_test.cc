// The loader's fields for kube-scheduler exactness on real cluster dumps: pod-level resources,
// deletionTimestamp, host ports, node images, and the kubelet defaults orrery must not invent.
#include <gtest/gtest.h>

#include "core/error.h"
#include "io/k8s_objects.h"

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
  EXPECT_EQ(s.pod_request(kCpu), 300);
  EXPECT_EQ(s.pod_request(kMemory), 1LL << 30);
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

TEST(K8sObjectsExact, NodeFieldsAreNotInvented) {
  K8sObjects o = parse_k8s_objects(
      "kind: Node\nmetadata: {name: a}\nstatus: {capacity: {cpu: \"2\"}}\n---\n"
      "kind: Node\nmetadata: {name: b, labels: {kubernetes.io/hostname: b-host}}\n"
      "status: {allocatable: {cpu: \"2\", pods: \"7\"}}\n",
      "n.yaml");
  EXPECT_FALSE(o.nodes[0].labels.get(std::string_view("kubernetes.io/hostname")));
  EXPECT_EQ(o.nodes[0].allocatable[kPods], 0);
  EXPECT_EQ(o.nodes[1].labels.get(std::string_view("kubernetes.io/hostname")), "b-host");
  EXPECT_EQ(o.nodes[1].allocatable[kPods], 7);
  EXPECT_EQ(o.nodes[1].capacity[kPods], 7);
}

TEST(K8sObjectsExact, HostPortsAndImages) {
  K8sObjects o = parse_k8s_objects(R"(kind: List
items:
- kind: Node
  metadata: {name: n}
  status:
    allocatable: {pods: "110"}
    images:
    - names: [registry.k8s.io/pause:3.9, "registry.k8s.io/pause@sha256:abc"]
      sizeBytes: 321520
- kind: Pod
  metadata: {name: p}
  spec:
    initContainers:
    - {name: init, ports: [{containerPort: 1, hostPort: 7000}]}
    - {name: side, restartPolicy: Always, ports: [{containerPort: 1, hostPort: 7001, protocol: UDP}]}
    containers:
    - name: c
      image: nginx
      ports:
      - {containerPort: 80}
      - {containerPort: 80, hostPort: 8080, hostIP: 10.0.0.1}
)",
                                   "x.yaml");
  const Node& n = o.nodes.at(0);
  ASSERT_EQ(n.images.size(), 1u);
  EXPECT_EQ(n.images[0].names.size(), 2u);
  EXPECT_EQ(n.images[0].size_bytes, 321520);
  const PodSpec& s = *o.pods.at(0).spec;
  EXPECT_EQ(s.containers[0].image, "nginx");
  // GetHostPorts order: restartable init containers, then app containers; plain init ones left out.
  ASSERT_EQ(s.host_ports.size(), 2u);
  EXPECT_EQ(s.host_ports[0].port, 7001);
  EXPECT_EQ(interned(s.host_ports[0].protocol), "UDP");
  EXPECT_EQ(interned(s.host_ports[0].ip), "0.0.0.0");
  EXPECT_EQ(s.host_ports[1].port, 8080);
  EXPECT_EQ(interned(s.host_ports[1].protocol), "TCP");
  EXPECT_EQ(interned(s.host_ports[1].ip), "10.0.0.1");
  EXPECT_EQ(error_of("kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
                     "    ports: [{containerPort: 1, hostPort: 70000}]\n"),
            "bad.yaml:6: spec.containers[0].ports[0].hostPort: expected a port in 0..65535");
}

TEST(K8sObjectsExact, SelectorRequirementErrorsAsUpstreamParses) {
  K8sObjects o = parse_k8s_objects(R"(kind: Pod
metadata: {name: p}
spec:
  containers: []
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: a, operator: In, values: [ok, "not ok", ""]}
          - {key: b, operator: Gt, values: ["-3"]}
          - {key: c, operator: Lt, values: ["12"]}
        - matchFields:
          - {key: metadata.name, operator: NotIn, values: [x, y]}
)",
                                   "p.yaml");
  const auto& terms = *o.pods.at(0).spec->node_affinity.required;
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_TRUE(terms[0].invalid);
  const auto errs = terms[0].errors();
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_EQ(errs[0].substr(0, errs[0].find(": a valid label")),
            "matchExpressions[0].values[1][a]: Invalid value: \"not ok\"");
  // "-3" parses as an integer but is no valid label value.
  EXPECT_EQ(errs[1].substr(0, errs[1].find(": a valid label")),
            "matchExpressions[1].values[0][b]: Invalid value: \"-3\"");
  EXPECT_EQ(terms[0].match_expressions[2].number, 12);
  EXPECT_TRUE(terms[1].invalid);
  EXPECT_EQ(terms[1].errors(),
            std::vector<std::string>{"matchFields[0].values: Invalid value: []string{\"x\", "
                                     "\"y\"}: must have one element"});
}

TEST(K8sObjectsExact, GoParseInt) {
  int64_t v = 0;
  EXPECT_TRUE(parse_go_int64("+42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parse_go_int64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(parse_go_int64("9223372036854775808", &v));
  EXPECT_FALSE(parse_go_int64("1_000", &v));
  EXPECT_FALSE(parse_go_int64("", &v));
  EXPECT_FALSE(parse_go_int64("+", &v));
  EXPECT_TRUE(label_value_errors("").empty());
  EXPECT_TRUE(label_value_errors("a.b-c_d").empty());
  EXPECT_EQ(label_value_errors(std::string(64, 'a')),
            std::vector<std::string>{"must be no more than 63 characters"});
  EXPECT_TRUE(qualified_name_errors("example.com/key").empty());
  EXPECT_FALSE(qualified_name_errors("\\invalid").empty());
}

}  // namespace
}  // namespace orrery
