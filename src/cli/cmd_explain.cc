// `orrery explain --cluster SNAP ns/name [--config F] [--top N] [--seed N] [--strict] [-o json]`:
// how kube-default (or the configured profile) decides for one pending pod of a snapshot — every
// node's filter verdict with its reasons, each score plugin's raw and normalised score, weight and
// weighted contribution on the best nodes, then the cycle kube-scheduler would run now: the node
// it binds to (node sampling and tie-breaking included), or the FitError and what preemption
// would do (which node, which victims).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/snapshot_setup.h"
#include "core/error.h"
#include "util/suggest.h"

namespace orrery::cli {
namespace {

using ordered_json = nlohmann::ordered_json;

struct ExplainOptions {
  std::string cluster, config, pod, output = "table";
  uint64_t seed = 0;
  size_t top = 5;
  bool strict = false;
};

// "ns/name" or "name" (namespace default) → the pending pod; errors name what is wrong.
PodId find_pending_pod(const ClusterState& st, const std::string& path, const std::string& arg) {
  const size_t slash = arg.find('/');
  const std::string ns = slash == std::string::npos ? "default" : arg.substr(0, slash);
  const std::string name = slash == std::string::npos ? arg : arg.substr(slash + 1);
  std::optional<PodId> id = st.find_pod(ns, name);
  if (!id) {
    std::vector<std::string> pending;
    for (PodId p : st.pods())
      if (st.pod_node(p) == kNoNode && !is_terminal(st.pod(p).phase))
        pending.push_back(st.pod(p).key());
    throw InputError(path + ": no pod " + ns + "/" + name + " among the snapshot's " +
                     std::to_string(pending.size()) + " pending pod(s)" +
                     did_you_mean(ns + "/" + name, pending));
  }
  const Pod& pod = st.pod(*id);
  if (st.pod_node(*id) != kNoNode)
    throw InputError(path + ": pod " + pod.key() + " is not pending: it is bound to " +
                     st.node(st.pod_node(*id)).name);
  if (is_terminal(pod.phase))
    throw InputError(path + ": pod " + pod.key() + " is not pending: it has finished");
  return *id;
}

// Feasible nodes best first (total, then name), infeasible ones after in node order.
std::vector<size_t> ranking(const ClusterState& st, const std::vector<fw::NodeEvaluation>& evals) {
  std::vector<size_t> order(evals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = evals[a];
    const auto& y = evals[b];
    if (x.feasible != y.feasible) return x.feasible;
    if (!x.feasible) return false;
    if (x.total != y.total) return x.total > y.total;
    return st.node(x.node).name < st.node(y.node).name;
  });
  return order;
}

struct Decision {
  bool scheduled = false;
  std::string node, message;
  bool gated = false, terminating = false;
  // Preemption (when no node fits): the node nominated and the victims evicted.
  std::string nominated;
  std::vector<std::string> victims;
};

Decision decide(fw::Scheduler& scheduler, fw::SnapshotBackend& backend, PodId id) {
  const ClusterState& st = backend.state();
  const Pod& pod = st.pod(id);
  Decision d;
  if (!pod.scheduling_gates.empty()) {
    d.gated = true;
    std::string gates;
    for (const std::string& g : pod.scheduling_gates) gates += (gates.empty() ? "" : ", ") + g;
    d.message = "the pod has scheduling gates (" + gates +
                "): kube-scheduler keeps it out of the queue until they are removed";
    return d;
  }
  if (pod.terminating) {
    d.terminating = true;
    d.message = "the pod is being deleted (deletionTimestamp): kube-scheduler skips it";
    return d;
  }
  const size_t deleted_before = backend.deletions().size();
  const fw::ScheduleOutcome o = scheduler.attempt(id);
  d.scheduled = o.scheduled;
  if (o.scheduled) {
    d.node = st.node(o.node).name;
  } else {
    d.message = o.message;
    if (o.nominated_node != kNoNode) d.nominated = st.node(o.nominated_node).name;
    for (size_t i = deleted_before; i < backend.deletions().size(); ++i)
      d.victims.push_back(backend.deletions()[i].pod);
  }
  return d;
}

ordered_json to_json(const ClusterState& st, const Pod& pod, const std::string& profile,
                     const std::vector<fw::NodeEvaluation>& evals, const std::vector<size_t>& order,
                     size_t top, const Decision& d) {
  ordered_json j;
  j["pod"] = pod.key();
  j["profile"] = profile;
  j["priority"] = pod.spec->priority;
  j["nodes"] = ordered_json::array();
  size_t rank = 0;
  for (size_t i : order) {
    const fw::NodeEvaluation& e = evals[i];
    ordered_json n;
    n["node"] = st.node(e.node).name;
    n["feasible"] = e.feasible;
    n["reasons"] = e.reasons;
    if (e.feasible) {
      n["rank"] = ++rank;
      n["scores"] = ordered_json::array();
      for (const auto& s : e.details) {
        n["scores"].push_back({{"plugin", s.plugin},
                               {"raw", s.raw},
                               {"normalized", s.normalized},
                               {"weight", s.weight},
                               {"weighted", s.normalized * s.weight},
                               {"skipped", s.skipped}});
      }
      n["total"] = e.total;
    }
    j["nodes"].push_back(std::move(n));
  }
  j["top"] = ordered_json::array();
  for (size_t k = 0; k < std::min(top, order.size()) && evals[order[k]].feasible; ++k)
    j["top"].push_back(st.node(evals[order[k]].node).name);
  ordered_json dec;
  dec["scheduled"] = d.scheduled;
  dec["node"] = d.scheduled ? ordered_json(d.node) : ordered_json(nullptr);
  dec["gated"] = d.gated;
  dec["terminating"] = d.terminating;
  dec["message"] = d.message;
  ordered_json pre;
  pre["helps"] = !d.nominated.empty();
  pre["node"] = d.nominated.empty() ? ordered_json(nullptr) : ordered_json(d.nominated);
  pre["victims"] = d.victims;
  dec["preemption"] = std::move(pre);
  j["decision"] = std::move(dec);
  return j;
}

void print_human(const ClusterState& st, const Pod& pod, const std::string& profile,
                 const std::vector<fw::NodeEvaluation>& evals, const std::vector<size_t>& order,
                 size_t top, const Decision& d) {
  size_t feasible = 0;
  for (const auto& e : evals) feasible += e.feasible;
  std::printf("Pod %s (priority %d, profile %s): %zu of %zu node(s) pass the filters.\n\n",
              pod.key().c_str(), pod.spec->priority, profile.c_str(), feasible, evals.size());

  std::vector<std::vector<std::string>> rows = {{"NODE", "FILTERS", "REASONS"}};
  for (const auto& e : evals) {
    std::string reasons;
    for (const std::string& r : e.reasons) reasons += (reasons.empty() ? "" : "; ") + r;
    rows.push_back({st.node(e.node).name, e.feasible ? "pass" : "fail", reasons});
  }
  print_table(rows);

  const size_t shown = std::min(top, feasible);
  if (shown > 0) {
    std::printf("\nScores of the top %zu node(s): raw -> normalised (0-100), times the weight\n",
                shown);
    std::vector<std::vector<std::string>> score_rows = {{"PLUGIN", "WEIGHT"}};
    for (size_t k = 0; k < shown; ++k) score_rows[0].push_back(st.node(evals[order[k]].node).name);
    const auto& first = evals[order[0]].details;
    for (size_t p = 0; p < first.size(); ++p) {
      std::vector<std::string> r = {first[p].plugin, std::to_string(first[p].weight)};
      for (size_t k = 0; k < shown; ++k) {
        const auto& s = evals[order[k]].details[p];
        r.push_back(s.skipped ? "skip"
                              : std::to_string(s.raw) + " -> " + std::to_string(s.normalized));
      }
      score_rows.push_back(std::move(r));
    }
    std::vector<std::string> total = {"TOTAL", ""};
    for (size_t k = 0; k < shown; ++k) total.push_back(std::to_string(evals[order[k]].total));
    score_rows.push_back(std::move(total));
    print_table(score_rows);
  }

  std::printf("\nDecision: ");
  if (d.gated || d.terminating) {
    std::printf("not scheduled: %s.\n", d.message.c_str());
  } else if (d.scheduled) {
    std::printf("kube-scheduler binds %s to %s", pod.key().c_str(), d.node.c_str());
    if (shown > 1 && evals[order[0]].total == evals[order[1]].total)
      std::printf(" (nodes tied at the top total: one is chosen at random; --seed changes it)");
    std::printf(".\n");
  } else {
    std::printf("unschedulable: %s\n", d.message.c_str());
    if (!d.nominated.empty()) {
      std::string victims;
      for (const std::string& v : d.victims) victims += (victims.empty() ? "" : ", ") + v;
      std::printf("Preemption helps: the pod is nominated to %s after evicting %s.\n",
                  d.nominated.c_str(), victims.empty() ? "nothing" : victims.c_str());
    } else {
      std::printf("Preemption does not help.\n");
    }
  }
}

int run_explain(const ExplainOptions& opt) {
  if (opt.output != "table" && opt.output != "json")
    throw InputError("-o: expected table or json, got \"" + opt.output + "\"");
  if (opt.top == 0) throw InputError("--top: expected at least 1");
  ClusterState state = load_cluster(opt.cluster, load_k8s_objects(opt.cluster), opt.strict);
  SchedulerSetup setup = load_scheduler_setup(opt.config, opt.strict);
  fw::SnapshotBackend backend(std::move(state));
  fw::Scheduler scheduler(backend, std::move(setup.profiles),
                          scheduler_options(setup.config, opt.seed));
  const ClusterState& st = backend.state();
  const PodId id = find_pending_pod(st, opt.cluster, opt.pod);
  const Pod pod = st.pod(id);  // a copy: the attempt below may change the state
  const fw::Profile* prof = scheduler.profile_for(pod);
  if (!prof) {
    throw InputError(opt.cluster + ": pod " + pod.key() + " has schedulerName \"" +
                     std::string(interned(pod.spec->scheduler_name)) +
                     "\", which no profile of the configuration serves");
  }
  const std::string profile = prof->scheduler_name;
  const std::vector<fw::NodeEvaluation> evals = scheduler.evaluate(id);
  const std::vector<size_t> order = ranking(st, evals);
  // Names first: the attempt may delete victims, but nodes stay.
  const Decision d = decide(scheduler, backend, id);
  if (opt.output == "json") {
    std::cout << to_json(st, pod, profile, evals, order, opt.top, d).dump(2) << "\n";
  } else {
    print_human(st, pod, profile, evals, order, opt.top, d);
  }
  return 0;
}

}  // namespace

