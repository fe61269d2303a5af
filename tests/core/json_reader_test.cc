// read_k8s_object (the snapshot reader over a parsed JSON value, as watch events are decoded)
// against the text round trip it replaced, parse_k8s_objects(obj.dump()): the same objects and
// the same errors (file, line, field path, message), for valid and malformed objects.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "io/k8s_objects.h"

namespace orrery {
namespace {

using nlohmann::json;

std::string resources(const Resources& r) {
  std::string s;
  for (int i = 0; i < kMaxResources; ++i)
    if (r[static_cast<ResourceId>(i)] != 0)
      s += std::to_string(i) + "=" + std::to_string(r[static_cast<ResourceId>(i)]) + " ";
  return s;
}

// What a reader produced, or its error.
std::string outcome(const std::function<K8sObjects()>& read) {
  try {
    const K8sObjects o = read();
    std::string s;
    for (const Pod& p : o.pods) {
      const PodSpec& sp = *p.spec;
      s += "pod " + p.key() + " uid=" + p.uid + " node=" + p.node_name +
           " phase=" + std::to_string(static_cast<int>(p.phase)) + " owner=" + p.owner.name +
           " term=" + std::to_string(p.terminating) + " created=" + std::to_string(p.creation_us) +
           " prio=" + std::to_string(sp.priority) + " never=" + std::to_string(sp.preempt_never) +
           " class=" + sp.priority_class_name +
           " sched=" + std::string(interned(sp.scheduler_name)) +
           " labels=" + std::to_string(sp.labels.size()) +
           " annotations=" + std::to_string(sp.annotations.size()) +
           " containers=" + std::to_string(sp.containers.size()) + "+" +
           std::to_string(sp.init_containers.size()) +
           " tolerations=" + std::to_string(sp.tolerations.size()) +
           " spread=" + std::to_string(sp.topology_spread.size()) +
           " anti=" + std::to_string(sp.pod_anti_affinity.preferred.size()) +
           " volumes=" + std::to_string(sp.volumes.size()) + " request=" + resources(sp.request) +
           " gates=" + std::to_string(p.scheduling_gates.size()) + "\n";
    }
    for (const Node& n : o.nodes) {
      s += "node " + n.name + " labels=" + std::to_string(n.labels.size()) +
           " taints=" + std::to_string(n.taints.size()) + " alloc=" + resources(n.allocatable) +
           " cap=" + resources(n.capacity) + " images=" + std::to_string(n.images.size()) + "\n";
    }
    for (const PriorityClass& pc : o.priority_classes)
      s += "pc " + pc.name + " " + std::to_string(pc.value) + "\n";
    for (const Unmodelled& u : o.unmodelled)
      s += "unmodelled " + u.what + " " + u.first_where + "\n";
    s += o.doubtful_resource_name + "|" + o.labelled_namespace_selector;
    return s;
  } catch (const InputError& e) {
    return std::string("error: ") + e.what();
  }
}

void expect_same(const json& obj, const std::string& kind) {
  const std::string source = kind + " test/object";
  const std::string via_text = outcome([&] {
    json o = obj;
    o["kind"] = kind;
    return parse_k8s_objects(o.dump(), source);
  });
  const std::string direct = outcome([&] { return read_k8s_object(obj, kind, source); });
  EXPECT_EQ(direct, via_text) << obj.dump();
}

json pod() {
  return json::parse(R"({
    "apiVersion": "v1",
    "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1",
                 "creationTimestamp": "2026-11-27T14:03:51Z",
                 "labels": {"app": "web", "tier": "backend"},
                 "annotations": {"a": "1", "b": "x"},
                 "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d9", "controller": true}],
                 "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {}}}]},
    "spec": {
      "containers": [
        {"name": "app", "image": "app:1",
         "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"cpu": 2}}},
        {"name": "side", "image": "envoy", "resources": {"requests": {"cpu": 0.1}},
         "ports": [{"containerPort": 8080, "hostPort": 8080}]}],
      "initContainers": [{"name": "init", "resources": {"requests": {"cpu": "1"}}}],
      "priorityClassName": "high", "priority": 1000, "schedulerName": "orrery",
      "nodeName": "n1",
      "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute",
                       "tolerationSeconds": 300}],
      "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}},
                                            "topologyKey": "kubernetes.io/hostname"}}]}},
      "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                     "whenUnsatisfiable": "DoNotSchedule",
                                     "labelSelector": {"matchLabels": {"app": "web"}}}],
      "volumes": [{"name": "c", "configMap": {"name": "cfg"}},
                  {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}],
      "schedulingGates": [{"name": "g"}]},
    "status": {"phase": "Running", "nominatedNodeName": "n2"}})");
}

