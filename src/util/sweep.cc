#include "util/sweep.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

namespace orrery {
namespace {

// The shared state of one sweep: which task is next, whether to stop, the error to rethrow.
class Sweep {
 public:
  Sweep(size_t n, const std::function<void(size_t)>& task, const std::function<void(size_t)>& after)
      : n_(n), task_(task), after_(after) {}

  // Runs tasks until none is left or the sweep stops (each thread of the pool calls this).
  void work() {
    for (std::optional<size_t> i = take(); i; i = take()) run(*i);
  }

  // No task is started after this.
  void stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }

  // After every thread has left work(): rethrows the lowest-index task's exception, if any.
  void rethrow_first_error() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::optional<size_t> take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_ || next_ >= n_) return std::nullopt;
    return next_++;
  }

  void run(size_t i) {
    try {
      task_(i);
      if (after_) {
        std::lock_guard<std::mutex> lock(after_mu_);
        after_(i);
      }
    } catch (...) {
      fail(i, std::current_exception());
    }
  }

  void fail(size_t i, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    if (!error_ || i < error_index_) {
      error_ = std::move(e);
      error_index_ = i;
    }
  }

  const size_t n_;
  const std::function<void(size_t)>& task_;
  const std::function<void(size_t)>& after_;
  std::mutex mu_;        // guards next_, stopped_, error_, error_index_
  std::mutex after_mu_;  // serialises after_
  size_t next_ = 0;
  bool stopped_ = false;
  std::exception_ptr error_;
  size_t error_index_ = 0;
};

}  // namespace

int sweep_threads(int requested, size_t tasks) {
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  const int wanted = requested > 0 ? requested : std::max(1, hw);
  return static_cast<int>(std::clamp<size_t>(tasks, 1, static_cast<size_t>(wanted)));
}

void run_indexed(size_t n, int threads, const std::function<void(size_t)>& task,
                 const std::function<void(size_t)>& after) {
  Sweep sweep(n, task, after);
  {
    std::vector<std::jthread> pool;  // joined when this block ends, also by an exception
    try {
      const int count = sweep_threads(threads, n);
      for (int t = 1; t < count; ++t) pool.emplace_back([&] { sweep.work(); });
    } catch (...) {  // a thread could not be started: let the running ones finish, then report
      sweep.stop();
      throw;
    }
    sweep.work();
  }
  sweep.rethrow_first_error();
}

}  // namespace orrery
