// `orrery sim`, `orrery compare` and `orrery demo`: simulated runs of scenarios and traces.
//
//   orrery sim SCENARIO.yaml [--profile NAME] [--seed N] --out DIR
//   orrery sim --trace FILE.tr --workers N [--profile NAME] [--seed N] --out DIR
//   orrery sim --trace FILE.tr --cluster-config FILE_C.json --arch megha|pigeonc
//              [--match random|minc] [--seed N] --out DIR    (Megha/PigeonC, cmd_federated.cc)
//   orrery compare SCENARIO.yaml --profiles a,b,c --out DIR      (DIR/<profile>/ + DIR/report.html)
//   orrery compare --trace FILE.tr --cluster-config FILE_C.json[,FILE2_C.json]
//                  --profiles kube-default,megha,pigeonc --out DIR
//                  (policies and federated architectures on one trace,
//                  policies/federated/trace_runner.h)
//   orrery demo --out DIR                                         (the bundled scenario)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/sweep_flags.h"
#include "core/error.h"
#include "io/files.h"
#include "policies/catalog.h"
#include "policies/federated/architectures.h"
#include "policies/federated/trace_runner.h"
#include "report/run_report.h"
#include "report/seed_comparison.h"
#include "sim/demo_scenario.h"
#include "sim/simulation.h"
#include "util/suggest.h"
#include "util/sweep.h"

