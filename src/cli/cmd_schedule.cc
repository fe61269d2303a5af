// `orrery schedule` and `orrery score`: the kube-default scheduler (or a
// KubeSchedulerConfiguration) over a static cluster snapshot.
//
//   orrery schedule --cluster FILE [--config FILE] [--out FILE] [--seed N] [-o
//   table|wide|json|yaml]
//     schedules every pending pod (no nodeName, not finished, schedulerName served by a profile),
//     with preemption; prints a table (pod, node or "-", reason) and the evictions, and with --out
//     writes {"placements": [{"pod": "ns/name", "node": "n1" | null, "reason": "..."}],
//             "evictions": [{"pod": "ns/name", "node": "n1", "preemptor": "ns/name"}]}
//     (placements in the order pods were first attempted; reason "" for placed pods).
//   orrery score --cluster FILE --pod FILE [--config FILE]
//     prints {"pod": "ns/name", "nodes": [{"node", "feasible", "reasons", "scores", "total"}]}:
//     every node's filter verdict, each score plugin's normalised score (0-100, before weights;
//     0 for a plugin that skipped the pod) and the weighted total (0 for infeasible nodes).
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/snapshot_setup.h"
#include "core/error.h"
#include "framework/config.h"
#include "framework/scheduler.h"
#include "io/files.h"
#include "io/k8s_objects.h"

namespace orrery::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

struct ScheduleOptions {
  std::string cluster, config, out;
  uint64_t seed = 0;
  std::string output =
      "table";  // -o: table, wide (+ score, runner-up, margin, top plugin), json, yaml
  bool strict = false;
};

// One `schedule -o wide` row. SCORE is the winner's weighted total, RUNNER-UP the best other
// scored node, MARGIN the difference, TOP-PLUGIN the plugin whose weighted score favoured the
// winner most (with its share of the margin); FEASIBLE is feasible/visited nodes of the attempt
// that placed the pod. A pod placed on its only feasible node (or its nominated node) was not
// scored: "-".
std::vector<std::string> wide_row(const ClusterState& st, const std::string& pod,
                                  const std::string& node, const std::string& reason,
                                  const std::optional<fw::ScoreMargin>& m, int feasible,
                                  int evaluated) {
  const std::string fe =
      node == "-" ? "-" : std::to_string(feasible) + "/" + std::to_string(evaluated);
  if (!m) return {pod, node, "-", "-", "-", "-", fe, reason};
  const std::string top = m->top_plugin.empty()
                              ? "- (tie)"
                              : m->top_plugin + " (+" + std::to_string(m->top_plugin_gain) + ")";
  return {pod,
          node,
          std::to_string(m->winner_total),
          st.node_alive(m->runner_up) ? st.node(m->runner_up).name : "-",
          std::to_string(m->winner_total - m->runner_up_total),
          top,
          fe,
          reason};
}

// Pending pods no profile serves are left alone; say so.
void note_unserved(const ClusterState& st, const fw::Scheduler& scheduler) {
  std::map<std::string, int> unserved;
  for (PodId p : st.pods()) {
    const Pod& pod = st.pod(p);
    if (st.pod_node(p) == kNoNode && !is_terminal(pod.phase) && !scheduler.profile_for(pod)) {
      unserved[std::string(interned(pod.spec->scheduler_name))]++;
    }
  }
  for (const auto& [name, n] : unserved) {
    std::fprintf(stderr,
                 "orrery: note: %d pending pod(s) with schedulerName \"%s\" have no profile and "
                 "are not scheduled\n",
                 n, name.c_str());
  }
}

// One placement per pod, in the order pods were first attempted: where the pod is at the end, or
// why it is not placed (the last attempt's message; a pod placed and later preempted says so).
struct Placement {
  PodId id;
  uint64_t serial;
  std::string pod, node, reason;
  std::optional<fw::ScoreMargin> margin;  // of the attempt that placed it (-o wide)
  int feasible = 0, evaluated = 0;
};

