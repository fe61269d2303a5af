// orrery repro kubcg: the KubCG paper's evaluation (Figs 16-19) in the simulator.
#include <cstdio>

#include "cli/commands.h"
#include "cli/sweep_flags.h"
#include "experiments/kubcg/repro.h"

namespace orrery::cli {

void register_kubcg(CLI::App& root, CommandTable& table) {
  CLI::App& repro = repro_command(root);
  CLI::App* app = repro.add_subcommand(
      "kubcg",
      "KubCG (El Haj Ahmed et al.): D-CPU, D-GPU, K-CPU, K-CPU+GPU on Poisson arrivals, batches, "
      "partial overlaps and mixed images (Figs 16-19)");
  auto opts = std::make_shared<kubcg::ReproOptions>();
  app->add_option("--out", opts->out_dir, "Output directory (report.html, summary.json)")
      ->required();
  app->add_flag("--quick", opts->quick, "One seed, smaller Poisson samples (seconds)");
  app->add_option("--db", opts->db,
                  "Store the warm-up history here (sqlite:PATH or postgresql://...)");
  auto sweep = std::make_shared<SweepFlags>();
  add_sweep_flags(app, sweep.get());
  table.push_back({app, [app, opts, sweep]() {
                     opts->distribution = sweep_distribution(app, *sweep);
                     const kubcg::ReproResult r = kubcg::run_repro(*opts);
                     return print_repro_result(r);
                   }});
}

}  // namespace orrery::cli
