#include "io/k8s_objects.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "io/json_items.h"
#include "io/k8s_api_objects.h"
#include "io/k8s_names.h"
#include "io/limits.h"
#include "io/yaml_util.h"
#include "util/suggest.h"

#include <nlohmann/json.hpp>

#include "io/k8s_fields.h"

namespace orrery {

using yaml::Ctx;
using yaml::read_seq;
using namespace k8s_read;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > 0 && std::filesystem::is_regular_file(path, ec)) {
    if (size > static_cast<uint64_t>(input_limits().file_bytes)) {
      throw InputError(path + ": " +
                       over_limit("the file's size", static_cast<double>(size),
                                  input_limits().file_bytes, "bytes"));
    }
    // Straight into the string: a stringstream would hold a second copy of a big snapshot.
    std::string text(size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (in.gcount() != static_cast<std::streamsize>(size)) throw InputError(path + ": read error");
    return text;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": read error");
  return ss.str();
}

namespace {

bool is_list_kind(const std::string& kind) {
  return kind == "List" || kind == "NodeList" || kind == "PodList" || kind == "PriorityClassList" ||
         kind == "NamespaceList" ||
         (kind.ends_with("List") && is_api_object_kind(kind.substr(0, kind.size() - 4)));
}

// What orrery does instead of modelling a field or object, for the warnings (k8s_warnings).
constexpr const char* kNoCapacity =
    "storage capacity tracking is not modelled: VolumeBinding takes every node's capacity as "
    "sufficient for provisioning";
constexpr const char* kNoDra =
    "DynamicResources (DRA) is not modelled: claims are not allocated and do not restrict nodes";

// Kinds kube-scheduler reads that orrery does not, with what each would change. Other kinds a dump
// may hold (Deployments, ReplicaSets, ConfigMaps, Events, ...) do not reach kube-scheduler's
// decisions, or only through the pods orrery reads, and are skipped silently (K8sObjects::
// ignored_kinds counts them). The kinds orrery reads are dispatched in Reader::object.
struct UnreadKind {
  const char* kind;
  const char* consequence;
};
constexpr UnreadKind kUnreadKinds[] = {
    {"CSIDriver", kNoCapacity},
    {"CSIStorageCapacity", kNoCapacity},
    {"VolumeAttachment",
     "NodeVolumeLimits counts the CSI volumes of the pods on a node, not VolumeAttachment objects"},
    {"Service",
     "PodTopologySpread's system default constraints find a pod's siblings by its controller "
     "only; upstream also counts the pods of Services that select it"},
    {"ResourceClaim", kNoDra},
    {"ResourceClaimTemplate", kNoDra},
    {"ResourceSlice", kNoDra},
    {"DeviceClass", kNoDra},
};

const char* unread_kind_consequence(const std::string& kind) {
  for (const UnreadKind& k : kUnreadKinds)
    if (kind == k.kind) return k.consequence;
  return nullptr;
}

// The entry for `what` in `list`, or null.
Unmodelled* find_unmodelled(std::vector<Unmodelled>& list, const std::string& what) {
  for (Unmodelled& u : list)
    if (u.what == what) return &u;
  return nullptr;
}

void note_unmodelled(K8sObjects& out, const std::string& what, const char* consequence,
                     const std::string& where, const std::string& example) {
  if (Unmodelled* u = find_unmodelled(out.unmodelled, what)) {
    ++u->count;
    return;
  }
  out.unmodelled.push_back({what, consequence, 1, where, example});
}

// Pod fields that can change kube-scheduler's decisions and that orrery does not model.
void note_unmodelled_pod_fields(K8sObjects& out, const Ctx& spec, const Ctx& status, const Pod& p) {
  if (!spec.defined()) return;
  const std::string key = p.key();
  if (spec.has("resourceClaims") && spec.child("resourceClaims").size() > 0) {
    note_unmodelled(out, "spec.resourceClaims", kNoDra, spec.child("resourceClaims").where(), key);
  }
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.has(list)) continue;
    Ctx cs = spec.child(list);
    for (size_t i = 0; i < cs.size(); ++i) {
      Ctx res = cs.item(i).child("resources");
      if (res.defined() && res.has("claims")) {
        note_unmodelled(out, "containers[].resources.claims", kNoDra, res.child("claims").where(),
                        key);
      }
    }
  }
  if (!status.defined()) return;
  if (p.node_name.empty() && status.has("nominatedNodeName")) {
    note_unmodelled(out, "status.nominatedNodeName",
                    "earlier preemption nominations are not modelled: the pod is scheduled as if "
                    "it had none, and lower-priority pods do not see the room set aside for it",
                    status.child("nominatedNodeName").where(), key);
  }
  bool resizing = status.has("resize");
  if (!resizing && status.has("conditions")) {
    Ctx conds = status.child("conditions");
    for (size_t i = 0; i < conds.size() && !resizing; ++i) {
      const std::string type = conds.item(i).str_or("type", "");
      resizing = type == "PodResizePending" || type == "PodResizeInProgress";
    }
  }
  if (resizing && !p.node_name.empty()) {
    note_unmodelled(out, "in-place pod resize (status.resize / PodResize* conditions)",
                    "the pod is counted with its spec requests; upstream counts the larger of "
                    "the spec and the resources the kubelet allocated",
                    status.where(), key);
  }
}