TEST(JsonReader, AValidPodReadsAsItsText) {
  expect_same(pod(), "Pod");
  json p = pod();
  p["spec"].erase("priority");
  expect_same(p, "Pod");  // unknown class: an error naming spec.priorityClassName
  p["spec"]["priorityClassName"] = "system-node-critical";
  expect_same(p, "Pod");
  p["metadata"]["deletionTimestamp"] = "2026-11-27T15:00:00Z";
  expect_same(p, "Pod");
}

TEST(JsonReader, AdmittedPriorityIsReadAsSpecPriority) {
  json p = pod();
  p["spec"].erase("priority");
  json with = p;
  with["spec"]["priority"] = 77;
  with["kind"] = "Pod";
  const std::string want = outcome([&] { return parse_k8s_objects(with.dump(), "s"); });
  EXPECT_EQ(outcome([&] { return read_k8s_object(p, "Pod", "s", 77); }), want);
}

TEST(JsonReader, MalformedPodsGiveTheSameErrors) {
  const std::vector<std::function<void(json&)>> breakages = {
      [](json& p) { p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "abc"; },
      [](json& p) { p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = true; },
      [](json& p) { p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json::array(); },
      [](json& p) { p["spec"]["containers"][1]["resources"]["requests"]["memory"] = 1.5e300; },
      [](json& p) { p["spec"]["priority"] = "high"; },
      [](json& p) { p["spec"]["priority"] = 1.0; },
      [](json& p) { p["spec"]["priority"] = 5000000000; },
      [](json& p) { p["spec"]["priority"] = nullptr; },
      [](json& p) { p["spec"]["tolerations"] = "none"; },
      [](json& p) { p["spec"]["tolerations"][0]["effect"] = "Sometimes"; },
      [](json& p) { p["metadata"]["labels"]["app"] = 5; },
      [](json& p) { p["metadata"]["labels"]["app"] = nullptr; },
      [](json& p) { p["metadata"]["labels"]["app"] = json::object(); },
      [](json& p) {
        p["metadata"]["labels"] = json::array({1, 2});
      },
      [](json& p) { p["metadata"].erase("name"); },
      [](json& p) { p["metadata"]["name"] = 7; },
      [](json& p) { p["metadata"]["creationTimestamp"] = "yesterday"; },
      [](json& p) { p["metadata"] = "x"; },
      [](json& p) { p.erase("spec"); },
      [](json& p) { p["spec"] = nullptr; },
      [](json& p) { p["spec"].erase("containers"); },
      [](json& p) { p["spec"]["containers"] = json::object(); },
      [](json& p) { p["spec"]["hostNetwork"] = "yes"; },
      [](json& p) { p["spec"]["topologySpreadConstraints"][0]["maxSkew"] = 0; },
      [](json& p) { p["spec"]["affinity"]["podAntiAffinity"] = 3; },
      [](json& p) { p["spec"]["preemptionPolicy"] = "Sometimes"; },
      [](json& p) { p["status"]["phase"] = "Sleeping"; },
      [](json& p) { p["spec"]["schedulingGates"] = json::array({json::object()}); },
  };
  for (size_t i = 0; i < breakages.size(); ++i) {
    SCOPED_TRACE(i);
    json p = pod();
    breakages[i](p);
    expect_same(p, "Pod");
  }
}

TEST(JsonReader, NodesAndPriorityClassesReadAsTheirText) {
  json n = json::parse(R"({"metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
    "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": 8, "memory": "32Gi", "pods": "110"},
               "allocatable": {"cpu": "7500m", "memory": "30Gi", "pods": 110, "example.com/x": 2},
               "images": [{"names": ["app:1"], "sizeBytes": 1000}]}})");
  expect_same(n, "Node");
  n["status"]["allocatable"]["cpu"] = "lots";
  expect_same(n, "Node");
  n = json::parse(R"({"metadata": {"name": "n2"}, "spec": {"taints": [{"effect": "Often"}]}})");
  expect_same(n, "Node");
  expect_same(json::parse(R"({"metadata": {"name": "high"}, "value": 1000})"), "PriorityClass");
  expect_same(json::parse(R"({"metadata": {"name": "high"}, "value": "x"})"), "PriorityClass");
  expect_same(json::parse(R"({"metadata": {"name": "high"}})"), "PriorityClass");
}

}  // namespace
}  // namespace orrery
