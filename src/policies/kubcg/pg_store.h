// The PostgreSQL backend of the history database (history.h), through libpq. Selected by a
// connection URL (postgresql://user@host:port/db). Migrations run in a transaction under an
// advisory lock, so concurrent schedulers starting together migrate once.
//
// A lost connection (server restarted or gone): every call first resets the connection if it is
// bad; when the server cannot be reached the call throws HistoryError and nothing is half-stored
// (inserts are transactions). HistoryWriter keeps such records pending and retries them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "policies/kubcg/history.h"

struct pg_conn;
struct pg_result;

namespace orrery::kubcg {

class PgStore : public HistoryStore {
 public:
  explicit PgStore(const std::string& url);
  ~PgStore() override;
  PgStore(const PgStore&) = delete;
  PgStore& operator=(const PgStore&) = delete;

  std::string describe() const override { return shown_; }
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
  class Result;
  void ensure_connected();
  Result exec(const std::string& sql, const std::vector<std::string>& params = {});
  [[noreturn]] void fail(const std::string& why) const;
  void migrate();
  // Closes the connection (PQfinish) however the store ends, also when its constructor throws.
  struct Close {
    void operator()(pg_conn* c) const;
  };
  std::string url_, shown_;
  std::unique_ptr<pg_conn, Close> conn_;
};

}  // namespace orrery::kubcg
