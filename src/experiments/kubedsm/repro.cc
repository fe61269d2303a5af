#include "experiments/kubedsm/repro.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "experiments/kubedsm/evaluation.h"
#include "experiments/kubedsm/repro_internal.h"
#include "io/files.h"
#include "report/document.h"
#include "sim/metrics.h"
#include "util/paired_stats.h"

namespace orrery::kubedsm {
namespace {

using repro_detail::claims;
using repro_detail::Claims;
using repro_detail::fig10_pairs_table;
using repro_detail::FigureLayout;
using repro_detail::find;
using repro_detail::kVariants;
using repro_detail::layout;
using repro_detail::mean_of;
using repro_detail::Point;
using repro_detail::SampleMap;
using repro_detail::Samples;
using repro_detail::scenario_table;
using repro_detail::Variant;
using sim::fmt_double;
using sim::Json;

const char* const kDeployments[] = {"A", "B", "C", "D"};

struct Scheduler {
  const char* label;
  const char* policy;
};
const Scheduler kSchedulers[] = {{"KubeDSM", "kubedsm"}, {"K8S", "k8s"}, {"Random", "random"},
                                 {"BEF", "bef"},         {"SEF", "sef"}, {"CF", "cf"}};

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

// The authors' setup at (mean, sd) with the HPA settings of `base`.
RunSpec base_at(const RunSpec& base, double mean, double sd) {
  RunSpec r;
  r.hpa_metric = base.hpa_metric;
  r.hpa_noise = base.hpa_noise;
  r.hpa_window_s = base.hpa_window_s;
  r.mean = mean;
  r.sd = sd;
  return r;
}

// From the paper's description to the authors' setup, one step at a time (cumulative).
void plan_setup(const std::vector<double>& means, const RunSpec& base, std::vector<Point>& pts) {
  auto spec = [&base](double mean, double sd) { return base_at(base, mean, sd); };
  for (double m : means)
    for (const char* policy : {"kubedsm", "k8s"}) {
      const bool k = policy == std::string("kubedsm");
      const std::string who = k ? "KubeDSM" : "K8S";
      RunSpec r = RunSpec::paper_description();
      r.hpa_metric = base.hpa_metric;
      r.hpa_noise = base.hpa_noise;
      r.hpa_window_s = base.hpa_window_s;
      r.mean = m;
      r.policy = policy;
      pts.push_back({"setup", scenario_name(m, 0.4), who + ": paper's description", r});
      r.edge = "authors";
      r.system_reserved = true;
      r.n2_taken_cpu = RunSpec().n2_taken_cpu;
      pts.push_back({"setup", scenario_name(m, 0.4), who + ": + authors' nodes", r});
      r.demand_count = "genny";
      r.idle_head_s = RunSpec().idle_head_s;
      r.idle_tail_s = RunSpec().idle_tail_s;
      r.scale_down = RunSpec().scale_down;
      r.load_stalls = RunSpec().load_stalls;
      pts.push_back({"setup", scenario_name(m, 0.4),
                     who + (k ? ": + genny demand, load stalls, idle head/tail, log scale-down"
                              : ": authors' setup"),
                     r});
      if (k)
        pts.push_back({"setup", scenario_name(m, 0.4), who + ": authors' setup", spec(m, 0.4)});
    }
}

// Each ecmus setting reverted alone (KubeDSM), and the edge as one node (nothing to fragment).
void plan_ablation(bool quick, const RunSpec& base, std::vector<Point>& pts) {
  auto spec = [&base](double mean, double sd) { return base_at(base, mean, sd); };
  for (double m : quick ? std::vector<double>{1.5} : std::vector<double>{1.3, 1.5}) {
    const std::string g = scenario_name(m, 0.4);
    pts.push_back({"ablation", g, "authors' setup", spec(m, 0.4)});
    auto add = [&](const std::string& label, const std::function<void(RunSpec&)>& change) {
      RunSpec r = spec(m, 0.4);
      change(r);
      pts.push_back({"ablation", g, label, r});
    };
    add("qosFunction: linear", [](RunSpec& r) { r.qos_function = "linear"; });
    add("fragmentation: orrery", [](RunSpec& r) { r.fragmentation = "orrery"; });
    add("podSize: eq11", [](RunSpec& r) { r.pod_size = "eq11"; });
    add("lastPod: false", [](RunSpec& r) { r.last_pod = false; });
    add("reorderWithoutCandidates: true", [](RunSpec& r) { r.reorder_without_candidates = true; });
    add("suggestPeriod: 10s", [](RunSpec& r) { r.suggest_period_s = 10; });
    add("maxBatch: 20", [](RunSpec& r) { r.max_batch = 20; });
    add("suggestBudget: reclaimable", [](RunSpec& r) { r.suggest_budget = "reclaimable"; });
    add("fitCheck: exact", [](RunSpec& r) { r.fit_check = "exact"; });
    add("scaleDown: exact", [](RunSpec& r) { r.scale_down = "exact"; });
    add("abandonMigrations: false", [](RunSpec& r) { r.abandon_migrations = false; });
    // The other HPA metric: podRate with the calibrated noise, or back to demand.
    const bool rate = base.hpa_metric == "podRate";
    add(rate ? std::string("hpaMetric: demand")
             : fmt::format("hpaMetric: podRate (noise {})", RunSpec().hpa_noise),
        [rate](RunSpec& r) { r.hpa_metric = rate ? "demand" : "podRate"; });
    add("loadStalls: off", [](RunSpec& r) { r.load_stalls = false; });
    add("n2Taken: 0", [](RunSpec& r) { r.n2_taken_cpu = 0; });
    add("dSize: minedraft (2 cores / 2 GB)", [](RunSpec& r) { r.d_size = "minedraft"; });
    add("edge: table4", [](RunSpec& r) { r.edge = "table4"; });
    add("edge: single", [](RunSpec& r) { r.edge = "single"; });
    add("NoEdgeMig 5/0, edge: single", [](RunSpec& r) {
      r.edge = "single";
      r.m_er = 0;
    });
  }
}

// `base` carries the HPA settings every run takes (ReproOptions hpa_metric, hpa_noise).
std::vector<Point> plan(bool quick, const RunSpec& base) {
  const std::vector<double> means = quick ? std::vector<double>{1.1, 1.3, 1.5}
                                          : std::vector<double>{1.1, 1.2, 1.3, 1.4, 1.5, 1.6};
  const std::vector<double> sds =
      quick ? std::vector<double>{0.1, 0.3, 0.5} : std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5};
  std::vector<Point> pts;
  auto spec = [&base](double mean, double sd) { return base_at(base, mean, sd); };
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
  plan_setup(means, base, pts);
  plan_ablation(quick, base, pts);
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

// The pooled edge ratio of a point (a bars() metric).
const std::vector<double>* pooled_of(const Samples& s) {
  return &s.pooled;
}

}  // namespace

std::string runs_csv(const std::vector<RunSpec>& runs, const std::vector<RunResult>& results) {
  std::string csv =
      "scenario,mean,sd,policy,m_c2e,m_er,suggest_budget,qos_targets,seed,edge_ratio,"
      "edge_ratio_sd,A,B,C,D,migrations,demand,edge,bounded_cloud,fit_check,qos_function,"
      "fragmentation,pod_size,last_pod,suggest_period_s,max_batch,idle_head_s,idle_tail_s,"
      "edge_ratio_pooled,edge_ratio_pooled_busy,system_reserved,scale_down,abandon_migrations,"
      "hpa_metric,d_size,n2_taken_cpu,load_stalls,reorder_without_candidates\n";
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
    csv += fmt::format(",{},{}{},{},{},{}", res.migrations, r.demand_count,
                       r.demand_round && r.demand_count != "genny" ? "-round" : "", r.edge,
                       k ? (r.bounded_cloud ? "1" : "0") : "", k ? r.fit_check : "");
    csv +=
        fmt::format(",{},{},{},{},{},{}", k ? r.qos_function : "", k ? r.fragmentation : "",
                    k ? r.pod_size : "", k ? (r.last_pod ? "1" : "0") : "",
                    k ? fmt_double(r.suggest_period_s) : "", k ? std::to_string(r.max_batch) : "");
    csv += fmt::format(",{},{},{},{},{},{},{}", fmt_double(r.idle_head_s),
                       fmt_double(r.idle_tail_s), fmt_double(res.edge_ratio_pooled),
                       fmt_double(res.edge_ratio_pooled_busy), r.system_reserved ? 1 : 0,
                       r.scale_down, k ? (r.abandon_migrations ? "1" : "0") : "");
    csv += "," + r.hpa_metric;
    if (r.hpa_metric == "podRate") {
      csv += ":" + fmt_double(r.hpa_noise);
      if (r.hpa_window_s > 0) csv += ":" + fmt_double(r.hpa_window_s) + "s";
    }
    csv += fmt::format(",{},{},{},{}\n", r.demand_count == "genny" ? r.d_size : "", r.n2_taken_cpu,
                       r.load_stalls ? 1 : 0, k ? (r.reorder_without_candidates ? "1" : "0") : "");
  }
  return csv;
}

