// Readers of the fields of Kubernetes objects (labels, resources, taints, tolerations, selectors,
// affinity, topology spread, containers, pod specs, nodes), shared by the object reader
// (k8s_objects.cc) and the configuration and scenario readers (k8s_objects.h's parse_*).
#include <algorithm>
#include <bit>

#include "core/error.h"
#include "io/k8s_api_objects.h"
#include "io/k8s_fields.h"
#include "io/k8s_names.h"
#include "io/pod_fields.h"
#include "io/yaml_util.h"
#include "util/suggest.h"

namespace orrery {

using yaml::Ctx;
using yaml::read_seq;

namespace k8s_read {

void read_labels(const Ctx& c, LabelSet* out) {
  if (!c.defined()) return;
  c.expect_map();
  for (const std::string& key : c.keys()) {
    Ctx v = c.child(key);
    out->set(key, v.defined() ? v.str() : std::string());
  }
}

// Which resource names a resource list may hold (io/k8s_names.h).
enum class ResourceNames : uint8_t {
  kContainer,  // requests, limits, overhead: validateContainerResourceName (an error upstream)
  kNode,       // node capacity/allocatable: not checked by the API server, so a warning
};

// A resource list ("requests: {cpu: 500m, memory: 1Gi}"). Sets `set_mask` bits for given keys.
// For node lists, the first badly named resource is described in `*warning` (when empty).
Resources read_resource_list(const Ctx& c, ResourceNames names, uint32_t* set_mask = nullptr,
                             std::string* warning = nullptr) {
  Resources r;
  if (!c.defined()) return r;
  c.expect_map();
  for (const std::string& name : c.keys()) {
    Ctx v = c.child(name);
    if (names == ResourceNames::kContainer) {
      const std::string bad = container_resource_name_error(name);
      if (!bad.empty()) v.fail(bad + did_you_mean(name, well_known_resource_names()));
    } else if (warning && warning->empty()) {
      const std::string bad = node_resource_name_error(name);
      if (!bad.empty()) *warning = v.where() + ": " + bad;
    }
    ResourceId id;
    try {
      id = resource_id(name);
    } catch (const InputError& e) {
      v.fail(e.what());
    }
    r[id] = parse_resource_quantity(id, v.str(), v.where());
    if (set_mask) *set_mask |= 1u << id;
  }
  return r;
}

// spec.resources.requests/limits: like a resource list, but only the resources the API accepts at
// pod level (cpu, memory, hugepages-*).
Resources read_pod_level_list(const Ctx& c, uint32_t* set_mask) {
  if (c.defined()) {
    c.expect_map();
    for (const std::string& name : c.keys()) {
      if (name != "cpu" && name != "memory" && !name.starts_with("hugepages-")) {
        c.child(name).fail("unsupported pod-level resource (expected cpu, memory or hugepages-*)");
      }
    }
  }
  return read_resource_list(c, ResourceNames::kContainer, set_mask);
}

Taint read_taint(const Ctx& c) {
  c.expect_map();
  Taint t;
  Ctx key = c.child("key");
  if (!key.defined()) c.fail("taint without a key");
  t.key = intern(key.str());
  t.value = intern(c.str_or("value", ""));
  Ctx eff = c.child("effect");
  auto e = parse_taint_effect(eff.defined() ? eff.str() : "");
  if (!e || *e == TaintEffect::kNone) {
    (eff.defined() ? eff : c).fail("expected effect NoSchedule, PreferNoSchedule or NoExecute");
  }
  t.effect = *e;
  return t;
}

Toleration read_toleration(const Ctx& c) {
  c.expect_map();
  Toleration t;
  t.key = intern(c.str_or("key", ""));
  std::string op = c.str_or("operator", "Equal");
  if (op == "Equal") {
    t.op = TolerationOp::kEqual;
  } else if (op == "Exists") {
    t.op = TolerationOp::kExists;
  } else {
    c.child("operator").fail("expected Equal or Exists, got \"" + op + "\"");
  }
  t.value = intern(c.str_or("value", ""));
  if (t.op == TolerationOp::kExists && t.value != kNoStr) {
    c.child("value").fail("must be empty when operator is Exists");
  }
  if (t.key == kNoStr && t.op != TolerationOp::kExists) {
    c.child("operator").fail("must be Exists when key is empty");
  }
  Ctx eff = c.child("effect");
  auto e = parse_taint_effect(eff.defined() ? eff.str() : "");
  if (!e) eff.fail("expected NoSchedule, PreferNoSchedule, NoExecute or empty");
  t.effect = *e;
  if (c.has("tolerationSeconds")) t.toleration_seconds = c.child("tolerationSeconds").i64();
  return t;
}

NodeSelectorRequirement read_requirement(const Ctx& c, bool field) {
  c.expect_map();
  NodeSelectorRequirement r;
  Ctx key = c.child("key");
  if (!key.defined()) c.fail("requirement without a key");
  r.key = intern(key.str());
  Ctx op = c.child("operator");
  if (!op.defined()) c.fail("requirement without an operator");
  auto o = parse_selector_op(op.str());
  if (!o || (field && *o != SelectorOp::kIn && *o != SelectorOp::kNotIn)) {
    op.fail(field ? "expected In or NotIn (matchFields)"
                  : "expected In, NotIn, Exists, DoesNotExist, Gt or Lt");
  }
  r.op = *o;
  if (c.has("values")) {
    for (const std::string& v : c.child("values").str_list()) r.values.push_back(intern(v));
  }
  switch (r.op) {
    case SelectorOp::kIn:
    case SelectorOp::kNotIn:
      if (r.values.empty()) c.child("values").fail("must be non-empty for In and NotIn");
      break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
      if (!r.values.empty()) c.child("values").fail("must be empty for Exists and DoesNotExist");
      break;
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      Ctx vs = c.child("values");
      if (r.values.size() != 1) vs.fail("must hold exactly one integer for Gt and Lt");
      break;
    }
  }
  if (field && interned(r.key) != "metadata.name") {
    key.fail("matchFields supports only metadata.name");
  }
  // What upstream's selector parsers reject (the API server does not check it for node affinity):
  // the requirement is kept, and a term holding it never matches.
  auto quote = [](std::string_view v) {
    std::string q = "\"";
    for (char ch : v) {
      if (ch == '"' || ch == '\\') q += '\\';
      q += ch;
    }
    return q + "\"";
  };
  const std::string key_text(interned(r.key));
  if (field) {
    // nodeSelectorRequirementsAsFieldSelector: In/NotIn with exactly one value.
    if (r.values.size() != 1) {
      std::string list = "[]string{";
      for (size_t i = 0; i < r.values.size(); ++i)
        list += (i ? ", " : "") + quote(interned(r.values[i]));
      r.errors.push_back("values: Invalid value: " + list + "}: must have one element");
    }
    return r;
  }
  // labels.NewRequirement, in its order: key, Gt/Lt integers, every value as a label value.
  if (auto errs = qualified_name_errors(key_text); !errs.empty()) {
    std::string joined;
    for (const auto& e : errs) joined += (joined.empty() ? "" : "; ") + e;
    r.errors.push_back("key: Invalid value: " + quote(key_text) + ": " + joined);
  }
  if (r.op == SelectorOp::kGt || r.op == SelectorOp::kLt) {
    if (!parse_go_int64(interned(r.values[0]), &r.number)) {
      r.errors.push_back("values[0]: Invalid value: " + quote(interned(r.values[0])) +
                         ": for 'Gt', 'Lt' operators, the value must be an integer");
    }
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    const std::string_view v = interned(r.values[i]);
    if (auto errs = label_value_errors(v); !errs.empty()) {
      std::string joined;
      for (const auto& e : errs) joined += (joined.empty() ? "" : "; ") + e;
      r.errors.push_back("values[" + std::to_string(i) + "][" + key_text +
                         "]: Invalid value: " + quote(v) + ": " + joined);
    }
  }
  return r;
}

NodeSelectorTerm read_term(const Ctx& c) {
  c.expect_map();
  NodeSelectorTerm t;
  read_seq(c.child("matchExpressions"), &t.match_expressions,
           [](const Ctx& item) { return read_requirement(item, false); });
  Ctx mf = c.child("matchFields");
  if (mf.defined()) {
    mf.expect_seq();
    for (size_t i = 0; i < mf.size(); ++i)
      t.match_fields.push_back(read_requirement(mf.item(i), true));
  }
  for (const auto* list : {&t.match_expressions, &t.match_fields})
    for (const NodeSelectorRequirement& r : *list) t.invalid = t.invalid || !r.errors.empty();
  return t;
}

LabelSelector read_label_selector(const Ctx& c) {
  LabelSelector s;
  if (!c.defined()) return s;
  c.expect_map();
  read_labels(c.child("matchLabels"), &s.match_labels);
  Ctx me = c.child("matchExpressions");
  if (me.defined()) {
    me.expect_seq();
    for (size_t i = 0; i < me.size(); ++i) {
      NodeSelectorRequirement r = read_requirement(me.item(i), false);
      if (r.op == SelectorOp::kGt || r.op == SelectorOp::kLt) {
        me.item(i).child("operator").fail("expected In, NotIn, Exists or DoesNotExist");
      }
      s.match_expressions.push_back(std::move(r));
    }
  }
  return s;
}

NodeAffinity read_node_affinity(const Ctx& c) {
  NodeAffinity a;
  if (!c.defined()) return a;
  c.expect_map();
  Ctx req = c.child("requiredDuringSchedulingIgnoredDuringExecution");
  if (req.defined()) {
    Ctx terms = req.child("nodeSelectorTerms");
    terms.expect_seq();
    a.required.emplace();
    for (size_t i = 0; i < terms.size(); ++i) a.required->push_back(read_term(terms.item(i)));
  }
  Ctx pref = c.child("preferredDuringSchedulingIgnoredDuringExecution");
  if (pref.defined()) {
    pref.expect_seq();
    for (size_t i = 0; i < pref.size(); ++i) {
      Ctx p = pref.item(i);
      p.expect_map();
      PreferredSchedulingTerm t;
      Ctx w = p.child("weight");
      if (!w.defined()) p.fail("preferred term without a weight");
      t.weight = static_cast<int32_t>(w.i64());
      if (t.weight < 1 || t.weight > 100) w.fail("weight must be in 1..100");
      t.preference = read_term(p.child("preference"));
      a.preferred.push_back(std::move(t));
    }
  }
  return a;
}

// k8s.io/apimachinery validation.IsValidLabelValue / IsQualifiedName (the checks
// metav1.LabelSelectorAsSelector applies, so kube-scheduler's PreFilter would reject the pod).
void check_label_value(const Ctx& c, const std::string& v) {
  if (is_qualified_name_part(v)) return;
  c.fail("invalid label value \"" + v +
         "\": a valid label must be an empty string or consist of alphanumeric characters, '-', "
         "'_' or '.', and must start and end with an alphanumeric character (at most 63)");
}
void check_label_key(const Ctx& c, const std::string& k) {
  if (is_qualified_name(k)) return;
  c.fail("invalid label key \"" + k +
         "\": expected an optional DNS subdomain prefix and '/', then a name of alphanumeric "
         "characters, '-', '_' or '.' that starts and ends with an alphanumeric character (at "
         "most 63)");
}

// A label selector of a pod (anti-)affinity term, with the key and value syntax checks.
LabelSelector read_affinity_selector(const Ctx& c) {
  LabelSelector s = read_label_selector(c);
  Ctx ml = c.child("matchLabels");
  if (ml.defined()) {
    for (const std::string& k : ml.keys()) {
      Ctx v = ml.child(k);
      check_label_key(v, k);
      check_label_value(v, v.defined() ? v.str() : std::string());
    }
  }
  Ctx me = c.child("matchExpressions");
  for (size_t i = 0; me.defined() && i < me.size(); ++i) {
    Ctx r = me.item(i);
    check_label_key(r.child("key"), r.child("key").str());
    Ctx vs = r.child("values");
    for (size_t j = 0; vs.defined() && j < vs.size(); ++j)
      check_label_value(vs.item(j), vs.item(j).str());
  }
  return s;
}

void add_requirement_once(LabelSelector* s, StrId key, SelectorOp op, StrId value) {
  for (const NodeSelectorRequirement& r : s->match_expressions) {
    if (r.key == key && r.op == op && r.values.size() == 1 && r.values[0] == value) return;
  }
  s->match_expressions.push_back({key, op, {value}, 0, {}});
}

// v1.PodAffinityTerm, validated as the API server validates it; matchLabelKeys and
// mismatchLabelKeys are merged into the selector with the pod's own label values.
PodAffinityTerm read_pod_affinity_term(const Ctx& c, const LabelSet& pod_labels) {
  c.expect_map();
  PodAffinityTerm t;
  Ctx sel = c.child("labelSelector");
  if (sel.defined()) t.selector = read_affinity_selector(sel);
  if (c.has("namespaces")) {
    for (const std::string& n : c.child("namespaces").str_list()) t.namespaces.push_back(intern(n));
  }
  Ctx nsel = c.child("namespaceSelector");
  if (nsel.defined()) t.namespace_selector = read_affinity_selector(nsel);
  Ctx key = c.child("topologyKey");
  const std::string k = key.defined() ? key.str() : std::string();
  if (k.empty()) key.fail("must not be empty (a node label key such as kubernetes.io/hostname)");
  check_label_key(key, k);
  t.topology_key = intern(k);
  auto keys = [&](const char* name, std::vector<StrId>* out) {
    Ctx list = c.child(name);
    if (!list.defined()) return;
    const std::vector<std::string> ks = list.str_list();
    if (!ks.empty() && !t.selector)
      list.fail("must not be specified when labelSelector is not set");
    for (size_t i = 0; i < ks.size(); ++i) {
      check_label_key(list.item(i), ks[i]);
      out->push_back(intern(ks[i]));
    }
  };
  keys("matchLabelKeys", &t.match_label_keys);
  keys("mismatchLabelKeys", &t.mismatch_label_keys);
  for (size_t i = 0; i < t.mismatch_label_keys.size(); ++i) {
    const StrId mk = t.mismatch_label_keys[i];
    if (std::find(t.match_label_keys.begin(), t.match_label_keys.end(), mk) !=
        t.match_label_keys.end()) {
      c.child("mismatchLabelKeys")
          .item(i)
          .fail("\"" + std::string(interned(mk)) +
                "\" exists in both matchLabelKeys and mismatchLabelKeys");
    }
  }
  for (StrId mk : t.match_label_keys)
    if (auto v = pod_labels.get(mk)) add_requirement_once(&*t.selector, mk, SelectorOp::kIn, *v);
  for (StrId mk : t.mismatch_label_keys)
    if (auto v = pod_labels.get(mk)) add_requirement_once(&*t.selector, mk, SelectorOp::kNotIn, *v);
  return t;
}

// spec.affinity.podAffinity / podAntiAffinity.
PodAffinityRules read_pod_affinity_rules(const Ctx& c, const LabelSet& pod_labels) {
  PodAffinityRules a;
  if (!c.defined()) return a;
  c.expect_map();
  read_seq(c.child("requiredDuringSchedulingIgnoredDuringExecution"), &a.required,
           [&](const Ctx& item) { return read_pod_affinity_term(item, pod_labels); });
  Ctx pref = c.child("preferredDuringSchedulingIgnoredDuringExecution");
  if (pref.defined()) {
    pref.expect_seq();
    for (size_t i = 0; i < pref.size(); ++i) {
      Ctx p = pref.item(i);
      p.expect_map();
      WeightedPodAffinityTerm t;
      Ctx w = p.child("weight");
      if (!w.defined()) p.fail("preferred term without a weight");
      const int64_t weight = w.i64();
      if (weight < 1 || weight > 100) w.fail("weight must be in 1..100");
      t.weight = static_cast<int32_t>(weight);
      Ctx term = p.child("podAffinityTerm");
      if (!term.defined()) p.fail("preferred term without a podAffinityTerm");
      t.term = read_pod_affinity_term(term, pod_labels);
      a.preferred.push_back(std::move(t));
    }
  }
  return a;
}

// Whether a namespaceSelector names labels (anything but {}), and where the first one is.
bool names_labels(const std::optional<LabelSelector>& s) {
  return s && !s->empty();
}
bool has_labelled_namespace_selector(const PodSpec& s) {
  for (const PodAffinityRules* r : {&s.pod_affinity, &s.pod_anti_affinity}) {
    for (const PodAffinityTerm& t : r->required)
      if (names_labels(t.namespace_selector)) return true;
    for (const WeightedPodAffinityTerm& t : r->preferred)
      if (names_labels(t.term.namespace_selector)) return true;
  }
  return false;
}
std::string labelled_namespace_selector_where(const Ctx& spec) {
  auto labelled = [](const Ctx& sel) {
    return sel.defined() &&
           ((sel.has("matchLabels") && sel.child("matchLabels").size() > 0) ||
            (sel.has("matchExpressions") && sel.child("matchExpressions").size() > 0));
  };
  Ctx aff = spec.child("affinity");
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    Ctx k = aff.child(kind);
    if (!k.defined()) continue;
    Ctx req = k.child("requiredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; req.defined() && i < req.size(); ++i) {
      Ctx sel = req.item(i).child("namespaceSelector");
      if (labelled(sel)) return sel.where();
    }
    Ctx pref = k.child("preferredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; pref.defined() && i < pref.size(); ++i) {
      Ctx sel = pref.item(i).child("podAffinityTerm").child("namespaceSelector");
      if (labelled(sel)) return sel.where();
    }
  }
  return spec.where();
}

