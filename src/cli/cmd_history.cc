// `orrery history --db URL import FILE.csv | export | stats [-o json]`: KubCG's execution-history
// database (src/policies/kubcg/history.h) for operators.
//
//   import   loads records from a CSV (header image,node,resource,t_create_s,t_exec_s,start,end,
//            concurrency[,exit_status]); a bad row is FILE:LINE: field: what was expected, and
//            nothing is imported (one transaction, after the whole file parsed)
//   export   prints every record as that CSV
//   stats    prints the statistics table; -o json: {"stats":[{"image","node","resource","count",
//            "avg_s","min_s","max_s"}]}
#include <cstdio>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/error.h"
#include "policies/kubcg/history.h"
#include "policies/kubcg/history_csv.h"

namespace orrery::cli {

namespace {

std::unique_ptr<kubcg::HistoryStore> open_db(const std::string& url) {
  if (url.empty()) throw InputError("--db: expected sqlite:PATH or postgresql://...");
  try {
    return kubcg::open_history(url);
  } catch (const kubcg::HistoryError& e) {
    throw InputError(std::string("--db: ") + e.what());
  }
}

int run_import(const std::string& db, const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::vector<kubcg::Record> records = kubcg::parse_records_csv(ss.str(), file);
  auto store = open_db(db);
  try {
    store->insert(records);
  } catch (const kubcg::HistoryError& e) {
    throw InputError(std::string(e.what()) + " (nothing was imported)");
  }
  std::printf("imported %zu record(s) into %s\n", records.size(), store->describe().c_str());
  return 0;
}

int run_export(const std::string& db) {
  auto store = open_db(db);
  std::fputs(kubcg::records_csv(store->records()).c_str(), stdout);
  return 0;
}

int run_stats(const std::string& db, const std::string& output) {
  auto store = open_db(db);
  const std::vector<kubcg::Stat> stats = store->statistics();
  if (output == "json") {
    Json arr = Json::array();
    for (const kubcg::Stat& s : stats)
      arr.push_back({{"image", s.image},
                     {"node", s.node},
                     {"resource", kubcg::to_string(s.resource)},
                     {"count", s.count},
                     {"avg_s", s.avg_s},
                     {"min_s", s.min_s},
                     {"max_s", s.max_s}});
    std::printf("%s\n", Json{{"stats", arr}}.dump(2).c_str());
    return 0;
  }
  std::printf("%-32s %-12s %-8s %8s %10s %10s %10s\n", "IMAGE", "NODE", "RESOURCE", "COUNT",
              "AVG_S", "MIN_S", "MAX_S");
  for (const kubcg::Stat& s : stats)
    std::printf("%-32s %-12s %-8s %8lld %10.2f %10.2f %10.2f\n", s.image.c_str(), s.node.c_str(),
                kubcg::to_string(s.resource), static_cast<long long>(s.count), s.avg_s, s.min_s,
                s.max_s);
  return 0;
}

}  // namespace

void register_history(CLI::App& root, CommandTable& table) {
  auto db = std::make_shared<std::string>();
  CLI::App* app = root.add_subcommand(
      "history", "KubCG's execution-history database: import/export records, print statistics");
  app->add_option("--db", *db, "sqlite:PATH (created if absent) or postgresql://user@host:port/db")
      ->required();
  app->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  CLI::App* imp = app->add_subcommand("import", "Load records from a CSV (all or nothing)");
  imp->add_option("file", *file,
                  "CSV with header image,node,resource,t_create_s,t_exec_s,start,end,concurrency")
      ->required();
  CLI::App* exp = app->add_subcommand("export", "Print every record as CSV");
  auto output = std::make_shared<std::string>("table");
  CLI::App* st = app->add_subcommand("stats", "Print avg/min/max/count per image, node, resource");
  st->add_option("-o,--output", *output, "table or json")->check(CLI::IsMember({"table", "json"}));
  table.push_back({imp, [db, file] { return run_import(*db, *file); }});
  table.push_back({exp, [db] { return run_export(*db); }});
  table.push_back({st, [db, output] { return run_stats(*db, *output); }});
}

}  // namespace orrery::cli
