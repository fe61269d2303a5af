#include "k8s/objects.h"

#include <functional>
#include <optional>

#include "core/error.h"
#include "core/quantity.h"
#include "core/resources.h"

namespace orrery::k8s {

namespace {

// Straight from the JSON into the model (read_k8s_object: the snapshot reader over the JSON
// value, no text round trip), as parse_k8s_objects would read the object with that kind.
K8sObjects parse_one(const JsonValue& obj, const std::string& kind, const std::string& source,
                     std::optional<int32_t> admitted_priority = std::nullopt) {
  try {
    return read_k8s_object(obj, kind, source, admitted_priority);
  } catch (const InputError& e) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(source + ": " + e.what());
  }
}

std::string describe(const JsonValue& obj, const std::string& kind) {
  std::string name = "?";
  if (obj.is_object() && obj.contains("metadata") && obj["metadata"].is_object()) {
    const JsonValue& m = obj["metadata"];
    if (m.contains("name") && m["name"].is_string()) name = m["name"].get<std::string>();
    if (m.contains("namespace") && m["namespace"].is_string())
      name = m["namespace"].get<std::string>() + "/" + name;
  }
  return kind + " " + name;
}

const JsonValue* find(const JsonValue& obj, std::initializer_list<const char*> path) {
  const JsonValue* cur = &obj;
  for (const char* p : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(p);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string str_at(const JsonValue& obj, std::initializer_list<const char*> path,
                   const std::string& def = "") {
  const JsonValue* v = find(obj, path);
  return v && v->is_string() ? v->get<std::string>() : def;
}

}  // namespace

int32_t PriorityClasses::value_for(const std::string& name, bool* found) const {
  auto it = by_name.find(name);
  *found = it != by_name.end();
  return *found ? it->second.value : 0;
}

const PriorityClass* PriorityClasses::global_default() const {
  for (const auto& [n, pc] : by_name)
    if (pc.global_default) return &pc;
  return nullptr;
}

Node node_from_json(const JsonValue& obj) {
  if (!obj.is_object()) throw InputError("Node: expected an object");
  K8sObjects o = parse_one(obj, "Node", describe(obj, "Node"));
  if (o.nodes.size() != 1) throw InputError(describe(obj, "Node") + ": not a node");
  return std::move(o.nodes[0]);
}

Pod pod_from_json(const JsonValue& in, const PriorityClasses& classes) {
  if (!in.is_object()) throw InputError("Pod: expected an object");
  const std::string what = describe(in, "Pod");
  const JsonValue& obj = in;
  // Admission (the Priority plugin) sets spec.priority from the class; a pod read from the API
  // normally has it already.
  std::optional<int32_t> admitted;
  if (const JsonValue* spec = find(obj, {"spec"});
      spec && spec->is_object() && !spec->contains("priority")) {
    const std::string cls = str_at(obj, {"spec", "priorityClassName"});
    bool found = false;
    int32_t v = 0;
    if (!cls.empty()) {
      v = classes.value_for(cls, &found);
      if (found) admitted = v;
    } else if (const PriorityClass* d = classes.global_default()) {
      admitted = d->value;
    }
  }
  K8sObjects o = parse_one(obj, "Pod", what, admitted);
  if (o.pods.size() != 1) throw InputError(what + ": not a pod");
  Pod p = std::move(o.pods[0]);
  p.terminating = find(obj, {"metadata", "deletionTimestamp"}) != nullptr &&
                  !find(obj, {"metadata", "deletionTimestamp"})->is_null();
  return p;
}

PriorityClass priority_class_from_json(const JsonValue& obj) {
  if (!obj.is_object()) throw InputError("PriorityClass: expected an object");
  K8sObjects o = parse_one(obj, "PriorityClass", describe(obj, "PriorityClass"));
  if (o.priority_classes.size() != 1) throw InputError(describe(obj, "PriorityClass"));
  return o.priority_classes[0];
}

std::string object_key(const JsonValue& obj, bool namespaced) {
  const std::string name = str_at(obj, {"metadata", "name"});
  if (!namespaced) return name;
  return str_at(obj, {"metadata", "namespace"}, "default") + "/" + name;
}

std::string object_uid(const JsonValue& obj) {
  return str_at(obj, {"metadata", "uid"});
}
std::string resource_version(const JsonValue& obj) {
  return str_at(obj, {"metadata", "resourceVersion"});
}

uint64_t scheduling_hash(const JsonValue& obj, bool is_pod) {
  JsonValue h = JsonValue::object();
  if (const JsonValue* m = find(obj, {"metadata"}); m && m->is_object()) {
    // (deletionTimestamp and the phase are lifecycle, not spec: ApiBackend turns them into
    // kPodTerminating / kPodRunning / kPodFinished, never into kPodUpdated.)
    for (const char* k : {"labels", "annotations"})
      if (m->contains(k)) h[k] = (*m)[k];
  }
  if (const JsonValue* s = find(obj, {"spec"}); s && s->is_object()) {
    h["spec"] = *s;
    if (is_pod) h["spec"].erase("nodeName");
  }
  if (!is_pod) {
    if (const JsonValue* a = find(obj, {"status", "allocatable"})) h["allocatable"] = *a;
    if (const JsonValue* c = find(obj, {"status", "capacity"})) h["capacity"] = *c;
  }
  return std::hash<std::string>{}(h.dump());
}

namespace {

JsonValue resource_list(const Resources& r, uint32_t mask_or_all) {
  JsonValue out = JsonValue::object();
  for (int i = 0; i < kMaxResources; ++i) {
    const auto id = static_cast<ResourceId>(i);
    if (r[id] == 0 && !(mask_or_all & (1u << id))) continue;
    const std::string name(resource_name(id));
    if (name.empty() || id == kPods) continue;
    out[name] = format_resource_quantity(id, r[id]);
  }
  return out;
}

JsonValue labels_json(const LabelSet& l) {
  JsonValue out = JsonValue::object();
  for (const auto& [k, v] : l.items()) out[std::string(interned(k))] = std::string(interned(v));
  return out;
}

JsonValue toleration_json(const Toleration& t) {
  JsonValue j = JsonValue::object();
  if (t.key != kNoStr) j["key"] = std::string(interned(t.key));
  j["operator"] = t.op == TolerationOp::kExists ? "Exists" : "Equal";
  if (t.value != kNoStr) j["value"] = std::string(interned(t.value));
  if (t.effect != TaintEffect::kNone) j["effect"] = std::string(to_string(t.effect));
  if (t.toleration_seconds) j["tolerationSeconds"] = *t.toleration_seconds;
  return j;
}

}  // namespace

JsonValue pod_to_json(const Pod& pod) {
  const PodSpec& s = *pod.spec;
  JsonValue j = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  j["metadata"] = {{"name", pod.name}, {"namespace", pod.ns}};
  if (!s.labels.empty()) j["metadata"]["labels"] = labels_json(s.labels);
  if (!s.annotations.empty()) j["metadata"]["annotations"] = labels_json(s.annotations);
  JsonValue spec = JsonValue::object();
  spec["schedulerName"] = std::string(interned(s.scheduler_name));
  if (!s.priority_class_name.empty()) spec["priorityClassName"] = s.priority_class_name;
  if (!pod.node_name.empty()) spec["nodeName"] = pod.node_name;
  if (!s.node_selector.empty()) spec["nodeSelector"] = labels_json(s.node_selector);
  auto containers = [](const std::vector<Container>& cs) {
    JsonValue arr = JsonValue::array();
    for (const Container& c : cs) {
      JsonValue cj = {{"name", c.name.empty() ? "main" : c.name},
                      {"image", c.image.empty() ? "registry.k8s.io/pause:3.9" : c.image}};
      JsonValue res = JsonValue::object();
      JsonValue req = resource_list(c.requests, c.requests_set);
      if (!req.empty()) res["requests"] = req;
      JsonValue lim = resource_list(c.limits, 0);
      if (!lim.empty()) res["limits"] = lim;
      if (!res.empty()) cj["resources"] = res;
      if (c.restartable) cj["restartPolicy"] = "Always";
      arr.push_back(cj);
    }
    return arr;
  };
  spec["containers"] = containers(s.containers);
  if (!s.init_containers.empty()) spec["initContainers"] = containers(s.init_containers);
  if (!pod.scheduling_gates.empty()) {
    spec["schedulingGates"] = JsonValue::array();
    for (const auto& g : pod.scheduling_gates) spec["schedulingGates"].push_back({{"name", g}});
  }
  if (!s.tolerations.empty()) {
    spec["tolerations"] = JsonValue::array();
    for (const Toleration& t : s.tolerations) spec["tolerations"].push_back(toleration_json(t));
  }
  j["spec"] = spec;
  return j;
}

JsonValue strip_for_snapshot(JsonValue obj, const std::string& kind,
                             const std::string& api_version) {
  obj["kind"] = kind;
  obj["apiVersion"] = api_version;
  if (obj.contains("metadata") && obj["metadata"].is_object())
    obj["metadata"].erase("managedFields");
  return obj;
}

}  // namespace orrery::k8s
