#include "policies/carico/aggregator_core.h"

namespace orrery::carico {

Subspace AggregatorCore::submit(const std::string& node, const Subspace& local,
                                const NodeStatus& status, double now_s) {
  std::lock_guard<std::mutex> lock(mu_);
  nodes_[node] = Entry{status, now_s};
  if (!local.empty()) queue_.push_back(local);
  cv_.notify_one();
  return global_;
}

size_t AggregatorCore::live_nodes(double now_s) const {
  size_t n = 0;
  for (const auto& [name, e] : nodes_)
    if (now_s - e.seen_s <= forget_after_s_) ++n;
  return n;
}

size_t AggregatorCore::drain(double now_s) {
  size_t done = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (!queue_.empty()) {
    Subspace b = std::move(queue_.front());
    queue_.pop_front();
    Subspace a = global_;
    const double n = static_cast<double>(std::max<size_t>(1, live_nodes(now_s)));
    lock.unlock();  // the merge runs outside the lock: submit() never waits for it
    Subspace c = a.empty() || a.dims() != b.dims() ? merge(b, 1.0, Subspace{}, 0.0, rank_)
                                                   : merge(a, (n - 1) / n, b, 1.0 / n, rank_);
    lock.lock();
    global_ = std::move(c);
    ++merges_;
    ++done;
  }
  return done;
}

bool AggregatorCore::wait_for_work(const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return stop || !queue_.empty(); });
  return !stop;
}

void AggregatorCore::wake() {
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
}

Subspace AggregatorCore::global() const {
  std::lock_guard<std::mutex> lock(mu_);
  return global_;
}

std::vector<NodeRow> AggregatorCore::table(double now_s) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<NodeRow> rows;
  for (const auto& [name, e] : nodes_) {
    if (now_s - e.seen_s > forget_after_s_) continue;
    rows.push_back({name, e.status, std::max(0.0, now_s - e.seen_s)});
  }
  return rows;
}

uint64_t AggregatorCore::merges() const {
  std::lock_guard<std::mutex> lock(mu_);
  return merges_;
}

size_t AggregatorCore::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

}  // namespace orrery::carico