namespace {

// Every run once (figures share points, e.g. Fig. 4's KubeDSM is Fig. 10's Original): the
// sweep's runs, and for each point the runs of its seeds.
struct RunPlan {
  std::vector<RunSpec> runs;
  std::vector<std::vector<size_t>> point_runs;
};

RunPlan unique_runs(const std::vector<Point>& pts, int seeds) {
  RunPlan plan;
  std::map<std::string, size_t> index;  // scenario text → run
  plan.point_runs.resize(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    for (int s = 1; s <= seeds; ++s) {
      RunSpec r = pts[i].spec;
      r.seed = static_cast<uint64_t>(s);
      const std::string key = scenario_yaml(r);
      auto [it, fresh] = index.emplace(key, plan.runs.size());
      if (fresh) plan.runs.push_back(r);
      plan.point_runs[i].push_back(it->second);
    }
  }
  return plan;
}

SampleMap sample_map(const std::vector<Point>& pts, const RunPlan& plan,
                     const std::vector<RunResult>& results) {
  SampleMap samples;
  for (size_t i = 0; i < pts.size(); ++i) {
    Samples& s = samples[{pts[i].figure, pts[i].group, pts[i].series}];
    for (size_t r : plan.point_runs[i]) {
      const RunResult& res = results[r];
      s.edge.push_back(res.edge_ratio);
      s.edge_sd.push_back(res.edge_ratio_sd);
      s.migrations.push_back(static_cast<double>(res.migrations));
      s.pooled.push_back(res.edge_ratio_pooled);
      s.pooled_busy.push_back(res.edge_ratio_pooled_busy);
      for (const auto& [d, v] : res.deployments) s.deployment[d].push_back(v);
    }
  }

  return samples;
}

// points.csv and the scenario files (seed 1 of each point).
void write_points(const std::string& dir, const std::vector<Point>& pts, const SampleMap& samples) {
  std::string pcsv =
      "figure,group,series,runs,edge_ratio_mean,edge_ratio_sd_over_seeds,"
      "deployment_sd_mean,migrations_mean,A_mean,B_mean,C_mean,D_mean,edge_ratio_pooled_mean,"
      "edge_ratio_pooled_busy_mean,edge_ratio_pooled_ci95_half,setup\n";
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
    pcsv += fmt::format(",{},{},{},{}\n", fmt_double(mean_of(s.pooled)),
                        fmt_double(mean_of(s.pooled_busy)), fmt_double(mean_ci95(s.pooled).half),
                        field(p.spec.setup_label()));
    RunSpec r = p.spec;
    r.seed = 1;
    std::string file = fmt::format("{}-{}", p.group, p.series);
    for (char& ch : file)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-')
        ch = '_';
    if (written.insert(file).second)
      write_file_atomic(dir + "/scenarios/" + file + ".yaml", scenario_yaml(r));
  }
  write_file_atomic(dir + "/points.csv", pcsv);
}

