#include "experiments/carico/repro.h"

#include <chrono>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "io/files.h"
#include "io/json.h"
#include "util/sweep.h"
#include "experiments/carico/evaluation.h"
#include "experiments/harness.h"
#include "report/document.h"

namespace orrery::carico {
namespace {

struct Point {
  std::string experiment, scheduler;
  RunSpec spec;          // seed set per run
  bool sklearn = false;  // which job's PCTs the point reports
};

RunSpec pi(const std::string& sched, int n, const std::string& req = "100m") {
  RunSpec r;
  r.scheduler = sched;
  r.pi_pods = n;
  r.pi_cpu_request = req;
  return r;
}
RunSpec sk(const std::string& sched, int n) {
  RunSpec r;
  r.scheduler = sched;
  r.sklearn_pods = n;
  return r;
}

std::vector<Point> plan(bool quick) {
  std::vector<Point> pts;
  const std::vector<int> pi_counts =
      quick ? std::vector<int>{250, 1000} : std::vector<int>{100, 250, 500, 750, 1000};
  const std::vector<int> sk_counts =
      quick ? std::vector<int>{100} : std::vector<int>{20, 50, 100, 200};
  for (int n : pi_counts) {
    const std::string e = "pi2000_" + std::to_string(n);
    pts.push_back({e, "kube-default-100m", pi("kube-default", n, "100m")});
    pts.push_back({e, "kube-default-500m", pi("kube-default", n, "500m")});
    pts.push_back({e, "carico", pi("carico", n)});
  }
  for (int n : sk_counts) {
    const std::string e = "sklearn_" + std::to_string(n);
    pts.push_back({e, "kube-default-750Mi", sk("kube-default", n), true});
    pts.push_back({e, "carico", sk("carico", n), true});
  }
  RunSpec mk = pi("kube-default", 500, "100m");
  mk.sklearn_pods = 20;
  mk.sklearn_cpu_request = "200m";
  RunSpec mc = pi("carico", 500);
  mc.sklearn_pods = 20;
  pts.push_back({"mixed_pi2000_500", "kube-default", mk});
  pts.push_back({"mixed_pi2000_500", "carico", mc});
  pts.push_back({"mixed_sklearn_20", "kube-default", mk, true});
  pts.push_back({"mixed_sklearn_20", "carico", mc, true});
  RunSpec pristine;
  pristine.scheduler = "kube-default";
  pristine.server = true;
  RunSpec ik = pi("kube-default", 1000, "100m");
  ik.server = true;
  RunSpec ic = pi("carico", 1000);
  ic.server = true;
  pts.push_back({"isolation_pi2000_1000", "pristine", pristine});
  pts.push_back({"isolation_pi2000_1000", "kube-default-100m", ik});
  pts.push_back({"isolation_pi2000_1000", "carico", ic});
  return pts;
}

double quantile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = p * (v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos)), hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

// The thesis's published numbers (Tables 5.1–5.4).
Json thesis_numbers() {
  return Json::parse(R"({
 "table_5_1_pi2000_1000": {"kube-default-100m": {"mean": 47.43, "sd": 14.59, "min": 7, "p50": 52, "max": 73},
                           "kube-default-500m": {"mean": 9.55, "sd": 1.49, "min": 5, "p50": 10, "max": 14},
                           "carico": {"mean": 7.69, "sd": 0.99, "min": 5, "p50": 8, "max": 11}},
 "table_5_2_sklearn_100": {"kube-default-750Mi": {"mean": 127.38, "sd": 5.29, "min": 118, "p50": 126, "max": 138},
                           "carico": {"mean": 59.02, "sd": 14.62, "min": 27, "p50": 61, "max": 94}},
 "table_5_3_mixed": {"kube-default/pi-2000": {"mean": 28.78, "p50": 30}, "kube-default/sklearn": {"mean": 65.25, "p50": 64},
                     "carico/pi-2000": {"mean": 7.40, "p50": 7}, "carico/sklearn": {"mean": 34.50, "p50": 36}},
 "table_5_4_latency_ms": {"pristine": {"min": 0.99, "p50": 3.04, "p90": 3.78, "p95": 4.00, "p99": 4.47, "max": 8.32},
                          "kube-default-100m": {"min": 1.07, "p50": 10.06, "p90": 18.61, "p95": 22.28, "p99": 28.82, "max": 54.49},
                          "carico": {"min": 1.00, "p50": 2.48, "p90": 6.09, "p95": 7.82, "p99": 10.53, "max": 17.39}}
})");
}

