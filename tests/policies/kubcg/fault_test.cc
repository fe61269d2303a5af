// KubCG with its history database failing mid-run, in full scheduling runs (the simulator, the
// paper's cluster) against a real PostgreSQL server and a real SQLite file:
//   - PostgreSQL stopped after the 3rd finished pod and started again after the 8th
//   - SQLite locked by another process over the same stretch
// Scheduling goes on from the in-memory statistics, a warning says the database is unavailable
// and another that it is back, no pod is lost or bound twice, and every record is written once
// the database returns. A full buffer drops the oldest records and reports them lost.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <mutex>

#include "obs/log.h"
#include "pg_server.h"
#include "experiments/kubcg/evaluation.h"
#include "policies/kubcg/history.h"
#include "policies/kubcg/sqlite_store.h"
#include "scratch_dir.h"

namespace orrery::kubcg {
namespace {

using orrery::testing::PgServer;
using orrery::testing::ScratchDir;

// 14 pods of the four images, a few seconds apart.
std::vector<Arrival> arrivals() {
  std::vector<Arrival> a;
  for (int i = 0; i < 14; ++i) a.push_back({i * 7.0, i % 4});
  return a;
}

struct LogCapture {
  std::mutex mu;
  std::string text;
  LogCapture() {
    obs::set_log_sink([this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mu);
      text += l + "\n";
    });
  }
  ~LogCapture() { obs::set_log_sink(nullptr); }
};

void expect_outage_survived(const FaultRun& r, const std::string& log, int64_t history_before,
                            int64_t stored_after) {
  EXPECT_TRUE(r.result.complete) << "pods left unfinished";
  EXPECT_GE(r.pods_bound, 14);  // every pod (failed runs are re-created as new pods)
  EXPECT_EQ(r.bound_twice, 0);
  EXPECT_GE(r.records, 14);
  EXPECT_GE(r.failed_flushes, 1) << "the fault did not happen";
  EXPECT_EQ(r.acknowledged, r.records) << "records not written after the database came back";
  EXPECT_EQ(r.pending, 0);
  EXPECT_EQ(r.lost, 0);
  EXPECT_EQ(stored_after, history_before + r.records);
  EXPECT_NE(log.find("level=warn msg=\"KubCG history database unavailable"), std::string::npos)
      << log;
  EXPECT_NE(log.find("KubCG history database available again"), std::string::npos) << log;
  EXPECT_EQ(log.find("level=error"), std::string::npos) << log;
}

TEST(KubcgFaults, PostgresStoppedMidRunSchedulingContinuesAndWritesResume) {
  PgServer& pg = PgServer::get();
  if (!pg.available()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.skip_reason();
  const std::string url = pg.fresh_database();
  const auto history = warm_up(20, 1);
  open_history(url)->insert(history);
  LogCapture log;
  bool restarted = false;
  const FaultRun r = run_case_on_db(Case::kKCpuGpu, arrivals(), url, 3, [&](int finished) {
    if (finished == 3) pg.stop();
    if (finished == 8) restarted = pg.start();
  });
  ASSERT_TRUE(restarted);
  expect_outage_survived(r, log.text, static_cast<int64_t>(history.size()),
                         open_history(url)->record_count());
}

TEST(KubcgFaults, SqliteLockedMidRunSchedulingContinuesAndWritesResume) {
  ScratchDir dir("kubcg-fault-sqlite");
  const std::string path = dir.path("history.db");
  const auto history = warm_up(20, 1);
  open_history("sqlite:" + path)->insert(history);
  LogCapture log;
  sqlite3* other = nullptr;
  const FaultRun r =
      run_case_on_db(Case::kKCpuGpu, arrivals(), "sqlite:" + path, 3, [&](int finished) {
        if (finished == 3) {
          ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
          ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
        }
        if (finished == 8) {
          sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
          sqlite3_close(other);
        }
      });
  expect_outage_survived(r, log.text, static_cast<int64_t>(history.size()),
                         open_history("sqlite:" + path)->record_count());
}

TEST(KubcgFaults, AFullBufferDropsTheOldestRecordsAndReportsThem) {
  ScratchDir dir("kubcg-fault-buffer");
  const std::string path = dir.path("h.db");
  SqliteStore store(path, /*busy_timeout_ms=*/20);
  StatsCache cache;
  HistoryWriter w(store, cache, /*max_pending=*/3);
  LogCapture log;
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  for (int i = 0; i < 5; ++i) {
    Record x;
    x.image = "img";
    x.node = "n";
    x.t_exec_s = 10 + i;
    x.start_s = i;
    x.end_s = i + 10 + i;
    w.record(x);
    EXPECT_FALSE(w.flush());
  }
  EXPECT_EQ(w.pending(), 3u);
  EXPECT_EQ(w.lost(), 2);
  EXPECT_EQ(cache.find("img", "n", Resource::kCpu)->count, 5);  // decisions saw all five
  sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_FALSE(w.flush()) << "retried within the backoff";
  EXPECT_TRUE(w.flush(/*force=*/true));
  ASSERT_EQ(store.record_count(), 3);
  EXPECT_DOUBLE_EQ(store.records()[0].t_exec_s, 12);  // the two oldest were the ones dropped
  EXPECT_NE(log.text.find("level=error msg=\"KubCG history buffer full"), std::string::npos)
      << log.text;
}

}  // namespace
}  // namespace orrery::kubcg
