#include "io/k8s_objects.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace orrery {
namespace {

const char* kSnapshot = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: edge-1
    labels:
      orrery.io/tier: edge
      nvidia.com/gpu.product: Tesla-T4
    annotations:
      orrery.io/constraints: "1,4"
  spec:
    taints:
    - key: edge
      value: "true"
      effect: PreferNoSchedule
  status:
    capacity: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "1"}
    allocatable: {cpu: 3800m, memory: 7Gi, pods: "110", nvidia.com/gpu: "1"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: prod
    creationTimestamp: "2024-05-01T12:00:00Z"
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9, controller: true}
    labels: {app: web}
  spec:
    nodeName: edge-1
    priorityClassName: high
    containers:
    - name: app
      image: nginx
      resources:
        requests: {cpu: 250m, memory: 64Mi}
        limits: {cpu: "1", memory: 128Mi, nvidia.com/gpu: 1}
    tolerations:
    - {key: edge, operator: Exists, effect: PreferNoSchedule}
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: orrery.io/tier, operator: In, values: [edge]}
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference:
            matchExpressions:
            - {key: disk, operator: Exists}
  status:
    phase: Running
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
- apiVersion: v1
  kind: Service
  metadata: {name: ignored}
)";

TEST(K8sObjects, ReadsKubectlList) {
  K8sObjects o = parse_k8s_objects(kSnapshot, "snap.yaml");
  ASSERT_EQ(o.nodes.size(), 1u);
  ASSERT_EQ(o.pods.size(), 1u);
  EXPECT_EQ(o.ignored_kinds.at("Service"), 1);
  const Node& n = o.nodes[0];
  EXPECT_EQ(n.name, "edge-1");
  EXPECT_EQ(n.allocatable[kCpu], 3800);
  EXPECT_EQ(n.allocatable[kMemory], 7LL << 30);
  EXPECT_EQ(n.allocatable[kGpu], 1);
  EXPECT_EQ(n.capacity[kCpu], 4000);
  EXPECT_EQ(n.tier, Tier::kEdge);
  EXPECT_EQ(n.constraints, (1u << 1) | (1u << 4));
  EXPECT_EQ(interned(n.gpu_model), "Tesla-T4");
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, TaintEffect::kPreferNoSchedule);
  EXPECT_FALSE(n.labels.get(std::string_view("kubernetes.io/hostname")))
      << "not invented (the kubelet sets it on real nodes)";

  const Pod& p = o.pods[0];
  EXPECT_EQ(p.key(), "prod/web-1");
  EXPECT_EQ(p.node_name, "edge-1");
  EXPECT_EQ(p.phase, PodPhase::kRunning);
  EXPECT_EQ(p.owner.kind, OwnerKind::kReplicaSet);
  EXPECT_EQ(p.owner.name, "web-7d9");
  EXPECT_EQ(p.creation_us, 1714564800LL * 1000000);
  EXPECT_EQ(p.spec->priority, 1000) << "resolved from the PriorityClass later in the list";
  EXPECT_EQ(p.spec->request[kCpu], 250);
  EXPECT_EQ(p.spec->request[kMemory], 64LL << 20);
  EXPECT_EQ(p.spec->request[kGpu], 1) << "limit without request defaults the request";
  EXPECT_EQ(interned(p.spec->scheduler_name), "default-scheduler");
  ASSERT_TRUE(p.spec->node_affinity.required.has_value());
  EXPECT_EQ(p.spec->node_affinity.required->size(), 1u);
  EXPECT_EQ(p.spec->node_affinity.preferred.at(0).weight, 10);
  EXPECT_EQ(p.spec->tolerations.size(), 1u);

  ClusterState s = build_cluster(o);
  EXPECT_EQ(s.requested(kCpu)[0], 250);
  EXPECT_EQ(s.requested(kPods)[0], 1);
}