// The report's opening: the quick-run warning and the setup.
report::Document report_setup(const ReproOptions& o, int seeds, size_t runs) {
  report::Document doc("KubeDSM — reproduction of §6.3 in the orrery simulator");
  if (o.quick)
    doc.section("QUICK RUN: reduced, not the paper's setup")
        .paragraph(fmt::format("{} scenarios per sweep and {} seeds per point instead of the "
                               "full sweeps with 20 seeds; use these numbers for smoke tests only.",
                               3, seeds));
  doc.section("Setup")
      .paragraph(
          "The authors' setup (their configs and code: AUT-Cloud-Lab/genny, ecmus, MineDraft): "
          "edge N2 5 cores/5 GiB, N3 4/4, N4 5/7, cloud N5 17/22 (Table 4 prints N4 as 7/5 and N5 "
          "as 22/17); services A–D of Table 5; 12 demand cycles of 90 s after 60 s idle and "
          "followed by 240 s idle (one pod per service), where each service's pods are drawn "
          "independently per cycle as max(1, round(Normal(mean·c, sd·c))) with c the mean of the "
          "service's cpu and memory shares of the edge less 1 core/1 GB per node (genny; D "
          "counted as 3 cores/3 GB); an HPA per service follows it. Measured in the authors' "
          "raw runs and modelled: one more core of N2 taken by something outside the workload "
          "(N2 holds 3 cores of pods while pods wait on the cloud), and stalls of the load in "
          "the last four cycles (every 200 s on average, 30–100 s at 0.3 of the load). "
          "KubeDSM as ecmus runs it: "
          "ecmus's square-root QoS, suggest every 1 s (skipped while a plan runs) within the "
          "edge's aggregate free resources, never moving a service's last running pod, scores "
          "sized as ecmus does, batches of at most 10, MineDraft's fragmentation; M_C2E 5, "
          "M_ER 3.")
      .paragraph(
          "Edge ratio (the authors' metric, 'pooled'): at every 1 s sample the pods of A–D on "
          "edge nodes over all their pods, averaged over the run including the idle head and "
          "tail; 'busy' excludes them. The per-deployment mean (orrery's previous metric) and "
          "the std-dev across deployments are in points.csv and the charts of Figs 6–9.")
      .paragraph(fmt::format(
          "{} seeds per point; bars show the mean over seeds and error bars ± one standard "
          "deviation; tables give 95 % confidence intervals (Student t) and paired differences "
          "over the same seeds with a two-sided sign test. {} simulations in total. Every "
          "setting is a column of runs.csv; docs/repro/kubedsm.md has the details.",
          seeds, runs))
      .paragraph(
          o.hpa_metric == "podRate"
              ? fmt::format("HPA: every service's HPA reads a per-pod request rate measured "
                            "every 15 s with log-normal noise σ = {} (hpa=podRate, upstream's "
                            "calcPlainMetricReplicas; the default, hpa=demand, follows the "
                            "drawn replicas exactly).",
                            o.hpa_noise)
              : "HPA: each service's HPA reads the drawn replica count itself (hpa=demand), "
                "so the replicas follow the draws at each cycle boundary; the ablation "
                "row hpaMetric: podRate reads a per-pod rate measured with noise instead, as "
                "the authors' request-rate HPA did (docs/repro/kubedsm.md).")
      .code(o.quick ? "orrery repro kubedsm --quick --out DIR" : "orrery repro kubedsm --out DIR");
  return doc;
}