// The placements of a schedule_snapshot run, from its outcomes and the backend's final state st.
std::vector<Placement> placements_of(const std::vector<fw::ScheduleOutcome>& outcomes,
                                     const ClusterState& st, const fw::SnapshotBackend& backend) {
  std::vector<Placement> placements;
  std::map<uint64_t, size_t> index;  // pod serial → placement
  for (const fw::ScheduleOutcome& o : outcomes) {
    auto [it, fresh] = index.emplace(o.serial, placements.size());
    if (fresh) placements.push_back({o.pod, o.serial, {}, {}, {}, std::nullopt, 0, 0});
    Placement& pl = placements[it->second];
    if (pl.pod.empty() && st.pod_alive(o.pod) && st.pod_serial(o.pod) == o.serial) {
      pl.pod = st.pod(o.pod).key();
    }
    if (!o.scheduled && o.message != "pod no longer pending") pl.reason = o.message;
    if (o.scheduled) {
      pl.margin = o.margin;
      pl.feasible = o.feasible_nodes;
      pl.evaluated = o.evaluated_nodes;
    }
  }
  std::erase_if(placements, [](const Placement& p) { return p.pod.empty(); });
  for (Placement& pl : placements) {
    if (st.pod_alive(pl.id) && st.pod_serial(pl.id) == pl.serial) {
      if (st.pod_node(pl.id) != kNoNode) {
        pl.node = st.node(st.pod_node(pl.id)).name;
        pl.reason.clear();
      }
      continue;
    }
    for (const auto& d : backend.deletions())
      if (d.pod == pl.pod) pl.reason = d.reason;
  }
  return placements;
}

struct Eviction {
  std::string pod, node, preemptor;
};

// The backend's deletions as evictions, the preemptor read from "preempted by ..." reasons.
std::vector<Eviction> evictions_of(const fw::SnapshotBackend& backend) {
  std::vector<Eviction> evictions;
  for (const auto& d : backend.deletions()) {
    const std::string prefix = "preempted by ";
    std::string by = d.reason.starts_with(prefix) ? d.reason.substr(prefix.size()) : d.reason;
    evictions.push_back({d.pod, d.node, by});
  }
  return evictions;
}

// The --out / -o json document: {"placements": [...], "evictions": [...]}.
ordered_json schedule_json(const std::vector<Placement>& placements,
                           const std::vector<Eviction>& evictions) {
  ordered_json j;
  j["placements"] = ordered_json::array();
  for (const Placement& p : placements) {
    ordered_json e;
    e["pod"] = p.pod;
    e["node"] = p.node.empty() ? ordered_json(nullptr) : ordered_json(p.node);
    e["reason"] = p.reason;
    j["placements"].push_back(std::move(e));
  }
  j["evictions"] = ordered_json::array();
  for (const Eviction& e : evictions) {
    j["evictions"].push_back({{"pod", e.pod}, {"node", e.node}, {"preemptor", e.preemptor}});
  }
  return j;
}

// The -o table / wide output: the placements, the evictions and a count line.
void print_schedule(const ClusterState& st, const std::vector<Placement>& placements,
                    const std::vector<Eviction>& evictions, bool wide) {
  std::vector<std::vector<std::string>> rows;
  if (wide) {
    rows.push_back(
        {"POD", "NODE", "SCORE", "RUNNER-UP", "MARGIN", "TOP-PLUGIN", "FEASIBLE", "REASON"});
  } else {
    rows.push_back({"POD", "NODE", "REASON"});
  }
  size_t placed = 0;
  for (const Placement& p : placements) {
    const std::string node = p.node.empty() ? "-" : p.node;
    if (!p.node.empty()) ++placed;
    if (!wide) {
      rows.push_back({p.pod, node, p.reason});
      continue;
    }
    rows.push_back(wide_row(st, p.pod, node, p.reason, p.margin, p.feasible, p.evaluated));
  }
  print_table(rows);
  if (!evictions.empty()) {
    std::printf("\n");
    std::vector<std::vector<std::string>> ev = {{"EVICTED", "NODE", "PREEMPTOR"}};
    for (const Eviction& e : evictions) ev.push_back({e.pod, e.node, e.preemptor});
    print_table(ev);
  }
  std::printf("\n%zu pending pod(s): %zu scheduled, %zu unschedulable, %zu eviction(s)\n",
              placements.size(), placed, placements.size() - placed, evictions.size());
}