std::string f2(double v) {
  return std::isfinite(v) ? fmt::format("{:.2f}", v) : "—";
}

}  // namespace

namespace {

struct Task {
  size_t point;
  uint64_t seed;
};

using Latencies = std::map<std::string, std::map<std::string, std::vector<double>>>;

// summary.json's "experiments": per experiment and scheduler, means over the point's seeds;
// the pooled latency samples of each point go to `latency` (exp → sched → ms).
Json experiments_json(const std::vector<Point>& pts, const std::vector<Task>& tasks,
                      const std::vector<RunResult>& results, int seeds, Latencies* latency_out) {
  Json experiments = Json::object();
  Latencies& latency = *latency_out;
  for (size_t p = 0; p < pts.size(); ++p) {
    std::vector<double> mean, p50, p99, jct, sd, mn, mx, cpu, mem;
    int oom = 0, incomplete = 0;
    std::vector<double> lat;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].point != p) continue;
      const RunResult& r = results[i];
      const PctStats& st = pts[p].sklearn ? r.sklearn : r.pi;
      mean.push_back(st.mean), p50.push_back(st.p50), p99.push_back(st.p99), sd.push_back(st.sd);
      mn.push_back(st.min), mx.push_back(st.max), jct.push_back(r.jct_s);
      cpu.push_back(r.cpu_util_mean), mem.push_back(r.mem_util_mean);
      oom += r.oom_kills;
      incomplete += r.incomplete;
      lat.insert(lat.end(), r.latency_ms.begin(), r.latency_ms.end());
    }
    auto avg = [](const std::vector<double>& v) {
      double s = 0;
      for (double x : v) s += x;
      return v.empty() ? 0.0 : s / v.size();
    };
    Json e;
    e["pct_mean_s"] = avg(mean);
    e["pct_p50_s"] = avg(p50);
    e["pct_p99_s"] = avg(p99);
    e["jct_s"] = avg(jct);
    e["pct_sd_s"] = avg(sd);
    e["pct_min_s"] = avg(mn);
    e["pct_max_s"] = avg(mx);
    e["cpu_util_mean"] = avg(cpu);
    e["mem_util_mean"] = avg(mem);
    e["oom_kills"] = oom;
    e["incomplete_runs"] = incomplete;
    e["seeds"] = seeds;
    if (!lat.empty()) {
      for (auto [k, q] : {std::pair{"min", 0.0},
                          {"p50", 0.5},
                          {"p90", 0.9},
                          {"p95", 0.95},
                          {"p99", 0.99},
                          {"max", 1.0}})
        e[std::string("latency_") + k + "_ms"] = quantile(lat, q);
      latency[pts[p].experiment][pts[p].scheduler] = lat;
    }
    experiments[pts[p].experiment][pts[p].scheduler] = e;
  }
  return experiments;
}

