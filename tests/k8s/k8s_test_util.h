// Helpers shared by the src/k8s tests: run a RealTimeLoop until a condition holds.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "framework/realtime_loop.h"

namespace orrery::k8s::testing {

// A deadline for something that must happen (a bind, a sync, an exit): far above a healthy run,
// even on a loaded 2-core machine (scripts/stress-tests.sh). Tests wait on what they observe,
// never on the machine's speed; what they assert stays strict.
inline constexpr int kPatientMs = 60000;

// Runs the loop in slices until `done` holds or `timeout_ms` passes; returns done().
inline bool run_until(fw::RealTimeLoop& loop, const std::function<bool()>& done,
                      int timeout_ms = kPatientMs) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    loop.run_for(10 * 1000);
  }
  return true;
}

// A kubeconfig whose current context reaches `url` as a user given by the YAML lines under
// `user:` (indented four spaces).
inline std::string kubeconfig_yaml(const std::string& url, const std::string& user_yaml) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n"
         "  cluster:\n    server: " +
         url +
         "\ncontexts:\n- name: fake\n  context: {cluster: fake, user: u}\n"
         "users:\n- name: u\n  user:\n" +
         user_yaml;
}
// The same with a bearer token.
inline std::string token_kubeconfig(const std::string& url, const std::string& token = "t") {
  return kubeconfig_yaml(url, "    token: " + token + "\n");
}

// kube-default with the priority-optimal packer at PreFilter and PostFilter, the profile the
// tests give `orrery serve --policy kube-optpack`: deterministic solves that may follow each
// other at once.
inline constexpr const char* kPackerConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: orrery
  plugins:
    preFilter: {enabled: [{name: PriorityOptimalPacking}]}
    postFilter: {enabled: [{name: PriorityOptimalPacking}]}
  pluginConfig:
  - name: PriorityOptimalPacking
    args: {deterministic: true, minInterval: 0s, timeout: 1s}
)";

// Polls `done` (from another thread's point of view) until it holds or the time is up.
inline bool wait_for(const std::function<bool()>& done, int timeout_ms = kPatientMs) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// `orrery serve --leader-elect` (binary `bin`) as replica `identity` on the Lease
// kube-system/orrery, with test-sized timings (lease 3 s, renew deadline 2 s, retry 0.2 s) and a
// 50 ms initial backoff; `extra` options follow.
inline std::vector<std::string> leader_elected_serve(const std::string& bin,
                                                     const std::string& kubeconfig,
                                                     const std::string& config,
                                                     const std::string& identity,
                                                     const std::vector<std::string>& extra) {
  std::vector<std::string> a = {bin,
                                "serve",
                                "--kubeconfig",
                                kubeconfig,
                                "--config",
                                config,
                                "--leader-elect",
                                "--lease-namespace",
                                "kube-system",
                                "--lease-name",
                                "orrery",
                                "--lease-duration",
                                "3",
                                "--renew-deadline",
                                "2",
                                "--retry-period",
                                "0.2",
                                "--identity",
                                identity,
                                "--backoff-initial-ms",
                                "50"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace orrery::k8s::testing
