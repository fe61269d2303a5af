// A few threads that carry out blocking API calls (binds, evictions, creations, events) off the
// scheduling loop. Tasks run in submission order per thread pick-up; results go back to the loop
// with RealTimeLoop::post. stop() finishes the queued tasks first unless `drop` is set.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace orrery::k8s {

class Workers {
 public:
  explicit Workers(int threads);
  ~Workers();
  void submit(std::function<void()> task);
  // Waits for the queued tasks (or drops them) and joins the threads.
  void stop(bool drop = false);
  size_t queued() const;

 private:
  void run();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace orrery::k8s
