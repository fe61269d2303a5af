// Internal to src/io: the field readers that the object reader (k8s_objects.cc) shares with
// k8s_fields.cc. Errors name the Ctx's file, line and field path. Not for use outside src/io: the
// public entry points are in k8s_objects.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/labels.h"
#include "core/node.h"
#include "core/pod.h"
#include "io/yaml_util.h"

namespace orrery::k8s_read {

// A label (or annotation) map; absent or null is empty.
void read_labels(const yaml::Ctx& c, LabelSet* out);

// A pod read, before priorities are resolved against the input's PriorityClasses.
struct ParsedPod {
  Pod pod;
  std::shared_ptr<PodSpec> spec;  // mutable until priorities are resolved
  bool priority_given = false;
  // "FILE:LINE: path" of spec.priorityClassName, for an unknown class (a string rather than a Ctx,
  // which would keep the pod's whole YAML tree alive until all pods are read).
  std::string class_where;
};

// The built-in classes system-cluster-critical and system-node-critical.
int32_t builtin_priority(const std::string& cls, bool* found);

// Whether a namespaceSelector names labels (anything but {}), and where the first one is.
bool has_labelled_namespace_selector(const PodSpec& s);
std::string labelled_namespace_selector_where(const yaml::Ctx& spec);

// A pod spec from its metadata and spec. `admitted_priority`, when set, is the priority admission
// gave a pod without spec.priority (from its PriorityClass), as if spec.priority held it.
PodSpec read_pod_spec(const yaml::Ctx& meta, const yaml::Ctx& c,
                      std::optional<int32_t> admitted_priority = std::nullopt);
// `*warning` (when not null and empty) gets the first doubtful resource name.
Node read_node(const yaml::Ctx& c, std::string* warning = nullptr);

}  // namespace orrery::k8s_read
