// orrery merge SHARD_DIR... --out DIR: combines the outputs of the N processes
// of a sharded sweep
// (`orrery repro <paper> ... --shard I/N`, `orrery compare ... --seeds ...
// --shard I/N`) into the outputs one whole run writes, byte for byte. The
// command and its options come from the shards' shard.json
// (experiments/harness.h); merge re-runs that command with the shards' results
// in place of its runs, so the tables and reports are those of the command
// itself.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "core/error.h"
#include "experiments/harness.h"

namespace orrery::cli {
namespace {

std::vector<std::string> shard_command(const std::string& dir) {
  const std::filesystem::path file = std::filesystem::path(dir) / experiments::kShardFile;
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw InputError(dir + ": no " + std::string(experiments::kShardFile) +
                     " (not the output of a --shard I/N run, or the shard did not finish)");
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    return Json::parse(ss.str()).at("command").get<std::vector<std::string>>();
  } catch (const Json::exception& e) {
    throw InputError(file.string() + ": not a shard file: " + e.what());
  }
}

}  // namespace

void register_merge(CLI::App& root, CommandTable& table) {
  struct MergeOptions {
    std::vector<std::string> dirs;
    std::string out;
  };
  auto mo = std::make_shared<MergeOptions>();
  CLI::App* app =
      root.add_subcommand("merge",
                          "Merge the N shard directories of a sweep run with --shard I/N "
                          "into the outputs of one "
                          "whole run (byte-identical)");
  app->add_option("dirs", mo->dirs, "The shard directories (every shard once)")->required();
  app->add_option("--out", mo->out, "Output directory")->required();
  table.push_back({app, [mo] {
                     std::vector<std::string> args = {"orrery"};
                     const std::vector<std::string> command = shard_command(mo->dirs.front());
                     if (command.empty()) throw InputError(mo->dirs.front() + ": empty command");
                     args.insert(args.end(), command.begin(), command.end());
                     args.push_back("--out");
                     args.push_back(mo->out);
                     args.push_back("--merge-shards");
                     args.insert(args.end(), mo->dirs.begin(), mo->dirs.end());
                     return run_command_line(args);
                   }});
}

}  // namespace orrery::cli
