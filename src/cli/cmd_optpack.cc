// `orrery solve` and `orrery repro optpack`: the priority-optimal packer (paper 003) on a cluster
// snapshot, and its evaluation.
//
//   orrery solve --cluster SNAP.yaml [--config SCHED.yaml] [--timeout 1s] [--alpha 0.8]
//                [--deterministic] [--seed N] --out plan.json
//     prints a table per tier (pods, placed before → after, status of each phase, time) and the
//     moves and evictions; writes
//     {"status":"improved"|"baseline-optimal"|"no-improvement"|"failed","solve_time_s":x,
//      "tiers":[{"priority","pods","placed_before","placed_after","placement_status",
//                "disruption","disruption_status"}],
//      "placements":[{"pod","from","to"}], "steps":[{"action","pod","node"}]}
//     Exit 0 when a plan or a proof was produced, 1 for input errors.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "cli/sweep_flags.h"
#include "core/error.h"
#include "experiments/optpack/repro.h"
#include "framework/config.h"
#include "io/files.h"
#include "io/k8s_objects.h"
#include "plugins/register.h"
#include "policies/optpack/optimizer.h"
#include "policies/optpack/plan.h"
#include "policies/optpack/snapshot.h"
#include "util/distribution.h"

namespace orrery::cli {

namespace {

using ordered_json = nlohmann::ordered_json;

struct SolveFlags {
  std::string cluster, config, out, timeout = "1s";
  double alpha = 0.8;
  bool deterministic = false;
  uint64_t seed = 0;
  size_t max_pods = 0, max_nodes = 0;
  std::vector<std::string> solvers = {"local-search", "bnb", "cbc"};
};

double parse_timeout(const std::string& text) {
  const Time us = parse_duration_text(text, "--timeout");
  if (us <= 0)
    throw InputError("--timeout: must be positive (got \"" + text +
                     "\"); a 0 s budget cannot produce a plan or a proof");
  if (us > 3600LL * 1000000) throw InputError("--timeout: at most 1h (got \"" + text + "\")");
  return static_cast<double>(us) / 1e6;
}

void print_rows(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w;
  for (const auto& r : rows) {
    w.resize(std::max(w.size(), r.size()));
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(w[i] - r[i].size() + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fs", s);
  return buf;
}

// The optimizer's options from the flags; throws for an unknown --solvers entry.
optpack::OptimizeOptions optimize_options(const SolveFlags& f, double timeout) {
  optpack::OptimizeOptions o;
  o.timeout_s = timeout;
  o.alpha = f.alpha;
  o.deterministic = f.deterministic;
  o.seed = f.seed;
  auto uses = [&](const char* s) {
    return std::find(f.solvers.begin(), f.solvers.end(), s) != f.solvers.end();
  };
  for (const std::string& s : f.solvers)
    if (s != "local-search" && s != "bnb" && s != "cbc")
      throw InputError("--solvers: unknown solver \"" + s + "\" (expected local-search, bnb, cbc)");
  o.use_local_search = uses("local-search");
  o.use_bnb = uses("bnb");
  o.use_cbc = uses("cbc");
  return o;
}

// The plan's status; a result that does not improve on the current placement is replaced by it.
std::string solve_status(const optpack::SnapshotModel& sm, optpack::OptimizeResult& r) {
  std::string status;
  std::string why;
  const bool improved = r.improves_on_current();
  if (!improved) r.assignment = optpack::current_assignment(sm.model);  // nothing to change
  if (!optpack::respects_capacity(sm.model, r.assignment, &why) &&
      optpack::respects_capacity(sm.model, optpack::current_assignment(sm.model))) {
    status = "failed";
  } else if (improved) {
    status = "improved";
  } else if (r.placement_proven()) {
    status = "baseline-optimal";
  } else {
    status = "no-improvement";
  }
  return status;
}

// The table per tier, the moves and evictions, and the summary line.
void print_solve(const std::string& status, const optpack::OptimizeResult& r,
                 const optpack::Changes& ch) {
  std::vector<std::vector<std::string>> rows = {
      {"PRIORITY", "PODS", "PLACED", "PLACEMENT", "DISRUPTION", "STATUS", "TIME"}};
  for (const auto& t : r.tiers)
    rows.push_back({std::to_string(t.priority), std::to_string(t.pods),
                    std::to_string(t.placed_before) + " -> " + std::to_string(t.placed_after),
                    std::string(optpack::to_string(t.placement.status)),
                    std::to_string(t.disruption),
                    std::string(optpack::to_string(t.disruption_phase.status)),
                    fmt_seconds(t.placement.seconds + t.disruption_phase.seconds)});
  print_rows(rows);
  std::vector<std::vector<std::string>> moves = {{"POD", "FROM", "TO"}};
  for (const auto& p : ch.placements)
    if (!p.from.empty() && p.from != p.to)
      moves.push_back({p.pod, p.from, p.to.empty() ? "(evicted)" : p.to});
  if (moves.size() > 1) {
    std::printf("\n");
    print_rows(moves);
  }
  std::printf("\n%s: %d move(s), %d eviction(s), %d new bind(s), solved in %.3f s\n",
              status.c_str(), ch.moves, ch.evictions, ch.new_binds, r.seconds);
}

// The --out plan: status, solve time, tiers, placements and steps.
ordered_json solve_json(const std::string& status, const optpack::OptimizeResult& r,
                        const optpack::Changes& ch) {
  ordered_json j;
  j["status"] = status;
  j["solve_time_s"] = std::round(r.seconds * 1e6) / 1e6;
  j["tiers"] = ordered_json::array();
  for (const auto& t : r.tiers)
    j["tiers"].push_back({{"priority", t.priority},
                          {"pods", t.pods},
                          {"placed_before", t.placed_before},
                          {"placed_after", t.placed_after},
                          {"placement_status", optpack::to_string(t.placement.status)},
                          {"disruption", t.disruption},
                          {"disruption_status", optpack::to_string(t.disruption_phase.status)}});
  auto node_or_null = [](const std::string& n) {
    return n.empty() ? ordered_json(nullptr) : ordered_json(n);
  };
  j["placements"] = ordered_json::array();
  for (const auto& p : ch.placements)
    j["placements"].push_back(
        {{"pod", p.pod}, {"from", node_or_null(p.from)}, {"to", node_or_null(p.to)}});
  j["steps"] = ordered_json::array();
  for (const auto& s : ch.steps)
    j["steps"].push_back({{"action", s.action}, {"pod", s.pod}, {"node", s.node}});
  return j;
}

int run_solve(const SolveFlags& f) {
  const double timeout = parse_timeout(f.timeout);
  if (!(f.alpha > 0 && f.alpha <= 1)) throw InputError("--alpha: expected a number in (0, 1]");
  K8sObjects objects = load_k8s_objects(f.cluster);
  if (objects.nodes.empty())
    throw InputError(f.cluster + ": the cluster has no nodes (expected Node objects)");
  for (const std::string& w : k8s_warnings(objects))
    std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
  ClusterState state = [&] {
    try {
      return build_cluster(objects);
    } catch (const InputError& e) {
      throw InputError(f.cluster + ": " + e.what());
    }
  }();
  fw::PluginRegistry registry;
  plugins::register_default_plugins(registry);
  const fw::SchedulerConfig config =
      f.config.empty() ? fw::default_scheduler_config() : fw::load_scheduler_config(f.config);
  std::vector<std::string> warnings;
  auto profiles = plugins::build_profiles(config, registry, &warnings);
  for (const auto& w : warnings) std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
  optpack::SnapshotModel sm =
      optpack::build_model(state, *profiles.front(), {f.max_pods, f.max_nodes});
  for (const auto& w : sm.warnings) std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
  for (const auto& s : sm.skipped)
    std::fprintf(stderr, "orrery: note: %s not considered: %s\n", s.pod.c_str(), s.reason.c_str());

  optpack::OptimizeResult r = optpack::optimize(sm.model, optimize_options(f, timeout));

  const std::string status = solve_status(sm, r);
  const optpack::Changes ch = optpack::describe_changes(sm, r.assignment);

  print_solve(status, r, ch);
  write_file_atomic(f.out, solve_json(status, r, ch).dump(2) + "\n");
  return status == "failed" ? 2 : 0;
}

}  // namespace

void register_optpack(CLI::App& root, CommandTable& table) {
  auto f = std::make_shared<SolveFlags>();
  CLI::App* app = root.add_subcommand(
      "solve",
      "Priority-optimal packing (Christensen et al.): tier by tier, place the most pods of each "
      "priority and move the fewest, and write the plan");
  app->add_option("--cluster", f->cluster, "Snapshot of nodes and pods (YAML or JSON)")->required();
  app->add_option("--config", f->config, "KubeSchedulerConfiguration (filters for feasibility)");
  app->add_option("--timeout", f->timeout, "Total solver budget T_total (default 1s)");
  app->add_option("--alpha", f->alpha, "Fraction of T_total reserved per tier (default 0.8)");
  app->add_flag("--deterministic", f->deterministic,
                "Measure the budget in work units, not wall time: same input, same plan");
  app->add_option("--seed", f->seed, "Seed of the local search")->check(non_negative_integer());
  app->add_option("--max-pods", f->max_pods,
                  "Refuse clusters with more movable pods (0: no limit)");
  app->add_option("--max-nodes", f->max_nodes, "Refuse clusters with more nodes (0: no limit)");
  app->add_option("--solvers", f->solvers,
                  "Parts of the portfolio to run (default local-search,bnb,cbc)")
      ->delimiter(',');
  app->add_option("--out", f->out, "Where to write plan.json")->required();
  table.push_back({app, [f]() { return run_solve(*f); }});

  CLI::App& repro = repro_command(root);
  auto ro = std::make_shared<optpack::ReproOptions>();
  auto ts = std::make_shared<std::string>();
  CLI::App* rp = repro.add_subcommand(
      "optpack", "Priority-optimal packing (Christensen et al.): Figure 3 categories and Table 1");
  rp->add_option("--out", ro->out_dir, "Output directory (report.html, summary.json, instances/)")
      ->required();
  rp->add_flag("--quick", ro->quick,
               "Usage 95% and 105% only, 4 instances per configuration (a few minutes)");
  rp->add_option("--timeouts", *ts, "Solver budgets T_total, comma-separated (default 1s)");
  rp->add_option("--jobs", ro->jobs, "Instances solved in parallel (default 1)")
      ->check(CLI::Range(1, 256));
  rp->add_option("--instances", ro->instances,
                 "Instances per configuration (default 100, or 4 with --quick)")
      ->check(CLI::Range(1, 100000));
  rp->add_flag("--deterministic", ro->deterministic, "Budgets in work units, not wall time");
  auto sweep = std::make_shared<SweepFlags>();
  add_sweep_flags(rp, sweep.get());
  table.push_back({rp, [rp, ro, ts, sweep]() {
                     optpack::ReproOptions o = *ro;
                     o.distribution = sweep_distribution(rp, *sweep);
                     if (!ts->empty()) {
                       o.timeouts.clear();
                       size_t start = 0;
                       while (start <= ts->size()) {
                         size_t end = ts->find(',', start);
                         if (end == std::string::npos) end = ts->size();
                         o.timeouts.push_back(parse_timeout(ts->substr(start, end - start)));
                         start = end + 1;
                       }
                     }
                     if (isatty(fileno(stderr)))
                       o.progress = [](size_t done, size_t total) {
                         std::fprintf(stderr, "\roptpack: %zu/%zu solves", done, total);
                         if (done == total) std::fprintf(stderr, "\n");
                       };
                     const optpack::ReproResult r = optpack::run_repro(o);
                     if (!r.shard_note.empty()) {
                       std::printf("%s\n", r.shard_note.c_str());
                       return 0;
                     }
                     std::printf("wrote %s (%zu instances, %.1f s)\n", r.html.c_str(), r.instances,
                                 r.wall_s);
                     return 0;
                   }});
}

}  // namespace orrery::cli
