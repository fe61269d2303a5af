// The `orrery` command line: one file per command family, each registering its subcommands.
// A command's runner returns the process exit code: 0 success, 1 usage or input error, 2 internal
// error. Runners may throw InputError (reported as "orrery: error: ...", exit 1); any other
// exception is an internal error (exit 2).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/json.h"

namespace orrery::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

using CommandTable = std::vector<Command>;

// Registration functions, one per command file (cmd_*.cc). Add yours to kRegistrations in main.cc.
void register_version(CLI::App& root, CommandTable& table);
// What `orrery version` and `orrery --version` print.
std::string version_text();
// `orrery schedule` and `orrery score` (cmd_schedule.cc).
void register_schedule(CLI::App& root, CommandTable& table);
void register_explain(CLI::App& root, CommandTable& table);  // cmd_explain.cc
void register_kubedsm(CLI::App& root, CommandTable& table);  // repro kubedsm
void register_optpack(CLI::App& root, CommandTable& table);  // solve, repro optpack
void register_report(CLI::App& root, CommandTable& table);
// `orrery merge SHARD_DIR... --out DIR` (cmd_merge.cc): the shards of a sweep into one output.
void register_merge(CLI::App& root, CommandTable& table);
// Runs an orrery command line (args[0] is the program name) as main() would, in this process.
int run_command_line(const std::vector<std::string>& args);
void register_federated(CLI::App& root, CommandTable& table);
void register_sim(CLI::App& root, CommandTable& table);      // sim, compare, demo
void register_history(CLI::App& root, CommandTable& table);  // KubCG's history database
void register_kubcg(CLI::App& root, CommandTable& table);    // repro kubcg
// aggregator, agent, carico status, repro carico (cmd_carico.cc).
void register_carico(CLI::App& root, CommandTable& table);
// `orrery serve` (scheduler, extender) and `orrery snapshot` (cmd_serve.cc).
void register_serve(CLI::App& root, CommandTable& table);
// `orrery completion bash|zsh` (cmd_completion.cc); register it last: it reads the whole tree
// when it runs.
void register_completion(CLI::App& root, CommandTable& table);

// `orrery sim --trace T --cluster-config C --arch megha|pigeonc ...` (cmd_federated.cc): the
// options cmd_sim.cc adds to `orrery sim`, and the run they request.
struct FederatedSimFlags {
  std::string cluster_config, arch, match = "random", task_model, task_constraints;
  std::string lm_order = "fixed";
  std::string faults;  // a fault file (src/policies/federated/faults.h)
  int replicate = 1;
  std::optional<double> cutoff, heartbeat_s;
  bool reference = false;
  std::string quirks;  // --quirks LIST (with --reference; default all)
  bool aligned_heartbeats = false;
};
void add_federated_sim_options(CLI::App* sim, FederatedSimFlags* flags);
bool federated_sim_requested(const FederatedSimFlags& flags);
int run_federated_sim(const FederatedSimFlags& flags, const std::string& trace,
                      const std::string& out, std::optional<uint64_t> seed, bool no_wall_clock,
                      bool quiet, const std::string& output);
// The lines `orrery sim --arch` prints about a finished Megha/PigeonC run written to `dir`.
void print_federated_summary(const Json& summary, const std::string& dir);

// A validator for seeds and other counts: the text must be a non-negative integer (CLI11 would
// otherwise wrap "-1" into an unsigned option silently).
inline CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "expected a non-negative integer, got \"" + text + "\"";
        // Seeds and counts are 64-bit: a larger number is an error, not silently clamped.
        const std::string max = "18446744073709551615";
        const std::string digits = text.substr(std::min(text.find_first_not_of('0'), text.size()));
        if (digits.size() > max.size() || (digits.size() == max.size() && digits > max))
          return "out of range: \"" + text + "\" is larger than " + max;
        return "";
      },
      "");
}

// The shared parent of `orrery repro <system>`: each system adds its own subcommand to it.
CLI::App& repro_command(CLI::App& root);

}  // namespace orrery::cli
