#include "k8s/object_codec.h"

#include <ctime>

namespace orrery::k8s {

std::string pod_path(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}

std::string rfc3339_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

JsonValue binding_body(const Pod& p, const std::string& node_name) {
  JsonValue body = {{"apiVersion", "v1"},
                    {"kind", "Binding"},
                    {"metadata", {{"name", p.name}, {"namespace", p.ns}}},
                    {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node_name}}}};
  if (!p.uid.empty()) body["metadata"]["uid"] = p.uid;
  return body;
}

JsonValue eviction_body(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "Eviction"},
          {"metadata", {{"name", name}, {"namespace", ns}}}};
}

JsonValue event_body(const Pod& p, const std::string& type, const std::string& reason,
                     const std::string& message, const std::string& component,
                     const std::string& instance, const std::string& now) {
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"generateName", p.name + "."}, {"namespace", p.ns}}},
          {"involvedObject",
           {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"namespace", p.ns},
            {"name", p.name},
            {"uid", p.uid}}},
          {"reason", reason},
          {"message", message},
          {"type", type},
          {"source", {{"component", component}}},
          {"reportingComponent", component},
          {"reportingInstance", instance},
          {"firstTimestamp", now},
          {"lastTimestamp", now},
          {"count", 1}};
}

bool same_requests(const PodSpec& before, const PodSpec& after) {
  bool same = after.containers.size() == before.containers.size() &&
              after.init_containers.size() == before.init_containers.size();
  for (size_t i = 0; same && i < after.containers.size(); ++i) {
    same = after.containers[i].requests == before.containers[i].requests &&
           after.containers[i].limits == before.containers[i].limits;
  }
  return same;
}

JsonValue pod_patch(const Pod& before, const Pod& changed, bool gates) {
  const PodSpec& old_spec = *before.spec;
  const PodSpec& spec = *changed.spec;
  const JsonValue full = pod_to_json(changed);
  JsonValue patch = {
      {"metadata",
       {{"labels", full["metadata"].value("labels", JsonValue::object())},
        {"annotations", full["metadata"].value("annotations", JsonValue::object())}}}};
  // Labels and annotations removed by the update are deleted (null in a merge patch).
  for (const auto& [k, v] : old_spec.labels.items()) {
    const std::string key(interned(k));
    if (!patch["metadata"]["labels"].contains(key)) patch["metadata"]["labels"][key] = nullptr;
  }
  for (const auto& [k, v] : old_spec.annotations.items()) {
    const std::string key(interned(k));
    if (!patch["metadata"]["annotations"].contains(key))
      patch["metadata"]["annotations"][key] = nullptr;
  }
  if (gates) {
    patch["spec"]["schedulingGates"] = full["spec"].value("schedulingGates", JsonValue::array());
  }
  bool images_changed = false;
  for (size_t i = 0; i < spec.containers.size(); ++i)
    images_changed |= spec.containers[i].image != old_spec.containers[i].image;
  if (images_changed) patch["spec"]["containers"] = full["spec"]["containers"];
  return patch;
}

}  // namespace orrery::k8s