// The figures (Figs 4-11 and the extras); the paired tests go to `paired`.
void report_figures(report::Document& doc, const SampleMap& samples, const std::vector<Point>& pts,
                    Json& paired) {
  using report::Format;
  auto edge_of = [](const Samples& s) { return &s.edge; };
  auto sd_of = [](const Samples& s) { return &s.edge_sd; };
  auto mig_of = [](const Samples& s) { return &s.migrations; };
  auto busy_of = [](const Samples& s) { return &s.pooled_busy; };
  doc.section("Fig. 4 — average request rates (sd 0.4)")
      .chart(bars(samples, pts, "fig4", "Pooled edge ratio vs mean demand", "scenario (mean_sd)",
                  "edge ratio (pooled)", Format::kPercent, pooled_of),
             "Higher is better.")
      .table(scenario_table(samples, pts, "fig4", &paired["fig4"]));
  doc.section("Fig. 5 — variation of request rates (mean 1.5)")
      .chart(bars(samples, pts, "fig5", "Pooled edge ratio vs demand standard deviation",
                  "scenario (mean_sd)", "edge ratio (pooled)", Format::kPercent, pooled_of),
             "Higher is better.")
      .table(scenario_table(samples, pts, "fig5", &paired["fig5"]));
  doc.section("Figs 4–5 without the idle head and tail ('busy')")
      .chart(bars(samples, pts, "fig4", "Pooled edge ratio during the cycles (Fig. 4 scenarios)",
                  "scenario (mean_sd)", "edge ratio (busy)", Format::kPercent, busy_of))
      .chart(bars(samples, pts, "fig4", "Per-deployment mean edge ratio (Fig. 4 scenarios)",
                  "scenario (mean_sd)", "edge ratio (per deployment)", Format::kPercent, edge_of),
             "orrery's previous metric: each deployment's time-averaged share, then the mean "
             "over the four deployments.");
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
      .paragraph(
          "Original 5/3, MidMig 2/1, NoCloudOffload 0/3, NoEdgeMig 5/0, NoMigration 0/0. The "
          "paper's 'NoEdgeMig' bars are the authors' no-migration runs (0/0); their 5/0 runs "
          "are shown as NoEdgeMig.")
      .chart(bars(samples, pts, "fig10", "Pooled edge ratio of KubeDSM's migration variants",
                  "scenario (mean_sd)", "edge ratio (pooled)", Format::kPercent, pooled_of))
      .chart(bars(samples, pts, "fig10", "Completed migrations per run", "scenario (mean_sd)",
                  "migrations", Format::kNumber, mig_of),
             "K8S never migrates.")
      .table(fig10_pairs_table(samples, pts, &paired["fig10"]));
  doc.section("Fig. 11 — QoS scenarios (1.5_0.4)")
      .paragraph(
          "Original: every target 1. AllHalf: 0.5 each. C>A: A 0.5, B 0.1, C 1, D 0.1. "
          "RespectD: D 0.5, the others 0.1.")
      .chart(deployment_bars(samples, pts, "fig11", scenario_name(1.5, 0.4),
                             "Edge ratio per deployment under QoS scenarios"));
  doc.section("Extra — from the paper's description to the authors' setup")
      .paragraph(
          "Cumulative steps: the paper's description as orrery read it before (Table 4's nodes "
          "without system reservation, "
          "one shared demand fraction counted on the scarcer resource, no idle time, eq. 3, "
          "suggest every 10 s with the 'reclaimable' budget, batches of 20, orrery's "
          "fragmentation); then the authors' nodes with 1 core / 1 GiB reserved per node and "
          "N2's extra core taken; then genny's demand with the load stalls and the idle head "
          "and tail; then (KubeDSM) ecmus's settings, which is the default setup.")
      .chart(bars(samples, pts, "setup", "Pooled edge ratio by setup", "scenario (mean_sd)",
                  "edge ratio (pooled)", Format::kPercent, pooled_of));
  doc.section("Extra — each ecmus setting reverted alone (KubeDSM)")
      .paragraph(
          "The authors' setup, then one setting at a time changed back to the paper's "
          "description or orrery's earlier choice; 'edge: single' replaces the three edge nodes "
          "by one of their total capacity (nothing to fragment).")
      .chart(bars(samples, pts, "ablation", "Pooled edge ratio, one setting changed",
                  "scenario (mean_sd)", "edge ratio (pooled)", Format::kPercent, pooled_of))
      .chart(bars(samples, pts, "ablation", "Completed migrations per run, one setting changed",
                  "scenario (mean_sd)", "migrations", Format::kNumber, mig_of));
}