namespace orrery::cli {

// Every scheduling policy the simulator can run, by name (policies/catalog.h).
fw::PolicyRegistry simulation_policies() {
  return policies::catalog();
}

namespace {

using sim::Json;

struct RunFlags {
  std::optional<uint64_t> seed;
  std::string duration;
  bool no_wall_clock = false;
  bool quiet = false;
  std::string baseline;          // compare/demo: the verdict's baseline run (report::baseline_run)
  std::string output = "table";  // -o: table, json or yaml (cli/output.h)
  bool table() const { return output == "table"; }
};

void add_baseline_flag(CLI::App* app, RunFlags* f) {
  app->add_option("--baseline", f->baseline,
                  "Policy the report's verdict compares against (default: kube-default when "
                  "run, else the first)");
}

void add_run_flags(CLI::App* app, RunFlags* f) {
  app->add_option("--seed", f->seed, "Seed for every random choice (default: the scenario's)")
      ->check(non_negative_integer());
  app->add_option("--duration", f->duration,
                  "Simulated time to run, e.g. 10m (default: the scenario's, or until all work "
                  "is done)");
  app->add_flag("--no-wall-clock", f->no_wall_clock,
                "Write wall-clock timings as 0, so outputs of equal runs are byte-identical");
  app->add_flag("--quiet,-q", f->quiet, "No progress bar or summary on the terminal");
  add_output_option(app, &f->output);
  add_allow_large_flag(app);
}

std::string policy_list() {
  return policies::name_list(false);
}

// The error for a federated architecture named where only policies can run (a scenario file, or
// `orrery sim` without --cluster-config).
void reject_architecture(const std::string& flag, const std::string& name) {
  const federated::Architecture* a = federated::find_architecture(name);
  if (!a) return;
  throw InputError(flag + ": \"" + name +
                   "\" is a federated architecture, not a policy: it needs a trace and a "
                   "cluster configuration, not a scenario or --workers (orrery compare --trace "
                   "FILE.tr --cluster-config FILE_C.json --profiles " +
                   name + ",...; orrery sim --trace FILE.tr --cluster-config FILE_C.json " +
                   federated::sim_flags(*a) + ")");
}

// Removes a summary left by an earlier run, so a failed run never leaves one that looks complete.
void clear_old_summary(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove(dir + "/summary.json", ec);
}

// A duration statistic for the terminal: "—" when it does not exist (null: an empty set).
std::string fmt_s(const Json& v) {
  if (!v.is_number()) return "\u2014";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", v.get<double>());
  return buf;
}

std::string fmt_percent(const Json& v) {
  if (!v.is_number()) return "\u2014";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v.get<double>());
  return buf;
}

size_t count_of(const Json& object, const char* key) {
  return object.contains(key) && object[key].is_number() ? object[key].get<size_t>() : 0;
}

void print_summary(const Json& s, const std::string& dir) {
  const uint64_t events = s["events"].get<uint64_t>();
  char ev[32];
  if (events >= 1000000) {
    std::snprintf(ev, sizeof ev, "%.2fM", static_cast<double>(events) * 1e-6);
  } else {
    std::snprintf(ev, sizeof ev, "%llu", static_cast<unsigned long long>(events));
  }
  std::printf("%s: %s, seed %llu: %.0f s simulated in %.2f s (%s events)\n",
              s["scenario"].get<std::string>().c_str(), s["profile"].get<std::string>().c_str(),
              static_cast<unsigned long long>(s["seed"].get<uint64_t>()),
              s["sim_time_s"].get<double>(), s["wall_time_s"].get<double>(), ev);
  const Json& j = s["jobs"];
  const size_t jobs_done = count_of(j, "count");
  if (jobs_done > 0 || count_of(j, "unfinished") > 0 || count_of(j, "failed") > 0) {
    std::printf("  jobs: %zu done, %zu unfinished, %zu failed; delay p50 %s, p90 %s, p99 %s\n",
                jobs_done, count_of(j, "unfinished"), count_of(j, "failed"),
                fmt_s(j["delay_p50_s"]).c_str(), fmt_s(j["delay_p90_s"]).c_str(),
                fmt_s(j["delay_p99_s"]).c_str());
  }
  const Json& p = s["pods"];
  std::printf(
      "  pods: %zu created, %zu bound, %zu completed; pending p50 %s, p99 %s; running "
      "time mean %s\n",
      count_of(p, "count"), count_of(p, "bound"), count_of(p, "completed"),
      fmt_s(p["pending_p50_s"]).c_str(), fmt_s(p["pending_p99_s"]).c_str(),
      fmt_s(p["pct_mean_s"]).c_str());
  std::string outcomes;
  size_t succeeded = 0;
  if (p.contains("outcomes")) {
    for (const auto& [k, v] : p["outcomes"].items()) {
      outcomes += (outcomes.empty() ? "" : ", ") + k + " " + std::to_string(v.get<size_t>());
      if (k == "Succeeded") succeeded = v.get<size_t>();
    }
  }
  if (!outcomes.empty()) std::printf("  pod outcomes: %s\n", outcomes.c_str());
  std::printf("  utilisation: cpu %s, slots %s\n",
              fmt_percent(s["utilization"]["cpu_mean"]).c_str(),
              fmt_percent(s["utilization"]["slots_mean"]).c_str());
  if (s.contains("edge_ratio")) {
    const Json& m = s["edge_ratio"]["mean"];
    if (m.is_number()) {
      std::printf("  edge ratio: %.3f\n", m.get<double>());
    } else {
      std::printf("  edge ratio: \u2014 (no pod of a tracked deployment was placed)\n");
    }
  }
  if (jobs_done == 0 && succeeded == 0) {
    std::printf(
        "  finished nothing: no job completed and no pod succeeded, so there are no delays to "
        "report%s\n",
        count_of(p, "count") > 0 ? " (see the pod outcomes above and pods.csv)" : "");
  }
  if (s["incomplete"].get<bool>()) {
    std::printf("  incomplete: work was left that nothing could run (see pods.csv outcomes)\n");
  }
  std::printf("  wrote %s/\n", dir.c_str());
}

// One run into `dir`. Returns its summary.
Json run_one(const sim::Scenario& sc, const fw::PolicyRegistry& reg, const std::string& policy,
             const RunFlags& f, bool progress, const std::string& dir) {
  sim::RunOptions opt;
  opt.policy = policy;
  opt.seed = f.seed;
  if (!f.duration.empty()) opt.duration = orrery::parse_duration_text(f.duration, "--duration");
  opt.wall_clock = !f.no_wall_clock;
  opt.progress = progress;
  sim::Simulation simulation(sc, reg, opt);
  // Warnings from setup before the run (it may be long), those raised during it afterwards.
  std::set<std::string> shown;
  auto show_warnings = [&] {
    if (f.quiet) return;
    for (const std::string& w : simulation.warnings()) {
      if (shown.insert(w).second) std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
    }
  };
  show_warnings();
  simulation.run();
  show_warnings();
  simulation.write_outputs(dir);
  return simulation.summary();
}

// One run of a comparison: profile `index` into `dir`; returns its summary.
using CompareRun = std::function<Json(size_t index, const std::string& dir)>;
// Prints a finished run's summary (index, summary, dir).
using ComparePrint = std::function<void(size_t, const Json&, const std::string&)>;

// Runs every profile of a comparison (independent runs on a small thread pool, util/sweep.h),
// prints their summaries in the order of `profiles`, then writes DIR/report.html. Returns the
// exit code.
int run_comparison(const std::vector<std::string>& profiles, const CompareRun& run,
                   const ComparePrint& print, const RunFlags& f, const std::string& out, int jobs,
                   const std::string& title) {
  make_dirs(out);
  clear_old_summary(out);
  std::vector<std::string> dirs;
  for (const std::string& p : profiles) {
    dirs.push_back(out + "/" + p);
    clear_old_summary(dirs.back());
  }
  // Summaries appear in the order of --profiles, each as soon as it and those before it are done,
  // so the terminal output does not depend on which run finished first.
  std::vector<std::optional<Json>> finished(profiles.size());
  size_t printed = 0;
  std::function<void(const SweepStep&, const Json&)> print_in_order;
  if (!f.quiet && f.table()) {
    print_in_order = [&](const SweepStep& step, const Json& summary) {
      finished[step.index] = summary;
      for (; printed < finished.size() && finished[printed]; ++printed)
        print(printed, *finished[printed], dirs[printed]);
    };
  }
  const std::vector<Json> summaries = run_sweep(
      profiles.size(), jobs, [&](size_t i) { return run(i, dirs[i]); }, print_in_order);
  const std::string report = out + "/report.html";
  report::write_run_report(dirs, report, title, f.baseline);
  if (f.table()) {
    std::printf("report: %s\n", report.c_str());
  } else {
    // The runs' summary.json documents, in the order of --profiles.
    Json doc;
    doc["report"] = report;
    doc["runs"] = Json::array();
    for (size_t i = 0; i < summaries.size(); ++i)
      doc["runs"].push_back(Json{{"dir", dirs[i]}, {"summary", summaries[i]}});
    print_document(doc, f.output);
  }
  return 0;
}

// The policies of a comparison exist and the baseline is one of them (before any run starts).
void check_profiles(const fw::PolicyRegistry& reg, const std::vector<std::string>& profiles,
                    const RunFlags& f) {
  if (profiles.empty()) throw InputError("--profiles: expected at least one policy name");
  for (const std::string& p : profiles) {
    reject_architecture("--profiles", p);
    if (!reg.has(p)) {
      throw InputError("--profiles: unknown policy \"" + p + "\"" + did_you_mean(p, reg.names()) +
                       "; known policies:\n" + policy_list());
    }
  }
  if (!f.baseline.empty() &&
      std::find(profiles.begin(), profiles.end(), f.baseline) == profiles.end()) {
    throw InputError("--baseline: \"" + f.baseline + "\" is not one of --profiles" +
                     did_you_mean(f.baseline, profiles));
  }
}

// `compare --seeds`: every profile on every seed (DIR/<profile>/seed-<n>/, on the sweep's thread
// pool), then means with confidence intervals and paired comparisons against the first profile
// (report/seed_comparison.h) in DIR/summary.json, DIR/report.html and on the terminal.
int compare_seeds(const std::function<sim::Scenario()>& load,
                  const std::vector<std::string>& profiles, const std::string& seed_list,
                  const RunFlags& f, const std::string& out, int jobs, const std::string& title,
                  const experiments::Distribution& dist) {
  const fw::PolicyRegistry reg = simulation_policies();
  check_profiles(reg, profiles, f);
  if (f.seed) throw InputError("--seed and --seeds: give one of them");
  const std::vector<uint64_t> seeds = report::parse_seed_list(seed_list);
  load();  // validate the scenario once, before any run starts
  make_dirs(out);
  clear_old_summary(out);
  std::vector<std::string> dirs;
  for (const std::string& p : profiles) {
    for (uint64_t s : seeds) {
      dirs.push_back(out + "/" + p + "/seed-" + std::to_string(s));
      clear_old_summary(dirs.back());
    }
  }
  // Each run's summary is its result in shard files (experiments/harness.h); its files are in
  // DIR/<profile>/seed-<n>/ of the shard's DIR, which `orrery merge` copies.
  const experiments::Codec<Json> codec{[](const Json& j) { return j; },
                                       [](const Json& j) { return j; }};
  const std::optional<std::vector<Json>> swept = experiments::sweep<Json>(
      dist, out, dirs.size(), jobs,
      [&](size_t i) {
        RunFlags g = f;
        g.seed = seeds[i % seeds.size()];
        g.quiet = true;
        const sim::Scenario sc = load();
        return run_one(sc, reg, profiles[i / seeds.size()], g, false, dirs[i]);
      },
      codec);
  if (!swept) {
    std::printf("%s\n", experiments::shard_message(dist, out, dirs.size()).c_str());
    return 0;
  }
  const std::vector<Json>& summaries = *swept;
  report::SeedRuns runs;
  runs.scenario = summaries.front()["scenario"].get<std::string>();
  runs.profiles = profiles;
  runs.seeds = seeds;
  runs.summaries.resize(profiles.size());
  for (size_t i = 0; i < summaries.size(); ++i)
    runs.summaries[i / seeds.size()].push_back(summaries[i]);
  report::Document doc(title + " over seeds");
  report::add_seed_comparison(doc, runs);
  const std::string html = out + "/report.html";
  doc.write(html);
  write_file_atomic(out + "/summary.json", report::seed_comparison_json(runs).dump(2) + "\n");
  if (!f.quiet) std::printf("%s", report::seed_comparison_text(runs).c_str());
  std::printf("wrote %s/summary.json, %s (runs in %s/<profile>/seed-<n>/)\n", out.c_str(),
              html.c_str(), out.c_str());
  return 0;
}

// A comparison of policies on a scenario (each run parses its own copy of it).
int compare(const std::function<sim::Scenario()>& load, std::vector<std::string> profiles,
            const RunFlags& f, const std::string& out, int jobs, const std::string& title) {
  const fw::PolicyRegistry reg = simulation_policies();
  check_profiles(reg, profiles, f);
  load();  // validate the scenario once, before any run starts
  return run_comparison(
      profiles,
      [&](size_t i, const std::string& dir) {
        const sim::Scenario sc = load();
        return run_one(sc, reg, profiles[i], f, false, dir);
      },
      [](size_t, const Json& s, const std::string& dir) { print_summary(s, dir); }, f, out, jobs,
      title);
}

// A comparison of policies and federated architectures on one trace
// (policies/federated/trace_runner.h).
int compare_trace(const std::string& trace, const std::vector<std::string>& configs,
                  const std::vector<std::string>& profiles, const RunFlags& f,
                  const std::string& out, int jobs) {
  federated::TraceSetup setup;
  setup.trace = trace;
  setup.cluster_configs = configs;
  setup.seed = f.seed;
  if (!f.duration.empty()) setup.duration_us = parse_duration_text(f.duration, "--duration");
  setup.wall_clock = !f.no_wall_clock;
  const federated::TraceRunner runner(setup, profiles, policies::catalog());
  std::string title = "orrery compare: " + trace + " on ";
  for (size_t i = 0; i < configs.size(); ++i) title += (i ? ", " : "") + configs[i];
  return run_comparison(
      runner.profiles(),
      [&](size_t i, const std::string& dir) {
        federated::TraceRun r = runner.run(i, dir);
        if (!f.quiet)
          for (const std::string& w : r.warnings)
            std::fprintf(stderr, "orrery: warning: %s\n", w.c_str());
        return std::move(r.summary);
      },
      [&](size_t i, const Json& s, const std::string& dir) {
        if (policies::kind_of(runner.profiles()[i]) == policies::Kind::kArchitecture) {
          print_federated_summary(s, dir);
        } else {
          print_summary(s, dir);
        }
      },
      f, out, jobs, title);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// --queue-mode: sets the `queue` argument of the policy under test (scheduler slot 0, after
// --profile), as `args: {queue: MODE}` in the scenario would.
void set_queue_mode(sim::Scenario& sc, const std::string& profile, const std::string& mode) {
  if (mode != "hints" && mode != "requeue-all") {
    throw InputError("--queue-mode: expected hints or requeue-all, got \"" + mode + "\"");
  }
  const std::string policy = profile.empty() ? sc.schedulers.at(0).policy : profile;
  sim::SchedulerDef def = sc.settings_for(0, policy);
  YAML::Node args(YAML::NodeType::Map);
  if (def.args.defined()) {
    def.args.expect_map();
    for (const auto& kv : def.args.node) args[kv.first] = kv.second;
  }
  args["queue"] = mode;
  def.args = yaml::Ctx{def.args.file.empty() ? "--queue-mode" : def.args.file, args, "args"};
  if (sc.schedulers[0].policy == policy) {
    sc.schedulers[0] = def;
  } else {
    sc.policy_settings[policy] = def;
  }
}

// `orrery compare` (its --seeds sweep takes --shard I/N).
void register_compare(CLI::App& root, CommandTable& table) {
  // ---- orrery compare ----
  struct CompareOptions {
    std::string scenario, trace, profiles, out;
    std::vector<std::string> cluster_configs;
    std::string seeds;
    int jobs = 0;  // the number of CPUs (util/sweep.h)
    RunFlags flags;
    SweepFlags sweep;  // --shard I/N (with --seeds)
  };
  auto co = std::make_shared<CompareOptions>();
  CLI::App* cmp = root.add_subcommand(
      "compare", "Run one scenario or trace under several policies and write an HTML report");
  cmp->add_option("scenario", co->scenario, "Scenario file");
  cmp->add_option("--trace", co->trace,
                  "Instead of a scenario: replay a .tr trace on the workers of --cluster-config");
  cmp->add_option("--cluster-config", co->cluster_configs,
                  "With --trace: a Megha and/or a PigeonC configuration of the same workers "
                  "(comma-separated); policies run on its workers, megha* and pigeonc* on the "
                  "configuration of their kind")
      ->delimiter(',');
  cmp->add_option("--profiles,-p", co->profiles,
                  "Comma-separated policy names; with --trace also megha, pigeonc and their "
                  "variants (orrery sim --list-profiles)")
      ->required();
  cmp->add_option("--out", co->out, "Output directory (DIR/<profile>/, DIR/report.html)")
      ->required();
  cmp->add_option("--jobs,-j", co->jobs, "Runs in parallel (default: the number of CPUs)");
  add_run_flags(cmp, &co->flags);
  add_baseline_flag(cmp, &co->flags);
  cmp->add_option("--seeds", co->seeds,
                  "Run every profile on each seed (1..20, 1,2,5) and report means with 95% "
                  "confidence intervals and a paired comparison against the first profile");
  add_sweep_flags(cmp, &co->sweep);
  table.push_back({cmp, [cmp, co] {
                     const experiments::Distribution dist = sweep_distribution(cmp, co->sweep);
                     if ((dist.sharded() || dist.merging()) && co->seeds.empty())
                       throw InputError("--shard: only with --seeds (a sweep over seeds)");
                     if (co->scenario.empty() == co->trace.empty()) {
                       throw InputError("give a scenario file or --trace FILE.tr (one of them)");
                     }
                     if (!co->trace.empty()) {
                       if (!co->seeds.empty())
                         throw InputError("--seeds: only with a scenario file, not --trace");
                       return compare_trace(co->trace, co->cluster_configs,
                                            split_list(co->profiles), co->flags, co->out, co->jobs);
                     }
                     if (!co->cluster_configs.empty()) {
                       throw InputError(
                           "--cluster-config: only with --trace (a scenario file "
                           "describes its own cluster)");
                     }
                     const std::string path = co->scenario;
                     if (!co->seeds.empty()) {
                       return compare_seeds([path] { return sim::load_scenario(path); },
                                            split_list(co->profiles), co->seeds, co->flags, co->out,
                                            co->jobs, "orrery compare: " + path, dist);
                     }
                     return compare([path] { return sim::load_scenario(path); },
                                    split_list(co->profiles), co->flags, co->out, co->jobs,
                                    "orrery compare: " + path);
                   }});
}

// `orrery demo`.
void register_demo(CLI::App& root, CommandTable& table) {
  // ---- orrery demo ----
  struct DemoOptions {
    std::string out = "out/demo";
    int jobs = 0;  // the number of CPUs (util/sweep.h)
    RunFlags flags;
  };
  auto dopt = std::make_shared<DemoOptions>();
  CLI::App* demo = root.add_subcommand(
      "demo", "Run the bundled demo scenario under the available policies and write a report");
  demo->add_option("--out", dopt->out, "Output directory (default out/demo)");
  demo->add_option("--jobs,-j", dopt->jobs, "Runs in parallel (default: the number of CPUs)");
  add_run_flags(demo, &dopt->flags);
  add_baseline_flag(demo, &dopt->flags);
  demo->footer("The scenario is scenarios/demo.yaml, compiled into the binary.");
  table.push_back(
      {demo, [dopt] {
         const fw::PolicyRegistry reg = simulation_policies();
         std::vector<std::string> profiles;
         for (const char* p :
              {"kube-default", "kube-binpack", "kubedsm", "bef", "sef", "cf", "random"}) {
           if (reg.has(p)) profiles.push_back(p);
         }
         return compare(
             [] { return sim::parse_scenario(sim::demo_scenario_yaml(), "<demo scenario>", ""); },
             profiles, dopt->flags, dopt->out, dopt->jobs,
             "orrery demo: edge/cloud cluster, demand cycles and batch jobs");
       }});
}

}  // namespace

void register_sim(CLI::App& root, CommandTable& table) {
  // ---- orrery sim ----
  struct SimOptions {
    std::string scenario, trace, profile, out, queue_mode;
    int workers = 0;
    bool list = false;
    RunFlags flags;
    FederatedSimFlags federated;
  };
  auto so = std::make_shared<SimOptions>();
  CLI::App* sim_app = root.add_subcommand("sim", "Simulate a scenario or replay a trace");
  sim_app->add_option("scenario", so->scenario, "Scenario file (YAML, see docs/scenarios.md)");
  sim_app->add_option("--trace", so->trace, "Replay a Sparrow/Megha .tr trace instead");
  sim_app->add_option("--workers", so->workers, "With --trace: number of one-slot workers");
  sim_app->add_option("--profile", so->profile,
                      "Scheduling policy to run (replaces the scenario's; default kube-default)");
  sim_app->add_option("--out", so->out, "Output directory");
  sim_app->add_flag("--list-profiles", so->list,
                    "List the scheduling policies and federated architectures and exit");
  sim_app->add_option("--queue-mode", so->queue_mode,
                      "Framework policies: hints (default) or requeue-all, the debug oracle that "
                      "retries every waiting pod on every event (docs/simulator.md)");
  add_run_flags(sim_app, &so->flags);
  add_federated_sim_options(sim_app, &so->federated);
  sim_app->footer(
      "Writes DIR/summary.json (last), jobs.csv, pods.csv, timeseries.csv and edge_ratio.csv "
      "(when the cluster has edge nodes). See docs/simulator.md.");
  table.push_back(
      {sim_app, [so] {
         const fw::PolicyRegistry reg = simulation_policies();
         if (so->list) {
           std::printf("%s", policies::name_list(true).c_str());
           return 0;
         }
         if (federated_sim_requested(so->federated)) {
           if (!so->scenario.empty() || so->workers > 0 || !so->profile.empty() ||
               !so->queue_mode.empty()) {
             throw InputError(
                 "--cluster-config/--arch replay --trace with Megha or PigeonC (the "
                 "configuration sets the workers): drop the scenario, --workers, "
                 "--profile and --queue-mode");
           }
           if (!so->out.empty()) clear_old_summary(so->out);
           return run_federated_sim(so->federated, so->trace, so->out, so->flags.seed,
                                    so->flags.no_wall_clock, so->flags.quiet, so->flags.output);
         }
         if (so->scenario.empty() == so->trace.empty()) {
           throw InputError("give a scenario file or --trace FILE (one of them)");
         }
         if (!so->trace.empty() && so->workers <= 0) {
           throw InputError("--trace needs --workers N (a positive number)");
         }
         if (so->out.empty()) throw InputError("--out DIR is required");
         if (!so->profile.empty()) reject_architecture("--profile", so->profile);
         if (!so->profile.empty() && !reg.has(so->profile)) {
           throw InputError("--profile: unknown policy \"" + so->profile + "\"" +
                            did_you_mean(so->profile, reg.names()) + "; known policies:\n" +
                            policy_list());
         }
         clear_old_summary(so->out);
         sim::Scenario sc = so->trace.empty() ? sim::load_scenario(so->scenario)
                                              : sim::trace_scenario(so->trace, so->workers);
         if (!so->queue_mode.empty()) set_queue_mode(sc, so->profile, so->queue_mode);
         const Json s = run_one(sc, reg, so->profile, so->flags, !so->flags.quiet, so->out);
         if (!so->flags.table()) {
           print_document(s, so->flags.output);
         } else if (!so->flags.quiet) {
           print_summary(s, so->out);
         }
         return 0;
       }});

  register_compare(root, table);

  register_demo(root, table);
}

}  // namespace orrery::cli
