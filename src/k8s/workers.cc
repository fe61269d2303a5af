#include "k8s/workers.h"

namespace orrery::k8s {

Workers::Workers(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

Workers::~Workers() { stop(); }

void Workers::submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void Workers::stop(bool drop) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (drop) tasks_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

size_t Workers::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tasks_.size();
}

void Workers::run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace orrery::k8s