TEST(K8sObjects, JsonAndMultiDocument) {
  const char* json = R"({"kind":"NodeList","items":[{"metadata":{"name":"a"},
    "status":{"capacity":{"cpu":"2","memory":"1Gi"}}}]})";
  K8sObjects o = parse_k8s_objects(json, "nodes.json");
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].allocatable[kCpu], 2000) << "allocatable defaults to capacity";
  EXPECT_EQ(o.nodes[0].allocatable[kPods], 0) << "no pods figure: no pod fits, as upstream";

  const char* multi = "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: b}\n";
  EXPECT_EQ(parse_k8s_objects(multi, "m.yaml").nodes.size(), 2u);
}

std::string error_of(const std::string& text) {
  try {
    parse_k8s_objects(text, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Found by fuzz/yaml_json_diff.cc (fuzz/corpus/yaml_json_diff/regress-invalid-utf8): yaml-cpp
// read invalid UTF-8 in block YAML (garbling it) but failed on it in the JSON form ("end of map
// flow not found"). Both are now refused with the line of the first bad byte.
TEST(K8sObjects, InvalidUtf8IsRefusedInYamlAndJson) {
  EXPECT_EQ(error_of("kind: Node\nmetadata: {name: \"n\xE0\x9C\xD3\"}\n"),
            "bad.yaml:2: not valid UTF-8 (byte 0xE0); Kubernetes objects are UTF-8");
  EXPECT_EQ(error_of("{\"kind\": \"List\", \"items\": [\n{\"kind\": \"Node\", \"metadata\": "
                     "{\"name\": \"\xED\xA0\x80\"}}]}"),  // an encoded surrogate
            "bad.yaml:2: not valid UTF-8 (byte 0xED); Kubernetes objects are UTF-8");
  EXPECT_EQ(error_of("kind: Node\nmetadata: {name: n}\n# truncated \xC3"),
            "bad.yaml:3: not valid UTF-8 (byte 0xC3); Kubernetes objects are UTF-8");
  const K8sObjects ok = parse_k8s_objects(
      "kind: Node\nmetadata: {name: n, labels: {team: \"\xC3\xA9quipe \xF0\x9F\x9A\x80\"}}\n",
      "ok.yaml");
  ASSERT_EQ(ok.nodes.size(), 1u);
}

TEST(K8sObjects, ErrorsNameFileLineAndField) {
  std::string e = error_of(
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n"
      "      requests: {cpu: lots}\n");
  EXPECT_NE(e.find("bad.yaml:7: spec.containers[0].resources.requests.cpu"), std::string::npos)
      << e;
  EXPECT_NE(e.find("invalid quantity \"lots\""), std::string::npos) << e;

  e = error_of(
      "kind: Node\nmetadata: {name: n}\nspec:\n  taints:\n  - {key: k, effect: Sometimes}\n");
  EXPECT_NE(e.find("bad.yaml:5: spec.taints[0].effect"), std::string::npos) << e;

  e = error_of("kind: Pod\nmetadata: {name: p}\nspec: {priorityClassName: nope, containers: []}\n");
  EXPECT_NE(e.find("unknown PriorityClass \"nope\""), std::string::npos) << e;

  e = error_of("kind: [unclosed\n");
  EXPECT_NE(e.find("bad.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("malformed YAML"), std::string::npos) << e;

  // Stray tokens between documents: yaml-cpp 0.7's LoadAll would loop forever on these.
  for (const char* text : {"\n,\n", "\"x\",\n{kind: Node}\n", "kind: Node\n---\n,\n"}) {
    e = error_of(text);
    EXPECT_NE(e.find("malformed YAML/JSON: unexpected content"), std::string::npos) << e;
  }
  EXPECT_EQ(error_of("\n,\n").rfind("bad.yaml:2:", 0), 0u);

  e = error_of(
      "kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n"
      "      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n"
      "        - matchExpressions:\n          - {key: a, operator: Near, values: [x]}\n");
  EXPECT_NE(e.find("matchExpressions[0].operator"), std::string::npos) << e;

  e = error_of("metadata: {name: p}\n");
  EXPECT_NE(e.find("object without a kind"), std::string::npos) << e;

  e = error_of("kind: Node\nmetadata: {name: n, labels: {orrery.io/tier: fog}}\n");
  EXPECT_NE(e.find("expected edge or cloud"), std::string::npos) << e;
}

TEST(K8sObjects, DuplicateNodesAndUnknownNodeNameAreErrors) {
  K8sObjects o = parse_k8s_objects(
      "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: a}\n", "d.yaml");
  EXPECT_THROW(build_cluster(o), InputError);
  K8sObjects p = parse_k8s_objects(
      "kind: Pod\nmetadata: {name: p}\nspec: {nodeName: ghost, containers: []}\n", "p.yaml");
  EXPECT_THROW(build_cluster(p), InputError);
}

TEST(K8sObjects, UnreadableFile) {
  EXPECT_THROW(load_k8s_objects("/nonexistent/file.yaml"), InputError);
}

// What a dump uses that orrery does not model is collected while reading, in both the YAML path
// and the JSON list fast path, once per kind with a count and the first object.
TEST(K8sObjects, UnmodelledFieldsAreCollectedOncePerKindOnBothPaths) {
  const std::string yaml =
      "kind: Pod\nmetadata: {name: a}\nspec:\n  resourceClaims: [{name: g}]\n  containers: "
      "[{name: c}]\n---\nkind: Pod\nmetadata: {name: b, namespace: x}\nspec:\n  "
      "resourceClaims: [{name: g}]\n  containers: [{name: c}]\n---\nkind: Service\nmetadata: "
      "{name: s}\n";
  K8sObjects y = parse_k8s_objects(yaml, "d.yaml");
  ASSERT_EQ(y.unmodelled.size(), 2u);
  EXPECT_EQ(y.unmodelled[0].what, "spec.resourceClaims");
  EXPECT_EQ(y.unmodelled[0].count, 2);
  EXPECT_EQ(y.unmodelled[0].example, "default/a");
  EXPECT_EQ(y.unmodelled[0].first_where, "d.yaml:4: document[0].spec.resourceClaims");
  EXPECT_EQ(y.unmodelled[1].what, "kind Service");
  const std::string json =
      R"({"kind":"List","items":[{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":)"
      R"([{"name":"c"}],"resourceClaims":[{"name":"g"}],)"
      R"("volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}}]}}]})";
  K8sObjects j = parse_k8s_objects(json, "d.json");
  // Volumes are modelled (the volume plugins): only the DRA claim is unmodelled.
  ASSERT_EQ(j.unmodelled.size(), 1u);
  EXPECT_EQ(j.unmodelled[0].what, "spec.resourceClaims");
  // Merging adds counts of the same kind.
  merge_into(y, std::move(j));
  ASSERT_EQ(y.unmodelled.size(), 2u);
  EXPECT_EQ(y.unmodelled[0].count, 3);
  // The two unmodelled kinds, and the claim "c" the input does not hold.
  EXPECT_EQ(k8s_warnings(y).size(), 3u);
}

TEST(K8sObjects, PodsOnNodesMissingFromAPartialDump) {
  K8sObjects o = parse_k8s_objects(
      "kind: Node\nmetadata: {name: n1}\n---\nkind: Pod\nmetadata: {name: a}\nspec: "
      "{nodeName: gone, containers: [{name: c}]}\nstatus: {phase: Succeeded}\n---\nkind: "
      "Pod\nmetadata: {name: b}\nspec: {nodeName: gone, containers: [{name: c}]}\n",
      "p.yaml");
  // Without a place for warnings they are an error, as before.
  EXPECT_THROW(build_cluster(o), InputError);
  std::vector<std::string> warnings;
  ClusterState st = build_cluster(o, &warnings);
  EXPECT_EQ(st.pod_count(), 0u);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("1 finished pod(s)"), std::string::npos);
  EXPECT_NE(warnings[1].find("1 running pod(s)"), std::string::npos);
}

}  // namespace
}  // namespace orrery
