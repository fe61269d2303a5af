// `orrery serve --extender` by real HTTP requests: the four verbs with upstream-shaped payloads
// (Go field names and lower-case keys, null lists), both nodeCacheCapable modes, 1,000
// concurrent filter requests, malformed JSON → 400.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/process.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

using nlohmann::json;
using testing::make_node;
using testing::make_pod;

// Lower-cases every key of the extender structs (not inside Pod/Node objects).
json lower_keys(const json& j) {
  json out = json::object();
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string k = it.key();
    for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out[k] = it.value();
  }
  return out;
}

class ExtenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    json items = json::array();
    for (const auto& [name, cpu] : std::vector<std::pair<std::string, std::string>>{
             {"small", "1"}, {"big", "8"}, {"mid", "4"}}) {
      nodes.push_back(make_node(name, cpu, "8Gi"));
      items.push_back(make_node(name, cpu, "8Gi"));
    }
    json tainted = make_node("tainted", "8", "8Gi");
    tainted["spec"]["taints"] = {{{"key", "dedicated"}, {"value", "x"}, {"effect", "NoSchedule"}}};
    nodes.push_back(tainted);
    items.push_back(tainted);
    json running = make_pod("default", "hog", "3", "1Gi");
    running["spec"]["nodeName"] = "mid";
    running["metadata"]["uid"] = "uid-hog";
    running["status"]["phase"] = "Running";
    items.push_back(running);
    snap = dir.write("snap.json", json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
    port = testing::free_port();
    proc = std::make_unique<testing::Process>(
        std::vector<std::string>{ORRERY_BIN, "serve", "--extender", "--listen",
                                 "127.0.0.1:" + std::to_string(port), "--url-prefix", "/ext",
                                 "--cluster", snap, "--scheduler-name", "orrery"},
        dir.path("ext.log"));
    ASSERT_TRUE(testing::wait_for([&] {
      httplib::Client c("127.0.0.1", port);
      auto r = c.Get("/healthz");
      return r && r->status == 200;
    })) << proc->output();
  }
  void TearDown() override {
    proc->signal(SIGTERM);
    EXPECT_EQ(proc->wait(), 0);
  }
  json post(const std::string& verb, const std::string& body, int want = 200) {
    httplib::Client c("127.0.0.1", port);
    auto r = c.Post("/ext/" + verb, body, "application/json");
    EXPECT_TRUE(r);
    if (!r) return nullptr;
    EXPECT_EQ(r->status, want) << r->body;
    return json::parse(r->body);
  }
  json pod(const std::string& cpu) { return make_pod("default", "web", cpu, "1Gi", "default-scheduler"); }

  orrery::testing::ScratchDir dir{"k8s_extender"};
  std::vector<json> nodes;
  std::string snap;
  int port = 0;
  std::unique_ptr<testing::Process> proc;
};

TEST_F(ExtenderTest, FilterWithNodesInBothKeyCases) {
  json args = {{"Pod", pod("2")}, {"Nodes", {{"items", nodes}}}, {"NodeNames", nullptr}};
  for (const json& a : {args, lower_keys(args)}) {
    json r = post("filter", a.dump());
    std::vector<std::string> kept;
    for (const auto& n : r["Nodes"]["items"]) kept.push_back(n["metadata"]["name"]);
    // Nodes mode has no pods: "mid" has room without the hog.
    EXPECT_EQ(kept, (std::vector<std::string>{"big", "mid"})) << r.dump();
    EXPECT_NE(r["FailedNodes"]["small"].get<std::string>().find("Insufficient cpu"), std::string::npos);
    EXPECT_NE(r["FailedAndUnresolvableNodes"]["tainted"].get<std::string>().find("untolerated taint"),
              std::string::npos);
    EXPECT_EQ(r["Error"], "");
    EXPECT_TRUE(r.contains("NodeNames"));
  }
}

TEST_F(ExtenderTest, FilterAndPrioritizeWithNodeNamesUseTheClusterViewWithItsPods) {
  json args = {{"Pod", pod("2")}, {"NodeNames", {"small", "big", "mid", "tainted", "ghost"}}};
  json r = post("filter", lower_keys(args).dump());
  EXPECT_EQ(r["NodeNames"], json({"big"})) << r.dump();  // the hog uses 3 of mid's 4 cpus
  EXPECT_TRUE(r["FailedNodes"].contains("mid"));
  EXPECT_TRUE(r["FailedAndUnresolvableNodes"].contains("ghost"));
  json p = post("prioritize", json{{"Pod", pod("1")}, {"NodeNames", {"small", "big", "mid"}}}.dump());
  ASSERT_TRUE(p.is_array());
  ASSERT_EQ(p.size(), 3u);
  int64_t top = 0;
  for (const auto& h : p) {
    ASSERT_TRUE(h.contains("Host") && h.contains("Score"));
    EXPECT_GE(h["Score"].get<int64_t>(), 0);
    EXPECT_LE(h["Score"].get<int64_t>(), 10);
    top = std::max(top, h["Score"].get<int64_t>());
  }
  EXPECT_EQ(top, 10);
  EXPECT_EQ(p[1]["Host"], "big");
  EXPECT_EQ(p[1]["Score"], 10) << p.dump() << ": the emptiest node scores best";
}