struct Reader {
  const std::string& source;
  K8sObjects out;
  std::vector<ParsedPod> pods;
  // Admission's priority for a pod without spec.priority (read_k8s_object).
  std::optional<int32_t> admitted_priority = std::nullopt;

  // `list_kind`: the item kind implied by a typed list (NodeList → Node), whose items may omit
  // kind.
  void object(const Ctx& c, const std::string& list_kind = "") {
    if (!c.defined()) return;  // empty YAML document
    c.expect_map();
    Ctx kind_ctx = c.child("kind");
    if (!kind_ctx.defined() && list_kind.empty()) c.fail("object without a kind");
    dispatch(c, kind_ctx.defined() ? kind_ctx.str() : list_kind);
  }

  // An object (a mapping) of the given kind.
  void dispatch(const Ctx& c, const std::string& kind) {
    if (is_list_kind(kind)) {
      Ctx items = c.child("items");
      if (!items.defined()) return;
      items.expect_seq();
      const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
      for (size_t i = 0; i < items.size(); ++i) object(items.item(i), item_kind);
    } else if (kind == "Node") {
      if (static_cast<int64_t>(out.nodes.size()) >= input_limits().nodes) {
        c.fail(over_limit("too many nodes", static_cast<double>(out.nodes.size()) + 1,
                          input_limits().nodes, "nodes"));
      }
      out.nodes.push_back(read_node(c, &out.doubtful_resource_name));
    } else if (kind == "Pod") {
      if (static_cast<int64_t>(pods.size()) >= input_limits().pods) {
        c.fail(over_limit("too many pods", static_cast<double>(pods.size()) + 1,
                          input_limits().pods, "pods"));
      }
      pod(c);
    } else if (kind == "PriorityClass") {
      priority_class(c);
    } else if (kind == "Namespace") {
      namespace_object(c);
    } else if (is_api_object_kind(kind)) {
      read_api_object(kind, c, &out.api);
    } else {
      out.ignored_kinds[kind]++;
      if (const char* consequence = unread_kind_consequence(kind)) {
        Ctx meta = c.child("metadata");
        std::string example = kind;
        if (meta.defined() && meta.has("name")) {
          example += "/" + (meta.has("namespace") ? meta.child("namespace").str() + "/" : "") +
                     meta.child("name").str();
        }
        note_unmodelled(out, "kind " + kind, consequence, c.where(), example);
      }
    }
  }

