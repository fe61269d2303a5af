#include "policies/kubcg/history.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "obs/log.h"
#include "policies/kubcg/pg_store.h"
#include "policies/kubcg/sqlite_store.h"

namespace orrery::kubcg {

const char* to_string(Resource r) {
  return r == Resource::kGpu ? "GPU" : "CPU";
}

bool parse_resource(const std::string& text, Resource* out) {
  if (text == "CPU" || text == "cpu") {
    *out = Resource::kCpu;
    return true;
  }
  if (text == "GPU" || text == "gpu") {
    *out = Resource::kGpu;
    return true;
  }
  return false;
}

std::string validate(const Record& r) {
  if (r.image.empty()) return "image is empty";
  if (r.node.empty()) return "node is empty";
  const std::pair<const char*, double> fields[] = {{"t_create_s", r.t_create_s},
                                                   {"t_exec_s", r.t_exec_s},
                                                   {"start", r.start_s},
                                                   {"end", r.end_s}};
  for (const auto& [name, v] : fields) {
    if (!std::isfinite(v)) return std::string(name) + " is not a finite number";
  }
  if (r.t_create_s < 0) return "t_create_s is negative (" + std::to_string(r.t_create_s) + ")";
  if (r.t_exec_s < 0) return "t_exec_s is negative (" + std::to_string(r.t_exec_s) + ")";
  if (r.end_s < r.start_s) return "end is before start";
  if (r.concurrency < 1) return "concurrency must be at least 1";
  return "";
}

std::unique_ptr<HistoryStore> open_history(const std::string& url) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0)
    return std::make_unique<PgStore>(url);
  std::string path = url;
  if (path.rfind("sqlite:", 0) == 0) path = path.substr(7);
  if (path.empty()) throw HistoryError("history database \"" + url + "\": empty path");
  return std::make_unique<SqliteStore>(path);
}

// ---------------------------------------------------------------- StatsCache

void StatsCache::load(const std::vector<Stat>& stats) {
  by_image_.clear();
  for (const Stat& s : stats) {
    by_image_[s.image].push_back(
        {s.node, s.resource,
         Entry{s.count, s.avg_s * static_cast<double>(s.count), s.min_s, s.max_s}});
  }
}

void StatsCache::add(const Record& r) {
  if (r.exit_status != 0) return;
  const double t = r.t_run_s();
  auto& v = by_image_[r.image];
  for (NodeEntry& n : v) {
    if (n.node == r.node && n.resource == r.resource) {
      n.e.count += 1;
      n.e.sum_s += t;
      n.e.min_s = std::min(n.e.min_s, t);
      n.e.max_s = std::max(n.e.max_s, t);
      return;
    }
  }
  v.push_back({r.node, r.resource, Entry{1, t, t, t}});
}

const StatsCache::Entry* StatsCache::find(const std::string& image, const std::string& node,
                                          Resource r) const {
  auto it = by_image_.find(image);
  if (it == by_image_.end()) return nullptr;
  for (const NodeEntry& n : it->second)
    if (n.resource == r && n.node == node) return &n.e;
  return nullptr;
}

size_t StatsCache::size() const {
  size_t n = 0;
  for (const auto& [image, v] : by_image_) n += v.size();
  return n;
}

// ---------------------------------------------------------------- HistoryWriter

void HistoryWriter::record(Record r) {
  const std::string why = validate(r);
  if (!why.empty())
    throw std::invalid_argument("history record for " + r.image + " on " + r.node + ": " + why);
  cache_.add(r);
  if (pending_.size() >= max_pending_) {
    pending_.pop_front();
    if (lost_++ == 0)
      obs::error("KubCG history buffer full: the oldest unstored records are being dropped",
                 {{"db", store_.describe()}, {"max_pending", std::to_string(max_pending_)}});
  }
  pending_.push_back(std::move(r));
}

namespace {
double steady_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

bool HistoryWriter::flush(bool force) {
  if (pending_.empty()) return true;
  if (!force && !available_ && steady_s() < retry_at_s_) return false;
  try {
    const std::vector<Record> batch(pending_.begin(), pending_.end());
    store_.insert(batch);
  } catch (const std::exception& e) {  // HistoryError, or anything else the driver threw
    ++failed_flushes_;
    last_error_ = e.what();
    if (available_)
      obs::warn(
          "KubCG history database unavailable; scheduling goes on from the in-memory "
          "statistics and records are kept and retried",
          {{"db", store_.describe()},
           {"error", last_error_},
           {"pending", std::to_string(pending_.size())}});
    available_ = false;
    backoff_s_ = backoff_s_ == 0 ? 1 : std::min(30.0, backoff_s_ * 2);
    retry_at_s_ = steady_s() + backoff_s_;
    return false;
  }
  if (!available_)
    obs::info("KubCG history database available again; pending records written",
              {{"db", store_.describe()},
               {"written", std::to_string(pending_.size())},
               {"lost", std::to_string(lost_)}});
  available_ = true;
  backoff_s_ = 0;
  acknowledged_ += static_cast<int64_t>(pending_.size());
  pending_.clear();
  return true;
}

}  // namespace orrery::kubcg
