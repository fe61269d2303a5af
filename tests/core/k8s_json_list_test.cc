// The JSON list path of parse_k8s_objects (items parsed one at a time) against the YAML path
// (the whole text as one yaml-cpp document): same objects, same errors at the same absolute lines.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <sstream>
#include <string>

#include "core/error.h"
#include "io/k8s_objects.h"

namespace orrery {
namespace {

void dump_requirements(std::ostream& o, const std::vector<NodeSelectorRequirement>& rs) {
  for (const auto& r : rs) {
    o << " req(" << r.key << ' ' << to_string(r.op) << ' ' << r.number << ':';
    for (StrId v : r.values) o << ' ' << v;
    o << ')';
  }
}

void dump_labels(std::ostream& o, const char* what, const LabelSet& l) {
  o << ' ' << what << '{';
  for (const auto& [k, v] : l.items()) o << interned(k) << '=' << interned(v) << ',';
  o << '}';
}

// Every field the loader sets, one line per object.
std::string dump(const K8sObjects& objects) {
  std::ostringstream o;
  for (const Node& n : objects.nodes) {
    o << "node " << n.name << " unsched=" << n.unschedulable << " cap=" << n.capacity.to_string()
      << " alloc=" << n.allocatable.to_string() << " tier=" << to_string(n.tier)
      << " cons=" << n.constraints << " gpu=" << n.gpu_model;
    dump_labels(o, "labels", n.labels);
    dump_labels(o, "annotations", n.annotations);
    for (const Taint& t : n.taints)
      o << " taint(" << t.key << ' ' << t.value << ' ' << to_string(t.effect) << ')';
    o << '\n';
  }
  for (const Pod& p : objects.pods) {
    const PodSpec& s = *p.spec;
    o << "pod " << p.key() << " uid=" << p.uid << " owner=" << to_string(p.owner.kind) << '/'
      << p.owner.name << " node=" << p.node_name << " phase=" << to_string(p.phase)
      << " created=" << p.creation_us << " prio=" << s.priority
      << " class=" << s.priority_class_name << " never=" << s.preempt_never
      << " sched=" << s.scheduler_name << " req=" << s.request.to_string()
      << " nonzero=" << s.nonzero_request.to_string() << " overhead=" << s.overhead.to_string()
      << " cons=" << s.constraints;
    dump_labels(o, "labels", s.labels);
    dump_labels(o, "annotations", s.annotations);
    dump_labels(o, "nodeSelector", s.node_selector);
    for (const auto* list : {&s.containers, &s.init_containers}) {
      for (const Container& c : *list) {
        o << " container(" << c.name << ' ' << c.image << ' ' << c.requests.to_string() << ' '
          << c.limits.to_string() << ' ' << c.requests_set << ' ' << c.restartable << ')';
      }
    }
    for (const Toleration& t : s.tolerations) {
      o << " tol(" << t.key << ' ' << static_cast<int>(t.op) << ' ' << t.value << ' '
        << to_string(t.effect) << ' ' << t.toleration_seconds.value_or(-1) << ')';
    }
    if (s.node_affinity.required) {
      for (const auto& t : *s.node_affinity.required) {
        o << " required[";
        dump_requirements(o, t.match_expressions);
        dump_requirements(o, t.match_fields);
        o << ']';
      }
    }
    for (const auto& p : s.node_affinity.preferred) {
      o << " preferred" << p.weight << '[';
      dump_requirements(o, p.preference.match_expressions);
      o << ']';
    }
    for (const auto& t : s.topology_spread) {
      o << " spread(" << t.max_skew << ' ' << t.topology_key << ' '
        << static_cast<int>(t.when_unsatisfiable) << ' ' << t.min_domains.value_or(-1) << ' '
        << static_cast<int>(t.node_affinity_policy) << static_cast<int>(t.node_taints_policy);
      dump_labels(o, "", t.selector.match_labels);
      dump_requirements(o, t.selector.match_expressions);
      o << ')';
    }
    o << '\n';
  }
  for (const auto& pc : objects.priority_classes) {
    o << "class " << pc.name << ' ' << pc.value << ' ' << pc.global_default << ' '
      << pc.preempt_never << '\n';
  }
  for (const auto& [kind, n] : objects.ignored_kinds) o << "ignored " << kind << ' ' << n << '\n';
  return o.str();
}

// A leading comment line sends the same JSON down the YAML path (one line later).
std::string via_yaml_path(const std::string& json) {
  return "#\n" + json;
}

void expect_same_objects(const std::string& json) {
  const std::string fast = dump(parse_k8s_objects(json, "in.json"));
  const std::string whole = dump(parse_k8s_objects(via_yaml_path(json), "in.json"));
  EXPECT_GT(fast.size(), 0u);
  EXPECT_EQ(fast, whole);
}

TEST(K8sJsonList, GoldenClusterSameAsYamlPath) {
  const std::string text =
      read_text_file(std::string(ORRERY_SOURCE_DIR) + "/tests/data/golden/golden-cluster.json");
  K8sObjects o = parse_k8s_objects(text, "golden.json");
  EXPECT_GT(o.nodes.size(), 10u);
  EXPECT_GT(o.pods.size(), 10u);
  expect_same_objects(text);
}

TEST(K8sJsonList, GeneratedSnapshotSameAsYamlPath) {
  const std::string cmd =
      "python3 " + std::string(ORRERY_SOURCE_DIR) + "/bench/gen_snapshot.py 60 150 200";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) text.append(buf.data(), n);
  ASSERT_EQ(pclose(p), 0) << cmd;
  K8sObjects o = parse_k8s_objects(text, "gen.json");
  EXPECT_EQ(o.nodes.size(), 60u);
  EXPECT_EQ(o.pods.size(), 350u);
  expect_same_objects(text);
}

TEST(K8sJsonList, TypedListsPriorityClassesAndOtherKinds) {
  const std::string json = R"({"kind": "List", "items": [
  {"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"},
  {"kind": "PriorityClass", "metadata": {"name": "base"}, "value": 7, "globalDefault": true},
  {"kind": "Service", "metadata": {"name": "s"}},
  null,
  {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns", "creationTimestamp": "2024-05-01T12:00:00Z",
   "ownerReferences": [{"kind": "ReplicaSet", "name": "rs", "controller": true}]},
   "spec": {"priorityClassName": "high", "containers": [{"name": "c", "resources":
   {"limits": {"cpu": "1\u0030", "memory": "1Gi"}}}], "tolerations": [{"operator": "Exists"}]},
   "status": {"phase": "Pending", "unknownField": [1, 2.5e3, false]}},
  {"kind": "Pod", "metadata": {"name": "q"}, "spec": {"containers": []}}
]})";
  K8sObjects o = parse_k8s_objects(json, "in.json");
  ASSERT_EQ(o.pods.size(), 2u);
  EXPECT_EQ(o.pods[0].spec->priority, 1000);
  EXPECT_TRUE(o.pods[0].spec->preempt_never);
  EXPECT_EQ(o.pods[0].spec->request[kCpu], 10000) << "\\u0030 is '0'";
  EXPECT_EQ(o.pods[1].spec->priority, 7) << "globalDefault class";
  EXPECT_EQ(o.ignored_kinds.at("Service"), 1);
  expect_same_objects(json);

  const std::string typed = R"({"kind": "NodeList", "apiVersion": "v1", "items": [
    {"metadata": {"name": "a"}, "status": {"capacity": {"cpu": "2"}}},
    {"metadata": {"name": "b"}, "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}}]})";
  EXPECT_EQ(parse_k8s_objects(typed, "in.json").nodes.size(), 2u);
  expect_same_objects(typed);
}

