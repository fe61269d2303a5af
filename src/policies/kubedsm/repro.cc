#include "policies/kubedsm/repro.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/files.h"
#include "policies/kubedsm/evaluation.h"
#include "report/document.h"
#include "sim/metrics.h"

namespace orrery::kubedsm {
namespace {

using sim::fmt_double;
using sim::Json;

const char* const kDeployments[] = {"A", "B", "C", "D"};

struct Scheduler {
  const char* label;
  const char* policy;
};
const Scheduler kSchedulers[] = {{"KubeDSM", "kubedsm"}, {"K8S", "k8s"}, {"Random", "random"},
                                 {"BEF", "bef"},         {"SEF", "sef"}, {"CF", "cf"}};

struct Variant {
  const char* label;
  int m_c2e, m_er;
};
const Variant kVariants[] = {
    {"Original", 5, 3}, {"MidMig", 2, 1}, {"NoCloudOffload", 0, 3}, {"NoEdgeMig", 5, 0}};

struct QosScenario {
  const char* label;
  std::map<std::string, double> targets;  // empty: every deployment 1 (the default)
};
const std::vector<QosScenario>& qos_scenarios() {
  static const std::vector<QosScenario> q = {
      {"Original", {}},
      {"AllHalf", {{"A", 0.5}, {"B", 0.5}, {"C", 0.5}, {"D", 0.5}}},
      {"C>A", {{"A", 0.5}, {"B", 0.1}, {"C", 1.0}, {"D", 0.1}}},
      {"RespectD", {{"A", 0.1}, {"B", 0.1}, {"C", 0.1}, {"D", 0.5}}}};
  return q;
}

// One bar of one figure: the runs of `spec` with seeds 1..n.
struct Point {
  std::string figure;
  std::string group;   // e.g. the scenario "1.5_0.4"
  std::string series;  // e.g. "KubeDSM"
  RunSpec spec;        // seed unset
};

// Per-point values over seeds.
struct Samples {
  std::vector<double> edge, edge_sd, migrations;
  // Per run: the mean over cycles of min(1, 1/f), f the cycle's drawn demand fraction — a
  // ceiling on any scheduler's edge ratio (docs/repro/kubedsm.md "Absolute edge ratios").
  std::vector<double> ceiling;
  std::map<std::string, std::vector<double>> deployment;
};

std::vector<Point> plan(bool quick) {
  const std::vector<double> means = quick ? std::vector<double>{1.1, 1.3, 1.5}
                                          : std::vector<double>{1.1, 1.2, 1.3, 1.4, 1.5, 1.6};
  const std::vector<double> sds =
      quick ? std::vector<double>{0.1, 0.3, 0.5} : std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5};
  std::vector<Point> pts;
  auto spec = [](double mean, double sd) {
    RunSpec r;
    r.mean = mean;
    r.sd = sd;
    return r;
  };
  for (double m : means)
    for (const Scheduler& s : kSchedulers) {
      RunSpec r = spec(m, 0.4);
      r.policy = s.policy;
      pts.push_back({"fig4", scenario_name(m, 0.4), s.label, r});
    }
  for (double sd : sds)
    for (const Scheduler& s : kSchedulers) {
      RunSpec r = spec(1.5, sd);
      r.policy = s.policy;
      pts.push_back({"fig5", scenario_name(1.5, sd), s.label, r});
    }
  for (double m : means) {
    RunSpec k8s = spec(m, 0.4);
    k8s.policy = "k8s";
    pts.push_back({"fig10", scenario_name(m, 0.4), "K8S", k8s});
    for (const Variant& v : kVariants) {
      RunSpec r = spec(m, 0.4);
      r.m_c2e = v.m_c2e;
      r.m_er = v.m_er;
      pts.push_back({"fig10", scenario_name(m, 0.4), v.label, r});
    }
  }
  for (const QosScenario& q : qos_scenarios()) {
    RunSpec r = spec(1.5, 0.4);
    r.qos = q.targets;
    pts.push_back({"fig11", scenario_name(1.5, 0.4), q.label, r});
  }
  for (double m : means)
    for (const char* budget : {"reclaimable", "free"}) {
      RunSpec r = spec(m, 0.4);
      r.suggest_budget = budget;
      pts.push_back(
          {"budget", scenario_name(m, 0.4), std::string("KubeDSM (budget ") + budget + ")", r});
    }
  // The workload reading (docs/repro/kubedsm.md "Workload"): pods per service from the share of
  // the scarcer resource, whole (the default), or of the more plentiful one, rounded up by the HPA.
  for (double m : means)
    for (const char* policy : {"kubedsm", "k8s", "bef"})
      for (const bool max : {false, true}) {
        RunSpec r = spec(m, 0.4);
        r.policy = policy;
        if (max) {
          r.demand_count = "max";
          r.demand_round = false;
        }
        const std::string label = std::string(policy == std::string("kubedsm") ? "KubeDSM"
                                              : policy == std::string("k8s")   ? "K8S"
                                                                               : "BEF") +
                                  (max ? " (max)" : " (min)");
        pts.push_back({"workload", scenario_name(m, 0.4), label, r});
      }
  // Fragmentation bound for Fig. 10: the edge as one node of the same total capacity, where
  // nothing can be fragmented and reordering has nothing to do.
  for (double m : means)
    for (const bool single : {false, true})
      for (const Variant& v : {kVariants[0], kVariants[3]}) {
        RunSpec r = spec(m, 0.4);
        r.m_c2e = v.m_c2e;
        r.m_er = v.m_er;
        if (single) r.edge = "single";
        pts.push_back({"edge", scenario_name(m, 0.4),
                       std::string(v.label) + (single ? " (one edge node)" : " (Table 4)"), r});
      }
  // makeDecision's feasibility: the paper's aggregate test vs subsets that match node by node.
  for (double m : means)
    for (const char* fit : {"approximate", "exact"}) {
      RunSpec r = spec(m, 0.4);
      r.fit_check = fit;
      pts.push_back({"fit", scenario_name(m, 0.4), std::string("KubeDSM (") + fit + " fit)", r});
    }
  // The paper's unbounded cloud (§4.1.1) vs offloads that need room on N5.
  for (double m : means)
    for (const bool bounded : {true, false}) {
      RunSpec r = spec(m, 0.4);
      r.bounded_cloud = bounded;
      pts.push_back({"cloud", scenario_name(m, 0.4),
                     bounded ? "KubeDSM (bounded cloud)" : "KubeDSM (unbounded cloud)", r});
    }
  return pts;
}

// A CSV field, quoted when it holds a comma or a quote (RFC 4180).
std::string field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string qos_text(const std::map<std::string, double>& q) {
  std::string s;
  for (const auto& [d, v] : q) s += fmt::format("{}{}={}", s.empty() ? "" : " ", d, v);
  return s;
}

// Groups and series of one figure, in plan order.
struct FigureLayout {
  std::vector<std::string> groups, series;
};
FigureLayout layout(const std::vector<Point>& pts, const std::string& figure) {
  FigureLayout l;
  for (const Point& p : pts) {
    if (p.figure != figure) continue;
    if (std::find(l.groups.begin(), l.groups.end(), p.group) == l.groups.end())
      l.groups.push_back(p.group);
    if (std::find(l.series.begin(), l.series.end(), p.series) == l.series.end())
      l.series.push_back(p.series);
  }
  return l;
}

using SampleMap = std::map<std::tuple<std::string, std::string, std::string>, Samples>;

const Samples* find(const SampleMap& m, const std::string& f, const std::string& g,
                    const std::string& s) {
  auto it = m.find({f, g, s});
  return it == m.end() ? nullptr : &it->second;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double a = 0;
  for (double x : v) a += x;
  return a / static_cast<double>(v.size());
}

// A grouped bar chart of one metric of a figure.
report::BarChart bars(const SampleMap& m, const std::vector<Point>& pts, const std::string& figure,
                      const std::string& title, const std::string& x_label, const std::string& y,
                      report::Format fmt,
                      const std::function<const std::vector<double>*(const Samples&)>& metric) {
  const FigureLayout l = layout(pts, figure);
  report::BarChart c;
  c.title = title;
  c.x_label = x_label;
  c.y.label = y;
  c.y.format = fmt;
  c.groups = l.groups;
  for (const std::string& s : l.series) {
    report::BarSeries b;
    b.name = s;
    for (const std::string& g : l.groups) {
      const Samples* smp = find(m, figure, g, s);
      const report::ErrorBar e = report::mean_spread(smp ? *metric(*smp) : std::vector<double>{});
      b.value.push_back(e.mean);
      b.lo.push_back(e.lo);
      b.hi.push_back(e.hi);
    }
    c.series.push_back(std::move(b));
  }
  return c;
}

// Per-deployment bars of one group of a figure (groups = deployments).
report::BarChart deployment_bars(const SampleMap& m, const std::vector<Point>& pts,
                                 const std::string& figure, const std::string& group,
                                 const std::string& title) {
  const FigureLayout l = layout(pts, figure);
  report::BarChart c;
  c.title = title;
  c.x_label = "deployment";
  c.y.label = "edge ratio";
  c.y.format = report::Format::kPercent;
  for (const char* d : kDeployments) c.groups.push_back(d);
  for (const std::string& s : l.series) {
    report::BarSeries b;
    b.name = s;
    const Samples* smp = find(m, figure, group, s);
    for (const char* d : kDeployments) {
      std::vector<double> v;
      if (smp) {
        auto it = smp->deployment.find(d);
        if (it != smp->deployment.end()) v = it->second;
      }
      const report::ErrorBar e = report::mean_spread(v);
      b.value.push_back(e.mean);
      b.lo.push_back(e.lo);
      b.hi.push_back(e.hi);
    }
    c.series.push_back(std::move(b));
  }
  return c;
}

// The paper's quantitative statements and ours (same definitions).
struct Claims {
  report::Table table;
  Json json = Json::object();
};

Claims claims(const SampleMap& m, const std::vector<Point>& pts) {
  Claims c;
  c.table.caption = "The paper's statements (§6.3) and the same quantities here";
  c.table.columns = {"statement", "paper", "orrery"};
  auto add = [&](const std::string& key, const std::string& what, const std::string& paper,
                 double ours, report::Format f) {
    c.table.add_row({what, paper, report::Cell(ours, f)});
    c.json[key] = ours;
  };
  auto edge = [&](const std::string& f, const std::string& g, const std::string& s) {
    const Samples* p = find(m, f, g, s);
    return p ? mean_of(p->edge) : std::nan("");
  };
  for (const auto& [fig, paper_avg, paper_gain] :
       {std::tuple<const char*, const char*, const char*>{"fig4", "80%", "13.4%"},
        {"fig5", "78%", "18.9%"}}) {
    const FigureLayout l = layout(pts, fig);
    double k = 0, gain = 0, pp = 0, ceiling = 0;
    int lowest_sd = 0;
    for (const std::string& g : l.groups) {
      const double kd = edge(fig, g, "KubeDSM");
      if (const Samples* ks = find(m, fig, g, "KubeDSM")) ceiling += mean_of(ks->ceiling);
      double best = -1;
      for (const std::string& s : l.series)
        if (s != "KubeDSM") best = std::max(best, edge(fig, g, s));
      k += kd;
      gain += (kd - best) / best;
      pp += kd - best;
      const Samples* ks = find(m, fig, g, "KubeDSM");
      bool lowest = ks != nullptr;
      for (const std::string& s : l.series) {
        const Samples* o = find(m, fig, g, s);
        if (s != "KubeDSM" && o && ks && mean_of(o->edge_sd) < mean_of(ks->edge_sd)) lowest = false;
      }
      lowest_sd += lowest ? 1 : 0;
    }
    const double n = static_cast<double>(l.groups.size());
    const std::string F = fig == std::string("fig4") ? "Fig. 4" : "Fig. 5";
    add(std::string(fig) + "_kubedsm_edge_ratio", F + ": KubeDSM's average edge ratio", paper_avg,
        k / n, report::Format::kPercent);
    add(std::string(fig) + "_ceiling",
        F + ": ceiling on any scheduler's edge ratio, mean over cycles of min(1, 1/f)", "—",
        ceiling / n, report::Format::kPercent);
    add(std::string(fig) + "_gain_relative",
        F + ": KubeDSM over the best baseline (relative, averaged over scenarios)", paper_gain,
        gain / n, report::Format::kPercent);
    add(std::string(fig) + "_gain_points", F + ": the same in percentage points", "—", pp / n,
        report::Format::kPercent);
    c.table.add_row({F + ": scenarios where KubeDSM has the lowest std-dev across deployments "
                         "(Figs 8–9)",
                     "9 of 11 (both figures)",
                     fmt::format("{} of {}", lowest_sd, l.groups.size())});
    c.json[std::string(fig) + "_lowest_sd"] = lowest_sd;
  }
  const FigureLayout l10 = layout(pts, "fig10");
  auto avg10 = [&](const std::string& s) {
    double a = 0;
    for (const std::string& g : l10.groups) a += edge("fig10", g, s);
    return a / static_cast<double>(l10.groups.size());
  };
  const double k8s = avg10("K8S"), orig = avg10("Original"), mid = avg10("MidMig"),
               nco = avg10("NoCloudOffload"), nem = avg10("NoEdgeMig");
  add("fig10_noedgemig_over_k8s", "Fig. 10: NoEdgeMig over K8S (relative)", "+8%",
      (nem - k8s) / k8s, report::Format::kPercent);
  const double best = std::max({orig, mid, nco, nem}), worst = std::min({orig, mid, nco, nem});
  add("fig10_best_over_worst", "Fig. 10: best over worst KubeDSM variant (relative)", "up to 20.8%",
      (best - worst) / worst, report::Format::kPercent);
  add("fig10_original_over_noedgemig", "Fig. 10: Original over NoEdgeMig (relative)", "+14.9%",
      (orig - nem) / nem, report::Format::kPercent);
  add("fig10_midmig_over_original", "Fig. 10: MidMig over Original (relative)", "+5.1%",
      (mid - orig) / orig, report::Format::kPercent);
  add("fig10_nocloudoffload_over_noedgemig", "Fig. 10: NoCloudOffload over NoEdgeMig (relative)",
      "> 0", (nco - nem) / nem, report::Format::kPercent);
  auto dep = [&](const std::string& s, const char* d) {
    const Samples* p = find(m, "fig11", scenario_name(1.5, 0.4), s);
    if (!p) return std::nan("");
    auto it = p->deployment.find(d);
    return it == p->deployment.end() ? std::nan("") : mean_of(it->second);
  };
  add("fig11_allhalf_d_change", "Fig. 11: AllHalf vs Original, deployment D", "decreases",
      dep("AllHalf", "D") - dep("Original", "D"), report::Format::kPercent);
  add("fig11_allhalf_c_change", "Fig. 11: AllHalf vs Original, deployment C", "increases",
      dep("AllHalf", "C") - dep("Original", "C"), report::Format::kPercent);
  add("fig11_cgta_c_minus_best_other", "Fig. 11: C>A, C minus the best other deployment",
      "> 0 (C highest)",
      dep("C>A", "C") - std::max({dep("C>A", "A"), dep("C>A", "B"), dep("C>A", "D")}),
      report::Format::kPercent);
  add("fig11_respectd_d_vs_allhalf", "Fig. 11: RespectD vs AllHalf, deployment D",
      "slight improvement", dep("RespectD", "D") - dep("AllHalf", "D"), report::Format::kPercent);
  add("fig11_respectd_d_vs_original", "Fig. 11: RespectD vs Original, deployment D", "—",
      dep("RespectD", "D") - dep("Original", "D"), report::Format::kPercent);
  return c;
}

}  // namespace

