// The history database: one suite, run on both backends (SQLite file, real PostgreSQL server).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "pg_server.h"
#include "policies/kubcg/history.h"
#include "policies/kubcg/sqlite_store.h"
#include "scratch_dir.h"

namespace orrery::kubcg {
namespace {

using orrery::testing::PgServer;
using orrery::testing::ScratchDir;

Record rec(const std::string& image, const std::string& node, Resource r, double cr, double ex,
           int exit_status = 0) {
  Record x;
  x.image = image;
  x.node = node;
  x.resource = r;
  x.t_create_s = cr;
  x.t_exec_s = ex;
  x.start_s = 100;
  x.end_s = 100 + cr + ex;
  x.exit_status = exit_status;
  return x;
}

// The same v1 schema each backend shipped before statistics and exit status existed, written
// here independently of the stores' own DDL.
const char* kV1Sqlite = R"(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE images(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE nodes(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE records(id INTEGER PRIMARY KEY, image_id INTEGER NOT NULL, node_id INTEGER NOT NULL,
  resource TEXT NOT NULL, t_create_s REAL NOT NULL, t_exec_s REAL NOT NULL, start_s REAL NOT NULL,
  end_s REAL NOT NULL, concurrency INTEGER NOT NULL);
INSERT INTO schema_version VALUES(1);
INSERT INTO images VALUES(1, 'scale:cpu');
INSERT INTO nodes VALUES(1, 'node-1');
INSERT INTO records VALUES(1, 1, 1, 'CPU', 2, 10, 0, 12, 1);
INSERT INTO records VALUES(2, 1, 1, 'CPU', 2, 20, 20, 42, 2);
)";
const char* kV1Postgres = R"(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE images(id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE nodes(id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE records(id BIGSERIAL PRIMARY KEY, image_id INTEGER NOT NULL, node_id INTEGER NOT NULL,
  resource TEXT NOT NULL, t_create_s DOUBLE PRECISION NOT NULL, t_exec_s DOUBLE PRECISION NOT NULL,
  start_s DOUBLE PRECISION NOT NULL, end_s DOUBLE PRECISION NOT NULL, concurrency INTEGER NOT NULL);
INSERT INTO schema_version VALUES(1);
INSERT INTO images(name) VALUES('scale:cpu');
INSERT INTO nodes(name) VALUES('node-1');
INSERT INTO records(image_id, node_id, resource, t_create_s, t_exec_s, start_s, end_s, concurrency)
  VALUES(1, 1, 'CPU', 2, 10, 0, 12, 1), (1, 1, 'CPU', 2, 20, 20, 42, 2);
)";

struct SqliteBackend {
  ScratchDir dir{"kubcg-history"};
  std::string url() { return "sqlite:" + dir.path("history.db"); }
  bool ready(std::string*) { return true; }
  void make_v1(const std::string& u) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(u.substr(7).c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, kV1Sqlite, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
};

struct PostgresBackend {
  std::string db;
  bool ready(std::string* why) {
    if (!PgServer::get().available()) {
      *why = PgServer::get().skip_reason();
      return false;
    }
    return true;
  }
  std::string url() {
    if (db.empty()) db = PgServer::get().fresh_database();
    return db;
  }
  void make_v1(const std::string& u) {
    const std::string name = u.substr(u.rfind('/') + 1, u.find('?') - u.rfind('/') - 1);
    ASSERT_TRUE(PgServer::get().run_sql(name, kV1Postgres));
  }
};

template <class B>
class HistoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!backend.ready(&why)) GTEST_SKIP() << "PostgreSQL tests skipped: " << why;
  }
  std::unique_ptr<HistoryStore> open() { return open_history(backend.url()); }
  B backend;
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
class BackendNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteBackend> ? "SQLite" : "PostgreSQL";
  }
};
TYPED_TEST_SUITE(HistoryStoreTest, Backends, BackendNames);

TYPED_TEST(HistoryStoreTest, CreatesTheCurrentSchema) {
  auto s = this->open();
  EXPECT_EQ(s->schema_version(), HistoryStore::kSchemaVersion);
  EXPECT_EQ(s->record_count(), 0);
  EXPECT_TRUE(s->statistics().empty());
}