TopologySpreadConstraint read_spread(const Ctx& c) {
  c.expect_map();
  TopologySpreadConstraint t;
  Ctx skew = c.child("maxSkew");
  if (!skew.defined()) c.fail("topology spread constraint without maxSkew");
  t.max_skew = static_cast<int32_t>(skew.i64());
  if (t.max_skew < 1) skew.fail("maxSkew must be at least 1");
  Ctx key = c.child("topologyKey");
  if (!key.defined()) c.fail("topology spread constraint without topologyKey");
  t.topology_key = intern(key.str());
  std::string w = c.str_or("whenUnsatisfiable", "DoNotSchedule");
  if (w == "DoNotSchedule") {
    t.when_unsatisfiable = SpreadWhenUnsatisfiable::kDoNotSchedule;
  } else if (w == "ScheduleAnyway") {
    t.when_unsatisfiable = SpreadWhenUnsatisfiable::kScheduleAnyway;
  } else {
    c.child("whenUnsatisfiable").fail("expected DoNotSchedule or ScheduleAnyway");
  }
  t.selector = read_label_selector(c.child("labelSelector"));
  t.selector_set = c.child("labelSelector").defined();
  if (c.has("minDomains")) t.min_domains = static_cast<int32_t>(c.child("minDomains").i64());
  auto policy = [&](const char* name, InclusionPolicy def) {
    std::string v = c.str_or(name, def == InclusionPolicy::kHonor ? "Honor" : "Ignore");
    if (v == "Honor") return InclusionPolicy::kHonor;
    if (v == "Ignore") return InclusionPolicy::kIgnore;
    c.child(name).fail("expected Honor or Ignore");
  };
  t.node_affinity_policy = policy("nodeAffinityPolicy", InclusionPolicy::kHonor);
  t.node_taints_policy = policy("nodeTaintsPolicy", InclusionPolicy::kIgnore);
  if (c.has("matchLabelKeys")) {
    for (const auto& k : c.child("matchLabelKeys").str_list())
      t.match_label_keys.push_back(intern(k));
  }
  return t;
}

