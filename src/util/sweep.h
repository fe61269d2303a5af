// Parameter sweeps: n independent tasks on a small thread pool, results in task order.
//
//   std::vector<Result> r = run_sweep(specs.size(), threads,
//                                     [&](size_t i) { return run(specs[i]); });
//
// Tasks are started in index order by `threads` threads (the calling thread is one of them), so
// the output never depends on which thread finishes first. When a task throws, no further task is
// started; once the tasks already running have finished, the exception of the lowest-index task
// that threw is rethrown on the calling thread (the same one a sequential loop would throw, when
// tasks are deterministic). Idle threads block; nothing busy-waits.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace orrery {

// The threads a sweep of `tasks` tasks uses when asked for `requested`: requested <= 0 means the
// hardware's concurrency; never more than the tasks, never fewer than one.
int sweep_threads(int requested, size_t tasks);

// Reported after each task that returned, in completion order.
struct SweepStep {
  size_t index;  // the task
  size_t done;   // tasks returned so far, this one included
  size_t total;  // tasks in the sweep
};

// The untyped core of run_sweep: runs task(i) for i = 0 .. n-1 as described above; after each
// task that returned, runs after(i), one call at a time. An exception from after(i) counts as
// task i's.
void run_indexed(size_t n, int threads, const std::function<void(size_t)>& task,
                 const std::function<void(size_t)>& after);

// fn(i) for i = 0 .. n-1, returned in index order. progress(step, result), when given, is called
// once per task that returned, one call at a time (callers need no lock), in completion order; it
// cannot change the results.
template <class Fn, class Result = std::invoke_result_t<Fn&, size_t>>
std::vector<Result> run_sweep(
    size_t n, int threads, Fn&& fn,
    const std::type_identity_t<std::function<void(const SweepStep&, const Result&)>>& progress =
        nullptr) {
  static_assert(!std::is_void_v<Result>, "a sweep task returns its result");
  std::vector<std::optional<Result>> slots(n);
  size_t done = 0;  // only touched by `after`, which is serialised
  std::function<void(size_t)> after;
  if (progress) after = [&](size_t i) { progress(SweepStep{i, ++done, n}, *slots[i]); };
  run_indexed(
      n, threads, [&](size_t i) { slots[i].emplace(fn(i)); }, after);
  std::vector<Result> out;
  out.reserve(n);
  for (std::optional<Result>& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace orrery
