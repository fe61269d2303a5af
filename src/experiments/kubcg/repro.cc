#include "experiments/kubcg/repro.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "util/distribution.h"
#include "core/error.h"
#include "io/files.h"
#include "io/json.h"
#include "core/rng.h"
#include "experiments/harness.h"
#include "experiments/kubcg/evaluation.h"

namespace orrery::kubcg {

namespace {

// How a case's workload is generated and measured.
struct CaseSpec {
  std::string name;
  // Arrivals for one image type (or mixed when image < 0) and seed.
  std::function<std::vector<Arrival>(int image, Rng& rng)> arrivals;
  bool mean_completion = false;  // Poisson: mean per pod; else the time to complete them all
};

struct Experiment {
  std::string name;
  bool mixed = false;
  std::vector<CaseSpec> cases;
  std::string paper;  // the paper's numbers, for the report
};

std::vector<Arrival> poisson(int image, int n, double lambda_per_10min, Rng& rng) {
  std::vector<Arrival> a;
  const Dist gap = Dist::exponential(600.0 / lambda_per_10min);
  double t = 0;
  for (int i = 0; i < n; ++i) {
    a.push_back({t, image < 0 ? i % 4 : image});
    t += gap.sample(rng);
  }
  return a;
}

std::vector<Arrival> batch(int image, int n) {
  std::vector<Arrival> a;
  for (int i = 0; i < n; ++i) a.push_back({0, image < 0 ? i % 4 : image});
  return a;
}

std::vector<Arrival> window(int image, int n, double width, Rng& rng) {
  std::vector<Arrival> a;
  for (int i = 0; i < n; ++i) a.push_back({rng.uniform(0, width), image < 0 ? i % 4 : image});
  std::sort(a.begin(), a.end(), [](const Arrival& x, const Arrival& y) { return x.t_s < y.t_s; });
  return a;
}

std::vector<Experiment> experiments(bool quick) {
  const int poisson_n = quick ? 6 : 10;
  std::vector<Experiment> ex;
  Experiment p{"poisson",
               false,
               {},
               "K-CPU vs D-CPU: −36/−33/−41/−32/−38 %; K-CPU+GPU: −8/−9/−22/−39/−44 % (λ 3…50)"};
  for (int l : {3, 5, 10, 20, 50})
    p.cases.push_back({"lambda_" + std::to_string(l),
                       [l, poisson_n](int im, Rng& r) { return poisson(im, poisson_n, l, r); },
                       true});
  ex.push_back(p);
  Experiment b{
      "batch",
      false,
      {},
      "K-CPU to 43/41/48/44/47 % of D-CPU; K-CPU+GPU to 50/37/37/55/64 % of default (3…50 pods)"};
  for (int n : {3, 5, 10, 20, 50})
    b.cases.push_back(
        {"pods_" + std::to_string(n), [n](int im, Rng&) { return batch(im, n); }, false});
  ex.push_back(b);
  Experiment o{"overlap",
               false,
               {},
               "K-CPU to 53/48/34 % of D-CPU; K-CPU+GPU improves 34/48/42 % (I250/I750/I1500)"};
  for (int w : {250, 750, 1500})
    o.cases.push_back(
        {"I" + std::to_string(w), [w](int im, Rng& r) { return window(im, 10, w, r); }, false});
  ex.push_back(o);
  Experiment mp{"mixed_poisson", true, {}, "K-CPU −20 %, K-CPU+GPU up to −33 % (λ 4/8/16/32)"};
  for (int l : {4, 8, 16, 32})
    mp.cases.push_back(
        {"lambda_" + std::to_string(l), [l](int, Rng& r) { return poisson(-1, l, l, r); }, true});
  ex.push_back(mp);
  Experiment mb{"mixed_batch", true, {}, "K-CPU ≈ −20 %, K-CPU+GPU ≈ −34 % (4/8/16/32 pods)"};
  for (int n : {4, 8, 16, 32})
    mb.cases.push_back(
        {"pods_" + std::to_string(n), [n](int, Rng&) { return batch(-1, n); }, false});
  ex.push_back(mb);
  Experiment mo{"mixed_overlap", true, {}, "K-CPU −18 %, K-CPU+GPU up to −51 % (I250/I750/I1500)"};
  for (int w : {250, 750, 1500})
    mo.cases.push_back(
        {"I" + std::to_string(w), [w](int, Rng& r) { return window(-1, 8, w, r); }, false});
  ex.push_back(mo);
  return ex;
}

std::string html_report(const Json& summary, const std::vector<Experiment>& ex, int seeds) {
  std::string h =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>KubCG reproduction</title>"
      "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}table{border-collapse:"
      "collapse;margin-bottom:1em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
      "th{background:#eee}td.l{text-align:left}.bar{display:inline-block;height:10px;"
      "background:#4a7}</style></head><body><h1>KubCG (El Haj Ahmed et al., SPE 2020) in the "
      "orrery simulator</h1>";
  h += fmt::format(
      "<p>Table 1 cluster, Table 2 images, warm-up of 100 runs per image, {} seed(s) per point. "
      "Times in seconds: Poisson experiments give the mean time to complete a pod (creation to "
      "end), the others the time to complete all pods. Ratios are KubCG's time over kube-default's "
      "(lower is better). See docs/repro/kubcg.md.</p>",
      seeds);
  for (const Experiment& e : ex) {
    h += "<h2>" + e.name + "</h2><p>Paper: " + e.paper + "</p><table><tr><th>case</th>";
    for (Case c : kAllCases) h += std::string("<th>") + to_string(c) + "</th>";
    h += "<th>K-CPU / D-CPU</th><th>K-CPU+GPU / best default</th></tr>";
    const Json& xs = summary["experiments"][e.name];
    for (const CaseSpec& cs : e.cases) {
      const Json& row = xs[cs.name];
      h += "<tr><td class=\"l\">" + cs.name + "</td>";
      double mx = 0;
      for (Case c : kAllCases) mx = std::max(mx, row[to_string(c)].get<double>());
      for (Case c : kAllCases) {
        const double v = row[to_string(c)].get<double>();
        h += fmt::format("<td>{:.1f} <span class=\"bar\" style=\"width:{:.0f}px\"></span></td>", v,
                         mx > 0 ? 80 * v / mx : 0);
      }
      const double dc = row["D-CPU"].get<double>(), dg = row["D-GPU"].get<double>();
      h += fmt::format("<td>{:.0f} %</td><td>{:.0f} %</td></tr>",
                       100 * row["K-CPU"].get<double>() / dc,
                       100 * row["K-CPU+GPU"].get<double>() / std::min(dc, dg));
    }
    h += "</table>";
  }
  return h + "</body></html>\n";
}

}  // namespace

namespace {

// One run of the sweep: a case of an experiment under one of the four setups, for one seed and
// image (every image of a mixed experiment at once: image 0 only).
struct Task {
  size_t experiment, spec;
  Case c;
  int seed, image;
};

// The runs in the order the averages add them up.
std::vector<Task> tasks_of(const std::vector<Experiment>& ex, int seeds) {
  std::vector<Task> tasks;
  for (size_t e = 0; e < ex.size(); ++e)
    for (size_t k = 0; k < ex[e].cases.size(); ++k)
      for (Case c : kAllCases)
        for (int s = 1; s <= seeds; ++s)
          for (int im = 0; im < (ex[e].mixed ? 1 : 4); ++im) tasks.push_back({e, k, c, s, im});
  return tasks;
}

RunResult run_task(const std::vector<Experiment>& ex, const Task& t,
                   const std::vector<Record>& history) {
  const Experiment& e = ex[t.experiment];
  const CaseSpec& cs = e.cases[t.spec];
  // The same arrivals for every case of a seed and image.
  Rng rng = Rng::derive(static_cast<uint64_t>(t.seed) * 100 + static_cast<uint64_t>(t.image),
                        e.name + "/" + cs.name);
  const std::vector<Arrival> a = cs.arrivals(e.mixed ? -1 : t.image, rng);
  return run_case(t.c, a, history, static_cast<uint64_t>(t.seed));
}

// summary.json's experiments: per case and setup, the mean over seeds and images (0.1 s).
Json experiments_json(const std::vector<Experiment>& ex, const std::vector<Task>& tasks,
                      const std::vector<RunResult>& results) {
  Json xs = Json::object();
  std::map<std::tuple<size_t, size_t, int>, std::pair<double, int>> sums;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    const Experiment& e = ex[t.experiment];
    const CaseSpec& cs = e.cases[t.spec];
    if (!results[i].complete)
      throw std::runtime_error("kubcg repro: " + e.name + "/" + cs.name + "/" + to_string(t.c) +
                               " left pods unfinished");
    auto& [sum, n] = sums[{t.experiment, t.spec, static_cast<int>(t.c)}];
    sum += cs.mean_completion ? results[i].mean_completion_s : results[i].makespan_s;
    ++n;
  }
  for (size_t e = 0; e < ex.size(); ++e) {
    Json& x = xs[ex[e].name];
    x = Json::object();
    for (size_t k = 0; k < ex[e].cases.size(); ++k) {
      Json row = Json::object();
      for (Case c : kAllCases) {
        const auto& [sum, n] = sums.at({e, k, static_cast<int>(c)});
        row[to_string(c)] = std::round(sum / n * 10) / 10;
      }
      x[ex[e].cases[k].name] = row;
    }
  }
  return xs;
}

// A run's result in shard files (experiments/harness.h): every field, numbers exactly.
experiments::Codec<RunResult> result_codec() {
  using experiments::real;
  using experiments::real_of;
  experiments::Codec<RunResult> c;
  c.encode = [](const RunResult& r) {
    Json p = Json::object();
    for (const auto& [k, v] : r.placements) p[k] = v;
    return Json{{"makespan_s", real(r.makespan_s)},
                {"mean_completion_s", real(r.mean_completion_s)},
                {"pods", r.pods},
                {"failed_runs", r.failed_runs},
                {"complete", r.complete},
                {"gpu_waits", r.gpu_waits},
                {"switches", r.switches},
                {"placements", p}};
  };
  c.decode = [](const Json& j) {
    RunResult r;
    r.makespan_s = real_of(j.at("makespan_s"));
    r.mean_completion_s = real_of(j.at("mean_completion_s"));
    r.pods = j.at("pods").get<int>();
    r.failed_runs = j.at("failed_runs").get<int>();
    r.complete = j.at("complete").get<bool>();
    r.gpu_waits = j.at("gpu_waits").get<int64_t>();
    r.switches = j.at("switches").get<int64_t>();
    for (const auto& [k, v] : j.at("placements").items()) r.placements[k] = v.get<int>();
    return r;
  };
  return c;
}

}  // namespace

