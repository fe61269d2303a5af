#include "cli/sweep_flags.h"

#include <set>

#include "core/error.h"

namespace orrery::cli {
namespace {

// Options that do not change a sweep's results: where it writes, how it is
// split, how many threads run it, how it prints (-o, --quiet).
bool excluded(const CLI::Option* opt) {
  static const std::set<std::string> kNames = {"out",    "shard", "merge-shards", "threads", "jobs",
                                               "output", "quiet", "help",         "help-all"};
  for (const std::string& n : opt->get_lnames())
    if (kNames.count(n)) return true;
  return false;
}

}  // namespace

void add_sweep_flags(CLI::App* app, SweepFlags* flags) {
  app->add_option("--shard", flags->shard,
                  "Run only shard I of N (I/N, from 0: the runs whose index "
                  "mod N is I) and write "
                  "their raw results to OUT/shard.json; `orrery merge` "
                  "combines the N shards into "
                  "the outputs of one whole run");
  app->add_option("--merge-shards", flags->merge, "Shard directories to merge (orrery merge)")
      ->group("");
}

experiments::Distribution sweep_distribution(const CLI::App* app, const SweepFlags& flags) {
  experiments::Distribution d;
  if (!flags.shard.empty()) d.shard = experiments::parse_shard(flags.shard);
  d.merge = flags.merge;
  if (d.sharded() && d.merging())
    throw InputError(
        "--shard: a merge is not itself a shard (give --shard or "
        "merge, not both)");
  std::vector<std::string> path;
  for (const CLI::App* a = app; a && a->get_parent(); a = a->get_parent())
    path.insert(path.begin(), a->get_name());
  std::vector<std::string> positional, named;
  for (const CLI::Option* opt : app->get_options()) {
    if (opt->count() == 0 || excluded(opt)) continue;
    if (!opt->nonpositional()) {
      for (const std::string& r : opt->results()) positional.push_back(r);
      continue;
    }
    const std::string name = opt->get_name();
    if (opt->get_expected_max() == 0) {  // a flag: once per occurrence
      for (size_t k = 0; k < opt->count(); ++k) named.push_back(name);
      continue;
    }
    named.push_back(name);
    for (const std::string& r : opt->results()) named.push_back(r);
  }
  d.command = path;
  d.command.insert(d.command.end(), positional.begin(), positional.end());
  d.command.insert(d.command.end(), named.begin(), named.end());
  return d;
}

}  // namespace orrery::cli
