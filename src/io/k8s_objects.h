// Reading Kubernetes objects (Node, Pod, PriorityClass, Namespace) from YAML or JSON: single
// objects, multi-document YAML, and `kind: List` / NodeList / PodList as printed by
// `kubectl get nodes,pods -o yaml|json`. Unknown fields are ignored; malformed fields are errors
// naming the file, line and field path ("snap.yaml:42: items[3].spec.containers[0].resources.
// requests.cpu: invalid quantity ...").
//
// Defaulting applied as the API server would: namespace "default", schedulerName
// "default-scheduler", container requests default to limits when only limits are given (pod-level
// requests to pod-level limits), hostPort to containerPort with hostNetwork, node allocatable
// defaults to capacity. Nothing the kubelet would report is invented: a node without a "pods"
// figure takes no pod ("Too many pods") and one without a kubernetes.io/hostname label has none,
// as upstream sees them. Pod priority comes
// from spec.priority, else from the named PriorityClass in the same input (or the built-in
// system-cluster-critical / system-node-critical), else the globalDefault class, else 0.
// Pod (anti-)affinity terms get their matchLabelKeys / mismatchLabelKeys merged into the label
// selector (key In / NotIn the pod's value) as the API server does at creation; a term already
// holding the merged requirement (a dump of a real cluster) is not changed. Namespaces get the
// kubernetes.io/metadata.name label the API server sets.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/api_objects.h"
#include "core/cluster_state.h"
#include "core/node.h"
#include "core/pod.h"

#include <nlohmann/json_fwd.hpp>

namespace YAML {
class Node;
}

namespace orrery {

namespace yaml {
struct Ctx;
}

struct PriorityClass {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
  bool preempt_never = false;
};

struct NamespaceObject {
  std::string name;
  LabelSet labels;
};

// One kind of field or object in the input that orrery does not model and that can change
// kube-scheduler's decisions (see docs/plugins.md, "What is warned about").
struct Unmodelled {
  std::string what;         // e.g. "spec.resourceClaims" or "kind PodDisruptionBudget"
  std::string consequence;  // what orrery does instead, and why it matters
  int count = 0;            // objects that use it
  std::string first_where;  // "FILE:LINE: path" of the first
  std::string example;      // the first object, "ns/name" or "Kind/name"
};

struct K8sObjects {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PriorityClass> priority_classes;
  std::vector<NamespaceObject> namespaces;
  // PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, PodDisruptionBudgets.
  ApiObjects api;
  std::map<std::string, int> ignored_kinds;  // kind → count of objects skipped
  // "FILE:LINE: path" of the first pod affinity namespaceSelector that names labels (not {}),
  // or "" (see k8s_warnings).
  std::string labelled_namespace_selector;
  // "FILE:LINE: path: ..." of the first node resource whose name no pod could request
  // (io/k8s_names.h), or "" (see k8s_warnings).
  std::string doubtful_resource_name;
  // Fields and objects not modelled, in the order first seen (collected while reading).
  std::vector<Unmodelled> unmodelled;
};

// Reads objects from a file; throws InputError on unreadable files or malformed content.
K8sObjects load_k8s_objects(const std::string& path);
// Same, from text; `source` names the input in error messages.
K8sObjects parse_k8s_objects(std::string_view text, const std::string& source);

// One object of `kind` (Node, Pod, PriorityClass, ...; the object's own kind field is not read)
// from a parsed JSON value, such as a watch event's: the same reader as parse_k8s_objects reads it
// straight from the JSON, with the same errors as parse_k8s_objects(obj.dump(), source) would give
// for the object with that kind ("SOURCE:1: spec.containers[0]..."). `admitted_priority`, when
// set, is what admission gave a pod without spec.priority (its PriorityClass's value), read as if
// spec.priority held it.
K8sObjects read_k8s_object(const nlohmann::json& obj, const std::string& kind,
                           const std::string& source,
                           std::optional<int32_t> admitted_priority = std::nullopt);

// Appends another file's objects (e.g. a cluster snapshot plus a separate pod file).
void merge_into(K8sObjects& into, K8sObjects&& from);

// Builds a cluster state from the objects (namespaces and nodes first, then pods). Throws
// InputError on duplicates. Pods bound to nodes the input does not hold (a partial dump) are
// skipped: finished ones silently as upstream ignores them, with one warning line for them, and
// running ones with another (their room on the missing node cannot matter, but the pods are not
// counted for spreading or affinity either). With `warnings` null such pods are an InputError.
ClusterState build_cluster(const K8sObjects& objects, std::vector<std::string>* warnings = nullptr);

// Warnings about the (merged) objects, one line per kind of problem with a count and the first
// example: fields and objects not modelled that can change decisions (K8sObjects::unmodelled), a
// namespaceSelector that names labels while the input has no Namespace objects (every namespace
// is then taken to have no labels, as kube-scheduler does for a namespace it cannot find), a node
// resource name that is neither standard nor a domain-prefixed extended resource; pods whose
// volumes need objects the input lacks (a claim, its PersistentVolume or StorageClass; CSINodes),
// PodDisruptionBudgets without a status, in-tree volume sources (not translated to CSI), pod
// affinity terms naming namespaces absent from the input.
std::vector<std::string> k8s_warnings(const K8sObjects& objects);

// Single-object parsers, reused by scenario files that embed pod or node templates. `where` is
// the location prefix for error messages ("file:line: path").
Node parse_node(const YAML::Node& y, const std::string& source, const std::string& path);
PodSpec parse_pod_spec(const YAML::Node& metadata, const YAML::Node& spec,
                       const std::string& source, const std::string& path);

// Parsers for parts of a pod spec, reused by the scheduler configuration (NodeAffinity's
// addedAffinity, PodTopologySpread's defaultConstraints). Errors name c's file, line and path.
NodeAffinity parse_node_affinity(const yaml::Ctx& c);
TopologySpreadConstraint parse_topology_spread_constraint(const yaml::Ctx& c);
// Parsers shared with the readers of other kinds (io/k8s_api_objects): a label map; a label
// selector validated as the API server does (operators In/NotIn/Exists/DoesNotExist, key and
// value syntax); one node selector term (upstream's parse errors kept, as for node affinity).
LabelSet parse_labels(const yaml::Ctx& c);
LabelSelector parse_label_selector(const yaml::Ctx& c);
NodeSelectorTerm parse_node_selector_term(const yaml::Ctx& c);

std::string read_text_file(const std::string& path);  // throws InputError when unreadable

}  // namespace orrery