int run_schedule(const ScheduleOptions& opt) {
  ClusterState state = load_cluster(opt.cluster, load_k8s_objects(opt.cluster), opt.strict);
  SchedulerSetup setup = load_scheduler_setup(opt.config, opt.strict);
  fw::SnapshotBackend backend(std::move(state));
  fw::SchedulerOptions options = scheduler_options(setup.config, opt.seed);
  options.record_margins = opt.output == "wide";
  fw::Scheduler scheduler(backend, std::move(setup.profiles), options);
  const ClusterState& st = backend.state();

  note_unserved(st, scheduler);

  const std::vector<fw::ScheduleOutcome> outcomes = fw::schedule_snapshot(scheduler, backend);

  const std::vector<Placement> placements = placements_of(outcomes, st, backend);
  const std::vector<Eviction> evictions = evictions_of(backend);
  const ordered_json j = schedule_json(placements, evictions);
  if (!opt.out.empty()) write_file_atomic(opt.out, j.dump(2) + "\n");

  if (opt.output == "json" || opt.output == "yaml") {
    print_document(j, opt.output);
    return 0;
  }
  print_schedule(st, placements, evictions, opt.output == "wide");
  return 0;
}

struct ScoreOptions {
  std::string cluster, pod, config;
  uint64_t seed = 0;
  std::string output = "json";  // -o: json (default), yaml, table
  bool strict = false;
};

// `score -o table`: one row per node, best total first among feasible nodes.
void print_score_table(const ordered_json& j) {
  std::vector<std::vector<std::string>> rows = {{"NODE", "FEASIBLE", "TOTAL", "REASONS"}};
  for (const ordered_json& n : j["nodes"]) {
    std::string reasons;
    for (const auto& r : n["reasons"])
      reasons += (reasons.empty() ? "" : "; ") + r.get<std::string>();
    rows.push_back({n["node"].get<std::string>(), n["feasible"].get<bool>() ? "yes" : "no",
                    n["feasible"].get<bool>() ? std::to_string(n["total"].get<int64_t>()) : "-",
                    reasons});
  }
  std::printf("pod %s\n", j["pod"].get<std::string>().c_str());
  print_table(rows);
}

int run_score(const ScoreOptions& opt) {
  K8sObjects objects = load_k8s_objects(opt.cluster);
  K8sObjects pod_objects = load_k8s_objects(opt.pod);
  if (pod_objects.pods.size() != 1 || !pod_objects.nodes.empty()) {
    throw InputError(opt.pod + ": expected exactly one Pod, found " +
                     std::to_string(pod_objects.pods.size()) + " pod(s) and " +
                     std::to_string(pod_objects.nodes.size()) + " node(s)");
  }
  Pod pod = pod_objects.pods[0];
  // A pod bound by its nodeName would bypass scheduling: score it as the pending pod it was.
  if (!pod.node_name.empty()) {
    std::fprintf(stderr, "orrery: note: %s: ignoring spec.nodeName \"%s\" to score the pod\n",
                 opt.pod.c_str(), pod.node_name.c_str());
    pod.node_name.clear();
  }
  // The same pod in the snapshot (e.g. both from one `kubectl get`) is replaced, so its own
  // requests are not counted against the nodes.
  std::erase_if(objects.pods, [&](const Pod& p) { return p.key() == pod.key(); });
  objects.pods.push_back(pod);
  if (objects.labelled_namespace_selector.empty()) {
    objects.labelled_namespace_selector = pod_objects.labelled_namespace_selector;
  }
  K8sObjects pod_fields;  // what the pod file uses that is not modelled, for the warnings
  pod_fields.unmodelled = std::move(pod_objects.unmodelled);
  merge_into(objects, std::move(pod_fields));
  ClusterState state = load_cluster(opt.cluster, objects, opt.strict);
  SchedulerSetup setup = load_scheduler_setup(opt.config, opt.strict);
  fw::SnapshotBackend backend(std::move(state));
  fw::Scheduler scheduler(backend, std::move(setup.profiles),
                          scheduler_options(setup.config, opt.seed));
  const ClusterState& st = backend.state();
  const PodId id = *st.find_pod(pod.ns, pod.name);
  if (!scheduler.profile_for(st.pod(id))) {
    throw InputError(opt.pod + ": schedulerName \"" +
                     std::string(interned(st.pod(id).spec->scheduler_name)) +
                     "\" matches no profile of the configuration");
  }
  ordered_json j;
  j["pod"] = pod.key();
  j["nodes"] = ordered_json::array();
  for (const fw::NodeEvaluation& e : scheduler.evaluate(id)) {
    ordered_json n;
    n["node"] = st.node(e.node).name;
    n["feasible"] = e.feasible;
    n["reasons"] = e.reasons;
    ordered_json scores = ordered_json::object();
    for (const auto& [plugin, s] : e.scores) scores[plugin] = s;
    n["scores"] = std::move(scores);
    n["total"] = e.total;
    j["nodes"].push_back(std::move(n));
  }
  if (opt.output == "table") {
    print_score_table(j);
  } else {
    print_document(j, opt.output);
  }
  return 0;
}

}  // namespace

