// `orrery repro federated`: the Megha/PigeonC paper's evaluation (Figures 6-10) as an HTML
// report plus CSV/JSON (src/policies/federated/repro.h); and the `orrery sim` options that run
// one Megha/PigeonC trace replay (`--cluster-config FILE_C.json --arch megha|pigeonc`).
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/sweep_flags.h"
#include "core/error.h"
#include "experiments/federated/repro.h"
#include "io/k8s_objects.h"
#include "policies/federated/run.h"
#include "report/format.h"

namespace orrery::cli {

namespace {

// The enum value a flag's text names; otherwise an InputError "FLAG: expected a or b, got "x"".
template <class E>
E one_of(const char* flag, const std::string& text,
         std::initializer_list<std::pair<const char*, E>> choices) {
  std::string names;
  size_t i = 0;
  for (const auto& [name, value] : choices) {
    if (text == name) return value;
    names += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(name);
    ++i;
  }
  throw InputError(std::string(flag) + ": expected " + names + ", got \"" + text + "\"");
}

}  // namespace

void add_federated_sim_options(CLI::App* sim, FederatedSimFlags* f) {
  sim->add_option("--cluster-config", f->cluster_config,
                  "With --trace: a Megha or PigeonC cluster (megha_config_*_C.json, "
                  "pigeon_config_*_C.json) replayed by that architecture; sets the workers");
  sim->add_option("--arch", f->arch, "With --cluster-config: megha or pigeonc");
  sim->add_option("--match", f->match,
                  "With --arch: random (default) or minc (Minimum Constraints)");
  sim->add_option("--task-model", f->task_model,
                  "With --arch: task constraint model (default: task_constraint_model.json "
                  "beside the cluster config)");
  sim->add_option("--task-constraints", f->task_constraints,
                  "With --arch: explicit constraints, lines \"JOB TASK [ID ...]\"");
  sim->add_option("--replicate", f->replicate,
                  "With --arch: repeat every LM / Master N times (2: 20,000 workers from the "
                  "10,000-worker configs)");
  sim->add_option("--cutoff", f->cutoff,
                  "With --arch: short-job cutoff in seconds (default: the PigeonC config's)");
  sim->add_option("--heartbeat", f->heartbeat_s,
                  "With --arch: heartbeat period in seconds (default: Megha 5, PigeonC 10)");
  sim->add_option("--lm-order", f->lm_order,
                  "With --arch megha: fixed (default) or rotate: where GMs start searching");
  sim->add_flag("--aligned-heartbeats", f->aligned_heartbeats,
                "With --arch: every LM beats exactly every period from the first arrival (no "
                "random phase or jitter)");
  sim->add_option("--faults", f->faults,
                  "With --arch: inject faults from a YAML file: message loss and delay, "
                  "partitions, crashes and restarts of GMs/LMs/Masters/Distributors "
                  "(src/policies/federated/README.md, Faults)");
  sim->add_flag("--reference", f->reference,
                "With --arch: the published simulator's behaviour where it departs from the "
                "paper's text (Megha: rejected tasks wait in the queue, a rejection loses the "
                "pending state and carries what changes in flight, the first heartbeat comes "
                "50 ms before the first arrival, job mappings go in per-LM batches, the LM frees "
                "a worker at its task's end, updates are busy/available lists; PigeonC: its "
                "CS_i counting, Masters pick the min-constraints worker, FQW+1 short tasks per "
                "long one)");
  sim->add_option(
      "--quirks", f->quirks,
      "With --reference: only these of the published simulator's quirks, a "
      "comma-separated list of rejection-state, early-heartbeat, batched-verify, "
      "lm-frees-at-end, update-lists (Megha), master-min, fair-queue-le (PigeonC), or all "
      "(default) or none");
}

bool federated_sim_requested(const FederatedSimFlags& f) {
  return !f.cluster_config.empty() || !f.arch.empty();
}

int run_federated_sim(const FederatedSimFlags& f, const std::string& trace, const std::string& out,
                      std::optional<uint64_t> seed, bool no_wall_clock, bool quiet,
                      const std::string& output) {
  if (f.cluster_config.empty()) throw InputError("--arch needs --cluster-config FILE_C.json");
  if (trace.empty()) throw InputError("--cluster-config needs --trace FILE.tr");
  if (out.empty()) throw InputError("--out DIR is required");
  federated::SimRequest req;
  req.arch = one_of<federated::Arch>(
      "--arch", f.arch,
      {{"megha", federated::Arch::kMegha}, {"pigeonc", federated::Arch::kPigeonC}});
  req.options.pick = one_of<federated::Pick>(
      "--match", f.match,
      {{"random", federated::Pick::kRandom}, {"minc", federated::Pick::kMinConstraints}});
  req.options.lm_order = one_of<federated::LmOrder>(
      "--lm-order", f.lm_order,
      {{"fixed", federated::LmOrder::kFixed}, {"rotate", federated::LmOrder::kRotate}});
  if (f.replicate < 1) throw InputError("--replicate: expected a positive integer");
  if (f.cutoff && *f.cutoff < 0) throw InputError("--cutoff: expected seconds >= 0");
  if (f.heartbeat_s && !(*f.heartbeat_s > 0)) throw InputError("--heartbeat: expected seconds > 0");
  req.trace = trace;
  req.cluster_config = f.cluster_config;
  req.task_model = f.task_model;
  req.task_constraints = f.task_constraints;
  req.faults = f.faults;
  req.out = out;
  req.replicate = static_cast<uint32_t>(f.replicate);
  req.options.seed = seed.value_or(1);
  req.options.cutoff_s = f.cutoff;
  if (f.heartbeat_s) req.options.heartbeat = sim::seconds(*f.heartbeat_s);
  federated::set_reference(req.arch, f.reference, &req.options);
  if (!f.quirks.empty()) {
    if (!f.reference) throw InputError("--quirks needs --reference");
    req.options.quirks = federated::parse_quirks(f.quirks);
  }
  req.options.aligned_heartbeats = f.aligned_heartbeats;
  req.options.wall_clock = !no_wall_clock;
  const federated::RunOutput r = federated::run_request(req);
  const sim::Json& s = r.summary;
  const size_t dropped = s["unsatisfiable"]["tasks"];
  if (dropped > 0) {
    std::fprintf(stderr,
                 "orrery: warning: %zu task(s) in %zu job(s) need constraints no worker has; "
                 "dropped (see \"unsatisfiable\" in %s/summary.json)\n",
                 dropped, s["unsatisfiable"]["jobs_affected"].get<size_t>(), out.c_str());
  }
  if (output != "table") {
    print_document(s, output);
  } else if (!quiet) {
    print_federated_summary(s, out);
  }
  return 0;
}

void print_federated_summary(const sim::Json& s, const std::string& dir) {
  using report::Format;
  std::printf(
      "%s on %s (%zu workers): %zu jobs, delay p50 %s, p99 %s, utilisation %s, %llu "
      "inconsistencies, %.2f s wall\nwrote %s/summary.json, jobs.csv, timeseries.csv\n",
      s["profile"].get<std::string>().c_str(), s["scenario"].get<std::string>().c_str(),
      s["cluster"]["workers"].get<size_t>(), s["jobs"]["count"].get<size_t>(),
      report::format_value(number_or_nan(s["jobs"]["delay_p50_s"]), Format::kSeconds).c_str(),
      report::format_value(number_or_nan(s["jobs"]["delay_p99_s"]), Format::kSeconds).c_str(),
      report::format_value(number_or_nan(s["utilization"]["cpu_mean"]), Format::kPercent).c_str(),
      static_cast<unsigned long long>(s["inconsistencies"].get<uint64_t>()),
      s["wall_time_s"].get<double>(), dir.c_str());
}

namespace {

// --workloads: the paper's workloads of these names (none: every one, chosen by run_repro).
std::vector<federated::ReproWorkload> named_workloads(const std::vector<std::string>& names,
                                                      bool quick) {
  std::vector<federated::ReproWorkload> out;
  for (const std::string& name : names) {
    bool found = false;
    for (const auto& w : federated::paper_workloads(quick))
      if (w.name == name) {
        out.push_back(w);
        found = true;
      }
    if (!found) {
      throw InputError("--workloads: unknown workload \"" + name +
                       "\" (expected syn_250, syn_500, syn_1000, yahoo, google)");
    }
  }
  return out;
}

// The flags of `orrery repro federated`.
struct FederatedReproFlags {
  federated::ReproOptions repro;
  std::string seeds = "1,2,3";
  std::vector<std::string> workloads;
  bool no_wall_clock = false;
  bool no_reference = false;
  std::string quirks;
  bool quiet = false;
  std::string output = "table";
};

// --seeds' comma-separated non-negative integers, appended to `seeds`.
void parse_seeds(const std::string& text, std::vector<uint64_t>* seeds) {
  std::stringstream ss(text);
  for (std::string s; std::getline(ss, s, ',');) {
    try {
      size_t used = 0;
      if (s.empty() || s[0] < '0' || s[0] > '9') throw std::invalid_argument(s);
      seeds->push_back(std::stoull(s, &used));
      if (used != s.size()) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      throw InputError("--seeds: expected comma-separated non-negative integers, got \"" + s +
                       "\"");
    }
  }
}

// Runs `orrery repro federated` with the parsed flags; prints the result.
int run_federated_repro(const CLI::App* app, FederatedReproFlags& opts, const SweepFlags& sweep) {
  federated::ReproOptions& r = opts.repro;
  r.distribution = sweep_distribution(app, sweep);
  r.wall_clock = !opts.no_wall_clock;
  r.reference = !opts.no_reference;
  if (!opts.quirks.empty()) r.quirks = federated::parse_quirks(opts.quirks);
  r.seeds.clear();
  const bool seeds_given = app->count("--seeds") > 0;
  parse_seeds(r.quick && !seeds_given ? "1" : opts.seeds, &r.seeds);
  r.workloads = named_workloads(opts.workloads, r.quick);
  if (!opts.quiet) {
    r.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }
  const federated::ReproResult res = federated::run_repro(r);
  if (!res.shard_note.empty()) {
    std::printf("%s\n", res.shard_note.c_str());
    return 0;
  }
  if (opts.output != "table") {
    // DIR/summary.json: the means over seeds beside the paper's numbers.
    print_document(Json{{"report", res.report},
                        {"runs", res.runs},
                        {"summary", Json::parse(read_text_file(r.out_dir + "/summary.json"))}},
                   opts.output);
    return 0;
  }
  std::printf("%zu runs; report: %s\n", res.runs, res.report.c_str());
  return 0;
}

}  // namespace

void register_federated(CLI::App& root, CommandTable& table) {
  auto opts = std::make_shared<FederatedReproFlags>();
  opts->repro.threads = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
  CLI::App* app = repro_command(root).add_subcommand(
      "federated",
      "Megha vs PigeonC (constraint-aware federated scheduling): Figures 6-10 on the published "
      "traces (data/megha)");
  app->add_option("--out", opts->repro.out_dir, "Output directory")->required();
  app->add_flag("--quick", opts->repro.quick,
                "Reduced CI-sized run: the first jobs of each trace, one seed");
  app->add_option("--seeds", opts->seeds, "Comma-separated seeds (default 1,2,3; --quick: 1)");
  app->add_option("--jobs,-j", opts->repro.threads,
                  "Runs in parallel (independent simulations; default: min(2, cores))");
  app->add_option("--data", opts->repro.data_dir,
                  "Folder with the traces, *_C.json configurations and task_constraint_model.json")
      ->capture_default_str();
  app->add_option("--workloads", opts->workloads,
                  "Only these workloads: syn_250, syn_500, syn_1000, yahoo, google")
      ->delimiter(',');
  app->add_flag("--no-reference", opts->no_reference,
                "Skip the \"_ref\" profiles (the published simulators' behaviour)");
  app->add_option("--quirks", opts->quirks,
                  "The \"_ref\" profiles' quirks: all (default), none or a comma-separated list "
                  "of rejection-state, early-heartbeat, batched-verify, lm-frees-at-end, "
                  "update-lists, master-min, fair-queue-le");
  app->add_flag("--no-wall-clock", opts->no_wall_clock,
                "Write wall_time_s as 0 so outputs compare byte for byte");
  app->add_flag("--quiet,-q", opts->quiet, "No progress lines on stderr");
  add_output_option(app, &opts->output);
  app->footer(
      "Writes DIR/report.html, DIR/summary.json (means over seeds beside the paper's numbers), "
      "DIR/results.csv (one row per run) and DIR/runs/<workload>/<profile>/seed<N>/. "
      "See docs/repro/federated.md.");
  auto sweep = std::make_shared<SweepFlags>();
  add_sweep_flags(app, sweep.get());
  table.push_back({app, [app, opts, sweep] { return run_federated_repro(app, *opts, *sweep); }});
}

}  // namespace orrery::cli