TYPED_TEST(HistoryStoreTest, StatisticsAreMaintainedOnInsert) {
  auto s = this->open();
  s->insert(std::vector<Record>{rec("scale:cpu", "node-1", Resource::kCpu, 2, 8)});
  auto st = s->statistics();
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].count, 1);
  EXPECT_DOUBLE_EQ(st[0].min_s, 10);
  EXPECT_DOUBLE_EQ(st[0].max_s, 10);
  // Two more for the same pair, one for the GPU, and a failure (not in the statistics).
  s->insert(std::vector<Record>{rec("scale:cpu", "node-1", Resource::kCpu, 1, 19),
                                rec("scale:cpu", "node-1", Resource::kCpu, 1, 29),
                                rec("scale:gpu", "node-5", Resource::kGpu, 1, 4),
                                rec("scale:cpu", "node-1", Resource::kCpu, 0, 1, 1)});
  st = s->statistics();
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].image, "scale:cpu");
  EXPECT_EQ(st[0].node, "node-1");
  EXPECT_EQ(st[0].resource, Resource::kCpu);
  EXPECT_EQ(st[0].count, 3);
  EXPECT_DOUBLE_EQ(st[0].min_s, 10);
  EXPECT_DOUBLE_EQ(st[0].max_s, 30);
  EXPECT_DOUBLE_EQ(st[0].avg_s, 20);
  EXPECT_EQ(st[1].image, "scale:gpu");
  EXPECT_EQ(st[1].resource, Resource::kGpu);
  EXPECT_EQ(st[1].count, 1);
  EXPECT_DOUBLE_EQ(st[1].avg_s, 5);
  EXPECT_EQ(s->record_count(), 5);
  EXPECT_EQ(s->images(), (std::vector<std::string>{"scale:cpu", "scale:gpu"}));
  EXPECT_EQ(s->nodes(), (std::vector<std::string>{"node-1", "node-5"}));
}

TYPED_TEST(HistoryStoreTest, RecordsRoundTripAndSurviveReopening) {
  Record r = rec("tf:gpu", "node-4", Resource::kGpu, 3.25, 61.5);
  r.start_s = 1000.5;
  r.end_s = 1070;
  r.concurrency = 3;
  this->open()->insert(std::vector<Record>{r});
  auto s = this->open();
  const auto all = s->records();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].image, "tf:gpu");
  EXPECT_EQ(all[0].node, "node-4");
  EXPECT_EQ(all[0].resource, Resource::kGpu);
  EXPECT_DOUBLE_EQ(all[0].t_create_s, 3.25);
  EXPECT_DOUBLE_EQ(all[0].t_exec_s, 61.5);
  EXPECT_DOUBLE_EQ(all[0].start_s, 1000.5);
  EXPECT_DOUBLE_EQ(all[0].end_s, 1070);
  EXPECT_EQ(all[0].concurrency, 3);
  EXPECT_EQ(all[0].exit_status, 0);
}

TYPED_TEST(HistoryStoreTest, AnInsertIsAllOrNothing) {
  auto s = this->open();
  Record bad = rec("a", "n", Resource::kCpu, 1, 1);
  bad.t_exec_s = -3;  // negative duration
  std::vector<Record> batch{rec("a", "n", Resource::kCpu, 1, 1), bad};
  try {
    s->insert(batch);
    FAIL() << "a negative duration was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t_exec_s is negative"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s->record_count(), 0);
  EXPECT_TRUE(s->statistics().empty());
}

TYPED_TEST(HistoryStoreTest, LearnsIncompatiblePairsFromFailedRuns) {
  auto s = this->open();
  s->insert(std::vector<Record>{rec("tf:cpu", "node-1", Resource::kCpu, 1, 1, 1),
                                rec("tf:cpu", "node-3", Resource::kCpu, 1, 1, 1),
                                rec("tf:cpu", "node-3", Resource::kCpu, 1, 50, 0)});
  // node-3 succeeded once: only node-1 is incompatible.
  EXPECT_EQ(s->incompatible(),
            (std::vector<std::pair<std::string, std::string>>{{"tf:cpu", "node-1"}}));
}

TYPED_TEST(HistoryStoreTest, MigratesFromSchemaVersion1) {
  const std::string url = this->backend.url();
  this->backend.make_v1(url);
  auto s = open_history(url);
  EXPECT_EQ(s->schema_version(), 2);
  const auto recs = s->records();
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[1].exit_status, 0);  // the new column's default
  EXPECT_EQ(recs[1].concurrency, 2);
  const auto st = s->statistics();  // computed from the old records by the migration
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].count, 2);
  EXPECT_DOUBLE_EQ(st[0].min_s, 12);
  EXPECT_DOUBLE_EQ(st[0].max_s, 22);
  // And it keeps working at version 2.
  s->insert(std::vector<Record>{rec("scale:cpu", "node-1", Resource::kCpu, 0, 5)});
  EXPECT_DOUBLE_EQ(s->statistics()[0].min_s, 5);
  EXPECT_EQ(open_history(url)->schema_version(), 2);  // reopening migrates nothing again
}

// ---------------------------------------------------------------- the writer and the cache