report::LineChart jct_chart(const Json& experiments, const std::string& prefix,
                            const std::string& title) {
  report::LineChart c;
  c.title = title;
  c.x.label = "pods in the job";
  c.y.label = "JCT (s)";
  c.style = report::LineStyle::kLinePoints;
  std::map<std::string, report::Series> by;
  for (const auto& [name, scheds] : experiments.items()) {
    if (name.rfind(prefix, 0) != 0) continue;
    const double n = std::stod(name.substr(prefix.size()));
    for (const auto& [sched, v] : scheds.items()) {
      by[sched].name = sched;
      by[sched].x.push_back(n);
      by[sched].y.push_back(v["jct_s"].get<double>());
    }
  }
  for (auto& [k, s] : by) {
    std::vector<size_t> idx(s.x.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
    report::Series sorted{s.name, {}, {}, {}, {}};
    for (size_t i : idx) sorted.x.push_back(s.x[i]), sorted.y.push_back(s.y[i]);
    c.series.push_back(sorted);
  }
  return c;
}

// The thesis's mean and p50 PCT of a scheduler in an experiment (NaN where it gives none).
std::pair<double, double> thesis_of(const Json& th, const std::string& exp,
                                    const std::string& sched) {
  const char* key = exp == "pi2000_1000"          ? "table_5_1_pi2000_1000"
                    : exp == "sklearn_100"        ? "table_5_2_sklearn_100"
                    : exp.rfind("mixed_", 0) == 0 ? "table_5_3_mixed"
                                                  : nullptr;
  if (!key) return {NAN, NAN};
  std::string s = sched;
  if (exp == "mixed_pi2000_500") s += "/pi-2000";
  if (exp == "mixed_sklearn_20") s += "/sklearn";
  if (!th[key].contains(s)) return {NAN, NAN};
  return {th[key][s]["mean"].get<double>(), th[key][s]["p50"].get<double>()};
}

report::Table pct_table(const Json& experiments) {
  report::Table t;
  t.caption = "Pod Completion Times (s): ours beside the thesis's (Tables 5.1–5.3)";
  t.columns = {"experiment", "scheduler", "mean",        "p50",       "p99",
               "sd",         "min",       "max",         "JCT",       "CPU util",
               "mem util",   "OOM kills", "thesis mean", "thesis p50"};
  const Json th = thesis_numbers();
  for (const auto& [name, scheds] : experiments.items()) {
    for (const auto& [sched, v] : scheds.items()) {
      const auto [tm, tp] = thesis_of(th, name, sched);
      t.add_row({name, sched, f2(v["pct_mean_s"]), f2(v["pct_p50_s"]), f2(v["pct_p99_s"]),
                 f2(v["pct_sd_s"]), f2(v["pct_min_s"]), f2(v["pct_max_s"]), f2(v["jct_s"]),
                 f2(v["cpu_util_mean"]), f2(v["mem_util_mean"]), v["oom_kills"].get<int>(), f2(tm),
                 f2(tp)});
    }
  }
  return t;
}

void latency_section(report::Document& doc, Json& experiments, Latencies& latency) {
  const Json th = thesis_numbers();
  report::Table lt;
  lt.caption = "Server response latency (ms) while a 1,000-pod pi-2000 job runs (Table 5.4)";
  lt.columns = {"scenario", "min", "p50", "p90", "p95", "p99", "max", "thesis p50", "thesis p99"};
  report::CdfChart cdf;
  cdf.title = "Server response latency";
  cdf.x.label = "ms";
  for (const auto& [sched, v] : experiments["isolation_pi2000_1000"].items()) {
    const Json& tl = th["table_5_4_latency_ms"][sched];
    lt.add_row({sched, f2(v.value("latency_min_ms", NAN)), f2(v.value("latency_p50_ms", NAN)),
                f2(v.value("latency_p90_ms", NAN)), f2(v.value("latency_p95_ms", NAN)),
                f2(v.value("latency_p99_ms", NAN)), f2(v.value("latency_max_ms", NAN)),
                f2(tl["p50"].get<double>()), f2(tl["p99"].get<double>())});
    cdf.series.push_back({sched, latency["isolation_pi2000_1000"][sched]});
  }
  doc.section("Workload isolation (§5.5, Table 5.4)").table(lt).chart(cdf);
}

experiments::Codec<PctStats> pct_codec() {
  using experiments::real;
  using experiments::real_of;
  experiments::Codec<PctStats> c;
  c.encode = [](const PctStats& s) {
    return Json::array({s.count, real(s.mean), real(s.sd), real(s.min), real(s.p25), real(s.p50),
                        real(s.p75), real(s.p99), real(s.max)});
  };
  c.decode = [](const Json& j) {
    PctStats s;
    s.count = j.at(0).get<size_t>();
    double* f[] = {&s.mean, &s.sd, &s.min, &s.p25, &s.p50, &s.p75, &s.p99, &s.max};
    for (size_t i = 0; i < 8; ++i) *f[i] = real_of(j.at(i + 1));
    return s;
  };
  return c;
}

// A run's result in shard files (experiments/harness.h): every field, numbers exactly.
experiments::Codec<RunResult> result_codec() {
  using experiments::real;
  using experiments::real_of;
  experiments::Codec<RunResult> c;
  c.encode = [](const RunResult& r) {
    const experiments::Codec<PctStats> pct = pct_codec();
    return Json{{"pi", pct.encode(r.pi)},
                {"sklearn", pct.encode(r.sklearn)},
                {"jct_s", real(r.jct_s)},
                {"cpu_util_mean", real(r.cpu_util_mean)},
                {"mem_util_mean", real(r.mem_util_mean)},
                {"oom_kills", r.oom_kills},
                {"latency_ms", experiments::reals(r.latency_ms)},
                {"incomplete", r.incomplete}};
  };
  c.decode = [](const Json& j) {
    const experiments::Codec<PctStats> pct = pct_codec();
    RunResult r;
    r.pi = pct.decode(j.at("pi"));
    r.sklearn = pct.decode(j.at("sklearn"));
    r.jct_s = real_of(j.at("jct_s"));
    r.cpu_util_mean = real_of(j.at("cpu_util_mean"));
    r.mem_util_mean = real_of(j.at("mem_util_mean"));
    r.oom_kills = j.at("oom_kills").get<int>();
    r.latency_ms = experiments::reals_of(j.at("latency_ms"));
    r.incomplete = j.at("incomplete").get<bool>();
    return r;
  };
  return c;
}

}  // namespace

