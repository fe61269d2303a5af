// Helpers shared by the src/k8s tests: run a RealTimeLoop until a condition holds.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

#include "framework/realtime_loop.h"

namespace orrery::k8s::testing {

// Runs the loop in slices until `done` holds or `timeout_ms` passes; returns done().
inline bool run_until(fw::RealTimeLoop& loop, const std::function<bool()>& done,
                      int timeout_ms = 10000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    loop.run_for(10 * 1000);
  }
  return true;
}

// Polls `done` (from another thread's point of view) until it holds or the time is up.
inline bool wait_for(const std::function<bool()>& done, int timeout_ms = 10000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace orrery::k8s::testing