  void pod(const Ctx& c) {
    Ctx meta = c.child("metadata");
    if (!meta.defined()) c.fail("pod without metadata");
    meta.expect_map();
    ParsedPod pp{Pod{}, nullptr, false, ""};
    Pod& p = pp.pod;
    Ctx name = meta.child("name");
    if (!name.defined()) meta.fail("pod without a name");
    p.name = name.str();
    p.ns = meta.str_or("namespace", "default");
    p.uid = meta.str_or("uid", "");
    if (meta.has("creationTimestamp")) {
      Ctx ts = meta.child("creationTimestamp");
      auto t = yaml::parse_rfc3339(ts.str());
      if (!t) ts.fail("expected an RFC 3339 timestamp such as 2024-05-01T12:00:00Z");
      p.creation_us = *t;
    }
    if (meta.has("deletionTimestamp")) {  // being deleted (graceful termination)
      Ctx ts = meta.child("deletionTimestamp");
      if (!yaml::parse_rfc3339(ts.str())) {
        ts.fail("expected an RFC 3339 timestamp such as 2024-05-01T12:00:00Z");
      }
      p.terminating = true;
    }
    Ctx owners = meta.child("ownerReferences");
    if (owners.defined()) {
      owners.expect_seq();
      for (size_t i = 0; i < owners.size(); ++i) {
        Ctx o = owners.item(i);
        o.expect_map();
        if (p.owner.kind == OwnerKind::kNone || o.bool_or("controller", false)) {
          p.owner.kind = parse_owner_kind(o.str_or("kind", ""));
          p.owner.name = o.str_or("name", "");
        }
      }
    }
    Ctx spec = c.child("spec");
    // Paths and line hints as parse_pod_spec gives them.
    auto rebased = [&c](const Ctx& part, const char* name) {
      Ctx r = part;
      r.path = c.path.empty() ? name : c.path + "." + name;
      r.line_hint = 0;
      return r;
    };
    const Ctx spec_at = rebased(spec, "spec");
    pp.spec = std::make_shared<PodSpec>(
        read_pod_spec(rebased(meta, "metadata"), spec_at, admitted_priority));
    if (out.labelled_namespace_selector.empty() && has_labelled_namespace_selector(*pp.spec)) {
      out.labelled_namespace_selector = labelled_namespace_selector_where(spec_at);
    }
    pp.priority_given = spec.has("priority") || admitted_priority.has_value();
    if (!pp.priority_given && !pp.spec->priority_class_name.empty()) {
      pp.class_where = spec.child("priorityClassName").where();
    }
    p.node_name = spec.str_or("nodeName", "");
    if (spec.has("schedulingGates")) {
      Ctx gates = spec.child("schedulingGates");
      gates.expect_seq();
      for (size_t i = 0; i < gates.size(); ++i)
        p.scheduling_gates.push_back(gates.item(i).child("name").str());
    }
    Ctx status = c.child("status");
    note_unmodelled_pod_fields(out, spec, status, p);
    if (status.defined() && status.has("phase")) {
      Ctx ph = status.child("phase");
      auto phase = parse_pod_phase(ph.str());
      if (!phase) ph.fail("expected Pending, Running, Succeeded, Failed or Unknown");
      p.phase = *phase;
    }
    pods.push_back(std::move(pp));
  }

  void namespace_object(const Ctx& c) {
    Ctx meta = c.child("metadata");
    if (!meta.defined() || !meta.has("name")) c.fail("Namespace without metadata.name");
    meta.expect_map();
    NamespaceObject ns;
    ns.name = meta.child("name").str();
    read_labels(meta.child("labels"), &ns.labels);
    // The API server sets it on every namespace (v1.21+).
    if (!ns.labels.get(std::string_view("kubernetes.io/metadata.name"))) {
      ns.labels.set("kubernetes.io/metadata.name", ns.name);
    }
    out.namespaces.push_back(std::move(ns));
  }

  void priority_class(const Ctx& c) {
    PriorityClass pc;
    Ctx meta = c.child("metadata");
    if (!meta.defined() || !meta.has("name")) c.fail("PriorityClass without metadata.name");
    pc.name = meta.child("name").str();
    Ctx v = c.child("value");
    if (!v.defined()) c.fail("PriorityClass without a value");
    int64_t value = v.i64();
    if (value < INT32_MIN || value > INT32_MAX) v.fail("value out of int32 range");
    pc.value = static_cast<int32_t>(value);
    pc.global_default = c.bool_or("globalDefault", false);
    pc.preempt_never = c.str_or("preemptionPolicy", "") == "Never";
    out.priority_classes.push_back(pc);
  }