Json figures_json(const SampleMap& samples, const std::vector<Point>& pts) {
  Json figs = Json::object();
  for (const Point& p : pts) {
    const Samples& s = samples.at({p.figure, p.group, p.series});
    Json pt;
    pt["edge_ratio"] = mean_of(s.edge);
    pt["edge_ratio_seed_sd"] = mean_of(s.edge) - report::mean_spread(s.edge).lo;
    pt["edge_ratio_pooled"] = mean_of(s.pooled);
    pt["edge_ratio_pooled_busy"] = mean_of(s.pooled_busy);
    pt["edge_ratio_pooled_ci95_half"] = mean_ci95(s.pooled).half;
    pt["deployment_sd"] = mean_of(s.edge_sd);
    pt["migrations"] = mean_of(s.migrations);
    pt["setup"] = p.spec.setup_label();
    Json per = Json::object();
    for (const char* dd : kDeployments)
      if (auto it = s.deployment.find(dd); it != s.deployment.end()) per[dd] = mean_of(it->second);
    pt["deployments"] = per;
    figs[p.figure][p.group][p.series] = pt;
  }
  return figs;
}

RunSpec base_spec(const ReproOptions& o) {
  if (o.hpa_metric != "demand" && o.hpa_metric != "podRate")
    throw orrery::InputError("--hpa-metric: expected demand or podRate, got \"" + o.hpa_metric +
                             "\"");
  if (!(o.hpa_noise >= 0 && o.hpa_noise <= 5))
    throw orrery::InputError("--hpa-noise: expected a value between 0 and 5");
  if (!(o.hpa_window_s >= 0 && o.hpa_window_s <= 3600))
    throw orrery::InputError("--hpa-window: expected seconds between 0 and 3600");
  RunSpec base;
  base.hpa_metric = o.hpa_metric;
  base.hpa_noise = o.hpa_noise;
  base.hpa_window_s = o.hpa_window_s;
  return base;
}