ReproResult run_repro(const ReproOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const int seeds = o.seeds > 0 ? o.seeds : (o.quick ? 1 : 5);
  std::filesystem::create_directories(o.out_dir);
  const std::vector<Record> history = warm_up(100, 1);
  if (!o.db.empty() && !o.distribution.sharded()) {  // shards leave the database to the merge
    try {
      open_history(o.db)->insert(history);
    } catch (const HistoryError& e) {
      throw InputError(std::string("--db: ") + e.what());
    }
  }
  ReproResult res;
  const std::vector<Experiment> ex = experiments(o.quick);
  const std::vector<Task> tasks = tasks_of(ex, seeds);
  res.runs = tasks.size();
  const std::optional<std::vector<RunResult>> swept = experiments::sweep<RunResult>(
      o.distribution, o.out_dir, tasks.size(), o.threads,
      [&](size_t i) { return run_task(ex, tasks[i], history); }, result_codec());
  if (!swept) {
    res.shard_note = experiments::shard_message(o.distribution, o.out_dir, tasks.size());
    return res;
  }
  Json summary = {{"experiments", experiments_json(ex, tasks, *swept)}};
  res.summary = (std::filesystem::path(o.out_dir) / "summary.json").string();
  res.html = (std::filesystem::path(o.out_dir) / "report.html").string();
  write_file_atomic(res.html, html_report(summary, ex, seeds));
  write_file_atomic(res.summary, summary.dump(2) + "\n");  // last: complete when present
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace orrery::kubcg