  // Resolves priorities from PriorityClasses (admission), then freezes the specs.
  void finish() {
    const PriorityClass* global_default = nullptr;
    for (const auto& pc : out.priority_classes)
      if (pc.global_default) global_default = &pc;
    for (ParsedPod& pp : pods) {
      PodSpec& s = *pp.spec;
      if (!pp.priority_given) {
        if (!s.priority_class_name.empty()) {
          const PriorityClass* found = nullptr;
          for (const auto& pc : out.priority_classes)
            if (pc.name == s.priority_class_name) found = &pc;
          bool builtin;
          int32_t bp = builtin_priority(s.priority_class_name, &builtin);
          if (found) {
            s.priority = found->value;
            if (found->preempt_never) s.preempt_never = true;
          } else if (builtin) {
            s.priority = bp;
          } else {
            throw InputError(pp.class_where + ": unknown PriorityClass \"" + s.priority_class_name +
                             "\" (include it in the input or set spec.priority)");
          }
        } else if (global_default) {
          s.priority = global_default->value;
        }
      }
      pp.pod.spec = pp.spec;
      out.pods.push_back(std::move(pp.pod));
    }
    pods.clear();
  }
};

// The fast path for a JSON list (`kubectl get nodes,pods -A -o json`, which can be a gigabyte):
// finds the items with a scanner and parses each on its own, so memory stays O(largest item)
// instead of ~60x the file in one yaml-cpp tree. Each item keeps its lines in the whole file.
// Returns false, having read nothing, when the text is not a JSON list: the YAML path reads it.
bool read_json_list(std::string_view text, const std::string& source, Reader& r) {
  std::optional<json::TopLevelList> list;
  try {
    list = json::scan_top_level_list(text);
  } catch (const json::SyntaxError& e) {
    // Text that starts as JSON is held to JSON's grammar: yaml-cpp's flow syntax is laxer (it
    // reads "[a,,b]" as three items). Anything else, such as a YAML flow mapping, goes the YAML
    // way.
    if (!json::starts_like_json_object(text)) return false;
    throw InputError(error_location(source, e.line, "") + ": malformed YAML/JSON: " + e.what());
  }
  if (!list || !list->kind || !list->items) return false;
  const std::string& kind = *list->kind;
  if (!is_list_kind(kind)) return false;
  const std::string item_kind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
  const std::vector<json::Span>& items = *list->items;
  for (size_t i = 0; i < items.size(); ++i) {
    const json::Span& span = items[i];
    auto load = [&] {
      try {
        return YAML::Load(std::string(text.substr(span.begin, span.end - span.begin)));
      } catch (const YAML::Exception& e) {
        int line = e.mark.is_null() ? span.line : span.line + e.mark.line;
        throw InputError(error_location(source, line, "") + ": malformed YAML/JSON: " + e.msg);
      }
    };
    const YAML::Node node = load();
    r.object(Ctx{source, node, "items[" + std::to_string(i) + "]", span.line, span.line - 1},
             item_kind);
  }
  return true;
}

}  // namespace

// The offset of the first byte that is not part of valid UTF-8 (RFC 3629: no overlong forms,
// surrogates or code points above U+10FFFF), or npos.
static size_t invalid_utf8_at(std::string_view s) {
  static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return i;
    }
    if (s.size() - i <= static_cast<size_t>(n)) return i;
    for (int k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

K8sObjects parse_k8s_objects(std::string_view text, const std::string& source) {
  // Kubernetes objects are UTF-8 (the API server rejects anything else). yaml-cpp reads invalid
  // bytes differently in block YAML and in JSON, so they are refused here, for both.
  if (const size_t bad = invalid_utf8_at(text); bad != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad, '\n'));
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw InputError(error_location(source, line, "") + ": not valid UTF-8 (byte " + byte +
                     "); Kubernetes objects are UTF-8");
  }
  Reader r{source, {}, {}};
  if (read_json_list(text, source, r)) {
    r.finish();
    return std::move(r.out);
  }
  const std::vector<YAML::Node> docs = yaml::parse_documents(std::string(text), source);
  for (size_t i = 0; i < docs.size(); ++i) {
    r.object(Ctx{source, docs[i], docs.size() > 1 ? "document[" + std::to_string(i) + "]" : ""});
  }
  r.finish();
  return std::move(r.out);
}

