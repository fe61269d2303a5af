// KubCG's execution-history database (§5.2): what ran where, and how long it took.
//
// Tables (both backends, schema version 2):
//   schema_version(version)                      one row; migrations bring older files forward
//   images(id, name)                             container images that ran (a variant each)
//   nodes(id, name)
//   records(id, image_id, node_id, resource, t_create_s, t_exec_s, start_s, end_s,
//           concurrency, exit_status)            one row per finished pod
//   statistics(image_id, node_id, resource, count, sum_s, min_s, max_s)
//                                                of T_Run = T_Cr + T_Ex over successful runs
//                                                (exit_status 0), updated in the same
//                                                transaction as each insert
//
// HistoryStore is the interface; open_history() picks the backend from a URL:
//   sqlite:PATH (or a bare path)       SQLite file, WAL journal (sqlite_store.h)
//   sqlite::memory:                    SQLite in memory (tests, throwaway runs)
//   postgresql://... / postgres://...  PostgreSQL through libpq (pg_store.h)
// Every insert is one transaction: all of its records are stored, or none.
//
// The scheduler never reads the database on its hot path: StatsCache holds the statistics in
// memory, HistoryWriter keeps it current as pods finish and commits records to the store
// (retrying, in order, when the store is unavailable; see HistoryWriter).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace orrery::kubcg {

enum class Resource : uint8_t { kCpu, kGpu };
const char* to_string(Resource r);  // "CPU", "GPU"
// "CPU"/"cpu" or "GPU"/"gpu"; false otherwise.
bool parse_resource(const std::string& text, Resource* out);

// One finished pod.
struct Record {
  std::string image;
  std::string node;
  Resource resource = Resource::kCpu;
  double t_create_s = 0;  // T_Cr: bound → running (image pull, container creation)
  double t_exec_s = 0;    // T_Ex: running → finished
  double start_s = 0;     // when it was bound (seconds; simulated time or Unix time)
  double end_s = 0;       // when it finished
  int concurrency = 1;    // most pods running on the node at once during its run (itself included)
  int exit_status = 0;    // 0: succeeded; otherwise the run failed (e.g. incompatible image)
  double t_run_s() const { return t_create_s + t_exec_s; }
};

// Why a record cannot be stored ("" when it can): negative or non-finite durations, end before
// start, an empty image or node, concurrency < 1.
std::string validate(const Record& r);

// Statistics of T_Run for one image × node × resource.
struct Stat {
  std::string image;
  std::string node;
  Resource resource = Resource::kCpu;
  int64_t count = 0;
  double avg_s = 0;
  double min_s = 0;
  double max_s = 0;
};

// A failure of the database itself (cannot open, locked, read-only, connection lost). The
// message names the database and what went wrong.
class HistoryError : public std::runtime_error {
 public:
  explicit HistoryError(const std::string& m) : std::runtime_error(m) {}
};

class HistoryStore {
 public:
  static constexpr int kSchemaVersion = 2;
  virtual ~HistoryStore() = default;
  virtual std::string describe() const = 0;  // "sqlite:/path" or the connection without password
  virtual int schema_version() = 0;
  // Stores the records and updates the statistics in one transaction. Throws HistoryError (the
  // transaction is rolled back) or std::invalid_argument naming the first invalid record.
  virtual void insert(std::span<const Record> records) = 0;
  virtual void add_image(const std::string& name) = 0;
  virtual void add_node(const std::string& name) = 0;
  virtual std::vector<std::string> images() = 0;
  virtual std::vector<std::string> nodes() = 0;
  // In insertion order.
  virtual std::vector<Record> records() = 0;
  // Sorted by image, node, resource.
  virtual std::vector<Stat> statistics() = 0;
  // (image, node) pairs with a failed run and no successful one: learned incompatibilities.
  virtual std::vector<std::pair<std::string, std::string>> incompatible() = 0;
  virtual int64_t record_count() = 0;
};

// Opens (creating and migrating as needed) the database at `url` (see above). Throws
// HistoryError with the URL and the reason.
std::unique_ptr<HistoryStore> open_history(const std::string& url);

// The statistics in memory: what the decider reads. Lookups by image then node; the node level
// is a small vector (clusters have few nodes per image) scanned linearly.
class StatsCache {
 public:
  struct Entry {
    int64_t count = 0;
    double sum_s = 0, min_s = 0, max_s = 0;
    double avg_s() const { return count ? sum_s / count : 0; }
  };
  void load(const std::vector<Stat>& stats);
  void add(const Record& r);  // successful records only; others are ignored
  const Entry* find(const std::string& image, const std::string& node, Resource r) const;
  bool has_image(const std::string& image) const { return by_image_.count(image) != 0; }
  size_t size() const;

 private:
  struct NodeEntry {
    std::string node;
    Resource resource;
    Entry e;
  };
  std::unordered_map<std::string, std::vector<NodeEntry>> by_image_;
};

// Records finished pods: the cache at once (the next decision sees them), the store in one
// transaction per flush. When the store fails (PostgreSQL gone, SQLite locked or read-only) the
// records stay pending in memory, in order, and the next flush retries them; scheduling goes on
// from the cache. A record counts as acknowledged once its transaction committed. The buffer is
// bounded (max_pending, default 100,000 records): beyond it the oldest pending record is dropped
// and counted in lost() — reported, never silent. The first failure of an outage is logged as a
// warning (obs), and so is the recovery.
class HistoryWriter {
 public:
  static constexpr size_t kDefaultMaxPending = 100'000;
  HistoryWriter(HistoryStore& store, StatsCache& cache, size_t max_pending = kDefaultMaxPending)
      : store_(store), cache_(cache), max_pending_(std::max<size_t>(1, max_pending)) {}
  // Validates (std::invalid_argument on a bad record), updates the cache, queues the record.
  void record(Record r);
  // Commits everything pending in one transaction. True when nothing is left pending; false
  // (with last_error()) when the store refused, the records stay queued. After a failure,
  // further flushes wait out a backoff (1 s doubling to 30 s of wall time: a locked SQLite file
  // costs its busy timeout per attempt, which must not stall every scheduling cycle) unless
  // `force` (the end of a run).
  bool flush(bool force = false);
  size_t pending() const { return pending_.size(); }
  int64_t acknowledged() const { return acknowledged_; }
  int64_t failed_flushes() const { return failed_flushes_; }
  int64_t lost() const { return lost_; }
  bool store_available() const { return available_; }
  const std::string& last_error() const { return last_error_; }

 private:
  HistoryStore& store_;
  StatsCache& cache_;
  size_t max_pending_;
  std::deque<Record> pending_;
  int64_t acknowledged_ = 0;
  int64_t failed_flushes_ = 0;
  int64_t lost_ = 0;
  bool available_ = true;
  std::string last_error_;
  double retry_at_s_ = 0, backoff_s_ = 0;  // steady-clock seconds
};

}  // namespace orrery::kubcg
