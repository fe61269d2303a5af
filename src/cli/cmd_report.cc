// `orrery report DIR... --out report.html`: one offline HTML report over simulator run
// directories (see src/report/run_report.h for what is read and shown).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "report/run_report.h"

namespace orrery::cli {

void register_report(CLI::App& root, CommandTable& table) {
  struct Options {
    std::vector<std::string> dirs;
    std::string out;
    std::string title;
    std::string baseline;
    std::string output = "table";
  };
  auto opts = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand(
      "report", "Write one self-contained HTML report (inline SVG charts) over run directories");
  app->add_option("dirs", opts->dirs,
                  "Run directories written by `orrery sim` (summary.json, jobs.csv, pods.csv, "
                  "timeseries.csv, edge_ratio.csv; any may be absent)")
      ->required();
  app->add_option("--out", opts->out, "Output HTML file")->required();
  add_output_option(app, &opts->output);
  app->add_option("--title", opts->title, "Report title (default: \"orrery run report\")");
  app->add_option("--baseline", opts->baseline,
                  "Run the verdict compares against, by label or policy (default: kube-default "
                  "when present, else the first run)");
  app->footer(
      "Several directories are compared side by side: a verdict table (key metrics, best "
      "marked, differences against the baseline), the setup, CDFs of job delay and pod pending "
      "time with unfinished work shown, time series as small multiples. Runs are labelled by "
      "policy, with scenario and seed when those differ (docs/report.md).");
  table.push_back({app, [opts] {
                     report::write_run_report(opts->dirs, opts->out, opts->title, opts->baseline);
                     std::error_code ec;
                     const auto size = std::filesystem::file_size(opts->out, ec);
                     if (opts->output != "table") {
                       print_document(Json{{"report", opts->out},
                                           {"runs", opts->dirs},
                                           {"bytes", ec ? 0 : static_cast<uint64_t>(size)}},
                                      opts->output);
                       return 0;
                     }
                     std::printf("wrote %s (%zu run%s, %.0f KB)\n", opts->out.c_str(),
                                 opts->dirs.size(), opts->dirs.size() == 1 ? "" : "s",
                                 ec ? 0.0 : static_cast<double>(size) / 1024.0);
                     return 0;
                   }});
}

}  // namespace orrery::cli