TEST(StatsCache, FollowsTheWriterAndMatchesTheStore) {
  auto store = open_history("sqlite::memory:");
  StatsCache cache;
  HistoryWriter w(*store, cache);
  w.record(rec("m:cpu", "node-2", Resource::kCpu, 1, 9));
  w.record(rec("m:cpu", "node-2", Resource::kCpu, 1, 29));
  const StatsCache::Entry* e = cache.find("m:cpu", "node-2", Resource::kCpu);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->count, 2);
  EXPECT_DOUBLE_EQ(e->avg_s(), 20);
  EXPECT_EQ(w.pending(), 2u);
  ASSERT_TRUE(w.flush());
  EXPECT_EQ(w.acknowledged(), 2);
  StatsCache reloaded;
  reloaded.load(store->statistics());
  EXPECT_DOUBLE_EQ(reloaded.find("m:cpu", "node-2", Resource::kCpu)->max_s, 30);
  EXPECT_EQ(cache.find("m:cpu", "node-2", Resource::kGpu), nullptr);
  Record neg = rec("m:cpu", "node-2", Resource::kCpu, -1, 9);
  EXPECT_THROW(w.record(neg), std::invalid_argument);
}

// ---------------------------------------------------------------- SQLite faults

TEST(SqliteFaults, CorruptFileIsAClearError) {
  ScratchDir dir("kubcg-corrupt");
  const std::string path = dir.write("h.db", std::string(8192, 'x'));
  try {
    open_history("sqlite:" + path);
    FAIL() << "a corrupt file was opened";
  } catch (const HistoryError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("not a database"), std::string::npos) << m;
  }
}

TEST(SqliteFaults, LockedDatabaseKeepsRecordsPendingAndRetries) {
  ScratchDir dir("kubcg-locked");
  const std::string path = dir.path("h.db");
  SqliteStore store(path, /*busy_timeout_ms=*/50);
  StatsCache cache;
  HistoryWriter w(store, cache);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  w.record(rec("a", "n", Resource::kCpu, 1, 1));
  EXPECT_FALSE(w.flush());
  EXPECT_NE(w.last_error().find("locked"), std::string::npos) << w.last_error();
  EXPECT_EQ(w.pending(), 1u);
  EXPECT_EQ(cache.find("a", "n", Resource::kCpu)->count, 1);  // decisions already see it
  ASSERT_EQ(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  w.record(rec("a", "n", Resource::kCpu, 1, 2));
  EXPECT_TRUE(w.flush(/*force=*/true));  // the retry (forced: within the 1 s backoff)
  EXPECT_EQ(store.record_count(), 2);  // nothing lost, in order
  EXPECT_DOUBLE_EQ(store.records()[0].t_exec_s, 1);
}

TEST(SqliteFaults, ReadOnlyFileIsAClearError) {
  ScratchDir dir("kubcg-ro");
  const std::string path = dir.path("h.db");
  { SqliteStore make(path); }
  // Root may write anything: check as the unprivileged user nobody, in a child process.
  std::filesystem::permissions(dir.root(), std::filesystem::perms::owner_all |
                                               std::filesystem::perms::others_read |
                                               std::filesystem::perms::others_exec);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write |
                                         std::filesystem::perms::others_read);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
    try {
      SqliteStore s(path);
      s.insert(std::vector<Record>{rec("a", "n", Resource::kCpu, 1, 1)});
      _exit(1);  // written: not read-only after all
    } catch (const HistoryError& e) {
      const std::string m = e.what();
      _exit(m.find(path) != std::string::npos && (m.find("readonly") != std::string::npos ||
                                                  m.find("unable to open") != std::string::npos)
                ? 0
                : 2);
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the read-only file was written; 2: unclear message";
}

// ---------------------------------------------------------------- PostgreSQL going away

TEST(PostgresFaults, ServerGoingAwayLosesNoAcknowledgedRecord) {
  PgServer& pg = PgServer::get();
  if (!pg.available()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.skip_reason();
  const std::string url = pg.fresh_database();
  auto store = open_history(url);
  StatsCache cache;
  HistoryWriter w(*store, cache);
  for (int i = 0; i < 3; ++i) w.record(rec("s", "n", Resource::kCpu, 1, 10 + i));
  ASSERT_TRUE(w.flush());
  EXPECT_EQ(w.acknowledged(), 3);
  pg.stop();
  w.record(rec("s", "n", Resource::kCpu, 1, 20));
  w.record(rec("s", "n", Resource::kCpu, 1, 21));
  EXPECT_FALSE(w.flush());  // buffered, not acknowledged
  EXPECT_EQ(w.pending(), 2u);
  EXPECT_NE(w.last_error().find("127.0.0.1"), std::string::npos) << w.last_error();
  EXPECT_EQ(cache.find("s", "n", Resource::kCpu)->count, 5);
  ASSERT_TRUE(pg.start());
  EXPECT_TRUE(w.flush(/*force=*/true));  // reconnects and commits the buffered records
  EXPECT_EQ(w.acknowledged(), 5);
  auto fresh = open_history(url);
  ASSERT_EQ(fresh->record_count(), 5);
  EXPECT_DOUBLE_EQ(fresh->records()[4].t_exec_s, 21);
  EXPECT_EQ(fresh->statistics()[0].count, 5);
}

TEST(HistoryUrl, UnreachablePostgresIsAClearError) {
  try {
    open_history("postgresql://orrery@127.0.0.1:1/x?connect_timeout=1");
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace orrery::kubcg
