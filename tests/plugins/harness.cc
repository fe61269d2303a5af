#include "harness.h"

#include "io/k8s_objects.h"
#include "plugins/register.h"

namespace orrery::plugins::testing {

namespace {

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string node_doc(const std::string& name, const std::string& allocatable,
                     const std::string& labels, const std::string& spec) {
  std::string alloc = allocatable;
  if (alloc.find("pods") == std::string::npos) {
    alloc = alloc.substr(0, alloc.size() - 1) + (alloc.size() > 2 ? ", " : "") + "pods: 110}";
  }
  return "---\napiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: " + labels +
         "}\nspec: " + spec + "\nstatus: {allocatable: " + alloc + "}\n";
}

std::string pod_doc(const std::string& name, const std::vector<std::string>& requests,
                    const std::string& spec_extra, const std::string& meta_extra) {
  auto [ns, n] = split_pod_key(name);
  std::string out = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + n +
                    "\n  namespace: " + ns + "\n" + indent(meta_extra, "  ") +
                    "spec:\n  containers:\n";
  for (size_t i = 0; i < requests.size(); ++i) {
    out += "  - name: c" + std::to_string(i) + "\n";
    if (!requests[i].empty()) out += "    resources: {requests: " + requests[i] + "}\n";
  }
  if (requests.empty()) out += "  []\n";
  return out + indent(spec_extra, "  ");
}

std::string config_with(const std::vector<std::string>& names, const std::string& extra) {
  std::string out =
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- schedulerName: default-scheduler\n"
      "  plugins:\n"
      "    multiPoint:\n"
      "      disabled: [{name: \"*\"}]\n"
      "      enabled:\n"
      "      - {name: PrioritySort}\n"
      "      - {name: DefaultBinder}\n";
  for (const auto& n : names) out += "      - {name: " + n + "}\n";
  return out + extra;
}

std::vector<std::unique_ptr<fw::Profile>> profiles_from(const std::string& config_yaml) {
  static const fw::PluginRegistry registry = [] {
    fw::PluginRegistry r;
    register_default_plugins(r);
    return r;
  }();
  std::vector<std::string> warnings;
  return build_profiles(fw::parse_scheduler_config(config_yaml, "test-config.yaml"), registry,
                        &warnings);
}

Harness::Harness(const std::string& objects_yaml, const std::string& config_yaml,
                 fw::SchedulerOptions options)
    : backend(build_cluster(parse_k8s_objects(objects_yaml, "test.yaml"))),
      scheduler(std::make_unique<fw::Scheduler>(backend, profiles_from(config_yaml), options)) {}

PodId Harness::pod(const std::string& name) {
  auto [ns, n] = split_pod_key(name);
  auto id = state().find_pod(ns, n);
  if (!id) throw std::runtime_error("no pod " + name);
  return *id;
}

std::map<std::string, fw::NodeEvaluation> Harness::evaluate(const std::string& pod_name) {
  std::map<std::string, fw::NodeEvaluation> out;
  for (auto& e : scheduler->evaluate(pod(pod_name))) out[state().node(e.node).name] = e;
  return out;
}

std::set<std::string> Harness::feasible(const std::string& pod_name) {
  std::set<std::string> out;
  for (auto& [node, e] : evaluate(pod_name))
    if (e.feasible) out.insert(node);
  return out;
}

std::map<std::string, int64_t> Harness::scores(const std::string& pod_name,
                                               const std::string& plugin) {
  std::map<std::string, int64_t> out;
  for (auto& [node, e] : evaluate(pod_name)) {
    for (auto& [p, s] : e.scores)
      if (p == plugin) out[node] = s;
  }
  return out;
}

std::map<std::string, std::string> Harness::schedule_all(
    std::vector<fw::ScheduleOutcome>* outcomes) {
  auto outs = fw::schedule_snapshot(*scheduler, backend);
  std::map<std::string, std::string> placed;
  for (PodId p : state().pods()) {
    const NodeId n = state().pod_node(p);
    placed[state().pod(p).name] = n == kNoNode ? "" : state().node(n).name;
  }
  if (outcomes) *outcomes = std::move(outs);
  return placed;
}

}  // namespace orrery::plugins::testing
