// The SQLite backend of the history database (history.h): one file, WAL journal, synchronous =
// NORMAL (a crash loses at most the transaction in flight), a 2 s busy timeout.
//
// Faults: a file that is not a database, a database locked by another writer beyond the busy
// timeout, or a file that cannot be written raise HistoryError naming the path and SQLite's
// reason (open time for corruption and read-only files; insert time for locks, where
// HistoryWriter keeps the records and retries).
#pragma once

#include <string>

#include "policies/kubcg/history.h"

struct sqlite3;

namespace orrery::kubcg {

class SqliteStore : public HistoryStore {
 public:
  // ":memory:" for an in-memory database.
  explicit SqliteStore(const std::string& path, int busy_timeout_ms = 2000);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  std::string describe() const override { return "sqlite:" + path_; }
  int schema_version() override;
  void insert(std::span<const Record> records) override;
  void add_image(const std::string& name) override;
  void add_node(const std::string& name) override;
  std::vector<std::string> images() override;
  std::vector<std::string> nodes() override;
  std::vector<Record> records() override;
  std::vector<Stat> statistics() override;
  std::vector<std::pair<std::string, std::string>> incompatible() override;
  int64_t record_count() override;

 private:
  class Stmt;
  void exec(const std::string& sql);
  [[noreturn]] void fail(const std::string& what) const;
  void migrate();
  std::vector<std::string> names(const char* table);
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace orrery::kubcg