void register_explain(CLI::App& root, CommandTable& table) {
  auto opt = std::make_shared<ExplainOptions>();
  CLI::App* e = root.add_subcommand(
      "explain", "Explain how kube-scheduler would decide for one pending pod of a snapshot");
  e->add_option("pod", opt->pod, "The pending pod, as namespace/name (or name in \"default\")")
      ->required();
  e->add_option("--cluster", opt->cluster,
                "Nodes and pods as Kubernetes YAML/JSON (`kubectl get nodes,pods -A -o yaml`)")
      ->required();
  e->add_option("--config", opt->config, "KubeSchedulerConfiguration; default: kube-default");
  e->add_option("--top", opt->top, "How many of the best nodes to show scores for")
      ->check(non_negative_integer())
      ->default_val(5);
  e->add_option("--seed", opt->seed, "Seed for tie-breaking among equally scored nodes")
      ->check(non_negative_integer())
      ->default_val(0);
  e->add_flag("--strict", opt->strict,
              "Fail (exit 1) instead of warning when the input uses fields or objects orrery "
              "does not model");
  e->add_option("-o,--output", opt->output, "Output format: table (default) or json");
  e->footer(
      "Filters and scores are evaluated on every node (as with percentageOfNodesToScore 100); the "
      "decision is the cycle kube-scheduler would run now, with the configuration's node "
      "sampling. JSON: {\"pod\", \"profile\", \"priority\", \"nodes\": [{\"node\", \"feasible\", "
      "\"reasons\", \"rank\", \"scores\": [{\"plugin\", \"raw\", \"normalized\", \"weight\", "
      "\"weighted\", \"skipped\"}], \"total\"}], \"top\", \"decision\": {\"scheduled\", "
      "\"node\", \"gated\", \"terminating\", \"message\", \"preemption\": {\"helps\", \"node\", "
      "\"victims\"}}}.");
  table.push_back({e, [opt] { return run_explain(*opt); }});
}

}  // namespace orrery::cli
