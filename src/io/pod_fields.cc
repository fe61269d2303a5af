#include "io/pod_fields.h"

#include <string_view>

#include "util/suggest.h"

namespace orrery {
namespace {

using yaml::Ctx;

// The shape of an object: its field names and, for the fields orrery reads further, the shape of
// their value (an object, or a list of objects). Fields without a shape hold anything.
struct Shape;
struct Field {
  std::string_view name;
  const Shape* shape = nullptr;
  bool list = false;  // a list of `shape` objects
};
struct Shape {
  std::string_view type;  // the Kubernetes type, for messages
  std::vector<Field> fields;
};

const Shape& node_selector_requirement() {
  static const Shape s{"NodeSelectorRequirement", {{"key"}, {"operator"}, {"values"}}};
  return s;
}

const Shape& label_selector() {
  static const Shape requirement{"LabelSelectorRequirement", {{"key"}, {"operator"}, {"values"}}};
  static const Shape s{"LabelSelector",
                       {{"matchLabels"}, {"matchExpressions", &requirement, true}}};
  return s;
}

const Shape& node_selector_term() {
  static const Shape s{"NodeSelectorTerm",
                       {{"matchExpressions", &node_selector_requirement(), true},
                        {"matchFields", &node_selector_requirement(), true}}};
  return s;
}

const Shape& node_affinity() {
  static const Shape required{"NodeSelector", {{"nodeSelectorTerms", &node_selector_term(), true}}};
  static const Shape preferred{"PreferredSchedulingTerm",
                               {{"weight"}, {"preference", &node_selector_term()}}};
  static const Shape s{"NodeAffinity",
                       {{"requiredDuringSchedulingIgnoredDuringExecution", &required},
                        {"preferredDuringSchedulingIgnoredDuringExecution", &preferred, true}}};
  return s;
}

const Shape& pod_affinity_term() {
  static const Shape s{"PodAffinityTerm",
                       {{"labelSelector", &label_selector()},
                        {"namespaces"},
                        {"topologyKey"},
                        {"namespaceSelector", &label_selector()},
                        {"matchLabelKeys"},
                        {"mismatchLabelKeys"}}};
  return s;
}

const Shape& pod_affinity() {
  static const Shape weighted{"WeightedPodAffinityTerm",
                              {{"weight"}, {"podAffinityTerm", &pod_affinity_term()}}};
  static const Shape s{
      "PodAffinity",
      {{"requiredDuringSchedulingIgnoredDuringExecution", &pod_affinity_term(), true},
       {"preferredDuringSchedulingIgnoredDuringExecution", &weighted, true}}};
  return s;
}

const Shape& affinity() {
  static const Shape s{"Affinity",
                       {{"nodeAffinity", &node_affinity()},
                        {"podAffinity", &pod_affinity()},
                        {"podAntiAffinity", &pod_affinity()}}};
  return s;
}

const Shape& toleration() {
  static const Shape s{"Toleration",
                       {{"key"}, {"operator"}, {"value"}, {"effect"}, {"tolerationSeconds"}}};
  return s;
}

const Shape& topology_spread_constraint() {
  static const Shape s{"TopologySpreadConstraint",
                       {{"maxSkew"},
                        {"topologyKey"},
                        {"whenUnsatisfiable"},
                        {"labelSelector", &label_selector()},
                        {"minDomains"},
                        {"nodeAffinityPolicy"},
                        {"nodeTaintsPolicy"},
                        {"matchLabelKeys"}}};
  return s;
}

const Shape& container_port() {
  static const Shape s{"ContainerPort",
                       {{"name"}, {"hostPort"}, {"containerPort"}, {"protocol"}, {"hostIP"}}};
  return s;
}

const Shape& container() {
  static const Shape resources{"ResourceRequirements", {{"limits"}, {"requests"}, {"claims"}}};
  static const Shape s{"Container",
                       {{"name"},
                        {"image"},
                        {"command"},
                        {"args"},
                        {"workingDir"},
                        {"ports", &container_port(), true},
                        {"envFrom"},
                        {"env"},
                        {"resources", &resources},
                        {"resizePolicy"},
                        {"restartPolicy"},
                        {"restartPolicyRules"},
                        {"volumeMounts"},
                        {"volumeDevices"},
                        {"livenessProbe"},
                        {"readinessProbe"},
                        {"startupProbe"},
                        {"lifecycle"},
                        {"terminationMessagePath"},
                        {"terminationMessagePolicy"},
                        {"imagePullPolicy"},
                        {"securityContext"},
                        {"stdin"},
                        {"stdinOnce"},
                        {"tty"}}};
  return s;
}

const Shape& pod_spec() {
  static const Shape gate{"PodSchedulingGate", {{"name"}}};
  static const Shape s{"PodSpec",
                       {{"volumes"},
                        {"initContainers", &container(), true},
                        {"containers", &container(), true},
                        {"ephemeralContainers"},
                        {"restartPolicy"},
                        {"terminationGracePeriodSeconds"},
                        {"activeDeadlineSeconds"},
                        {"dnsPolicy"},
                        {"nodeSelector"},
                        {"serviceAccountName"},
                        {"serviceAccount"},
                        {"automountServiceAccountToken"},
                        {"nodeName"},
                        {"hostNetwork"},
                        {"hostPID"},
                        {"hostIPC"},
                        {"shareProcessNamespace"},
                        {"securityContext"},
                        {"imagePullSecrets"},
                        {"hostname"},
                        {"subdomain"},
                        {"affinity", &affinity()},
                        {"schedulerName"},
                        {"tolerations", &toleration(), true},
                        {"hostAliases"},
                        {"priorityClassName"},
                        {"priority"},
                        {"dnsConfig"},
                        {"readinessGates"},
                        {"runtimeClassName"},
                        {"enableServiceLinks"},
                        {"preemptionPolicy"},
                        {"overhead"},
                        {"topologySpreadConstraints", &topology_spread_constraint(), true},
                        {"setHostnameAsFQDN"},
                        {"os"},
                        {"hostUsers"},
                        {"schedulingGates", &gate, true},
                        {"resourceClaims"},
                        {"resources"},
                        {"hostnameOverride"}}};
  return s;
}

const Shape& object_meta() {
  static const Shape s{"ObjectMeta",
                       {{"name"},
                        {"generateName"},
                        {"namespace"},
                        {"selfLink"},
                        {"uid"},
                        {"resourceVersion"},
                        {"generation"},
                        {"creationTimestamp"},
                        {"deletionTimestamp"},
                        {"deletionGracePeriodSeconds"},
                        {"labels"},
                        {"annotations"},
                        {"ownerReferences"},
                        {"finalizers"},
                        {"managedFields"}}};
  return s;
}

void check(const Ctx& c, const Shape& shape);

void check_value(const Ctx& c, const Field& f) {
  if (!f.shape || !c.defined()) return;
  if (!f.list) {
    check(c, *f.shape);
    return;
  }
  if (!c.is_seq()) return;  // the reader says what was expected
  for (size_t i = 0; i < c.size(); ++i) check(c.item(i), *f.shape);
}

void check(const Ctx& c, const Shape& shape) {
  if (!c.defined() || !c.is_map()) return;  // the reader says what was expected
  for (const std::string& key : c.keys()) {
    const Field* found = nullptr;
    for (const Field& f : shape.fields)
      if (f.name == key) found = &f;
    if (!found) {
      std::vector<std::string> names;
      for (const Field& f : shape.fields) names.emplace_back(f.name);
      c.child(key).fail("unknown field \"" + key + "\" in " + std::string(shape.type) +
                        did_you_mean(key, names));
    }
    check_value(c.child(key), *found);
  }
}

// Fields kube-scheduler reads (through plugins orrery does not model, plugins/notmodelled, or
// binding by name) that a scenario's pods would silently lose. (Host ports and pod-level
// resources are modelled: NodePorts, PodLevelResources.)
void collect_unmodelled(const Ctx& spec, std::vector<std::string>* warnings) {
  auto warn = [&](const Ctx& c, const std::string& what) {
    warnings->push_back(c.where() + ": not modelled: " + what);
  };
  if (spec.has("nodeName"))
    warn(spec.child("nodeName"), "nodeName is ignored (the scheduler places every pod)");
  if (spec.has("volumes")) warn(spec.child("volumes"), "volumes are ignored (no volume plugins)");
  if (spec.has("resourceClaims")) {
    warn(spec.child("resourceClaims"), "resource claims are ignored (no DynamicResources)");
  }
}

}  // namespace

void check_pod_template_fields(const Ctx& metadata, const Ctx& spec,
                               std::vector<std::string>* warnings) {
  check(metadata, object_meta());
  check(spec, pod_spec());
  if (warnings && spec.defined() && spec.is_map()) collect_unmodelled(spec, warnings);
}

}  // namespace orrery