ReproResult run_repro(const ReproOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const int seeds = o.seeds > 0 ? o.seeds : (o.quick ? 1 : 3);
  const std::vector<Point> pts = plan(o.quick);
  std::vector<Task> tasks;
  for (size_t i = 0; i < pts.size(); ++i)
    for (int s = 1; s <= seeds; ++s) tasks.push_back({i, static_cast<uint64_t>(s)});
  ReproResult out;
  out.runs = tasks.size();
  const std::optional<std::vector<RunResult>> swept = experiments::sweep<RunResult>(
      o.distribution, o.out_dir, tasks.size(), o.threads,
      [&](size_t i) {
        RunSpec spec = pts[tasks[i].point].spec;
        spec.seed = tasks[i].seed;
        return run_once(spec);
      },
      result_codec());
  if (!swept) {
    out.shard_note = experiments::shard_message(o.distribution, o.out_dir, tasks.size());
    return out;
  }
  Latencies latency;
  Json experiments = experiments_json(pts, tasks, *swept, seeds, &latency);
  Json summary;
  summary["experiments"] = experiments;
  summary["thesis"] = thesis_numbers();
  summary["quick"] = o.quick;
  summary["seeds"] = seeds;

  make_dirs(o.out_dir);
  report::Document doc("CARICO in the simulator (thesis ch. 5)");
  doc.section("Setup").paragraph(
      "19 workers × 4 CPU × 8 GB; pods reach Running 0.5–4 s after binding. pi-2000: 1 CPU, "
      "5 s of work; sklearn: 3 CPU, 550–700 Mi, 25 s. kube-default uses the thesis's requests; "
      "CARICO's pods request nothing. Means over " +
      std::to_string(seeds) + " seed(s).");
  doc.section("Job completion (Figs 5.1, 5.2)")
      .chart(jct_chart(experiments, "pi2000_", "pi-2000 JCT vs pods"))
      .chart(jct_chart(experiments, "sklearn_", "sklearn JCT vs pods"));
  doc.section("Pod completion and utilisation (Tables 5.1–5.3, §5.3)")
      .table(pct_table(experiments));
  latency_section(doc, experiments, latency);
  out.html = o.out_dir + "/report.html";
  out.summary = o.out_dir + "/summary.json";
  doc.write(out.html);
  write_file_atomic(out.summary, summary.dump(2) + "\n");
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace orrery::carico
