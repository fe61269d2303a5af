// `orrery serve --policy NAME` reports what plain serve (kube-default) reports (issue 16): the
// per-cycle metric families (attempts by result, e2e and algorithm latency histograms, pending
// pods by queue) beside plan steps and watch restarts, and the Events Scheduled,
// FailedScheduling ("0/N nodes are available: ...") and Preempted, fed through the runtime's
// fw::CycleObserver. /metrics is scraped, parsed strictly and compared with what the fake API
// server recorded.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "k8s/exposition_parser.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/process.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

using testing::FakeApiServer;
using testing::make_node;
using testing::make_pod;
using testing::Process;
using testing::wait_for;

std::string kubeconfig(const std::string& url) {
  return testing::token_kubeconfig(url);
}

// The families plain serve exposes, with their types.
const std::map<std::string, std::string> kFamilies = {
    {"orrery_schedule_attempts_total", "counter"},
    {"orrery_pod_scheduling_duration_seconds", "histogram"},
    {"orrery_scheduling_algorithm_duration_seconds", "histogram"},
    {"orrery_pending_pods", "gauge"},
    {"orrery_plan_steps_total", "counter"},
    {"orrery_watch_restarts_total", "counter"},
    {"orrery_leader", "gauge"},
    {"orrery_cluster_events_total", "counter"},
};

double sample(const testing::Exposition& e, const std::string& key) {
  auto it = e.samples.find(key);
  return it == e.samples.end() ? 0.0 : it->second;
}

// Scrapes /metrics until `done` holds (the loop thread updates families one by one, so a scrape
// may fall between two of them); returns the last scrape.
testing::Exposition scrape_until(int port,
                                 const std::function<bool(const testing::Exposition&)>& done,
                                 std::string* body) {
  httplib::Client http("127.0.0.1", port);
  testing::Exposition e;
  wait_for(
      [&] {
        auto m = http.Get("/metrics");
        if (!m) return false;
        *body = m->body;
        e = testing::parse_exposition(m->body);
        return done(e);
      },
      10000);
  return e;
}

// Events by reason → pod name → messages.
std::map<std::string, std::map<std::string, std::vector<std::string>>> events(
    const FakeApiServer& server) {
  std::map<std::string, std::map<std::string, std::vector<std::string>>> out;
  for (const auto& ev : server.list("events"))
    out[ev.value("reason", "")][ev["involvedObject"].value("name", "")].push_back(
        ev.value("message", ""));
  return out;
}

std::map<std::string, int> successful_binds(const FakeApiServer& server) {
  std::map<std::string, int> ok;
  for (const auto& b : server.binds()) ok[b.pod] += b.status == 201;
  return ok;
}

