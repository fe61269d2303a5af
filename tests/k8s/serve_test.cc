// `orrery serve` as a user runs it, against the fake API server: 200 pods on 50 nodes bound as
// `orrery schedule` places them on a snapshot of the same cluster, /metrics parsed strictly,
// bind 409s, restart mid-way, an unreachable server, and bad kubeconfigs (leader election:
// serve_leader_test.cc).
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
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

const char* kConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: orrery
  deterministic: true
)";

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string kubeconfig(const std::string& url, const std::string& token) {
  return testing::token_kubeconfig(url, token);
}

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeApiServerOptions o;
    o.token = "s3cret";
    o.bookmark_interval_ms = 200;
    server = std::make_unique<FakeApiServer>(o);
    kc = dir.path("kubeconfig.yaml");
    cfg = dir.path("sched.yaml");
    write(kc, kubeconfig(server->url(), "s3cret"));
    write(cfg, kConfig);
  }
  void add_cluster(int nodes, int pods, uint64_t seed) {
    Rng rng(seed);
    for (int i = 0; i < nodes; ++i) {
      char name[16];
      std::snprintf(name, sizeof name, "n%03d", i);
      server->add("nodes", make_node(name, std::to_string(4 + rng.next() % 5),
                                     std::to_string(8 + rng.next() % 9) + "Gi"));
    }
    for (int i = 0; i < pods; ++i) add_pod(i, rng);
  }
  void add_pod(int i, Rng& rng) {
    char name[16];
    std::snprintf(name, sizeof name, "p%03d", i);
    server->add("pods",
                make_pod("default", name, std::to_string(100 + 100 * (rng.next() % 12)) + "m",
                         std::to_string(128 * (1 + rng.next() % 12)) + "Mi"));
  }
  std::vector<std::string> serve_args(const std::vector<std::string>& extra) {
    std::vector<std::string> a = {ORRERY_BIN,         "serve", "--kubeconfig",         kc,
                                  "--config",         cfg,     "--backoff-initial-ms", "50",
                                  "--backoff-max-ms", "500"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  int bound_pods() {
    int n = 0;
    for (const auto& p : server->list("pods"))
      if (!p["spec"].value("nodeName", "").empty()) ++n;
    return n;
  }
  // Every pod bound at most once (a successful bind per pod), and the count of bound pods.
  void expect_no_double_binds() {
    std::map<std::string, int> ok;
    for (const auto& b : server->binds())
      if (b.status == 201) ++ok[b.pod];
    for (const auto& [pod, n] : ok) EXPECT_EQ(n, 1) << pod << " bound " << n << " times";
  }

  orrery::testing::ScratchDir dir{"k8s_serve"};
  std::unique_ptr<FakeApiServer> server;
  std::string kc, cfg;
};

TEST_F(ServeTest, Binds200PodsOn50NodesAsOrreryScheduleDoesAndServesMetrics) {
  add_cluster(50, 200, 7);
  // The same cluster offline: snapshot, then orrery schedule.
  const std::string snap = dir.path("snap.yaml"), out = dir.path("placements.json");
  ASSERT_EQ(std::system((std::string(ORRERY_BIN) + " snapshot --kubeconfig " + kc + " --out " +
                         snap + " 2>/dev/null")
                            .c_str()),
            0);
  ASSERT_EQ(std::system((std::string(ORRERY_BIN) + " schedule --cluster " + snap + " --config " +
                         cfg + " --out " + out + " >/dev/null 2>&1")
                            .c_str()),
            0);
  nlohmann::json placements;
  std::ifstream(out) >> placements;
  ASSERT_EQ(placements["placements"].size(), 200u);

  const int port = testing::free_port();
  Process serve(serve_args({"--metrics-listen", "127.0.0.1:" + std::to_string(port)}),
                dir.path("serve.log"));
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 200; }, testing::kPatientMs)) << serve.output();
  for (const auto& p : placements["placements"]) {
    const std::string key = p["pod"].get<std::string>();
    ASSERT_FALSE(p["node"].is_null()) << key;
    EXPECT_EQ(server->get("pods", key)->at("spec").value("nodeName", ""),
              p["node"].get<std::string>())
        << key;
  }
  expect_no_double_binds();
  // Scheduled events were recorded.
  ASSERT_TRUE(wait_for([&] { return server->list("events").size() >= 200; }, testing::kPatientMs));
  EXPECT_EQ(server->list("events")[0].value("reason", ""), "Scheduled");

  httplib::Client http("127.0.0.1", port);
  auto health = http.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(http.Get("/readyz")->status, 200);
  auto metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const testing::Exposition e = testing::parse_exposition(metrics->body);
  EXPECT_TRUE(e.errors.empty()) << e.errors.front();
  EXPECT_EQ(e.types.at("orrery_pod_scheduling_duration_seconds"), "histogram");
  EXPECT_EQ(e.types.at("orrery_scheduling_algorithm_duration_seconds"), "histogram");
  EXPECT_EQ(e.samples.at("orrery_schedule_attempts_total{result=\"scheduled\",profile=\"orrery\"}"),
            200);
  EXPECT_EQ(e.samples.at("orrery_plan_steps_total{action=\"bind\",outcome=\"ok\"}"), 200);
  EXPECT_EQ(e.samples.at("orrery_pending_pods{queue=\"active\"}"), 0);
  EXPECT_EQ(e.samples.at("orrery_pod_scheduling_duration_seconds_count{}"), 200);
  EXPECT_TRUE(e.types.count("orrery_watch_restarts_total"));

  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(testing::kPatientMs), 0) << serve.output();
  EXPECT_NE(serve.output().find("level=info msg=stopping"), std::string::npos);
  EXPECT_EQ(serve.output().find("s3cret"), std::string::npos) << "the token never reaches a log";
}