K8sObjects read_k8s_object(const nlohmann::json& obj, const std::string& kind,
                           const std::string& source, std::optional<int32_t> admitted_priority) {
  Reader r{source, {}, {}, admitted_priority};
  const Ctx c = Ctx::of_json(source, obj);
  c.expect_map();
  r.dispatch(c, kind);
  r.finish();
  return std::move(r.out);
}

K8sObjects load_k8s_objects(const std::string& path) {
  return parse_k8s_objects(read_text_file(path), path);
}

void merge_into(K8sObjects& into, K8sObjects&& from) {
  for (auto& n : from.nodes) into.nodes.push_back(std::move(n));
  for (auto& p : from.pods) into.pods.push_back(std::move(p));
  for (auto& pc : from.priority_classes) into.priority_classes.push_back(std::move(pc));
  for (auto& ns : from.namespaces) into.namespaces.push_back(std::move(ns));
  for (auto& o : from.api.pvcs) into.api.pvcs.push_back(std::move(o));
  for (auto& o : from.api.pvs) into.api.pvs.push_back(std::move(o));
  for (auto& o : from.api.storage_classes) into.api.storage_classes.push_back(std::move(o));
  for (auto& o : from.api.csi_nodes) into.api.csi_nodes.push_back(std::move(o));
  for (auto& o : from.api.pdbs) into.api.pdbs.push_back(std::move(o));
  if (into.labelled_namespace_selector.empty()) {
    into.labelled_namespace_selector = std::move(from.labelled_namespace_selector);
  }
  if (into.doubtful_resource_name.empty()) {
    into.doubtful_resource_name = std::move(from.doubtful_resource_name);
  }
  for (auto& [k, v] : from.ignored_kinds) into.ignored_kinds[k] += v;
  for (Unmodelled& u : from.unmodelled) {
    if (Unmodelled* mine = find_unmodelled(into.unmodelled, u.what))
      mine->count += u.count;
    else
      into.unmodelled.push_back(std::move(u));
  }
}

ClusterState build_cluster(const K8sObjects& objects, std::vector<std::string>* warnings) {
  ClusterState state;
  for (const NamespaceObject& ns : objects.namespaces) state.add_namespace(ns.name, ns.labels);
  for (const Node& n : objects.nodes) state.add_node(n);
  if (!objects.api.empty()) {
    auto api = std::make_shared<ApiObjects>(objects.api);
    api->index();
    state.set_api_objects(std::move(api));
  }
  // A partial dump: pods bound to nodes it does not hold. Upstream's cache never sees finished
  // pods' nodes matter; running ones take room on a node that cannot be chosen anyway.
  int finished = 0, running = 0;
  std::string finished_example, running_example;
  for (const Pod& p : objects.pods) {
    if (!p.node_name.empty() && !state.find_node(p.node_name) && warnings) {
      const bool done = is_terminal(p.phase);
      int& count = done ? finished : running;
      std::string& example = done ? finished_example : running_example;
      if (count++ == 0) example = p.key() + " on " + p.node_name;
      continue;
    }
    state.add_pod(p);
  }
  if (finished > 0) {
    warnings->push_back(std::to_string(finished) +
                        " finished pod(s) are bound to nodes the input does not hold (e.g. " +
                        finished_example + "): ignored, as kube-scheduler ignores them");
  }
  if (running > 0) {
    warnings->push_back(std::to_string(running) +
                        " running pod(s) are bound to nodes the input does not hold (e.g. " +
                        running_example +
                        "): skipped; they are not counted for topology spreading or pod affinity "
                        "(dump every node to include them)");
  }
  return state;
}

}  // namespace orrery