std::string runs_csv(const std::vector<RunSpec>& runs, const std::vector<RunResult>& results) {
  std::string csv =
      "scenario,mean,sd,policy,m_c2e,m_er,suggest_budget,qos_targets,seed,edge_ratio,"
      "edge_ratio_sd,A,B,C,D,migrations,demand,edge,bounded_cloud,fit_check\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunSpec& r = runs[i];
    const RunResult& res = results[i];
    const bool k = r.policy == "kubedsm";  // the KubeDSM settings are blank for the baselines
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}", scenario_name(r.mean, r.sd),
                       fmt_double(r.mean), fmt_double(r.sd), r.policy,
                       k ? std::to_string(r.m_c2e) : "", k ? std::to_string(r.m_er) : "",
                       k ? r.suggest_budget : "", qos_text(r.qos), r.seed,
                       fmt_double(res.edge_ratio), fmt_double(res.edge_ratio_sd));
    for (const char* d : kDeployments) {
      auto it = res.deployments.find(d);
      csv += "," + (it == res.deployments.end() ? std::string() : fmt_double(it->second));
    }
    csv += fmt::format(",{},{}{},{},{},{}\n", res.migrations, r.demand_count,
                       r.demand_round ? "-round" : "", r.edge,
                       k ? (r.bounded_cloud ? "1" : "0") : "", k ? r.fit_check : "");
  }
  return csv;
}

