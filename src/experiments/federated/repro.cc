#include "experiments/federated/repro.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "core/error.h"
#include "io/files.h"
#include "util/stats.h"
#include "util/sweep.h"
#include "experiments/harness.h"
#include "policies/federated/cluster_config.h"
#include "policies/federated/run.h"
#include "policies/federated/task_model.h"
#include "report/document.h"

namespace orrery::federated {

std::vector<ReproWorkload> paper_workloads(bool quick) {
  // Cutoffs: the published PigeonC configuration's 2 s for the synthetic traces (1-s tasks:
  // every job short, as in the paper); for Yahoo and Google the cutoffs Hawk/Eagle/Pigeon use
  // for these traces (90 s and 1129 s), since the configuration's 2 s would make no Google job
  // short while the paper reports short-job delays for both (docs/repro/federated.md).
  std::vector<ReproWorkload> w = {
      {"syn_250", "syn_250.0.tr", 1, 2, 0},       {"syn_500", "syn_500.0.tr", 1, 2, 0},
      {"syn_1000", "syn_1000.0.tr", 1, 2, 0},     {"yahoo", "YH1_sub.tr", 1, 90, 0},
      {"google", "GOOG_subtrace.tr", 2, 1129, 0},
  };
  if (quick) {
    for (auto& x : w) x.max_jobs = x.name == "google" ? 2000 : x.name == "yahoo" ? 600 : 200;
  }
  return w;
}

namespace {

struct Profile {
  Arch arch;
  Pick pick;
  bool reference;  // the reference simulators' behaviour (see repro.h)
  std::string name() const { return profile_name(arch, pick) + (reference ? "_ref" : ""); }
  std::string label() const {
    std::string s = arch == Arch::kMegha ? "Megha" : "PigeonC";
    s += pick == Pick::kRandom ? "_rand" : "_min";
    return reference ? s + " (ref)" : s;
  }
};

// Profile indices: the paper's four, then their reference-behaviour variants.
constexpr size_t kMeghaRand = 0, kMeghaMin = 1, kPigeonRand = 2, kPigeonMin = 3, kRefOffset = 4;

// The paper's numbers (§6): median delays in seconds where it states them.
double paper_median(const std::string& workload, const Profile& p) {
  const double nan = std::nan("");
  if (p.reference) return nan;
  const bool rnd = p.pick == Pick::kRandom;
  if (p.arch == Arch::kMegha) {
    if (workload == "syn_1000") return rnd ? 0.67 : 0.33;
    return 0.0015;  // "consistently 1.5 ms in all scenarios, except for syn_1000"
  }
  if (workload == "yahoo") return rnd ? 1281.3 : 1161.86;
  if (workload == "google") return 0.0015;
  if (workload == "syn_250") return rnd ? 1.003 : 1.002;
  if (workload == "syn_500") return rnd ? 507.74 : 520.60;
  if (workload == "syn_1000") return rnd ? 1416.88 : 1449.3;
  return nan;
}

std::shared_ptr<const sim::Trace> load_trace(const std::string& path, size_t max_jobs) {
  sim::Trace t = sim::read_trace(path);
  if (max_jobs && t.jobs.size() > max_jobs) {
    t.jobs.resize(max_jobs);
    t.task_duration.resize(t.jobs.back().first_task + t.jobs.back().num_tasks);
  }
  return std::make_shared<const sim::Trace>(std::move(t));
}

struct RunSpec {
  size_t workload;
  size_t profile;
  uint64_t seed;
};

struct RunResult {
  sim::Json summary;
  std::vector<std::pair<uint64_t, double>> delays;  // (job, delay s)
  std::vector<double> util;
};

double num(const sim::Json& j) {
  return j.is_number() ? j.get<double>() : std::nan("");
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  size_t n = 0;
  for (double x : v)
    if (!std::isnan(x)) {
      s += x;
      ++n;
    }
  return n ? s / static_cast<double>(n) : std::nan("");
}

// Which of the quirks are on, for the report ("all on", "off: ...").
std::string quirk_list(const ReferenceQuirks& q) {
  std::string off;
  auto add = [&](bool on, const char* name) {
    if (!on) off += (off.empty() ? "" : ", ") + std::string(name);
  };
  add(q.master_picks_min, "master-min");
  add(q.fair_queue_le, "fair-queue-le");
  add(q.drop_rejection_state, "rejection-state");
  add(q.early_first_heartbeat, "early-heartbeat");
  add(q.batched_verify, "batched-verify");
  add(q.lm_frees_at_task_end, "lm-frees-at-end");
  add(q.update_lists, "update-lists");
  return off.empty() ? "all on" : "off here: " + off;
}

}  // namespace

namespace {

// Everything a run needs, read and checked before anything is written.
struct Ctx {
  const ReproOptions* o = nullptr;
  std::vector<ReproWorkload> workloads;
  std::optional<TaskConstraintModel> model;  // not default-constructible
  std::map<std::pair<Arch, uint32_t>, ClusterConfig> configs;
  std::vector<std::shared_ptr<const sim::Trace>> traces;
  std::vector<Profile> profiles;
  std::vector<RunSpec> specs;
};

Ctx prepare(const ReproOptions& o) {
  Ctx ctx;
  ctx.o = &o;
  if (o.out_dir.empty()) throw InputError("repro federated: --out DIR is required");
  if (o.seeds.empty()) throw InputError("repro federated: expected at least one seed");
  ctx.workloads = o.workloads.empty() ? paper_workloads(o.quick) : o.workloads;
  const std::string data = o.data_dir + "/";
  // Everything is read and checked before anything is written.
  const ClusterConfig megha =
      load_cluster_config(data + "megha_config_G5L5S10000_C.json", Arch::kMegha);
  const ClusterConfig pigeon =
      load_cluster_config(data + "pigeon_config_D10M100S10000_C.json", Arch::kPigeonC);
  ctx.model = load_task_model(data + "task_constraint_model.json");
  for (const ReproWorkload& w : ctx.workloads) {
    ctx.traces.push_back(load_trace(data + w.trace, w.max_jobs));
    for (const ClusterConfig* c : {&megha, &pigeon})
      ctx.configs.try_emplace({c->arch, w.replicate}, replicate(*c, w.replicate));
  }
  std::vector<Profile>& profiles = ctx.profiles;
  profiles = {{Arch::kMegha, Pick::kRandom, false},
              {Arch::kMegha, Pick::kMinConstraints, false},
              {Arch::kPigeonC, Pick::kRandom, false},
              {Arch::kPigeonC, Pick::kMinConstraints, false}};
  if (o.reference) {
    for (size_t p = 0; p < kRefOffset; ++p) {
      profiles.push_back(profiles[p]);
      profiles.back().reference = true;
    }
  }
  for (size_t w = 0; w < ctx.workloads.size(); ++w)
    for (size_t p = 0; p < profiles.size(); ++p)
      for (uint64_t s : o.seeds) ctx.specs.push_back({w, p, s});

  return ctx;
}

// Run i of the sweep; its files go to DIR/runs/<workload>/<profile>/seed<N>/.
RunResult run_one(const Ctx& ctx, size_t i) {
  const ReproOptions& o = *ctx.o;
  const std::vector<RunSpec>& specs = ctx.specs;
  const std::vector<ReproWorkload>& workloads = ctx.workloads;
  const std::vector<Profile>& profiles = ctx.profiles;
  const auto& configs = ctx.configs;
  const auto& traces = ctx.traces;
  const TaskConstraintModel& model = *ctx.model;
  const RunSpec& s = specs[i];
  const ReproWorkload& wl = workloads[s.workload];
  const Profile& pr = profiles[s.profile];
  const ClusterConfig& c = configs.at({pr.arch, wl.replicate});
  const Workload w = make_workload(traces[s.workload], model, s.seed, c);
  RunOptions ro;
  ro.pick = pr.pick;
  ro.seed = s.seed;
  ro.cutoff_s = wl.cutoff_s;
  ro.wall_clock = o.wall_clock;
  set_reference(pr.arch, pr.reference, &ro);
  if (pr.reference) ro.quirks = o.quirks;
  ro.scenario = wl.name;
  RunOutput r = run_federated(w, c, ro);
  r.summary["profile"] = pr.name();
  write_run(r, o.out_dir + "/runs/" + wl.name + "/" + pr.name() + "/seed" + std::to_string(s.seed));
  RunResult res;
  for (const sim::JobRecord& j : r.jobs) res.delays.emplace_back(j.id, j.delay_s());
  res.util = std::move(r.util_samples);
  res.summary = std::move(r.summary);
  return res;
}

std::string progress_line(const Ctx& c, const SweepStep& step, const RunResult& res) {
  const std::vector<RunSpec>& specs = c.specs;
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  const RunSpec& s = specs[step.index];
  const sim::Json& js = res.summary["jobs"];
  return ("[" + std::to_string(step.done) + "/" + std::to_string(step.total) + "] " +
          workloads[s.workload].name + " " + profiles[s.profile].name() + " seed " +
          std::to_string(s.seed) + ": delay p50 " +
          report::format_value(num(js["delay_p50_s"]), report::Format::kSeconds) + ", p99 " +
          report::format_value(num(js["delay_p99_s"]), report::Format::kSeconds));
}

// results.csv: one row per run.
std::string results_csv(const Ctx& c, const std::vector<RunResult>& results) {
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  const std::vector<RunSpec>& specs = c.specs;
  std::string csv =
      "workload,profile,seed,jobs,delay_p50_s,delay_p90_s,delay_p99_s,delay_mean_s,"
      "short_jobs,short_p50_s,short_p99_s,util_mean,inconsistencies,events,wall_time_s\n";
  for (size_t i = 0; i < specs.size(); ++i) {
    const sim::Json& s = results[i].summary;
    const std::vector<double> cols = {num(s["jobs"]["delay_p50_s"]),
                                      num(s["jobs"]["delay_p90_s"]),
                                      num(s["jobs"]["delay_p99_s"]),
                                      num(s["jobs"]["delay_mean_s"]),
                                      num(s["short_jobs"]["count"]),
                                      num(s["short_jobs"]["delay_p50_s"]),
                                      num(s["short_jobs"]["delay_p99_s"]),
                                      num(s["utilization"]["cpu_mean"]),
                                      num(s["inconsistencies"]),
                                      num(s["events"]),
                                      num(s["wall_time_s"])};
    csv += workloads[specs[i].workload].name + "," + profiles[specs[i].profile].name() + "," +
           std::to_string(specs[i].seed) + "," + std::to_string(s["jobs"]["count"].get<size_t>());
    for (double v : cols) csv += "," + sim::fmt_double(v);
    csv += "\n";
  }
  return csv;
}

// Aggregates per (workload, profile). Delay percentiles as the paper computes them: each job's
// delay averaged over the seeds, then the percentiles of those per-job means. The means over
// seeds of each run's own percentiles are kept beside them (`*_run_mean`), with the range of the
// per-run p50 (the spread over seeds).
struct Agg {
  double p50, p90, p99, mean, short_p50, short_p99, util, inconsistencies;
  double run_p50, run_p90, run_p99, run_mean, run_short_p50, run_short_p99;
  double run_p50_min, run_p50_max;
  std::vector<double> job_delay;   // per job, averaged over the seeds it finished in
  std::vector<double> util_first;  // seed[0]'s utilisation samples
};

std::vector<std::vector<Agg>> aggregate(const Ctx& c, const std::vector<RunResult>& results) {
  const ReproOptions& o = *c.o;
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  const std::vector<RunSpec>& specs = c.specs;
  const std::vector<std::shared_ptr<const sim::Trace>>& traces = c.traces;
  std::vector<std::vector<Agg>> agg(workloads.size(), std::vector<Agg>(profiles.size()));
  for (size_t w = 0; w < workloads.size(); ++w) {
    for (size_t p = 0; p < profiles.size(); ++p) {
      std::vector<double> p50, p90, p99, mean, sp50, sp99, util, inc;
      std::vector<double> sum(traces[w]->jobs.size(), 0.0);
      std::vector<int> cnt(traces[w]->jobs.size(), 0);
      Agg& a = agg[w][p];
      for (size_t i = 0; i < specs.size(); ++i) {
        if (specs[i].workload != w || specs[i].profile != p) continue;
        const sim::Json& s = results[i].summary;
        p50.push_back(num(s["jobs"]["delay_p50_s"]));
        p90.push_back(num(s["jobs"]["delay_p90_s"]));
        p99.push_back(num(s["jobs"]["delay_p99_s"]));
        mean.push_back(num(s["jobs"]["delay_mean_s"]));
        const bool any_short = num(s["short_jobs"]["count"]) > 0;
        sp50.push_back(any_short ? num(s["short_jobs"]["delay_p50_s"]) : std::nan(""));
        sp99.push_back(any_short ? num(s["short_jobs"]["delay_p99_s"]) : std::nan(""));
        util.push_back(num(s["utilization"]["cpu_mean"]));
        inc.push_back(num(s["inconsistencies"]));
        for (const auto& [job, d] : results[i].delays) {
          sum[job] += d;
          ++cnt[job];
        }
        if (specs[i].seed == o.seeds[0]) a.util_first = results[i].util;
      }
      a.run_p50 = mean_of(p50);
      a.run_p90 = mean_of(p90);
      a.run_p99 = mean_of(p99);
      a.run_mean = mean_of(mean);
      a.run_short_p50 = mean_of(sp50);
      a.run_short_p99 = mean_of(sp99);
      a.run_p50_min = p50.empty() ? std::nan("") : *std::min_element(p50.begin(), p50.end());
      a.run_p50_max = p50.empty() ? std::nan("") : *std::max_element(p50.begin(), p50.end());
      a.util = mean_of(util);
      a.inconsistencies = mean_of(inc);
      std::vector<double> short_delay;
      for (size_t j = 0; j < sum.size(); ++j) {
        if (!cnt[j]) continue;
        a.job_delay.push_back(sum[j] / cnt[j]);
        if (traces[w]->jobs[j].mean_task_duration_s < workloads[w].cutoff_s)
          short_delay.push_back(sum[j] / cnt[j]);
      }
      std::vector<double> sorted = a.job_delay;
      std::sort(sorted.begin(), sorted.end());
      std::sort(short_delay.begin(), short_delay.end());
      a.p50 = percentile_sorted(sorted, 50);
      a.p90 = percentile_sorted(sorted, 90);
      a.p99 = percentile_sorted(sorted, 99);
      a.mean = mean_of(sorted);
      a.short_p50 = percentile_sorted(short_delay, 50);
      a.short_p99 = percentile_sorted(short_delay, 99);
    }
  }

  return agg;
}

// summary.json (written last, after the report).
sim::Json summary_json(const Ctx& c, const std::vector<std::vector<Agg>>& agg) {
  const ReproOptions& o = *c.o;
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  const std::vector<std::shared_ptr<const sim::Trace>>& traces = c.traces;
  sim::Json summary;
  summary["seeds"] = o.seeds;
  summary["quick"] = o.quick;
  sim::Json& sw = summary["workloads"];
  for (size_t w = 0; w < workloads.size(); ++w) {
    sim::Json jw;
    jw["trace"] = workloads[w].trace;
    jw["jobs"] = traces[w]->jobs.size();
    jw["workers"] = 10'000 * workloads[w].replicate;
    jw["cutoff_s"] = workloads[w].cutoff_s;
    for (size_t p = 0; p < profiles.size(); ++p) {
      const Agg& a = agg[w][p];
      sim::Json jp;
      jp["delay_p50_s"] = a.p50;
      jp["delay_p90_s"] = a.p90;
      jp["delay_p99_s"] = a.p99;
      jp["delay_mean_s"] = a.mean;
      jp["short_delay_p50_s"] = std::isnan(a.short_p50) ? sim::Json() : sim::Json(a.short_p50);
      jp["short_delay_p99_s"] = std::isnan(a.short_p99) ? sim::Json() : sim::Json(a.short_p99);
      // The means over seeds of each run's own statistics, and the range of the per-run p50.
      jp["delay_p50_s_run_mean"] = a.run_p50;
      jp["delay_p90_s_run_mean"] = a.run_p90;
      jp["delay_p99_s_run_mean"] = a.run_p99;
      jp["delay_mean_s_run_mean"] = a.run_mean;
      jp["delay_p50_s_run_min"] = a.run_p50_min;
      jp["delay_p50_s_run_max"] = a.run_p50_max;
      jp["short_delay_p50_s_run_mean"] =
          std::isnan(a.run_short_p50) ? sim::Json() : sim::Json(a.run_short_p50);
      jp["short_delay_p99_s_run_mean"] =
          std::isnan(a.run_short_p99) ? sim::Json() : sim::Json(a.run_short_p99);
      jp["util_mean"] = a.util;
      jp["inconsistencies"] = a.inconsistencies;
      const double pm = paper_median(workloads[w].name, profiles[p]);
      jp["paper_delay_p50_s"] = std::isnan(pm) ? sim::Json() : sim::Json(pm);
      jw["profiles"][profiles[p].name()] = std::move(jp);
    }
    // Tail ratios PigeonC / Megha (the paper: Megha's p99 at least 10x lower).
    for (size_t ref = 0; ref <= (o.reference ? kRefOffset : 0); ref += kRefOffset) {
      const std::string sfx = ref ? "_ref" : "";
      const auto& a = agg[w];
      jw["p99_ratio_pigeonc_over_megha" + sfx]["rand"] =
          a[ref + kPigeonRand].p99 / a[ref + kMeghaRand].p99;
      jw["p99_ratio_pigeonc_over_megha" + sfx]["min"] =
          a[ref + kPigeonMin].p99 / a[ref + kMeghaMin].p99;
      jw["util_ratio_pigeonc_over_megha" + sfx] =
          (a[ref + kPigeonRand].util + a[ref + kPigeonMin].util) /
          (a[ref + kMeghaRand].util + a[ref + kMeghaMin].util);
    }
    sw[workloads[w].name] = std::move(jw);
  }

  return summary;
}

std::string setup_text(const ReproOptions& o) {
  return "Reproduction of the evaluation of \"Constraint-Aware Federated Scheduling for Data "
         "Center "
         "Workloads\" (Thiyyakat et al., IoT 2023): Megha (5 GMs x 5 LMs) and PigeonC (10 "
         "Distributors x 100 Masters) on 10,000 workers (20,000 for the Google sub-trace, built by "
         "replicating the published configuration's LMs / Masters), one task per worker, 0.5 ms "
         "one-way network delay on every message, Megha heartbeats every 5 s, PigeonC master "
         "heartbeats every 10 s, FQW = 20. Task placement constraints drawn from the published "
         "model with each seed. Delay = job response time - longest task. Seeds " +
         [&] {
           std::string s;
           for (uint64_t x : o.seeds) s += (s.empty() ? "" : ", ") + std::to_string(x);
           return s;
         }() +
         (o.quick ? ". QUICK RUN: reduced, not the paper's setup (only the first jobs of each "
                    "trace)."
                  : ". Delay percentiles are those of each job's delay averaged over the seeds (as "
                    "the paper aggregates); utilisation and inconsistencies are means over the "
                    "seeds; each table and chart says which it shows.") +
         (o.reference
              ? " Profiles marked (ref) add the published simulators' behaviour where the "
                "paper's text is silent or differs: Megha's GMs put a rejected task back at "
                "the head of their queue to wait for a worker reported free (instead of "
                "retrying it at once on the refreshed view), and PigeonC's Distributors "
                "count constraint-set occurrences as the published PigeonC simulator does (a "
                "worker whose set is a subset of one already recorded adds to that set "
                "instead of its own, so Masters are also weighted by workers that cannot run "
                "the task), PigeonC's Masters pick the suitable worker with the fewest "
                "constraints whatever the match setting, its fair queue lets FQW + 1 short "
                "tasks go per long one, a Megha LM's rejection loses the state pending at it "
                "and carries only what changes while it is in flight, Megha's first "
                "heartbeat comes 50 ms before the first arrival, a Megha GM sends a job's "
                "mappings in per-LM batches of up to 100, an LM frees a worker when its "
                "task ends, and its updates are lists of busy and available workers in "
                "which available wins (the last seven: quirks " +
                    quirk_list(o.quirks) + "). See docs/repro/federated.md."
              : "");
}

// Figures 6-8: per workload, the CDF of delays and the table of statistics.
void workload_sections(report::Document& doc, const Ctx& c,
                       const std::vector<std::vector<Agg>>& agg) {
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  const std::vector<std::shared_ptr<const sim::Trace>>& traces = c.traces;
  for (size_t w = 0; w < workloads.size(); ++w) {
    const std::string& name = workloads[w].name;
    const std::string figure = name.rfind("syn", 0) == 0 ? "Figure 6: "
                               : name == "yahoo"         ? "Figure 7: "
                               : name == "google"        ? "Figure 8: "
                                                         : "";
    const std::string heading = figure + name + " (" + std::to_string(traces[w]->jobs.size()) +
                                " jobs, " + std::to_string(10'000 * workloads[w].replicate) +
                                " workers)";
    doc.section(heading);
    report::CdfChart cdf;
    cdf.title = "Job response time delay, " + name;
    cdf.x.label = "delay (per job, mean over seeds)";
    cdf.x.format = report::Format::kSeconds;
    cdf.x.log = true;
    for (size_t p = 0; p < profiles.size(); ++p)
      cdf.series.push_back({profiles[p].label(), agg[w][p].job_delay});
    doc.chart(cdf, "CDF of each job's delay averaged over the seeds, as in the paper's figure.");
    report::Table t;
    t.caption =
        "Delays as the paper aggregates them: each job's delay averaged over the seeds, then the "
        "percentiles of those per-job means (short jobs likewise); beside them the mean over "
        "seeds of each run's own p50 with its range over seeds [min–max]. Utilisation and "
        "inconsistencies: means over seeds.";
    t.columns = {"profile",   "p50",         "paper p50",      "p50 per run, mean [min–max]",
                 "p90",       "p99",         "mean",           "short p50",
                 "short p99", "utilisation", "inconsistencies"};
    t.row_headers = true;
    for (size_t p = 0; p < profiles.size(); ++p) {
      const Agg& a = agg[w][p];
      using report::Format;
      t.add_row({profiles[p].label(), report::Cell(a.p50, Format::kSeconds),
                 report::Cell(paper_median(name, profiles[p]), Format::kSeconds),
                 report::format_value(a.run_p50, Format::kSeconds) + " [" +
                     report::format_value(a.run_p50_min, Format::kSeconds) + "–" +
                     report::format_value(a.run_p50_max, Format::kSeconds) + "]",
                 report::Cell(a.p90, Format::kSeconds), report::Cell(a.p99, Format::kSeconds),
                 report::Cell(a.mean, Format::kSeconds),
                 report::Cell(a.short_p50, Format::kSeconds),
                 report::Cell(a.short_p99, Format::kSeconds),
                 report::Cell(a.util, Format::kPercent), report::Cell(a.inconsistencies)});
    }
    doc.table(t);
  }
}

void tail_section(report::Document& doc, const Ctx& c, const std::vector<std::vector<Agg>>& agg) {
  const ReproOptions& o = *c.o;
  const std::vector<ReproWorkload>& workloads = c.workloads;
  doc.section("Megha vs PigeonC at the tail");
  {
    report::Table t;
    t.caption =
        "p99 delay ratio PigeonC / Megha, p99 of the per-job delays averaged over seeds (the "
        "paper: Megha's p99 at least 10x lower; short jobs 5.61x lower for Yahoo and 5.3x for "
        "Google)";
    t.columns = {"workload", "rand", "min", "short jobs, rand", "short jobs, min"};
    if (o.reference) {
      t.columns.push_back("rand (ref)");
      t.columns.push_back("min (ref)");
    }
    t.row_headers = true;
    for (size_t w = 0; w < workloads.size(); ++w) {
      const auto& a = agg[w];
      std::vector<report::Cell> row = {workloads[w].name, a[kPigeonRand].p99 / a[kMeghaRand].p99,
                                       a[kPigeonMin].p99 / a[kMeghaMin].p99,
                                       a[kPigeonRand].short_p99 / a[kMeghaRand].short_p99,
                                       a[kPigeonMin].short_p99 / a[kMeghaMin].short_p99};
      if (o.reference) {
        row.push_back(a[kRefOffset + kPigeonRand].p99 / a[kRefOffset + kMeghaRand].p99);
        row.push_back(a[kRefOffset + kPigeonMin].p99 / a[kRefOffset + kMeghaMin].p99);
      }
      t.add_row(std::move(row));
    }
    doc.table(t);
  }
}

void utilisation_sections(report::Document& doc, const Ctx& c,
                          const std::vector<std::vector<Agg>>& agg) {
  const ReproOptions& o = *c.o;
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  doc.section("Figure 9: PigeonC's utilisation normalised to Megha's");
  {
    report::BarChart bars;
    bars.title = "Mean utilisation, PigeonC / Megha (both matching approaches averaged)";
    bars.x_label = "workload";
    bars.y.label = "PigeonC / Megha";
    report::BarSeries ours{"PigeonC / Megha", {}, {}, {}};
    report::BarSeries ref{"PigeonC (ref) / Megha (ref)", {}, {}, {}};
    for (size_t w = 0; w < workloads.size(); ++w) {
      const auto& a = agg[w];
      bars.groups.push_back(workloads[w].name);
      auto ratio = [&](size_t off) {
        return (a[off + kPigeonRand].util + a[off + kPigeonMin].util) /
               (a[off + kMeghaRand].util + a[off + kMeghaMin].util);
      };
      ours.value.push_back(ratio(0));
      if (o.reference) ref.value.push_back(ratio(kRefOffset));
    }
    bars.series.push_back(ours);
    if (o.reference) bars.series.push_back(ref);
    doc.chart(bars,
              "Utilisation = busy workers / workers, averaged over each run from the first "
              "arrival to the last task's end (paper eq. 2), then over the seeds; a scheduler "
              "that delays tasks stretches the same work over a longer span.");
  }

  doc.section("Figure 10: utilisation of the synthetic workloads");
  for (size_t w = 0; w < workloads.size(); ++w) {
    if (workloads[w].name.rfind("syn", 0) != 0) continue;
    report::CdfChart cdf;
    cdf.title =
        "Utilisation, " + workloads[w].name + " (seed " + std::to_string(o.seeds[0]) + ", Random)";
    cdf.x.label = "utilisation";
    cdf.x.format = report::Format::kPercent;
    for (size_t p : {kMeghaRand, kPigeonRand, kRefOffset + kMeghaRand, kRefOffset + kPigeonRand})
      if (p < profiles.size()) cdf.series.push_back({profiles[p].label(), agg[w][p].util_first});
    doc.chart(cdf, "One run (seed " + std::to_string(o.seeds[0]) +
                       "): the utilisation samples of that run, not aggregated over seeds.");
  }
}

void runs_section(report::Document& doc, const Ctx& c, const std::vector<RunResult>& results) {
  const std::vector<ReproWorkload>& workloads = c.workloads;
  const std::vector<Profile>& profiles = c.profiles;
  const std::vector<RunSpec>& specs = c.specs;
  doc.section("Runs");
  doc.paragraph(
      "Every run's summary.json, jobs.csv and timeseries.csv are in runs/<workload>/"
      "<profile>/seed<N>/; results.csv has one row per run.");
  {
    report::Table t;
    t.caption = "Runs (each run's own percentiles)";
    t.columns = {"workload", "profile",         "seed",   "jobs",     "p50",
                 "p99",      "inconsistencies", "events", "wall time"};
    for (size_t i = 0; i < specs.size(); ++i) {
      const sim::Json& s = results[i].summary;
      t.add_row({workloads[specs[i].workload].name, profiles[specs[i].profile].name(),
                 report::Cell(specs[i].seed), report::Cell(num(s["jobs"]["count"])),
                 report::Cell(num(s["jobs"]["delay_p50_s"]), report::Format::kSeconds),
                 report::Cell(num(s["jobs"]["delay_p99_s"]), report::Format::kSeconds),
                 report::Cell(num(s["inconsistencies"])), report::Cell(num(s["events"])),
                 report::Cell(num(s["wall_time_s"]), report::Format::kSeconds)});
    }
    doc.table(t);
  }
}

// A run's result in shard files (experiments/harness.h).
experiments::Codec<RunResult> result_codec() {
  experiments::Codec<RunResult> codec;
  codec.encode = [](const RunResult& r) {
    sim::Json d = sim::Json::array();
    for (const auto& [job, delay] : r.delays) d.push_back({job, experiments::real(delay)});
    return sim::Json{{"summary", r.summary}, {"delays", d}, {"util", experiments::reals(r.util)}};
  };
  codec.decode = [](const sim::Json& j) {
    RunResult r;
    r.summary = j.at("summary");
    for (const sim::Json& d : j.at("delays"))
      r.delays.emplace_back(d.at(0).get<uint64_t>(), experiments::real_of(d.at(1)));
    r.util = experiments::reals_of(j.at("util"));
    return r;
  };
  return codec;
}

}  // namespace

ReproResult run_repro(const ReproOptions& o) {
  const Ctx c = prepare(o);
  make_dirs(o.out_dir);
  std::function<void(const SweepStep&, const RunResult&)> on_done;
  if (o.progress)
    on_done = [&](const SweepStep& step, const RunResult& res) {
      o.progress(progress_line(c, step, res));
    };
  ReproResult out;
  out.runs = c.specs.size();
  const std::optional<std::vector<RunResult>> swept = experiments::sweep<RunResult>(
      o.distribution, o.out_dir, c.specs.size(), static_cast<int>(o.threads),
      [&](size_t i) { return run_one(c, i); }, result_codec(), on_done);
  if (!swept) {
    out.shard_note = experiments::shard_message(o.distribution, o.out_dir, c.specs.size());
    return out;
  }
  const std::vector<RunResult>& results = *swept;
  write_file_atomic(o.out_dir + "/results.csv", results_csv(c, results));
  const std::vector<std::vector<Agg>> agg = aggregate(c, results);
  const sim::Json summary = summary_json(c, agg);

  report::Document doc("Megha and PigeonC: constraint-aware federated scheduling");
  doc.section("Setup");
  doc.paragraph(setup_text(o));
  workload_sections(doc, c, agg);
  tail_section(doc, c, agg);
  utilisation_sections(doc, c, agg);
  runs_section(doc, c, results);
  out.report = o.out_dir + "/report.html";
  doc.write(out.report);
  write_file_atomic(o.out_dir + "/summary.json", summary.dump(2) + "\n");
  return out;
}

}  // namespace orrery::federated
