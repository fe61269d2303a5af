#include "policies/kubcg/sqlite_store.h"

#include <sqlite3.h>

#include <map>

#include "policies/kubcg/store_rows.h"

namespace orrery::kubcg {

// A prepared statement, finalized on scope exit.
class SqliteStore::Stmt {
 public:
  Stmt(SqliteStore& s, const char* sql) : s_(s) {
    if (sqlite3_prepare_v2(s.db_, sql, -1, &st_, nullptr) != SQLITE_OK) s.fail(sql);
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt& text(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& real(int i, double v) {
    sqlite3_bind_double(st_, i, v);
    return *this;
  }
  Stmt& integer(int i, int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  // True while there is a row.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) s_.fail("step");
    return false;
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::string col_text(int i) {
    const unsigned char* t = sqlite3_column_text(st_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double col_real(int i) { return sqlite3_column_double(st_, i); }
  int64_t col_int(int i) { return sqlite3_column_int64(st_, i); }
  // The current row, read through the accessor rows::record / rows::stat take.
  struct Row {
    Stmt& q;
    std::string text(int col) const { return q.col_text(col); }
    double real(int col) const { return q.col_real(col); }
    int64_t integer(int col) const { return q.col_int(col); }
  };
  Row row() { return {*this}; }

 private:
  SqliteStore& s_;
  sqlite3_stmt* st_ = nullptr;
};

namespace {

const char* kSchemaV1 = R"(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE images(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE nodes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE records(id INTEGER PRIMARY KEY, image_id INTEGER NOT NULL REFERENCES images(id),
  node_id INTEGER NOT NULL REFERENCES nodes(id), resource TEXT NOT NULL CHECK(resource IN ('CPU','GPU')),
  t_create_s REAL NOT NULL CHECK(t_create_s >= 0), t_exec_s REAL NOT NULL CHECK(t_exec_s >= 0),
  start_s REAL NOT NULL, end_s REAL NOT NULL, concurrency INTEGER NOT NULL);
INSERT INTO schema_version VALUES(1);
)";

// Version 1 → 2: records get their exit status; statistics become a table kept on insert.
const char* kMigrateV1toV2 = R"(
ALTER TABLE records ADD COLUMN exit_status INTEGER NOT NULL DEFAULT 0;
CREATE TABLE statistics(image_id INTEGER NOT NULL REFERENCES images(id),
  node_id INTEGER NOT NULL REFERENCES nodes(id), resource TEXT NOT NULL,
  count INTEGER NOT NULL, sum_s REAL NOT NULL, min_s REAL NOT NULL, max_s REAL NOT NULL,
  PRIMARY KEY(image_id, node_id, resource));
INSERT INTO statistics SELECT image_id, node_id, resource, COUNT(*), SUM(t_create_s + t_exec_s),
  MIN(t_create_s + t_exec_s), MAX(t_create_s + t_exec_s) FROM records WHERE exit_status = 0
  GROUP BY image_id, node_id, resource;
UPDATE schema_version SET version = 2;
)";

}  // namespace

SqliteStore::SqliteStore(const std::string& path, int busy_timeout_ms) : path_(path) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw HistoryError("history database sqlite:" + path + ": cannot open: " + why);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  try {
    // Reading the schema is the first access: a corrupt file fails here.
    if (path != ":memory:") exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON");
    migrate();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteStore::~SqliteStore() {
  sqlite3_close(db_);
}

void SqliteStore::fail(const std::string& what) const {
  std::string why = sqlite3_errmsg(db_);
  const int code = sqlite3_extended_errcode(db_);
  if ((code & 0xff) == SQLITE_READONLY) why += " (the file or its directory is not writable)";
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
    why += " (another process holds a write lock)";
  if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
    why += " (the file is corrupt or not a KubCG history database)";
  (void)what;
  throw HistoryError("history database sqlite:" + path_ + ": " + why);
}

void SqliteStore::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    fail(sql);
  }
}

void SqliteStore::migrate() {
  exec("BEGIN IMMEDIATE");
  try {
    int version = 0;
    {
      Stmt has(*this,
               "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name='schema_version'");
      has.step();
      if (has.col_int(0) > 0) {
        Stmt v(*this, "SELECT version FROM schema_version");
        if (v.step()) version = static_cast<int>(v.col_int(0));
      }
    }
    if (version > kSchemaVersion)
      throw HistoryError("history database sqlite:" + path_ + ": schema version " +
                         std::to_string(version) + " is newer than this orrery (" +
                         std::to_string(kSchemaVersion) + ")");
    if (version == 0) {
      exec(kSchemaV1);
      version = 1;
    }
    if (version == 1) exec(kMigrateV1toV2);
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int SqliteStore::schema_version() {
  Stmt v(*this, "SELECT version FROM schema_version");
  return v.step() ? static_cast<int>(v.col_int(0)) : 0;
}

void SqliteStore::insert(std::span<const Record> records) {
  for (const Record& r : records) {
    const std::string why = validate(r);
    if (!why.empty())
      throw std::invalid_argument("record for " + r.image + " on " + r.node + ": " + why);
  }
  exec("BEGIN IMMEDIATE");
  try {
    Stmt add_img(*this, "INSERT INTO images(name) VALUES(?1) ON CONFLICT(name) DO NOTHING");
    Stmt get_img(*this, "SELECT id FROM images WHERE name = ?1");
    Stmt add_node(*this, "INSERT INTO nodes(name) VALUES(?1) ON CONFLICT(name) DO NOTHING");
    Stmt get_node(*this, "SELECT id FROM nodes WHERE name = ?1");
    Stmt rec(*this,
             "INSERT INTO records(image_id, node_id, resource, t_create_s, t_exec_s, start_s, "
             "end_s, concurrency, exit_status) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    Stmt stat(*this,
              "INSERT INTO statistics VALUES(?1,?2,?3,1,?4,?4,?4) ON CONFLICT(image_id, node_id, "
              "resource) DO UPDATE SET count = count + 1, sum_s = sum_s + excluded.sum_s, "
              "min_s = MIN(min_s, excluded.min_s), max_s = MAX(max_s, excluded.max_s)");
    std::map<std::string, int64_t> img_ids, node_ids;
    auto id_of = [](std::map<std::string, int64_t>& ids, Stmt& add, Stmt& get,
                    const std::string& name) {
      auto it = ids.find(name);
      if (it != ids.end()) return it->second;
      add.text(1, name).step();
      add.reset();
      get.text(1, name).step();
      const int64_t id = get.col_int(0);
      get.reset();
      ids.emplace(name, id);
      return id;
    };
    for (const Record& r : records) {
      const int64_t img = id_of(img_ids, add_img, get_img, r.image);
      const int64_t node = id_of(node_ids, add_node, get_node, r.node);
      const std::string res = to_string(r.resource);
      rec.integer(1, img).integer(2, node).text(3, res).real(4, r.t_create_s).real(5, r.t_exec_s);
      rec.real(6, r.start_s).real(7, r.end_s).integer(8, r.concurrency).integer(9, r.exit_status);
      rec.step();
      rec.reset();
      if (r.exit_status == 0) {
        stat.integer(1, img).integer(2, node).text(3, res).real(4, r.t_run_s()).step();
        stat.reset();
      }
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void SqliteStore::add_image(const std::string& name) {
  Stmt(*this, "INSERT INTO images(name) VALUES(?1) ON CONFLICT(name) DO NOTHING")
      .text(1, name)
      .step();
}

void SqliteStore::add_node(const std::string& name) {
  Stmt(*this, "INSERT INTO nodes(name) VALUES(?1) ON CONFLICT(name) DO NOTHING")
      .text(1, name)
      .step();
}

std::vector<std::string> SqliteStore::names(const char* table) {
  Stmt q(*this, (std::string("SELECT name FROM ") + table + " ORDER BY name").c_str());
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.col_text(0));
  return out;
}

std::vector<std::string> SqliteStore::images() {
  return names("images");
}
std::vector<std::string> SqliteStore::nodes() {
  return names("nodes");
}

std::vector<Record> SqliteStore::records() {
  Stmt q(*this, rows::kRecords);
  std::vector<Record> out;
  while (q.step()) out.push_back(rows::record(q.row()));
  return out;
}

std::vector<Stat> SqliteStore::statistics() {
  const std::string sql =
      std::string(rows::kStatisticsSelect) + "ORDER BY i.name, n.name, s.resource";
  Stmt q(*this, sql.c_str());
  std::vector<Stat> out;
  while (q.step()) out.push_back(rows::stat(q.row()));
  return out;
}

std::vector<std::pair<std::string, std::string>> SqliteStore::incompatible() {
  Stmt q(*this,
         "SELECT DISTINCT i.name, n.name FROM records r JOIN images i ON i.id = r.image_id "
         "JOIN nodes n ON n.id = r.node_id WHERE r.exit_status <> 0 AND NOT EXISTS (SELECT 1 "
         "FROM records ok WHERE ok.image_id = r.image_id AND ok.node_id = r.node_id AND "
         "ok.exit_status = 0) ORDER BY i.name, n.name");
  std::vector<std::pair<std::string, std::string>> out;
  while (q.step()) out.emplace_back(q.col_text(0), q.col_text(1));
  return out;
}

int64_t SqliteStore::record_count() {
  Stmt q(*this, "SELECT COUNT(*) FROM records");
  q.step();
  return q.col_int(0);
}

}  // namespace orrery::kubcg