TEST(ServePolicyObservability, KubeOptpackHasPlainServesFamiliesAndEvents) {
  orrery::testing::ScratchDir dir("k8s_serve_policy_obs");
  testing::FakeApiServerOptions o;
  o.bookmark_interval_ms = 200;
  FakeApiServer server(o);
  const std::string kc = dir.path("kubeconfig.yaml"), cfg = dir.path("sched.yaml");
  std::ofstream(kc) << kubeconfig(server.url());
  std::ofstream(cfg) << testing::kPackerConfig;
  server.add("nodes", make_node("a", "4", "16Gi"));
  server.add("nodes", make_node("b", "4", "16Gi"));
  for (int i = 0; i < 3; ++i)
    server.add("pods", make_pod("default", "p" + std::to_string(i), "1", "1Gi"));
  server.add("pods", make_pod("default", "huge", "8", "1Gi"));  // fits no node
  const int port = testing::free_port();
  Process serve({ORRERY_BIN, "serve", "--kubeconfig", kc, "--config", cfg, "--policy",
                 "kube-optpack", "--metrics-listen", "127.0.0.1:" + std::to_string(port),
                 "--backoff-initial-ms", "50", "--backoff-max-ms", "500"},
                dir.path("serve.log"));

  // Events: Scheduled for each bound pod, FailedScheduling with the FitError for the huge one.
  ASSERT_TRUE(wait_for(
      [&] {
        auto ev = events(server);
        return ev["Scheduled"].size() == 3 && ev["FailedScheduling"].count("huge") != 0;
      },
      20000))
      << serve.output();
  auto ev = events(server);
  for (int i = 0; i < 3; ++i) {
    const std::string name = "p" + std::to_string(i);
    ASSERT_EQ(ev["Scheduled"][name].size(), 1u) << name;
    EXPECT_EQ(ev["Scheduled"][name][0].rfind("Successfully assigned default/" + name + " to ", 0),
              0u)
        << ev["Scheduled"][name][0];
  }
  EXPECT_EQ(ev["FailedScheduling"].size(), 1u) << "only the huge pod failed";
  const std::string& why = ev["FailedScheduling"]["huge"].front();
  EXPECT_EQ(why.rfind("0/2 nodes are available: ", 0), 0u) << why;
  EXPECT_NE(why.find("Insufficient cpu"), std::string::npos) << why;

  // /metrics agrees with the fake: every successful bind is a scheduled attempt, confirmed
  // (e2e) and counted as a plan step; every attempt is one algorithm-latency observation.
  std::string body;
  const testing::Exposition e = scrape_until(
      port,
      [](const testing::Exposition& x) {
        const double attempts =
            sample(x, "orrery_schedule_attempts_total{result=\"scheduled\",profile=\"orrery\"}") +
            sample(x,
                   "orrery_schedule_attempts_total{result=\"unschedulable\",profile=\"orrery\"}");
        return sample(x, "orrery_pod_scheduling_duration_seconds_count{}") == 3 &&
               sample(x, "orrery_plan_steps_total{action=\"bind\",outcome=\"ok\"}") == 3 &&
               sample(x, "orrery_scheduling_algorithm_duration_seconds_count{}") == attempts &&
               sample(x, "orrery_pending_pods{queue=\"backoff\"}") +
                       sample(x, "orrery_pending_pods{queue=\"unschedulable\"}") ==
                   1;
      },
      &body);
  EXPECT_TRUE(e.errors.empty()) << e.errors.front();
  for (const auto& [family, type] : kFamilies) {
    ASSERT_TRUE(e.types.count(family)) << family << "\n" << body;
    EXPECT_EQ(e.types.at(family), type) << family;
  }
  const auto binds = successful_binds(server);
  EXPECT_EQ(binds.size(), 3u);
  EXPECT_EQ(sample(e, "orrery_schedule_attempts_total{result=\"scheduled\",profile=\"orrery\"}"),
            static_cast<double>(binds.size()))
      << body;
  const double failed =
      sample(e, "orrery_schedule_attempts_total{result=\"unschedulable\",profile=\"orrery\"}");
  EXPECT_GE(failed, 1) << body;
  EXPECT_EQ(sample(e, "orrery_pod_scheduling_duration_seconds_count{}"), 3) << body;
  EXPECT_EQ(sample(e, "orrery_plan_steps_total{action=\"bind\",outcome=\"ok\"}"), 3) << body;
  EXPECT_EQ(sample(e, "orrery_scheduling_algorithm_duration_seconds_count{}"), 3 + failed) << body;
  EXPECT_EQ(sample(e, "orrery_pending_pods{queue=\"active\"}"), 0) << body;
  EXPECT_EQ(sample(e, "orrery_pending_pods{queue=\"backoff\"}") +
                sample(e, "orrery_pending_pods{queue=\"unschedulable\"}"),
            1)
      << body;
  EXPECT_EQ(sample(e, "orrery_leader{}"), 1);
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

// Preemption in policy mode: a high-priority pod preempts a low-priority one through the
// framework's DefaultPreemption; the victim gets a Preempted Event naming the preemptor, the
// preemptor a FailedScheduling Event (its first attempt) and later a Scheduled one.
TEST(ServePolicyObservability, KubeOptpackWritesPreemptedEvents) {
  orrery::testing::ScratchDir dir("k8s_serve_policy_preempt");
  FakeApiServer server;
  const std::string kc = dir.path("kubeconfig.yaml"), cfg = dir.path("sched.yaml");
  std::ofstream(kc) << kubeconfig(server.url());
  std::ofstream(cfg) << testing::kPackerConfig;
  server.add("priorityclasses", {{"apiVersion", "scheduling.k8s.io/v1"},
                                 {"kind", "PriorityClass"},
                                 {"metadata", {{"name", "high"}}},
                                 {"value", 1000}});
  server.add("nodes", make_node("a", "4", "16Gi"));
  nlohmann::json low = make_pod("default", "low", "4", "1Gi");
  low["spec"]["nodeName"] = "a";
  low["status"]["phase"] = "Running";
  server.add("pods", low);
  nlohmann::json high = make_pod("default", "high", "4", "1Gi");
  high["spec"]["priorityClassName"] = "high";
  high["spec"]["priority"] = 1000;
  server.add("pods", high);
  Process serve(
      {ORRERY_BIN, "serve", "--kubeconfig", kc, "--config", cfg, "--policy", "kube-optpack",
       "--metrics-listen", "127.0.0.1:0", "--backoff-initial-ms", "50", "--backoff-max-ms", "500"},
      dir.path("serve.log"));
  ASSERT_TRUE(
      wait_for([&] { return events(server)["Preempted"].count("low") != 0; }, testing::kPatientMs))
      << serve.output();
  auto ev = events(server);
  EXPECT_EQ(ev["Preempted"]["low"].front(), "Preempted by default/high on node a");
  ASSERT_TRUE(ev["FailedScheduling"].count("high"));
  EXPECT_EQ(ev["FailedScheduling"]["high"].front().rfind("0/1 nodes are available: ", 0), 0u);
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

// KubeDSM decides placements in batches outside any framework cycle: its binds are observed where
// they are sent (the plan executor's bind steps), so each one is a scheduled attempt, confirmed by
// the watch (e2e, Scheduled Event), and each batch is one algorithm-latency observation.
TEST(ServePolicyObservability, KubeDsmBindsAreScheduledAttemptsWithEvents) {
  orrery::testing::ScratchDir dir("k8s_serve_kubedsm_obs");
  FakeApiServer server;
  const std::string kc = dir.path("kubeconfig.yaml");
  std::ofstream(kc) << kubeconfig(server.url());
  nlohmann::json edge = make_node("edge-1", "4", "16Gi");
  edge["metadata"]["labels"]["orrery.io/tier"] = "edge";
  nlohmann::json cloud = make_node("cloud-1", "16", "64Gi");
  cloud["metadata"]["labels"]["orrery.io/tier"] = "cloud";
  server.add("nodes", edge);
  server.add("nodes", cloud);
  for (int i = 0; i < 4; ++i)
    server.add("pods", make_pod("default", "svc-" + std::to_string(i), "1", "1Gi"));
  const int port = testing::free_port();
  Process serve({ORRERY_BIN, "serve", "--kubeconfig", kc, "--policy", "kubedsm", "--metrics-listen",
                 "127.0.0.1:" + std::to_string(port), "--backoff-initial-ms", "50"},
                dir.path("serve.log"));
  ASSERT_TRUE(
      wait_for([&] { return events(server)["Scheduled"].size() == 4; }, testing::kPatientMs))
      << serve.output();
  std::string body;
  const testing::Exposition e = scrape_until(
      port,
      [](const testing::Exposition& x) {
        return sample(x, "orrery_pod_scheduling_duration_seconds_count{}") == 4;
      },
      &body);
  EXPECT_TRUE(e.errors.empty()) << e.errors.front();
  for (const auto& [family, type] : kFamilies) EXPECT_EQ(e.types.count(family), 1u) << family;
  const auto binds = successful_binds(server);
  EXPECT_EQ(binds.size(), 4u);
  EXPECT_EQ(sample(e, "orrery_schedule_attempts_total{result=\"scheduled\",profile=\"orrery\"}"),
            static_cast<double>(binds.size()))
      << body;
  EXPECT_EQ(sample(e, "orrery_pod_scheduling_duration_seconds_count{}"), 4) << body;
  EXPECT_GE(sample(e, "orrery_scheduling_algorithm_duration_seconds_count{}"), 1) << body;
  EXPECT_TRUE(events(server)["FailedScheduling"].empty());
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

}  // namespace
}  // namespace orrery::k8s
