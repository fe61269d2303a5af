// `orrery repro federated`: the Megha/PigeonC paper's evaluation (Figures 6-10) as an HTML
// report plus CSV/JSON (src/policies/federated/repro.h).
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "policies/federated/repro.h"

namespace orrery::cli {

void register_federated(CLI::App& root, CommandTable& table) {
  struct Options {
    federated::ReproOptions repro;
    std::string seeds = "1,2,3";
    std::vector<std::string> workloads;
    bool no_wall_clock = false;
    bool no_reference = false;
    bool quiet = false;
  };
  auto opts = std::make_shared<Options>();
  opts->repro.threads = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
  CLI::App* app = repro_command(root).add_subcommand(
      "federated",
      "Megha vs PigeonC (constraint-aware federated scheduling): Figures 6-10 on the shared "
      "traces");
  app->add_option("--out,-o", opts->repro.out_dir, "Output directory")->required();
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
  app->add_flag("--no-reference-cs", opts->no_reference,
                "Skip the PigeonC runs with the reference simulator's CS_i counting");
  app->add_flag("--no-wall-clock", opts->no_wall_clock,
                "Write wall_time_s as 0 so outputs compare byte for byte");
  app->add_flag("--quiet,-q", opts->quiet, "No progress lines on stderr");
  app->footer(
      "Writes DIR/report.html, DIR/summary.json (means over seeds beside the paper's numbers), "
      "DIR/results.csv (one row per run) and DIR/runs/<workload>/<profile>/seed<N>/. "
      "See docs/repro/federated.md.");
  table.push_back(
      {app, [app, opts] {
         federated::ReproOptions& r = opts->repro;
         r.wall_clock = !opts->no_wall_clock;
         r.reference_cs = !opts->no_reference;
         r.seeds.clear();
         const bool seeds_given = app->count("--seeds") > 0;
         std::stringstream ss(r.quick && !seeds_given ? "1" : opts->seeds);
         for (std::string s; std::getline(ss, s, ',');) {
           try {
             size_t used = 0;
             r.seeds.push_back(std::stoull(s, &used));
             if (used != s.size()) throw std::invalid_argument(s);
           } catch (const std::exception&) {
             throw InputError("--seeds: expected comma-separated integers, got \"" + s + "\"");
           }
         }
         if (!opts->workloads.empty()) {
           for (const std::string& name : opts->workloads) {
             bool found = false;
             for (const auto& w : federated::paper_workloads(r.quick))
               if (w.name == name) {
                 r.workloads.push_back(w);
                 found = true;
               }
             if (!found) {
               throw InputError("--workloads: unknown workload \"" + name +
                                "\" (expected syn_250, syn_500, syn_1000, yahoo, "
                                "google)");
             }
           }
         }
         if (!opts->quiet) {
           r.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
         }
         const federated::ReproResult res = federated::run_repro(r);
         std::printf("%zu runs; report: %s\n", res.runs, res.report.c_str());
         return 0;
       }});
}

}  // namespace orrery::cli
