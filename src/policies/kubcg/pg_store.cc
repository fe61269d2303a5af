#include "policies/kubcg/pg_store.h"

#include <libpq-fe.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "policies/kubcg/store_rows.h"

namespace orrery::kubcg {

class PgStore::Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  ~Result() { PQclear(r_); }
  int rows() const { return PQntuples(r_); }
  std::string text(int row, int col) const { return PQgetvalue(r_, row, col); }
  double real(int row, int col) const { return std::strtod(PQgetvalue(r_, row, col), nullptr); }
  int64_t integer(int row, int col) const {
    return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
  }
  // One row, read through the accessor rows::record / rows::stat take.
  struct Row {
    const Result& q;
    int i;
    std::string text(int col) const { return q.text(i, col); }
    double real(int col) const { return q.real(i, col); }
    int64_t integer(int col) const { return q.integer(i, col); }
  };
  Row row(int i) const { return {*this, i}; }

 private:
  PGresult* r_;
};

namespace {

const char* kSchemaV1 = R"(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE images(id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE nodes(id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE records(id BIGSERIAL PRIMARY KEY, image_id INTEGER NOT NULL REFERENCES images(id),
  node_id INTEGER NOT NULL REFERENCES nodes(id), resource TEXT NOT NULL CHECK(resource IN ('CPU','GPU')),
  t_create_s DOUBLE PRECISION NOT NULL CHECK(t_create_s >= 0),
  t_exec_s DOUBLE PRECISION NOT NULL CHECK(t_exec_s >= 0),
  start_s DOUBLE PRECISION NOT NULL, end_s DOUBLE PRECISION NOT NULL, concurrency INTEGER NOT NULL);
INSERT INTO schema_version VALUES(1);
)";

const char* kMigrateV1toV2 = R"(
ALTER TABLE records ADD COLUMN exit_status INTEGER NOT NULL DEFAULT 0;
CREATE TABLE statistics(image_id INTEGER NOT NULL REFERENCES images(id),
  node_id INTEGER NOT NULL REFERENCES nodes(id), resource TEXT NOT NULL,
  count BIGINT NOT NULL, sum_s DOUBLE PRECISION NOT NULL, min_s DOUBLE PRECISION NOT NULL,
  max_s DOUBLE PRECISION NOT NULL, PRIMARY KEY(image_id, node_id, resource));
INSERT INTO statistics SELECT image_id, node_id, resource, COUNT(*), SUM(t_create_s + t_exec_s),
  MIN(t_create_s + t_exec_s), MAX(t_create_s + t_exec_s) FROM records WHERE exit_status = 0
  GROUP BY image_id, node_id, resource;
UPDATE schema_version SET version = 2;
)";

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

PgStore::PgStore(const std::string& url)
    : url_(url), shown_(std::regex_replace(url, std::regex(":[^:@/]*@"), ":***@")) {
  // Owned at once: a constructor that throws runs no destructor, and libpq makes a connection
  // object even when connecting fails (LeakSanitizer found it leaking).
  conn_.reset(PQconnectdb(url.c_str()));
  if (PQstatus(conn_.get()) != CONNECTION_OK)
    fail(std::string("cannot connect: ") + PQerrorMessage(conn_.get()));
  exec("SET client_min_messages TO WARNING");
  migrate();
}

PgStore::~PgStore() = default;

void PgStore::Close::operator()(pg_conn* c) const {
  PQfinish(c);
}

void PgStore::fail(const std::string& why) const {
  std::string w = why;
  while (!w.empty() && (w.back() == '\n' || w.back() == ' ')) w.pop_back();
  throw HistoryError("history database " + shown_ + ": " + w);
}

void PgStore::ensure_connected() {
  if (PQstatus(conn_.get()) == CONNECTION_OK) return;
  PQreset(conn_.get());
  if (PQstatus(conn_.get()) != CONNECTION_OK)
    fail(std::string("connection lost, reconnect failed: ") + PQerrorMessage(conn_.get()));
}

PgStore::Result PgStore::exec(const std::string& sql, const std::vector<std::string>& params) {
  ensure_connected();
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const std::string& p : params) values.push_back(p.c_str());
  // Without parameters, PQexec (which accepts several statements, e.g. a migration script).
  PGresult* r = values.empty()
                    ? PQexec(conn_.get(), sql.c_str())
                    : PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()),
                                   nullptr, values.data(), nullptr, nullptr, 0);
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    const std::string why = r ? PQresultErrorMessage(r) : PQerrorMessage(conn_.get());
    PQclear(r);
    fail(why.empty() ? std::string(PQerrorMessage(conn_.get())) : why);
  }
  return Result(r);
}

void PgStore::migrate() {
  exec("BEGIN");
  try {
    exec("SELECT pg_advisory_xact_lock(7061626)");  // "KubCG history schema"
    int version = 0;
    if (exec("SELECT to_regclass('schema_version') IS NOT NULL").text(0, 0) == "t") {
      Result v = exec("SELECT version FROM schema_version");
      if (v.rows() > 0) version = static_cast<int>(v.integer(0, 0));
    }
    if (version > kSchemaVersion)
      fail("schema version " + std::to_string(version) + " is newer than this orrery (" +
           std::to_string(kSchemaVersion) + ")");
    if (version == 0) {
      exec(kSchemaV1);
      version = 1;
    }
    if (version == 1) exec(kMigrateV1toV2);
    exec("COMMIT");
  } catch (...) {
    if (PQstatus(conn_.get()) == CONNECTION_OK) PQclear(PQexec(conn_.get(), "ROLLBACK"));
    throw;
  }
}