ReproResult run_repro(const ReproOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const int seeds = o.seeds > 0 ? o.seeds : (o.quick ? 3 : 20);
  const std::vector<Point> pts = plan(o.quick);
  make_dirs(o.out_dir);  // fail before simulating when DIR cannot be made
  make_dirs(o.out_dir + "/scenarios");

  // Every run once (figures share points, e.g. Fig. 4's KubeDSM is Fig. 10's Original).
  std::vector<RunSpec> runs;
  std::map<std::string, size_t> index;  // scenario text → run
  std::vector<std::vector<size_t>> point_runs(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    for (int s = 1; s <= seeds; ++s) {
      RunSpec r = pts[i].spec;
      r.seed = static_cast<uint64_t>(s);
      const std::string key = scenario_yaml(r);
      auto [it, fresh] = index.emplace(key, runs.size());
      if (fresh) runs.push_back(r);
      point_runs[i].push_back(it->second);
    }
  }
  const std::vector<RunResult> results = run_all(runs, o.threads, o.progress);

  SampleMap samples;
  for (size_t i = 0; i < pts.size(); ++i) {
    Samples& s = samples[{pts[i].figure, pts[i].group, pts[i].series}];
    for (size_t r : point_runs[i]) {
      const RunResult& res = results[r];
      s.edge.push_back(res.edge_ratio);
      s.edge_sd.push_back(res.edge_ratio_sd);
      s.migrations.push_back(static_cast<double>(res.migrations));
      double ceil_sum = 0;
      for (double f : res.fractions) ceil_sum += f <= 1 ? 1.0 : 1.0 / f;
      if (!res.fractions.empty())
        s.ceiling.push_back(ceil_sum / static_cast<double>(res.fractions.size()));
      for (const auto& [d, v] : res.deployments) s.deployment[d].push_back(v);
    }
  }

  write_file_atomic(o.out_dir + "/runs.csv", runs_csv(runs, results));

  // points.csv and the scenario files (seed 1 of each point).
  std::string pcsv =
      "figure,group,series,runs,edge_ratio_mean,edge_ratio_sd_over_seeds,"
      "deployment_sd_mean,migrations_mean,A_mean,B_mean,C_mean,D_mean\n";
  std::set<std::string> written;
  for (const Point& p : pts) {
    const Samples& s = samples.at({p.figure, p.group, p.series});
    const report::ErrorBar e = report::mean_spread(s.edge);
    pcsv += fmt::format("{},{},{},{},{},{},{},{}", p.figure, field(p.group), field(p.series),
                        s.edge.size(), fmt_double(e.mean), fmt_double(e.mean - e.lo),
                        fmt_double(mean_of(s.edge_sd)), fmt_double(mean_of(s.migrations)));
    for (const char* d : kDeployments) {
      auto it = s.deployment.find(d);
      pcsv += "," + (it == s.deployment.end() ? std::string() : fmt_double(mean_of(it->second)));
    }
    pcsv += "\n";
    RunSpec r = p.spec;
    r.seed = 1;
    std::string file = fmt::format("{}-{}", p.group, p.series);
    for (char& ch : file)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
        ch = '_';
    if (written.insert(file).second)
      write_file_atomic(o.out_dir + "/scenarios/" + file + ".yaml", scenario_yaml(r));
  }
  write_file_atomic(o.out_dir + "/points.csv", pcsv);

  // The report.
  using report::Format;
  const Claims cl = claims(samples, pts);
  report::Document doc("KubeDSM — reproduction of §6.3 in the orrery simulator");
  doc.section("Setup")
      .paragraph(
          "Cluster of Table 4 (edge N2 5 cores/5 GiB, N3 4/4, N4 7/5; cloud N5 22/17), services "
          "A–D of Table 5, 12 demand cycles of 90 s: each cycle's edge-resource fraction is drawn "
          "from Normal(mean, sd), split equally over the services and turned into whole pods on "
          "the scarcer resource, and an HPA per service follows it (one pod each at start). "
          "Scenario names are mean_sd as in the paper. "
          "Edge ratio: each deployment's share of running pods on edge nodes, averaged over time "
          "(1 s samples) and over deployments.")
      .paragraph(fmt::format(
          "{} seeds per point; bars show the mean over seeds and error bars ± one standard "
          "deviation across seeds. {} simulations in total. Details, choices and differences "
          "from the paper: docs/repro/kubedsm.md.",
          seeds, runs.size()))
      .code(o.quick ? "orrery repro kubedsm --quick --out DIR" : "orrery repro kubedsm --out DIR");
  doc.section("Paper vs orrery").table(cl.table);

  auto edge_of = [](const Samples& s) { return &s.edge; };
  auto sd_of = [](const Samples& s) { return &s.edge_sd; };
  auto mig_of = [](const Samples& s) { return &s.migrations; };
  doc.section("Fig. 4 — average request rates (sd 0.4)")
      .chart(bars(samples, pts, "fig4", "Edge ratio vs mean demand", "scenario (mean_sd)",
                  "edge ratio", Format::kPercent, edge_of),
             "Higher is better.");
  doc.section("Fig. 5 — variation of request rates (mean 1.5)")
      .chart(bars(samples, pts, "fig5", "Edge ratio vs demand standard deviation",
                  "scenario (mean_sd)", "edge ratio", Format::kPercent, edge_of),
             "Higher is better.");
  doc.section("Figs 6–7 — per deployment (1.5_0.4)")
      .chart(deployment_bars(samples, pts, "fig4", scenario_name(1.5, 0.4),
                             "Edge ratio per deployment, scenario 1.5_0.4"),
             "The paper draws these as radar charts over all scenarios; here one scenario.");
  doc.section("Figs 8–9 — standard deviation of the edge ratio across deployments")
      .chart(bars(samples, pts, "fig4", "Std-dev across deployments (Fig. 4 scenarios)",
                  "scenario (mean_sd)", "std-dev of edge ratio", Format::kPercent, sd_of),
             "Lower means the deployments are treated more evenly.")
      .chart(bars(samples, pts, "fig5", "Std-dev across deployments (Fig. 5 scenarios)",
                  "scenario (mean_sd)", "std-dev of edge ratio", Format::kPercent, sd_of));
  doc.section("Fig. 10 — migration variants (M_C2E/M_ER)")
      .paragraph("Original 5/3, MidMig 2/1, NoCloudOffload 0/3, NoEdgeMig 5/0.")
      .chart(bars(samples, pts, "fig10", "Edge ratio of KubeDSM's migration variants",
                  "scenario (mean_sd)", "edge ratio", Format::kPercent, edge_of))
      .chart(bars(samples, pts, "fig10", "Completed migrations per run", "scenario (mean_sd)",
                  "migrations", Format::kNumber, mig_of),
             "K8S never migrates.");
  doc.section("Fig. 11 — QoS scenarios (1.5_0.4)")
      .paragraph(
          "Original: every target 1. AllHalf: 0.5 each. C>A: A 0.5, B 0.1, C 1, D 0.1. "
          "RespectD: D 0.5, the others 0.1.")
      .chart(deployment_bars(samples, pts, "fig11", scenario_name(1.5, 0.4),
                             "Edge ratio per deployment under QoS scenarios"));
  doc.section("Extra — suggest's budget (Alg. 2 line 5)")
      .paragraph(
          "'free': suggest only considers cloud pods that fit the edge's free resources "
          "(the literal pseudo-code), so it never offloads edge pods. 'reclaimable' "
          "(orrery's default): free resources plus those of movable edge pods.")
      .chart(bars(samples, pts, "budget", "Edge ratio by suggest budget", "scenario (mean_sd)",
                  "edge ratio", Format::kPercent, edge_of));
  doc.section("Extra — the workload reading (§6.2)")
      .paragraph(
          "(min), the default: a service's share of the cycle's resources becomes the pods whose "
          "requests match the share on the scarcer resource, rounded to whole pods, so that a "
          "scenario 1.0 uses the edge's binding resource (memory) fully. (max): the pods the "
          "share pays for on the more plentiful resource, rounded up by the HPA; the "
          "memory-heavy service B then uses twice its share of memory and '1.0' asks for 133 % "
          "of the edge's memory.")
      .chart(bars(samples, pts, "workload", "Edge ratio by workload reading", "scenario (mean_sd)",
                  "edge ratio", Format::kPercent, edge_of))
      .chart(bars(samples, pts, "workload", "Std-dev across deployments by workload reading",
                  "scenario (mean_sd)", "std-dev of edge ratio", Format::kPercent, sd_of),
             "Lower means the deployments are treated more evenly.");
  doc.section("Extra — how much fragmentation costs (Fig. 10)")
      .paragraph(
          "The same runs with the three edge nodes replaced by one node of their total capacity "
          "(16 cores, 14 GiB): nothing can be fragmented there, so the gap bounds what any "
          "reordering of the edge could recover (including what no reordering can: pods that "
          "do not divide a node's capacity).")
      .chart(bars(samples, pts, "edge", "Edge ratio: Table 4 edge vs one edge node",
                  "scenario (mean_sd)", "edge ratio", Format::kPercent, edge_of));
  doc.section("Extra — makeDecision's feasibility test (Alg. 3)")
      .paragraph(
          "'approximate' (the paper, the default): a subset fits if its total fits the edge's "
          "total; applyDecision's match sends what no node holds to the cloud. At saturation "
          "suggest can then pick, every time, a pod that fits the edge's free total but no node, "
          "and never the pod that would fit. 'exact' (fitCheck: exact): a subset must also match "
          "node by node.")
      .chart(bars(samples, pts, "fit", "Edge ratio by feasibility test", "scenario (mean_sd)",
                  "edge ratio", Format::kPercent, edge_of))
      .chart(bars(samples, pts, "fit", "Std-dev across deployments by feasibility test",
                  "scenario (mean_sd)", "std-dev of edge ratio", Format::kPercent, sd_of));
  doc.section("Extra — a finite cloud")
      .paragraph(
          "The paper's model has one unbounded cloud node (§4.1.1); its testbed's N5 is finite "
          "and fills up at high load. 'bounded' (the default) only offloads pods that find room "
          "on a cloud node; 'unbounded' (boundedCloud: false) offloads regardless.")
      .chart(bars(samples, pts, "cloud", "Edge ratio by cloud model", "scenario (mean_sd)",
                  "edge ratio", Format::kPercent, edge_of));
  const std::string html = o.out_dir + "/kubedsm.html";
  doc.write(html);

  // summary.json last.
  Json sum;
  sum["paper"] = "KubeDSM (000_3fb870410a162456)";
  sum["quick"] = o.quick;
  sum["seeds"] = seeds;
  sum["runs"] = runs.size();
  sum["claims"] = cl.json;
  Json figs = Json::object();
  for (const Point& p : pts) {
    const Samples& s = samples.at({p.figure, p.group, p.series});
    Json pt;
    pt["edge_ratio"] = mean_of(s.edge);
    pt["edge_ratio_seed_sd"] = mean_of(s.edge) - report::mean_spread(s.edge).lo;
    pt["deployment_sd"] = mean_of(s.edge_sd);
    pt["migrations"] = mean_of(s.migrations);
    Json per = Json::object();
    for (const char* d : kDeployments)
      if (auto it = s.deployment.find(d); it != s.deployment.end()) per[d] = mean_of(it->second);
    pt["deployments"] = per;
    figs[p.figure][p.group][p.series] = pt;
  }
  sum["figures"] = figs;
  write_file_atomic(o.out_dir + "/summary.json", sum.dump(1) + "\n");

  ReproResult out;
  out.runs = runs.size();
  out.html = html;
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace orrery::kubedsm
