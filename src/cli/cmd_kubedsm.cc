// orrery repro kubedsm: the KubeDSM paper's evaluation (Figs 4, 5, 8–11) in the simulator.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/sweep_flags.h"
#include "experiments/kubedsm/repro.h"

namespace orrery::cli {

void register_kubedsm(CLI::App& root, CommandTable& table) {
  CLI::App& repro = repro_command(root);
  CLI::App* app = repro.add_subcommand(
      "kubedsm",
      "KubeDSM (Pashaeehir et al.): edge ratio of KubeDSM vs K8S and the Sencillo baselines "
      "(Figs 4-5, 8-9), migration variants (Fig. 10), QoS scenarios (Fig. 11)");
  auto opts = std::make_shared<kubedsm::ReproOptions>();
  auto output = std::make_shared<std::string>("table");
  add_output_option(app, output.get());
  app->add_option("--out", opts->out_dir, "Output directory (kubedsm.html, CSV, JSON)")->required();
  app->add_flag("--quick", opts->quick,
                "Fewer scenarios and 3 seeds (reduced: not the paper's setup)");
  app->add_option("--seeds", opts->seeds, "Seeds per point (default 20, or 3 with --quick)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--threads", opts->threads, "Simulations run in parallel (default 2)")
      ->check(CLI::Range(1, 256));
  app->add_option("--hpa-metric", opts->hpa_metric,
                  "What every HPA reads: demand (default: the drawn replicas) or podRate (a "
                  "measured per-pod rate with noise)")
      ->check(CLI::IsMember({"demand", "podRate"}));
  app->add_option("--hpa-noise", opts->hpa_noise,
                  "With --hpa-metric podRate: sigma of the log-normal measurement noise (0.075)")
      ->check(CLI::Range(0.0, 5.0));
  app->add_option("--hpa-window", opts->hpa_window_s,
                  "With --hpa-metric podRate: seconds each pod's rate is averaged over, as "
                  "Prometheus' rate(counter[W]) (default 0: the rate at the moment)")
      ->check(CLI::Range(0.0, 3600.0));
  auto sweep = std::make_shared<SweepFlags>();
  add_sweep_flags(app, sweep.get());
  table.push_back(
      {app, [app, opts, output, sweep]() {
         kubedsm::ReproOptions o = *opts;
         o.distribution = sweep_distribution(app, *sweep);
         if (isatty(fileno(stderr)))
           o.progress = [](size_t done, size_t total) {
             if (done % 100 == 0 || done == total)
               std::fprintf(stderr, "\rkubedsm: %zu/%zu simulations", done, total);
             if (done == total) std::fprintf(stderr, "\n");
           };
         const kubedsm::ReproResult r = kubedsm::run_repro(o);
         if (!r.shard_note.empty()) {
           std::printf("%s\n", r.shard_note.c_str());
           return 0;
         }
         if (*output != "table") {
           print_document(
               Json{{"report", r.html}, {"simulations", r.runs}, {"wall_time_s", r.wall_s}},
               *output);
           return 0;
         }
         std::printf("wrote %s (%zu simulations, %.1f s)\n", r.html.c_str(), r.runs, r.wall_s);
         return 0;
       }});
}

}  // namespace orrery::cli
