#include "experiments/optpack/repro.h"

#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>

#include "core/error.h"
#include "io/files.h"
#include "util/sweep.h"
#include "experiments/harness.h"
#include "experiments/optpack/evaluation.h"
#include "report/document.h"

namespace orrery::optpack {

namespace {

using ordered_json = nlohmann::ordered_json;

struct Found {
  InstanceConfig config;
  uint64_t seed = 0;
  std::string snapshot;
};

// The first `count` seeds of a configuration whose baseline leaves pods pending (at most
// 50 × count seeds are tried).
std::vector<Found> find_instances(const InstanceConfig& c, int count, int* tried) {
  std::vector<Found> out;
  for (uint64_t seed = 0; static_cast<int>(out.size()) < count && seed < 50u * count; ++seed) {
    ++*tried;
    BaselineRun b = run_baseline(generate_instance_yaml(c, seed));
    if (b.pending > 0) out.push_back({c, seed, std::move(b.snapshot_yaml)});
  }
  return out;
}

std::string seconds_label(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%gs", s);
  return b;
}

struct Cell {
  std::array<int, kCategories> count{};
  int n = 0;
  double solve_s = 0, dcpu = 0, dmem = 0;
  void add(const InstanceOutcome& o) {
    ++count[static_cast<int>(o.category)];
    ++n;
    solve_s += o.solve_s;
    dcpu += o.delta_cpu_pct;
    dmem += o.delta_mem_pct;
  }
  double share(Category c) const { return n ? 100.0 * count[static_cast<int>(c)] / n : NAN; }
};

}  // namespace

namespace {

namespace fs = std::filesystem;

// The configurations of the sweep (Figure 3's axes, Table 1's usage levels).
struct Grid {
  std::vector<int> node_counts, ppns, tiers, usages;
  int per_config = 0;
  std::vector<InstanceConfig> configs;
};

Grid grid_of(const ReproOptions& o) {
  Grid g;
  g.node_counts = o.quick ? std::vector<int>{4, 8, 16, 32} : std::vector<int>{4, 8, 16, 32};
  g.ppns = {4, 8};
  g.tiers = {1, 2, 4};
  g.usages = o.quick ? std::vector<int>{95, 105} : std::vector<int>{90, 95, 100, 105};
  g.per_config = o.instances > 0 ? o.instances : (o.quick ? 4 : 100);
  for (int n : g.node_counts)
    for (int ppn : g.ppns)
      for (int t : g.tiers)
        for (int u : g.usages) g.configs.push_back({n, ppn, t, u});
  return g;
}

// The instances (the baseline runs) in parallel, one task per configuration; every process of a
// sharded sweep finds them all (deterministic), and writes them to DIR/instances/.
std::vector<Found> find_all(const ReproOptions& o, const Grid& g, std::vector<int>* tried) {
  tried->assign(g.configs.size(), 0);
  const std::vector<std::vector<Found>> found = run_sweep(g.configs.size(), o.jobs, [&](size_t i) {
    return find_instances(g.configs[i], g.per_config, &(*tried)[i]);
  });
  std::vector<Found> all;
  for (const auto& f : found) all.insert(all.end(), f.begin(), f.end());
  for (const Found& f : all)
    write_file_atomic((fs::path(o.out_dir) / "instances" /
                       (config_name(f.config) + "-s" + std::to_string(f.seed) + ".yaml"))
                          .string(),
                      f.snapshot);
  return all;
}

struct Task {
  size_t instance;
  double timeout;
};

// Per (config, timeout) for summary.json; per (nodes, ppn, tiers, timeout) over usage for
// Figure 3; per (usage, ppn, nodes) at 4 tiers and the largest timeout for Table 1.
struct Aggregates {
  std::map<std::tuple<int, int, int, int, double>, Cell> by_config;
  std::map<std::tuple<int, int, int, double>, Cell> fig3;
  std::map<std::tuple<int, int, int>, Cell> table1;
  double tmax = 0;
};

Aggregates aggregate(const ReproOptions& o, const std::vector<Found>& all,
                     const std::vector<Task>& tasks, const std::vector<InstanceOutcome>& outcomes) {
  Aggregates a;
  a.tmax = *std::max_element(o.timeouts.begin(), o.timeouts.end());
  for (size_t k = 0; k < tasks.size(); ++k) {
    const InstanceConfig& c = all[tasks[k].instance].config;
    const double t = tasks[k].timeout;
    a.by_config[{c.nodes, c.pods_per_node, c.tiers, c.usage_pct, t}].add(outcomes[k]);
    a.fig3[{c.nodes, c.pods_per_node, c.tiers, t}].add(outcomes[k]);
    if (c.tiers == 4 && t == a.tmax)
      a.table1[{c.usage_pct, c.pods_per_node, c.nodes}].add(outcomes[k]);
  }
  return a;
}

ordered_json summary_json(const ReproOptions& o, const Grid& g, const std::vector<int>& tried,
                          const Aggregates& a) {
  const std::vector<InstanceConfig>& configs = g.configs;
  const std::vector<int>& node_counts = g.node_counts;
  const auto& by_config = a.by_config;
  const auto& fig3 = a.fig3;
  ordered_json summary;
  summary["instances_per_configuration"] = g.per_config;
  summary["timeouts_s"] = o.timeouts;
  summary["deterministic"] = o.deterministic;
  summary["configurations"] = ordered_json::array();
  for (size_t i = 0; i < configs.size(); ++i)
    for (double t : o.timeouts) {
      const InstanceConfig& c = configs[i];
      auto it = by_config.find({c.nodes, c.pods_per_node, c.tiers, c.usage_pct, t});
      ordered_json e{{"nodes", c.nodes},
                     {"pods_per_node", c.pods_per_node},
                     {"tiers", c.tiers},
                     {"usage", c.usage_pct},
                     {"timeout_s", t},
                     {"seeds_tried", tried[i]},
                     {"instances", it == by_config.end() ? 0 : it->second.n}};
      ordered_json shares = ordered_json::object();
      for (int k = 0; k < kCategories; ++k) {
        const double v = it == by_config.end() ? 0 : it->second.share(static_cast<Category>(k));
        shares[std::string(to_string(static_cast<Category>(k)))] = std::isfinite(v) ? v : 0.0;
      }
      e["categories_pct"] = shares;
      if (it != by_config.end() && it->second.n) {
        e["solver_time_s_mean"] = it->second.solve_s / it->second.n;
        e["delta_cpu_util_pct_mean"] = it->second.dcpu / it->second.n;
        e["delta_mem_util_pct_mean"] = it->second.dmem / it->second.n;
      }
      summary["configurations"].push_back(e);
    }
  // Headline: Better or Baseline-Optimal per cluster size and timeout.
  summary["better_or_baseline_optimal_pct"] = ordered_json::array();
  for (int n : node_counts)
    for (double t : o.timeouts) {
      int good = 0, total = 0;
      for (const auto& [key, cell] : fig3)
        if (std::get<0>(key) == n && std::get<3>(key) == t) {
          good += cell.count[0] + cell.count[1] + cell.count[2];
          total += cell.n;
        }
      summary["better_or_baseline_optimal_pct"].push_back(
          {{"nodes", n},
           {"timeout_s", t},
           {"instances", total},
           {"pct", total ? 100.0 * good / total : 0.0}});
    }
  return summary;
}

void figure3(report::Document& doc, const ReproOptions& o, const Grid& g, const Aggregates& a) {
  const std::vector<int>& node_counts = g.node_counts;
  const std::vector<int>& ppns = g.ppns;
  const std::vector<int>& tiers = g.tiers;
  const auto& fig3 = a.fig3;
  doc.section("Figure 3: instance categories");
  for (int t : tiers)
    for (int ppn : ppns) {
      report::BarChart ch;
      ch.title = std::to_string(t) + " tier(s), " + std::to_string(ppn) + " pods per node";
      ch.x_label = "nodes / timeout";
      ch.y.label = "instances (%)";
      ch.stacked = true;
      for (int k = 0; k < kCategories; ++k)
        ch.series.push_back({std::string(to_string(static_cast<Category>(k))), {}, {}, {}});
      for (int n : node_counts)
        for (double to : o.timeouts) {
          ch.groups.push_back(std::to_string(n) + " / " + seconds_label(to));
          auto it = fig3.find({n, ppn, t, to});
          for (int k = 0; k < kCategories; ++k)
            ch.series[k].value.push_back(
                it == fig3.end() ? NAN : it->second.share(static_cast<Category>(k)));
        }
      doc.chart(ch);
    }
}

report::Table table1_of(const Grid& g, const Aggregates& a) {
  const std::vector<int>& node_counts = g.node_counts;
  const std::vector<int>& ppns = g.ppns;
  const std::vector<int>& usages = g.usages;
  const auto& table1 = a.table1;
  report::Table tab;
  tab.columns = {"usage", "metric"};
  for (int ppn : ppns)
    for (int n : node_counts)
      tab.columns.push_back("ppn " + std::to_string(ppn) + ", " + std::to_string(n) + " nodes");
  for (int u : usages) {
    const char* names[3] = {"solver duration (s)", "Δ cpu util (%)", "Δ mem util (%)"};
    for (int metric = 0; metric < 3; ++metric) {
      std::vector<report::Cell> row = {std::to_string(u) + "%", names[metric]};
      for (int ppn : ppns)
        for (int n : node_counts) {
          auto it = table1.find({u, ppn, n});
          if (it == table1.end() || it->second.n == 0) {
            row.push_back("-");
            continue;
          }
          const Cell& c = it->second;
          row.push_back(metric == 0 ? c.solve_s / c.n : metric == 1 ? c.dcpu / c.n : c.dmem / c.n);
        }
      tab.add_row(row);
    }
  }
  return tab;
}

// A solved instance's outcome in shard files (experiments/harness.h), numbers exactly.
experiments::Codec<InstanceOutcome> outcome_codec() {
  using experiments::real;
  using experiments::real_of;
  experiments::Codec<InstanceOutcome> c;
  c.encode = [](const InstanceOutcome& r) {
    return ordered_json::array({static_cast<int>(r.category), real(r.solve_s),
                                real(r.delta_cpu_pct), real(r.delta_mem_pct), r.placed_before,
                                r.placed_after});
  };
  c.decode = [](const ordered_json& j) {
    InstanceOutcome r;
    r.category = static_cast<Category>(j.at(0).get<int>());
    r.solve_s = real_of(j.at(1));
    r.delta_cpu_pct = real_of(j.at(2));
    r.delta_mem_pct = real_of(j.at(3));
    r.placed_before = j.at(4).get<int>();
    r.placed_after = j.at(5).get<int>();
    return r;
  };
  return c;
}

std::optional<std::vector<InstanceOutcome>> solve_all(const ReproOptions& o,
                                                      const std::vector<Found>& all,
                                                      const std::vector<Task>& tasks) {
  return experiments::sweep<InstanceOutcome>(
      o.distribution, o.out_dir, tasks.size(), o.jobs,
      [&](size_t k) {
        OptimizeOptions so;
        so.timeout_s = tasks[k].timeout;
        so.deterministic = o.deterministic;
        so.seed = all[tasks[k].instance].seed;
        return evaluate_snapshot(all[tasks[k].instance].snapshot, so);
      },
      outcome_codec(),
      [&](const SweepStep& s, const InstanceOutcome&) {
        if (o.progress) o.progress(s.done, s.total);
      });
}

}  // namespace

ReproResult run_repro(const ReproOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const Grid g = grid_of(o);
  const int per_config = g.per_config;
  std::error_code ec;
  fs::create_directories(fs::path(o.out_dir) / "instances", ec);
  if (ec) throw InputError(o.out_dir + ": cannot create the output directory: " + ec.message());
  std::vector<int> tried;
  const std::vector<Found> all = find_all(o, g, &tried);

  // Solve each instance at each timeout.
  std::vector<Task> tasks;
  for (size_t i = 0; i < all.size(); ++i)
    for (double t : o.timeouts) tasks.push_back({i, t});
  ReproResult r;
  r.instances = all.size();
  const std::optional<std::vector<InstanceOutcome>> outcomes = solve_all(o, all, tasks);
  if (!outcomes) {
    r.shard_note = experiments::shard_message(o.distribution, o.out_dir, tasks.size());
    return r;
  }
  const Aggregates a = aggregate(o, all, tasks, *outcomes);
  const ordered_json summary = summary_json(o, g, tried, a);
  write_file_atomic((fs::path(o.out_dir) / "summary.json").string(), summary.dump(2) + "\n");

  report::Document doc("Priority-optimal packing: reproduction of Christensen et al.");
  doc.section("Setup").paragraph(
      "Instances as the paper's generator (identical nodes, ReplicaSets of 1-4 replicas, cpu and "
      "memory uniform in [100, 1000] millicores / MiB, node capacity = demand / (nodes x usage)); "
      "the first " +
      std::to_string(per_config) +
      " seeds per configuration where the deterministic kube-default baseline (lexicographic "
      "tie-break, one pod at a time, preemption off) leaves pods pending. Solved in process on "
      "one core by orrery's portfolio (local search, branch-and-bound, CBC).");
  figure3(doc, o, g, a);
  doc.section("Table 1: solver duration and utilisation gain (4 tiers, timeout " +
              seconds_label(a.tmax) + ")");
  doc.table(table1_of(g, a));
  doc.section("Better or Baseline-Optimal");
  report::Table head;
  head.columns = {"nodes", "timeout", "instances", "Better or Baseline-Optimal (%)"};
  for (const auto& e : summary["better_or_baseline_optimal_pct"])
    head.add_row({e["nodes"].get<int>(), seconds_label(e["timeout_s"].get<double>()),
                  e["instances"].get<int>(), e["pct"].get<double>()});
  doc.table(head);
  r.html = (fs::path(o.out_dir) / "report.html").string();
  doc.write(r.html);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace orrery::optpack