void register_schedule(CLI::App& root, CommandTable& table) {
  auto sopt = std::make_shared<ScheduleOptions>();
  CLI::App* s = root.add_subcommand(
      "schedule", "Schedule the pending pods of a cluster snapshot with kube-scheduler's logic");
  s->add_option("--cluster", sopt->cluster,
                "Nodes and pods as Kubernetes YAML/JSON (`kubectl get nodes,pods -A -o yaml`)")
      ->required();
  s->add_option("--config", sopt->config,
                "KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1); default: the "
                "kube-default profile");
  s->add_option("--out", sopt->out, "Write the placements and evictions as JSON to this file");
  s->add_option("--seed", sopt->seed, "Seed for tie-breaking among equally scored nodes")
      ->check(non_negative_integer())
      ->default_val(0);
  add_output_option(s, &sopt->output, {"table", "wide", "json", "yaml"});
  add_allow_large_flag(s);
  s->add_flag("--strict", sopt->strict,
              "Fail (exit 1) instead of warning when the input uses fields or objects orrery "
              "does not model");
  s->footer(
      "Pending pods are those without spec.nodeName whose schedulerName is served by a profile "
      "(\"default-scheduler\" by default). Preemption evicts lower-priority pods as "
      "kube-scheduler's DefaultPreemption would; evictions are listed after the placements. "
      "-o wide adds, per placed pod, the winning node's weighted score, the runner-up node, the "
      "margin between them, the score plugin that contributed most to it (+ its weighted share) "
      "and feasible/visited nodes; a pod placed without scoring (one feasible node) shows \"-\".");
  table.push_back({s, [sopt] { return run_schedule(*sopt); }});

  auto copt = std::make_shared<ScoreOptions>();
  CLI::App* c = root.add_subcommand(
      "score", "Show how every node filters and scores one pod (JSON on stdout)");
  c->add_option("--cluster", copt->cluster, "Nodes and pods as Kubernetes YAML/JSON")->required();
  c->add_option("--pod", copt->pod, "The pod to evaluate (one Pod, YAML/JSON)")->required();
  c->add_option("--config", copt->config, "KubeSchedulerConfiguration; default: kube-default");
  c->add_option("--seed", copt->seed, "Seed (for plugins with random scores)")
      ->check(non_negative_integer())
      ->default_val(0);
  add_output_option(c, &copt->output);
  add_allow_large_flag(c);
  c->add_flag("--strict", copt->strict,
              "Fail (exit 1) instead of warning when the input uses fields or objects orrery "
              "does not model");
  c->footer(
      "Output: {\"pod\": \"ns/name\", \"nodes\": [{\"node\", \"feasible\", \"reasons\", "
      "\"scores\": {plugin: 0..100 before weights}, \"total\": weighted sum}]}.");
  table.push_back({c, [copt] { return run_score(*copt); }});
}

}  // namespace orrery::cli