std::string error_of(const std::string& text) {
  try {
    parse_k8s_objects(text, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A List whose item `k` (of three) is `bad`, one item per line from line 3.
std::string list_with(size_t k, const std::string& bad) {
  const std::string good = R"({"kind": "Node", "metadata": {"name": "n)";
  std::string text = "{\"apiVersion\": \"v1\",\n \"items\": [\n";
  for (size_t i = 0; i < 3; ++i) {
    text += i == k ? bad : good + std::to_string(i) + "\"}}";
    text += i < 2 ? ",\n" : "\n";
  }
  return text + "], \"kind\": \"List\"}\n";
}

TEST(K8sJsonList, ErrorsNameAbsoluteLineAndItemPath) {
  std::string e = error_of(list_with(
      2,
      "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"},\n \"spec\": {\"containers\": [\n"
      "  {\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"lots\"}}}]}}"));
  EXPECT_EQ(e.rfind("bad.json:7: items[2].spec.containers[0].resources.requests.cpu: ", 0), 0u)
      << e;
  EXPECT_NE(e.find("invalid quantity \"lots\""), std::string::npos) << e;

  e = error_of(list_with(1, R"({"kind": "Node", "metadata": {"name": "n", "labels": {
    "orrery.io/tier": "fog"}}})"));
  EXPECT_EQ(e.rfind("bad.json:4: items[1].metadata", 0), 0u) << e;
  EXPECT_NE(e.find("expected edge or cloud"), std::string::npos) << e;

  e = error_of(list_with(1, R"({"kind": "Pod"})"));
  EXPECT_EQ(e, "bad.json:4: items[1]: pod without metadata");

  e = error_of(list_with(0, R"({"kind": "Pod", "metadata": {"name": "p"},
   "spec": {"containers": [],
            "priorityClassName": "nope"}})"));
  EXPECT_EQ(e.rfind("bad.json:5: items[0].spec.priorityClassName: unknown PriorityClass", 0), 0u)
      << e;

  e = error_of(list_with(2, "\"just a string\""));
  EXPECT_EQ(e, "bad.json:5: items[2]: expected a mapping");

  // The same errors as the YAML path, one line later there.
  for (size_t k = 0; k < 3; ++k) {
    const std::string text = list_with(k, R"({"kind": "Node", "metadata": {"name": "t"},
      "spec": {"taints": [{"key": "k", "effect": "Sometimes"}]}})");
    e = error_of(text);
    const std::string line = std::to_string(4 + k);
    EXPECT_EQ(
        e.rfind("bad.json:" + line + ": items[" + std::to_string(k) + "].spec.taints[0].effect", 0),
        0u)
        << e;
    std::string yaml_e = error_of(via_yaml_path(text));
    EXPECT_EQ(yaml_e.replace(yaml_e.find(std::to_string(5 + k)), line.size(), line), e);
  }
}