TEST_F(ExtenderTest, PreemptKeepsNodesWhereTheVictimsMakeRoom) {
  json args = {{"Pod", pod("3")},
               {"NodeNameToVictims", nullptr},
               {"NodeNameToMetaVictims",
                {{"mid", {{"Pods", {{{"UID", "uid-hog"}}}}, {"NumPDBViolations", 0}}},
                 {"small", {{"Pods", json::array()}, {"NumPDBViolations", 0}}}}}};
  for (const json& a : {args, lower_keys(args)}) {
    json r = post("preempt", a.dump());
    EXPECT_TRUE(r["NodeNameToMetaVictims"].contains("mid")) << r.dump();
    EXPECT_FALSE(r["NodeNameToMetaVictims"].contains("small")) << "1 cpu is too small anyway";
    EXPECT_EQ(r["NodeNameToMetaVictims"]["mid"]["Pods"][0]["UID"], "uid-hog");
  }
}

TEST_F(ExtenderTest, BindWithoutAnApiServerIsAnErrorResultAndMalformedJsonIs400) {
  json r = post("bind", json{{"PodName", "web"}, {"PodNamespace", "default"}, {"PodUID", "u"}, {"Node", "big"}}.dump());
  EXPECT_NE(r["Error"].get<std::string>().find("--kubeconfig"), std::string::npos);
  json bad = post("filter", "{\"Pod\": ", 400);
  EXPECT_NE(bad["Error"].get<std::string>().find("malformed JSON"), std::string::npos);
  post("bind", "[1,2]", 400);
  post("prioritize", json{{"Pod", 5}}.dump(), 400);
}

// The fuzzer's find (fuzz/corpus/extender/regress-invalid-utf8-in-error-reply): a request whose
// label value is not UTF-8 is refused, and the error that quotes it is written with U+FFFD instead
// of aborting the extender (nlohmann's serializer threw out of the handler).
TEST_F(ExtenderTest, AnErrorQuotingInvalidUtf8IsA400NotACrash) {
  std::ifstream in(std::string(ORRERY_SOURCE_DIR) +
                       "/fuzz/corpus/extender/regress-invalid-utf8-in-error-reply",
                   std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(raw.size(), 1u);
  json r = post("filter", raw.substr(1), 400);  // the first byte picks the verb in the fuzzer
  EXPECT_TRUE(r.contains("Error")) << r.dump();
  // Still serving.
  json ok = post("filter", json{{"Pod", pod("2")}, {"NodeNames", {"small", "big", "mid"}}}.dump());
  EXPECT_EQ(ok["NodeNames"], json({"big"}));
}

TEST_F(ExtenderTest, AThousandConcurrentFilterRequestsAreAllAnsweredCorrectly) {
  const std::string body = json{{"Pod", pod("2")}, {"NodeNames", {"small", "big", "mid"}}}.dump();
  std::atomic<int> good{0}, ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 1000; ++i) {
    threads.emplace_back([&] {
      ++ready;
      while (!go) std::this_thread::yield();
      httplib::Client c("127.0.0.1", port);
      c.set_connection_timeout(10);
      c.set_read_timeout(30);
      auto r = c.Post("/ext/filter", body, "application/json");
      if (r && r->status == 200 && json::parse(r->body)["NodeNames"] == json({"big"})) ++good;
    });
  }
  while (ready < 1000) std::this_thread::yield();
  go = true;
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 1000);
}

TEST(ExtenderBind, BindsThroughTheApiServer) {
  testing::FakeApiServer server;
  server.add("nodes", make_node("n1"));
  server.add("pods", make_pod("default", "web", "1", "1Gi", "default-scheduler"));
  orrery::testing::ScratchDir dir("k8s_extender_bind");
  const std::string kc = dir.write(
      "kc.yaml", "apiVersion: v1\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\n"
                 "clusters:\n- name: k\n  cluster:\n    server: " + server.url() + "\n");
  const int port = testing::free_port();
  testing::Process p({ORRERY_BIN, "serve", "--extender", "--listen", "127.0.0.1:" + std::to_string(port),
                      "--kubeconfig", kc},
                     dir.path("log"));
  httplib::Client c("127.0.0.1", port);
  ASSERT_TRUE(testing::wait_for([&] { auto r = c.Get("/healthz"); return r && r->status == 200; }))
      << p.output();
  auto r = c.Post("/bind", R"({"podName":"web","podNamespace":"default","podUID":"","node":"n1"})",
                  "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["Error"], "");
  EXPECT_EQ(server.get("pods", "default/web")->at("spec").value("nodeName", ""), "n1");
  r = c.Post("/bind", R"({"PodName":"web","PodNamespace":"default","Node":"n1"})", "application/json");
  EXPECT_NE(json::parse(r->body)["Error"].get<std::string>().find("409"), std::string::npos);
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(), 0);
}

}  // namespace
}  // namespace orrery::k8s