int PgStore::schema_version() {
  Result v = exec("SELECT version FROM schema_version");
  return v.rows() ? static_cast<int>(v.integer(0, 0)) : 0;
}

void PgStore::insert(std::span<const Record> records) {
  for (const Record& r : records) {
    const std::string why = validate(r);
    if (!why.empty())
      throw std::invalid_argument("record for " + r.image + " on " + r.node + ": " + why);
  }
  exec("BEGIN");
  try {
    std::map<std::string, std::string> img_ids, node_ids;
    auto id_of = [&](std::map<std::string, std::string>& ids, const char* table,
                     const std::string& name) {
      auto it = ids.find(name);
      if (it != ids.end()) return it->second;
      const std::string t = table;
      exec("INSERT INTO " + t + "(name) VALUES($1) ON CONFLICT(name) DO NOTHING", {name});
      const std::string id = exec("SELECT id FROM " + t + " WHERE name = $1", {name}).text(0, 0);
      ids.emplace(name, id);
      return id;
    };
    for (const Record& r : records) {
      const std::string img = id_of(img_ids, "images", r.image);
      const std::string node = id_of(node_ids, "nodes", r.node);
      const std::string res = to_string(r.resource);
      exec(
          "INSERT INTO records(image_id, node_id, resource, t_create_s, t_exec_s, start_s, end_s, "
          "concurrency, exit_status) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9)",
          {img, node, res, num(r.t_create_s), num(r.t_exec_s), num(r.start_s), num(r.end_s),
           std::to_string(r.concurrency), std::to_string(r.exit_status)});
      if (r.exit_status == 0) {
        exec(
            "INSERT INTO statistics VALUES($1,$2,$3,1,$4,$4,$4) ON CONFLICT(image_id, node_id, "
            "resource) DO UPDATE SET count = statistics.count + 1, sum_s = statistics.sum_s + "
            "excluded.sum_s, min_s = LEAST(statistics.min_s, excluded.min_s), "
            "max_s = GREATEST(statistics.max_s, excluded.max_s)",
            {img, node, res, num(r.t_run_s())});
      }
    }
    exec("COMMIT");
  } catch (...) {
    if (PQstatus(conn_.get()) == CONNECTION_OK) PQclear(PQexec(conn_.get(), "ROLLBACK"));
    throw;
  }
}

void PgStore::add_image(const std::string& name) {
  exec("INSERT INTO images(name) VALUES($1) ON CONFLICT(name) DO NOTHING", {name});
}

void PgStore::add_node(const std::string& name) {
  exec("INSERT INTO nodes(name) VALUES($1) ON CONFLICT(name) DO NOTHING", {name});
}

std::vector<std::string> PgStore::images() {
  Result q = exec("SELECT name FROM images ORDER BY name COLLATE \"C\"");
  std::vector<std::string> out;
  for (int i = 0; i < q.rows(); ++i) out.push_back(q.text(i, 0));
  return out;
}

std::vector<std::string> PgStore::nodes() {
  Result q = exec("SELECT name FROM nodes ORDER BY name COLLATE \"C\"");
  std::vector<std::string> out;
  for (int i = 0; i < q.rows(); ++i) out.push_back(q.text(i, 0));
  return out;
}

std::vector<Record> PgStore::records() {
  Result q = exec(rows::kRecords);
  std::vector<Record> out;
  for (int i = 0; i < q.rows(); ++i) out.push_back(rows::record(q.row(i)));
  return out;
}

std::vector<Stat> PgStore::statistics() {
  Result q = exec(std::string(rows::kStatisticsSelect) +
                  "ORDER BY i.name COLLATE \"C\", n.name COLLATE \"C\", s.resource COLLATE \"C\"");
  std::vector<Stat> out;
  for (int i = 0; i < q.rows(); ++i) out.push_back(rows::stat(q.row(i)));
  return out;
}

std::vector<std::pair<std::string, std::string>> PgStore::incompatible() {
  Result q = exec(
      "SELECT DISTINCT i.name COLLATE \"C\" AS image, n.name COLLATE \"C\" AS node FROM records r "
      "JOIN images i ON i.id = r.image_id "
      "JOIN nodes n ON n.id = r.node_id WHERE r.exit_status <> 0 AND NOT EXISTS (SELECT 1 "
      "FROM records ok WHERE ok.image_id = r.image_id AND ok.node_id = r.node_id AND "
      "ok.exit_status = 0) ORDER BY image, node");
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < q.rows(); ++i) out.emplace_back(q.text(i, 0), q.text(i, 1));
  return out;
}

int64_t PgStore::record_count() {
  return exec("SELECT COUNT(*) FROM records").integer(0, 0);
}

}  // namespace orrery::kubcg