// containers[].ports[]: the ones with a hostPort (with hostNetwork, the API defaults hostPort to
// containerPort).
std::vector<HostPort> read_host_ports(const Ctx& c, bool host_network) {
  std::vector<HostPort> out;
  if (!c.defined()) return out;
  c.expect_seq();
  static const StrId kAnyIp = intern("0.0.0.0");
  for (size_t i = 0; i < c.size(); ++i) {
    Ctx p = c.item(i);
    p.expect_map();
    int64_t port = p.has("hostPort") ? p.child("hostPort").i64() : 0;
    if (port == 0 && host_network && p.has("containerPort")) port = p.child("containerPort").i64();
    if (port < 0 || port > 65535) p.child("hostPort").fail("expected a port in 0..65535");
    if (port == 0) continue;
    HostPort hp;
    hp.port = static_cast<int32_t>(port);
    const std::string proto = p.str_or("protocol", "TCP");
    if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
      p.child("protocol").fail("expected TCP, UDP or SCTP");
    }
    hp.protocol = intern(proto);
    const std::string ip = p.str_or("hostIP", "");
    hp.ip = ip.empty() ? kAnyIp : intern(ip);
    out.push_back(hp);
  }
  return out;
}

Container read_container(const Ctx& c, bool init, bool host_network) {
  c.expect_map();
  Container k;
  k.name = c.str_or("name", "");
  k.image = c.str_or("image", "");
  k.host_ports = read_host_ports(c.child("ports"), host_network);
  Ctx res = c.child("resources");
  if (res.defined()) {
    res.expect_map();
    k.requests =
        read_resource_list(res.child("requests"), ResourceNames::kContainer, &k.requests_set);
    uint32_t limits_set = 0;
    k.limits = read_resource_list(res.child("limits"), ResourceNames::kContainer, &limits_set);
    // API defaulting: a limit without a request sets the request.
    for (int r = 0; r < kMaxResources; ++r) {
      if ((limits_set & (1u << r)) && !(k.requests_set & (1u << r))) {
        k.requests.q[r] = k.limits.q[r];
        k.requests_set |= 1u << r;
      }
    }
  }
  if (init) {
    std::string rp = c.str_or("restartPolicy", "");
    if (rp == "Always") {
      k.restartable = true;
    } else if (!rp.empty()) {
      c.child("restartPolicy").fail("expected Always or nothing for an init container");
    }
  }
  return k;
}

