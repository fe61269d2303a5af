#include "experiments/harness.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "io/files.h"

namespace orrery::experiments {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "orrery-shard/1";
constexpr size_t kMaxShards = 10000;

std::string words(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& w : v) s += (s.empty() ? "" : " ") + w;
  return s;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct LoadedShard {
  std::string dir;
  Shard shard;
  Json results;
};

LoadedShard load_shard(const std::string& dir, const SweepPlan& plan) {
  const fs::path file = fs::path(dir) / kShardFile;
  if (!fs::is_regular_file(file))
    throw InputError(dir + ": no " + kShardFile +
                     " (not the output of a --shard I/N run, or the shard did not finish)");
  Json j;
  try {
    j = Json::parse(read_text(file));
  } catch (const Json::exception& e) {
    throw InputError(file.string() + ": not a shard file: " + e.what());
  }
  if (!j.is_object() || j.value("format", "") != kFormat || !j.contains("shard") ||
      !j.contains("command") || !j.contains("runs") || !j.contains("results"))
    throw InputError(file.string() + ": not a shard file (expected format " + kFormat + ")");
  const std::vector<std::string> command = j["command"].get<std::vector<std::string>>();
  if (command != plan.distribution->command)
    throw InputError(dir + ": a shard of a different command or options: `" + words(command) +
                     "`, merging `" + words(plan.distribution->command) + "`");
  LoadedShard s{dir, parse_shard(j["shard"].get<std::string>()), j["results"]};
  if (j["runs"].get<size_t>() != plan.runs)
    throw InputError(dir + ": the shard's sweep has " + std::to_string(j["runs"].get<size_t>()) +
                     " runs, this one " + std::to_string(plan.runs));
  return s;
}

// Copies the files of `dir` (but its shard.json) into `out`; a file another shard already gave
// must be byte-identical.
void copy_shard_files(const std::string& dir, const std::string& out,
                      std::map<std::string, std::string>* copied) {
  const fs::path root(dir);
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path() != root / kShardFile) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    const std::string rel = fs::relative(f, root).string();
    const auto [it, fresh] = copied->emplace(rel, dir);
    if (!fresh) {
      if (read_text(f) != read_text(fs::path(it->second) / rel))
        throw InputError(dir + ": " + rel + " differs from the same file in " + it->second);
      continue;
    }
    const fs::path to = fs::path(out) / rel;
    make_dirs(to.parent_path().string());
    write_file_atomic(to.string(), read_text(f));
  }
}

}  // namespace

std::string Shard::text() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&] {
    return InputError("--shard: expected I/N with 0 <= I < N <= " + std::to_string(kMaxShards) +
                      " (shard I of N, counted from 0, e.g. 0/4), got \"" + text + "\"");
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) throw bad();
  const std::string i = text.substr(0, slash), n = text.substr(slash + 1);
  for (const std::string* part : {&i, &n})
    if (part->size() > 5 || part->find_first_not_of("0123456789") != std::string::npos) throw bad();
  Shard s;
  s.index = std::stoul(i);
  s.count = std::stoul(n);
  s.given = true;
  if (s.count < 1 || s.count > kMaxShards || s.index >= s.count) throw bad();
  return s;
}

Json real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double real_of(const Json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

Json reals(const std::vector<double>& v) {
  Json a = Json::array();
  for (double x : v) a.push_back(real(x));
  return a;
}

std::vector<double> reals_of(const Json& j) {
  std::vector<double> v;
  v.reserve(j.size());
  for (const Json& x : j) v.push_back(real_of(x));
  return v;
}

std::vector<size_t> shard_runs(const Shard& s, size_t runs) {
  std::vector<size_t> mine;
  for (size_t i = s.index; i < runs; i += s.count) mine.push_back(i);
  return mine;
}

void write_shard(const SweepPlan& plan, const std::vector<size_t>& mine,
                 const std::vector<Json>& results) {
  Json j;
  j["format"] = kFormat;
  j["command"] = plan.distribution->command;
  j["shard"] = plan.distribution->shard.text();
  j["runs"] = plan.runs;
  j["results"] = Json::array();
  for (size_t k = 0; k < mine.size(); ++k)
    j["results"].push_back(Json{{"run", mine[k]}, {"result", results[k]}});
  make_dirs(plan.out_dir);
  write_file_atomic((fs::path(plan.out_dir) / kShardFile).string(), j.dump(1) + "\n");
}

std::vector<Json> merge_shards(const SweepPlan& plan) {
  std::vector<LoadedShard> shards;
  std::map<size_t, std::string> seen;  // shard index → its directory
  size_t count = 0;
  for (const std::string& dir : plan.distribution->merge) {
    shards.push_back(load_shard(dir, plan));
    const Shard& s = shards.back().shard;
    if (count == 0) count = s.count;
    if (s.count != count)
      throw InputError(dir + ": shard " + s.text() + " is not one of " + std::to_string(count) +
                       " shards (" + shards.front().dir + " is " + shards.front().shard.text() +
                       ")");
    const auto [it, fresh] = seen.emplace(s.index, dir);
    if (!fresh)
      throw InputError("shard " + s.text() + " given twice: " + it->second + " and " + dir);
  }
  std::string missing;
  for (size_t i = 0; i < count; ++i)
    if (!seen.count(i)) missing += (missing.empty() ? "" : ", ") + Shard{i, count, true}.text();
  if (!missing.empty()) throw InputError("missing shard(s) " + missing + ": nothing merged");
  std::vector<Json> out(plan.runs);
  std::vector<bool> filled(plan.runs, false);
  for (const LoadedShard& s : shards) {
    for (const Json& r : s.results) {
      const size_t i = r.at("run").get<size_t>();
      if (i >= plan.runs || !s.shard.owns(i) || filled[i])
        throw InputError(s.dir + ": run " + std::to_string(i) + " does not belong to shard " +
                         s.shard.text());
      out[i] = r.at("result");
      filled[i] = true;
    }
  }
  for (size_t i = 0; i < plan.runs; ++i)
    if (!filled[i])
      throw InputError("run " + std::to_string(i) + " is missing from shard " +
                       Shard{i % count, count, true}.text() + " (" + seen[i % count] + ")");
  make_dirs(plan.out_dir);
  std::map<std::string, std::string> copied;
  for (const LoadedShard& s : shards) copy_shard_files(s.dir, plan.out_dir, &copied);
  return out;
}

std::string shard_message(const Distribution& d, const std::string& out_dir, size_t runs) {
  return "shard " + d.shard.text() + ": " + std::to_string(shard_runs(d.shard, runs).size()) +
         " of " + std::to_string(runs) + " runs, results in " +
         (fs::path(out_dir) / kShardFile).string() +
         "; merge every shard with `orrery merge SHARD_DIR... --out DIR`";
}

}  // namespace orrery::experiments