TEST(K8sJsonList, MalformedJsonIsALocatedError) {
  for (const char* text : {
           "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"Node\", \"metadata\": {\"name\": "
           "\"a}}\n]}",
           "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"Node\", \"metadata\": {\"name\": "
           "\"a\"}\n",
           "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"Node\"},,\n{\"kind\": \"Node\"}]}",
           "{\"kind\": \"List\", \"items\": []}\n}\n",
           "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"Node\" \"metadata\": {}}]}",
       }) {
    const std::string e = error_of(text);
    EXPECT_EQ(e.rfind("bad.json:", 0), 0u) << text << "\n→ " << e;
    EXPECT_NE(e.find("malformed YAML/JSON: "), std::string::npos) << text << "\n→ " << e;
  }
  EXPECT_EQ(error_of("{\"kind\": \"List\", \"items\": [\n{\"a\": \"b}\n]}"),
            "bad.json:2: malformed YAML/JSON: unterminated string");
  // yaml-cpp read a stray comma as an empty item; JSON has none.
  EXPECT_EQ(error_of("{\"kind\": \"List\", \"items\": [\n{},,\n{}]}"),
            "bad.json:2: malformed YAML/JSON: unexpected character ',' (expected a value)");
}

TEST(K8sJsonList, OtherTextStartingWithABraceTakesTheYamlPath) {
  // A YAML flow mapping, a single JSON object, a list followed by a second document.
  EXPECT_EQ(parse_k8s_objects("{kind: List, items: [{kind: Node, metadata: {name: a}}]}", "f.yaml")
                .nodes.size(),
            1u);
  EXPECT_EQ(
      parse_k8s_objects(R"({"kind": "Node", "metadata": {"name": "a"}})", "n.json").nodes.size(),
      1u);
  EXPECT_EQ(parse_k8s_objects("{\"kind\": \"List\", \"items\": [{\"kind\": \"Node\", \"metadata\": "
                              "{\"name\": \"a\"}}]}\n---\nkind: Node\nmetadata: {name: b}\n",
                              "two.yaml")
                .nodes.size(),
            2u);
  EXPECT_NE(error_of("{kind: List, items: [\n{kind: Node,, }]}").find("bad.json:"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery
