// The `orrery` command line: one file per command family, each registering its subcommands.
// A command's runner returns the process exit code: 0 success, 1 usage or input error, 2 internal
// error. Runners may throw InputError (reported as "orrery: error: ...", exit 1); any other
// exception is an internal error (exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace orrery::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

using CommandTable = std::vector<Command>;

// Registration functions, one per command file (cmd_*.cc). Add yours to kRegistrations in main.cc.
void register_version(CLI::App& root, CommandTable& table);
// `orrery schedule` and `orrery score` (cmd_schedule.cc).
void register_schedule(CLI::App& root, CommandTable& table);
void register_report(CLI::App& root, CommandTable& table);
void register_federated(CLI::App& root, CommandTable& table);
void register_sim(CLI::App& root, CommandTable& table);  // sim, compare, demo

// The shared parent of `orrery repro <system>`: each system adds its own subcommand to it.
CLI::App& repro_command(CLI::App& root);

}  // namespace orrery::cli
