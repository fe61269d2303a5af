// `orrery serve` against the fake API server in chaos mode (issue 17): dropped watches, 410 Gone
// (HTTP and in-stream, after compactions), 409 on bind, binds whose reply is lost, 429 on
// eviction, 500s and slow responses, injected at random from a seed while pods keep arriving and
// bound pods keep finishing. At the end (faults off, the scheduler catches up):
//   - every pod is bound exactly once (successful binding POSTs per pod in the fake's record);
//   - no pod is lost (every pod created is bound, or was deleted by the test after it was bound);
//   - /metrics agrees with the fake: binds answered ok == successful binds minus lost replies,
//     conflicts == the 409s sent, scheduled attempts == bind calls made.
//
// Short by default (CI); a long run:  ORRERY_CHAOS_SECONDS=600 ORRERY_CHAOS_SEED=N
//   build/release/tests/k8s/k8s_chaos_test   (docs/RELIABILITY.md, "Faults")
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <set>

#include "core/rng.h"
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

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string kubeconfig(const std::string& url) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  "
         "cluster:\n"
         "    server: " +
         url +
         "\ncontexts:\n- name: fake\n  context: {cluster: fake, user: u}\n"
         "users:\n- name: u\n  user:\n    token: t0ken\n";
}

double sum_samples(const testing::Exposition& e, const std::string& prefix) {
  double s = 0;
  for (const auto& [k, v] : e.samples)
    if (k.rfind(prefix, 0) == 0) s += v;
  return s;
}

double sample(const testing::Exposition& e, const std::string& key) {
  auto it = e.samples.find(key);
  return it == e.samples.end() ? 0 : it->second;
}

TEST(Chaos, ServeUnderRandomApiFaultsBindsEveryPodExactlyOnceAndItsMetricsAgree) {
  const uint64_t seconds = env_or("ORRERY_CHAOS_SECONDS", 15);
  const uint64_t seed = env_or("ORRERY_CHAOS_SEED", 20261124);
  std::cerr << "chaos: seed=" << seed << " seconds=" << seconds << "\n";

  orrery::testing::ScratchDir dir("k8s_chaos");
  testing::FakeApiServerOptions fo;
  fo.token = "t0ken";
  fo.bookmark_interval_ms = 300;
  fo.max_watch_seconds = 20;
  FakeApiServer server(fo);
  const std::string kc = dir.path("kubeconfig.yaml");
  std::ofstream(kc) << kubeconfig(server.url());
  std::ofstream(dir.path("sched.yaml"))
      << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles:\n- schedulerName: orrery\n";

  Rng rng = Rng::derive(seed, "chaos-test-workload");
  for (int i = 0; i < 20; ++i) server.add("nodes", make_node("n" + std::to_string(i), "8", "32Gi"));
  std::vector<std::string> created;
  auto add_pod = [&] {
    char name[16];
    std::snprintf(name, sizeof name, "c%06zu", created.size());
    server.add("pods", make_pod("default", name, std::to_string(100 + 100 * rng.below(5)) + "m",
                                std::to_string(128 * (1 + rng.below(4))) + "Mi"));
    created.push_back(std::string("default/") + name);
  };
  for (int i = 0; i < 100; ++i) add_pod();

  testing::ChaosOptions chaos;
  chaos.seed = seed;
  server.start_chaos(chaos);
  const int port = testing::free_port();
  Process serve({ORRERY_BIN, "serve", "--kubeconfig", kc, "--config", dir.path("sched.yaml"),
                 "--metrics-listen", "127.0.0.1:" + std::to_string(port), "--seed",
                 std::to_string(seed), "--backoff-initial-ms", "50", "--backoff-max-ms", "1000"},
                dir.path("serve.log"));

  // The workload: ~25 pods/s arrive; bound pods finish (are deleted) to keep ~150 running.
  std::set<std::string> finished;
  std::deque<std::string> running;
  std::set<std::string> seen_bound;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    add_pod();
    for (const auto& p : server.list("pods")) {
      const std::string key = "default/" + p["metadata"].value("name", "");
      if (!p["spec"].value("nodeName", "").empty() && seen_bound.insert(key).second)
        running.push_back(key);
    }
    while (running.size() > 150) {
      server.remove("pods", running.front());
      finished.insert(running.front());
      running.pop_front();
    }
  }
  server.stop_chaos();
  const testing::ChaosCounts injected = server.chaos_counts();
  std::cerr << "chaos: injected " << injected.describe() << "\n";

  // Faults off: every pod still there gets bound.
  auto pending = [&] {
    int n = 0;
    for (const auto& p : server.list("pods")) n += p["spec"].value("nodeName", "").empty();
    return n;
  };
  ASSERT_TRUE(wait_for([&] { return pending() == 0; }, 60000))
      << pending() << " pods still pending after the faults stopped\n"
      << serve.output().substr(0, 20000);

  // No pod lost: each pod created is bound now or was deleted by us after it was bound.
  std::map<std::string, int> ok_binds;
  int successes = 0, lost_replies = 0, conflicts = 0;
  for (const auto& b : server.binds()) {
    if (b.status == 201) {
      ++ok_binds[b.pod];
      ++successes;
      lost_replies += b.reply_lost;
    }
    conflicts += b.status == 409;
  }
  for (const std::string& key : created) {
    EXPECT_EQ(ok_binds[key], 1) << key << " was bound " << ok_binds[key] << " times";
    if (!finished.count(key)) {
      auto p = server.get("pods", key);
      ASSERT_TRUE(p) << key << " vanished";
      EXPECT_FALSE(p->at("spec").value("nodeName", "").empty()) << key;
    }
  }

  // /metrics against the fake's record, once every bind call has been answered.
  httplib::Client http("127.0.0.1", port);
  testing::Exposition e;
  auto settled = [&] {
    auto r = http.Get("/metrics");
    if (!r || r->status != 200) return false;
    e = testing::parse_exposition(r->body);
    return sum_samples(e, "orrery_plan_steps_total{action=\"bind\"") ==
           sum_samples(e, "orrery_schedule_attempts_total{result=\"scheduled\"");
  };
  ASSERT_TRUE(wait_for(settled, 20000)) << "bind calls != scheduled attempts";
  EXPECT_TRUE(e.errors.empty()) << e.errors.front();
  EXPECT_EQ(sample(e, "orrery_plan_steps_total{action=\"bind\",outcome=\"ok\"}"),
            successes - lost_replies);
  EXPECT_EQ(sample(e, "orrery_plan_steps_total{action=\"bind\",outcome=\"conflict\"}"), conflicts);
  EXPECT_GE(sample(e, "orrery_plan_steps_total{action=\"bind\",outcome=\"error\"}"), lost_replies);
  EXPECT_EQ(sample(e, "orrery_pending_pods{queue=\"active\"}"), 0);
  if (injected.drops + injected.expiries + injected.compactions > 0) {
    EXPECT_GT(sum_samples(e, "orrery_watch_restarts_total"), 0);
  }
  std::cerr << "chaos: pods=" << created.size() << " binds_ok=" << successes
            << " lost_replies=" << lost_replies << " conflicts=" << conflicts
            << " watch_restarts=" << sum_samples(e, "orrery_watch_restarts_total") << "\n";

  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(15000), 0) << serve.output().substr(0, 20000);
}

}  // namespace
}  // namespace orrery::k8s