TEST_F(ServeTest, ABind409NeitherLosesNorDoubleBindsThePod) {
  add_cluster(3, 10, 1);
  std::atomic<int> refusals{0};
  server->set_bind_refusal([&](const std::string& pod, const std::string&) {
    return pod == "default/p003" && refusals++ == 0 ? 409 : 0;
  });
  Process serve(serve_args({"--metrics-listen", "127.0.0.1:0"}), dir.path("serve.log"));
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 10; }, testing::kPatientMs)) << serve.output();
  EXPECT_EQ(refusals.load(), 2) << "refused once, then bound after backoff";
  expect_no_double_binds();
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0);
}

TEST_F(ServeTest, ARestartMidwayLosesNoPod) {
  add_cluster(20, 150, 5);
  {
    Process first(serve_args({"--metrics-listen", "127.0.0.1:0"}), dir.path("1.log"));
    ASSERT_TRUE(wait_for([&] { return bound_pods() >= 30; }, testing::kPatientMs))
        << first.output();
    first.signal(SIGKILL);
    first.wait();
  }
  Process second(serve_args({"--metrics-listen", "127.0.0.1:0"}), dir.path("2.log"));
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 150; }, testing::kPatientMs))
      << second.output();
  expect_no_double_binds();
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait(), 0);
}

TEST_F(ServeTest, AnUnreachableServerIsRetriedWithBackoffNotABusyLoop) {
  write(kc, kubeconfig("http://127.0.0.1:" + std::to_string(testing::free_port()), "t"));
  Process serve({ORRERY_BIN, "serve", "--kubeconfig", kc, "--metrics-listen", "127.0.0.1:0",
                 "--backoff-initial-ms", "100", "--backoff-max-ms", "400"},
                dir.path("serve.log"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0);
  const std::string log = serve.output();
  size_t retries = 0;
  for (size_t p = 0; (p = log.find("cannot list; retrying after backoff", p)) != std::string::npos;
       ++p)
    ++retries;
  EXPECT_GE(retries, 3u) << log;      // each informer retried
  EXPECT_LE(retries, 3u * 8) << log;  // 100, 200, 400, 400 ms... not a busy loop
  EXPECT_NE(log.find("server=http://127.0.0.1:"), std::string::npos) << log;
}

// Plain `orrery serve` runs the catalog's kube-default policy, so a profile may name any in-tree
// plugin: here KubCG, configured by its pluginConfig (its own SQLite history). KubCG's filter
// places the pods and refuses the one whose image variants are malformed, with its message.
TEST_F(ServeTest, AConfigNamingKubCGRunsItsPluginInPlainServe) {
  const std::string db = dir.path("history.db");
  write(cfg, std::string(kConfig) + R"(  plugins:
    filter: {enabled: [{name: KubCG}]}
    mutate: {enabled: [{name: KubCG}]}
  pluginConfig:
  - name: KubCG
    args: {db: "sqlite:)" +
                 db + R"("}
)");
  add_cluster(3, 6, 3);
  nlohmann::json bad = make_pod("default", "bad", "100m", "128Mi");
  bad["metadata"]["annotations"]["orrery.io/images"] = "tpu=x";
  server->add("pods", bad);
  Process serve(serve_args({"--metrics-listen", "127.0.0.1:0"}), dir.path("serve.log"));
  ASSERT_TRUE(wait_for([&] { return bound_pods() == 6; }, testing::kPatientMs)) << serve.output();
  auto failed = [&] {
    for (const auto& e : server->list("events"))
      if (e.value("reason", "") == "FailedScheduling" &&
          e["involvedObject"].value("name", "") == "bad")
        return e.value("message", "");
    return std::string();
  };
  ASSERT_TRUE(wait_for([&] { return !failed().empty(); }, testing::kPatientMs)) << serve.output();
  EXPECT_NE(failed().find("annotation orrery.io/images: entry \"tpu=x\": kind must be cpu or gpu"),
            std::string::npos)
      << failed();
  EXPECT_TRUE(std::filesystem::exists(db)) << "KubCG opened the history its pluginConfig names";
  expect_no_double_binds();
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(testing::kPatientMs), 0) << serve.output();
}

// A plugin that needs its policy's services is refused at start, naming the policy to run.
TEST_F(ServeTest, APluginThatNeedsItsPolicyIsRefusedBeforeConnecting) {
  write(cfg, std::string(kConfig) + "  plugins: {filter: {enabled: [{name: CaricoCapacity}]}}\n");
  Process serve(serve_args({"--metrics-listen", "127.0.0.1:0"}), dir.path("serve.log"));
  EXPECT_EQ(serve.wait(testing::kPatientMs), 1) << serve.output();
  EXPECT_NE(serve.output().find("plugin CaricoCapacity runs only in the carico policy"),
            std::string::npos)
      << serve.output();
  EXPECT_EQ(server->list_requests(), 0) << "refused before any request";
}

TEST_F(ServeTest, AMalformedKubeconfigNamesTheFileAndFieldAndExits1) {
  const std::string bad = dir.path("bad.yaml");
  write(bad,
        "apiVersion: v1\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\n"
        "clusters:\n- name: k\n  cluster:\n    server: ftp://x\n");
  Process p({ORRERY_BIN, "serve", "--kubeconfig", bad}, dir.path("out.log"));
  EXPECT_EQ(p.wait(), 1);
  EXPECT_NE(
      p.output().find(bad + ":9: clusters[0].cluster.server: expected an http:// or https:// URL"),
      std::string::npos)
      << p.output();
}

}  // namespace
}  // namespace orrery::k8s