// A run's result in shard files (experiments/harness.h): every field, numbers exactly.
experiments::Codec<RunResult> result_codec() {
  using experiments::real;
  using experiments::real_of;
  experiments::Codec<RunResult> c;
  c.encode = [](const RunResult& r) {
    Json d = Json::object();
    for (const auto& [k, v] : r.deployments) d[k] = real(v);
    return Json{{"edge_ratio", real(r.edge_ratio)},
                {"edge_ratio_sd", real(r.edge_ratio_sd)},
                {"edge_ratio_pooled", real(r.edge_ratio_pooled)},
                {"edge_ratio_pooled_busy", real(r.edge_ratio_pooled_busy)},
                {"deployments", d},
                {"migrations", r.migrations},
                {"plans_abandoned", r.plans_abandoned},
                {"fractions", experiments::reals(r.fractions)},
                {"wall_s", real(r.wall_s)}};
  };
  c.decode = [](const Json& j) {
    RunResult r;
    r.edge_ratio = real_of(j.at("edge_ratio"));
    r.edge_ratio_sd = real_of(j.at("edge_ratio_sd"));
    r.edge_ratio_pooled = real_of(j.at("edge_ratio_pooled"));
    r.edge_ratio_pooled_busy = real_of(j.at("edge_ratio_pooled_busy"));
    for (const auto& [k, v] : j.at("deployments").items()) r.deployments[k] = real_of(v);
    r.migrations = j.at("migrations").get<int64_t>();
    r.plans_abandoned = j.at("plans_abandoned").get<int64_t>();
    r.fractions = experiments::reals_of(j.at("fractions"));
    r.wall_s = real_of(j.at("wall_s"));
    return r;
  };
  return c;
}

}  // namespace

ReproResult run_repro(const ReproOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const int seeds = o.seeds > 0 ? o.seeds : (o.quick ? 3 : 20);
  const std::vector<Point> pts = plan(o.quick, base_spec(o));
  const RunPlan rp = unique_runs(pts, seeds);
  ReproResult out;
  out.runs = rp.runs.size();
  make_dirs(o.out_dir);  // fail before simulating when DIR cannot be made
  std::function<void(const SweepStep&, const RunResult&)> progress;
  if (o.progress)
    progress = [&](const SweepStep& s, const RunResult&) { o.progress(s.done, s.total); };
  const std::optional<std::vector<RunResult>> swept = experiments::sweep<RunResult>(
      o.distribution, o.out_dir, rp.runs.size(), o.threads,
      [&](size_t i) { return run_once(rp.runs[i]); }, result_codec(), progress);
  if (!swept) {
    out.shard_note = experiments::shard_message(o.distribution, o.out_dir, rp.runs.size());
    return out;
  }
  const std::vector<RunResult>& results = *swept;
  make_dirs(o.out_dir + "/scenarios");
  const SampleMap samples = sample_map(pts, rp, results);
  write_file_atomic(o.out_dir + "/runs.csv", runs_csv(rp.runs, results));
  write_points(o.out_dir, pts, samples);

  const Claims cl = claims(samples, pts);
  Json paired = Json::object();
  report::Document doc = report_setup(o, seeds, rp.runs.size());
  doc.section("Paper vs the authors' raw data vs orrery").table(cl.table);
  report_figures(doc, samples, pts, paired);
  out.html = o.out_dir + "/kubedsm.html";
  doc.write(out.html);

  // summary.json last.
  Json sum;
  sum["paper"] = "KubeDSM (000_3fb870410a162456)";
  sum["quick"] = o.quick;
  sum["seeds"] = seeds;
  sum["runs"] = rp.runs.size();
  sum["claims"] = cl.json;
  sum["paired"] = paired;
  sum["figures"] = figures_json(samples, pts);
  write_file_atomic(o.out_dir + "/summary.json", sum.dump(1) + "\n");
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace orrery::kubedsm
