// orrery: cluster-scheduling research platform. See README.md for the command overview.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "util/suggest.h"

namespace orrery::cli {

CLI::App& repro_command(CLI::App& root) {
  for (CLI::App* s : root.get_subcommands([](CLI::App*) { return true; }))
    if (s->get_name() == "repro") return *s;
  CLI::App* r = root.add_subcommand("repro", "Reproduce a paper's evaluation as an HTML report");
  r->require_subcommand(1);
  return *r;
}

namespace {

using Registration = void (*)(CLI::App&, CommandTable&);

const Registration kRegistrations[] = {
    register_version, register_report,  register_schedule, register_explain,    register_federated,
    register_sim,     register_kubedsm, register_merge,    register_history,    register_kubcg,
    register_optpack, register_carico,  register_serve,    register_completion,
};

// The first word is a command: an unknown one is an error with the closest command's name.
void check_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) {
    if (s->get_name() == argv[1]) return;
    names.push_back(s->get_name());
  }
  throw InputError("unknown command \"" + std::string(argv[1]) + "\"" +
                   did_you_mean(argv[1], names) + "; run `orrery --help` for the list");
}

int run(int argc, char** argv) {
  CLI::App app{
      "orrery: scheduling policies for Kubernetes clusters — in a deterministic simulator, on "
      "cluster snapshots, and against a Kubernetes API (`orrery serve`; tested against a fake "
      "API server only, see README)"};
  app.require_subcommand(0, 1);
  app.set_help_all_flag("--help-all", "Print help for every command");
  bool version = false;
  app.add_flag("--version", version, "Print the version and build information");
  CommandTable table;
  for (Registration r : kRegistrations) r(app, table);
  check_command(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 1;
  }
  if (version) {
    std::cout << version_text();
    return 0;
  }
  for (const Command& c : table) {
    if (c.app->parsed()) return c.run();
  }
  std::cerr << app.help() << "\norrery: error: a command is required\n";
  return 1;
}

}  // namespace

int run_command_line(const std::vector<std::string>& args) {
  std::vector<std::string> words = args;
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return run(static_cast<int>(words.size()), argv.data());
}

}  // namespace orrery::cli

int main(int argc, char** argv) {
  try {
    return orrery::cli::run(argc, argv);
  } catch (const orrery::InputError& e) {
    std::fprintf(stderr, "orrery: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "orrery: internal error: %s\n", e.what());
    return 2;
  }
}