std::vector<Container> read_containers(const Ctx& c, bool init, bool host_network) {
  std::vector<Container> out;
  read_seq(c, &out, [&](const Ctx& item) { return read_container(item, init, host_network); });
  return out;
}

int32_t builtin_priority(const std::string& cls, bool* found) {
  *found = true;
  if (cls == "system-cluster-critical") return 2000000000;
  if (cls == "system-node-critical") return 2000001000;
  *found = false;
  return 0;
}

}  // namespace k8s_read

using namespace k8s_read;

NodeAffinity parse_node_affinity(const Ctx& c) {
  return read_node_affinity(c);
}
TopologySpreadConstraint parse_topology_spread_constraint(const Ctx& c) {
  return read_spread(c);
}
LabelSet parse_labels(const Ctx& c) {
  LabelSet out;
  read_labels(c, &out);
  return out;
}
LabelSelector parse_label_selector(const Ctx& c) {
  return read_affinity_selector(c);
}
NodeSelectorTerm parse_node_selector_term(const Ctx& c) {
  return read_term(c);
}

namespace k8s_read {

PodSpec read_pod_spec(const Ctx& meta, const Ctx& c, std::optional<int32_t> admitted_priority) {
  PodSpec s;
  if (meta.defined()) {
    meta.expect_map();
    read_labels(meta.child("labels"), &s.labels);
    read_labels(meta.child("annotations"), &s.annotations);
  }
  if (!c.defined()) c.fail("missing pod spec");
  c.expect_map();
  const bool host_network = c.bool_or("hostNetwork", false);
  s.containers = read_containers(c.child("containers"), false, host_network);
  s.init_containers = read_containers(c.child("initContainers"), true, host_network);
  s.overhead = read_resource_list(c.child("overhead"), ResourceNames::kContainer, &s.overhead_set);
  Ctx pod_res = c.child("resources");
  if (pod_res.defined()) {  // pod-level resources (PodLevelResources)
    pod_res.expect_map();
    uint32_t limits_set = 0;
    const Resources limits = read_pod_level_list(pod_res.child("limits"), &limits_set);
    uint32_t requests_set = 0;
    const Resources requests = read_pod_level_list(pod_res.child("requests"), &requests_set);
    for (uint32_t bits = requests_set; bits != 0; bits &= bits - 1) {
      const auto r = static_cast<ResourceId>(std::countr_zero(bits));
      s.pod_requests.emplace_back(r, requests[r]);
    }
    s.default_pod_level_requests(limits, limits_set);
  }
  if (c.has("priority")) {
    int64_t p = c.child("priority").i64();
    if (p < INT32_MIN || p > INT32_MAX) c.child("priority").fail("priority out of int32 range");
    s.priority = static_cast<int32_t>(p);
  } else if (admitted_priority) {
    s.priority = *admitted_priority;
  }
  s.priority_class_name = c.str_or("priorityClassName", "");
  std::string pp = c.str_or("preemptionPolicy", "PreemptLowerPriority");
  if (pp == "Never") {
    s.preempt_never = true;
  } else if (pp != "PreemptLowerPriority") {
    c.child("preemptionPolicy").fail("expected PreemptLowerPriority or Never");
  }
  s.scheduler_name = intern(c.str_or("schedulerName", "default-scheduler"));
  read_labels(c.child("nodeSelector"), &s.node_selector);
  read_seq(c.child("tolerations"), &s.tolerations, read_toleration);
  Ctx aff = c.child("affinity");
  if (aff.defined()) {
    aff.expect_map();
    s.node_affinity = read_node_affinity(aff.child("nodeAffinity"));
    s.pod_affinity = read_pod_affinity_rules(aff.child("podAffinity"), s.labels);
    s.pod_anti_affinity = read_pod_affinity_rules(aff.child("podAntiAffinity"), s.labels);
  }
  s.volumes = read_pod_volumes(c.child("volumes"));
  read_seq(c.child("topologySpreadConstraints"), &s.topology_spread, read_spread);
  if (auto cons = s.annotations.get(std::string_view("orrery.io/constraints"))) {
    s.constraints =
        parse_constraint_ids(*cons, meta.child("annotations").where() + "[orrery.io/constraints]");
  }
  if (!s.priority_class_name.empty() && !c.has("priority") && !admitted_priority) {
    bool found;
    s.priority = builtin_priority(s.priority_class_name, &found);
  }
  s.finalize();
  return s;
}

Node read_node(const Ctx& c, std::string* warning) {
  c.expect_map();
  Node n;
  Ctx meta = c.child("metadata");
  if (!meta.defined()) c.fail("node without metadata");
  meta.expect_map();
  Ctx name = meta.child("name");
  if (!name.defined()) meta.fail("node without a name");
  n.name = name.str();
  read_labels(meta.child("labels"), &n.labels);
  read_labels(meta.child("annotations"), &n.annotations);
  // kubernetes.io/hostname is not filled in when missing: the kubelet sets it on real nodes, and a
  // node without it is one upstream's topology plugins treat as such (PodTopologySpread: "missing
  // required label").
  Ctx spec = c.child("spec");
  if (spec.defined()) {
    spec.expect_map();
    n.unschedulable = spec.bool_or("unschedulable", false);
    read_seq(spec.child("taints"), &n.taints, read_taint);
  }
  Ctx status = c.child("status");
  bool has_alloc = false;
  if (status.defined()) {
    status.expect_map();
    n.capacity =
        read_resource_list(status.child("capacity"), ResourceNames::kNode, nullptr, warning);
    has_alloc = status.has("allocatable");
    n.allocatable = has_alloc ? read_resource_list(status.child("allocatable"),
                                                   ResourceNames::kNode, nullptr, warning)
                              : n.capacity;
  }
  if (status.defined() && status.has("images")) {
    Ctx images = status.child("images");
    images.expect_seq();
    for (size_t i = 0; i < images.size(); ++i) {
      Ctx im = images.item(i);
      im.expect_map();
      NodeImage image;
      if (im.has("names")) {
        for (const std::string& name : im.child("names").str_list())
          image.names.push_back(intern(name));
      }
      if (im.has("sizeBytes")) {
        image.size_bytes = im.child("sizeBytes").i64();
        if (image.size_bytes < 0) im.child("sizeBytes").fail("expected a size in bytes >= 0");
      }
      n.images.push_back(std::move(image));
    }
  }
  if (n.capacity.is_zero() && has_alloc) n.capacity = n.allocatable;
  // No "pods" figure means 0 pods fit (NodeInfo.Allocatable.AllowedPodNumber): every pod gets
  // "Too many pods", as upstream. (The kubelet always reports one on real nodes.)
  if (n.capacity[kPods] == 0) n.capacity[kPods] = n.allocatable[kPods];
  n.derive_orrery_fields(meta.where());
  return n;
}

}  // namespace k8s_read

PodSpec parse_pod_spec(const YAML::Node& metadata, const YAML::Node& spec_node,
                       const std::string& source, const std::string& path) {
  return read_pod_spec(Ctx{source, metadata, path.empty() ? "metadata" : path + ".metadata"},
                       Ctx{source, spec_node, path.empty() ? "spec" : path + ".spec"});
}

Node parse_node(const YAML::Node& y, const std::string& source, const std::string& path) {
  return read_node(Ctx{source, y, path});
}

}  // namespace orrery
