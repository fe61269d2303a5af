// Planners in `orrery serve` (issue 16): `--policy kube-optpack` against the fake API server. The
// packer's plan runs as API calls — eviction, re-creation, binds — each verified by its watch
// event, as in the simulator; and a serve killed in the middle of a plan (after the journal
// write, after the eviction, before the re-creation or the binds) is restarted and ends with every
// pod bound exactly once: the plan journal (src/k8s/plan_journal.h) carries a bare pod's
// replacement across the crash.
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

class ServePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeApiServerOptions o;
    o.bookmark_interval_ms = 200;
    server = std::make_unique<FakeApiServer>(o);
    kc = dir.path("kubeconfig.yaml");
    cfg = dir.path("sched.yaml");
    std::ofstream(kc) << testing::token_kubeconfig(server->url());
    std::ofstream(cfg) << testing::kPackerConfig;
    // Two 4-CPU nodes, each half full with a 2-CPU pod; a pending 4-CPU pod of the same priority
    // fits only if one of them moves (no preemption: no pod has a lower priority).
    server->add("nodes", make_node("a", "4", "16Gi"));
    server->add("nodes", make_node("b", "4", "16Gi"));
  }
  nlohmann::json running(const std::string& name, const std::string& node, bool owned) {
    nlohmann::json p = make_pod("default", name, "2", "1Gi");
    p["spec"]["nodeName"] = node;
    p["status"]["phase"] = "Running";
    if (owned)
      p["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                           {"kind", "ReplicaSet"},
                                           {"name", "web"},
                                           {"uid", "rs-web"},
                                           {"controller", true}}};
    return p;
  }
  std::vector<std::string> serve_args() {
    return {ORRERY_BIN,
            "serve",
            "--kubeconfig",
            kc,
            "--config",
            cfg,
            "--policy",
            "kube-optpack",
            "--metrics-listen",
            "127.0.0.1:" + std::to_string(port),
            "--backoff-initial-ms",
            "50",
            "--backoff-max-ms",
            "500"};
  }
  // Every pod bound, no node over its 4 CPUs, no pod bound twice; returns the pods' nodes.
  std::map<std::string, std::string> expect_all_bound_once(size_t pods) {
    std::map<std::string, std::string> where;
    std::map<std::string, int> cpus;
    for (const auto& p : server->list("pods")) {
      const std::string node = p["spec"].value("nodeName", "");
      where[p["metadata"].value("name", "")] = node;
      EXPECT_FALSE(node.empty()) << p.dump();
      cpus[node] += p["metadata"].value("name", "") == "big" ? 4 : 2;
    }
    EXPECT_EQ(where.size(), pods);
    for (const auto& [node, c] : cpus) EXPECT_LE(c, 4) << node;
    std::map<std::string, int> ok;
    for (const auto& b : server->binds()) ok[b.pod] += b.status == 201;
    for (const auto& [pod, n] : ok) EXPECT_LE(n, 1) << pod << " bound " << n << " times";
    return where;
  }
  // serve has synced its informers (and installed its signal handling long before).
  bool ready() {
    return wait_for(
        [&] {
          httplib::Client http("127.0.0.1", port);
          auto r = http.Get("/readyz");
          return r && r->status == 200;
        },
        10000);
  }
  // The plan journal's entries (ConfigMap data), as the fake holds them.
  nlohmann::json journal() {
    auto cm = server->get("configmaps", "kube-system/orrery-scheduler-journal");
    return cm ? cm->value("data", nlohmann::json::object()) : nlohmann::json::object();
  }
  std::map<std::string, std::string> uids() {
    std::map<std::string, std::string> out;
    for (const auto& p : server->list("pods"))
      out[p["metadata"].value("name", "")] = p["metadata"].value("uid", "");
    return out;
  }
  bool all_bound(size_t pods) {
    const auto list = server->list("pods");
    if (list.size() != pods) return false;
    for (const auto& p : list)
      if (p["spec"].value("nodeName", "").empty()) return false;
    return true;
  }

  orrery::testing::ScratchDir dir{"k8s_serve_plan"};
  std::unique_ptr<FakeApiServer> server;
  std::string kc, cfg;
  int port = testing::free_port();
};

TEST_F(ServePlanTest, ThePackerMovesAPodThroughTheApiToAdmitAPendingOne) {
  server->add("pods", running("small-1", "a", false));
  server->add("pods", running("small-2", "b", false));
  server->add("pods", make_pod("default", "big", "4", "1Gi"));
  Process serve(serve_args(), dir.path("serve.log"));
  ASSERT_TRUE(wait_for([&] { return all_bound(3); }, testing::kPatientMs)) << serve.output();
  const auto where = expect_all_bound_once(3);
  EXPECT_EQ(where.at("small-1"), where.at("small-2")) << "one small pod moved beside the other";
  EXPECT_NE(where.at("big"), where.at("small-1"));
  // The plan's API calls, as the fake saw them and as serve counted them.
  EXPECT_EQ(server->requests_with_prefix("POST /api/v1/namespaces/default/pods/small-"), 2)
      << "one eviction and one binding of the moved pod";
  // Each outcome is counted when the call's reply arrives, which may follow the watch event.
  httplib::Client http("127.0.0.1", port);
  testing::Exposition e;
  std::string body;
  auto steps = [&](const std::string& action) {
    auto it = e.samples.find("orrery_plan_steps_total{action=\"" + action + "\",outcome=\"ok\"}");
    return it == e.samples.end() ? 0.0 : it->second;
  };
  wait_for(
      [&] {
        auto m = http.Get("/metrics");
        if (!m) return false;
        body = m->body;
        e = testing::parse_exposition(body);
        return steps("bind") >= 2 && steps("evict") >= 1 && steps("create") >= 1;
      },
      5000);
  EXPECT_TRUE(e.errors.empty());
  EXPECT_EQ(steps("evict"), 1) << body;
  EXPECT_EQ(steps("create"), 1) << body;
  EXPECT_EQ(steps("bind"), 2) << body;
  // The plan's binds are observed where they are sent: each is a scheduled attempt, and each
  // confirmed one a Scheduled Event (src/k8s/README.md, "What is observed in policy mode").
  EXPECT_EQ(e.samples["orrery_schedule_attempts_total{result=\"scheduled\",profile=\"orrery\"}"], 2)
      << body;
  EXPECT_TRUE(wait_for(
      [&] {
        int scheduled = 0;
        for (const auto& ev : server->list("events"))
          scheduled += ev.value("reason", "") == "Scheduled";
        return scheduled == 2;
      },
      5000));
  // The plan's eviction is the packer's preemption: a Preempted Event with the plan's reason.
  std::vector<std::string> preempted;
  for (const auto& ev : server->list("events"))
    if (ev.value("reason", "") == "Preempted")
      preempted.push_back(ev["involvedObject"].value("name", "") + ": " + ev.value("message", ""));
  ASSERT_EQ(preempted.size(), 1u);
  EXPECT_NE(preempted[0].find("Preempted by orrery: optpack: moved to "), std::string::npos)
      << preempted[0];
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

// Killed after the eviction and the re-creation of the bare pod, at its bind (which
// may or may not reach the server): the restarted serve finds the pods still pending and binds
// them — nothing lost, nothing twice.
TEST_F(ServePlanTest, ARestartBetweenRecreationAndBindLosesNoPod) {
  server->add("pods", running("small-1", "a", false));
  server->add("pods", running("small-2", "b", false));
  server->add("pods", make_pod("default", "big", "4", "1Gi"));
  std::map<std::string, std::string> uids;
  for (const auto& p : server->list("pods"))
    uids["default/" + p["metadata"].value("name", "")] = p["metadata"].value("uid", "");
  std::atomic<bool> killed{false};
  std::unique_ptr<Process> first = std::make_unique<Process>(serve_args(), dir.path("1.log"));
  Process* victim = first.get();
  server->set_request_hook([&](const std::string& method, const std::string& path) {
    // The moved pod's bind waits for its re-creation (big's bind only for the eviction).
    if (method == "POST" && path.find("/pods/small-") != std::string::npos &&
        path.find("/binding") != std::string::npos && !killed.exchange(true))
      victim->signal(SIGKILL);
  });
  ASSERT_TRUE(wait_for([&] { return killed.load(); }, testing::kPatientMs)) << first->output();
  first->wait();
  EXPECT_EQ(
      server->requests_with_prefix("POST /api/v1/namespaces/default/pods/small-1/eviction") +
          server->requests_with_prefix("POST /api/v1/namespaces/default/pods/small-2/eviction"),
      1);
  int recreated = 0;
  for (const char* name : {"default/small-1", "default/small-2"}) {
    auto p = server->get("pods", name);
    ASSERT_TRUE(p) << name;
    recreated += p->at("metadata").value("uid", "") != uids[name];
  }
  EXPECT_EQ(recreated, 1) << "the evicted pod was re-created before the kill";
  server->set_request_hook(nullptr);
  Process second(serve_args(), dir.path("2.log"));
  ASSERT_TRUE(ready()) << second.output();
  ASSERT_TRUE(wait_for([&] { return all_bound(3); }, testing::kPatientMs)) << second.output();
  expect_all_bound_once(3);
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait(), 0);
}

// Killed at the eviction of a bare pod, which the API server carries out (the test deletes the pod
// as the request arrives: whether the fake's handler still runs once the client is gone depends on
// whether the body was read), so the pod is gone and nobody re-creates it — except the restarted
// serve, from the plan journal written before the eviction: the pod exists again, once, with the
// replacement's spec, and the entry is removed.
TEST_F(ServePlanTest, ARestartBetweenTheEvictionOfABarePodAndItsRecreationLosesNoPod) {
  server->add("pods", running("small-1", "a", false));
  server->add("pods", running("small-2", "b", false));
  server->add("pods", make_pod("default", "big", "4", "1Gi"));
  const auto before = uids();
  std::atomic<bool> claimed{false}, killed{false};
  std::string evicted;  // written before `killed` is set
  auto first = std::make_unique<Process>(serve_args(), dir.path("1.log"));
  Process* victim = first.get();
  server->set_request_hook([&](const std::string& method, const std::string& path) {
    if (method != "POST" || path.find("/eviction") == std::string::npos || claimed.exchange(true))
      return;
    victim->signal(SIGKILL);
    const std::string rest = path.substr(path.find("/pods/") + 6);
    evicted = rest.substr(0, rest.find('/'));
    server->remove("pods", "default/" + evicted);  // the eviction, carried out
    killed = true;
  });
  ASSERT_TRUE(wait_for([&] { return killed.load(); }, testing::kPatientMs)) << first->output();
  first->wait();
  server->set_request_hook(nullptr);
  ASSERT_FALSE(server->get("pods", "default/" + evicted)) << evicted << " was evicted";
  EXPECT_TRUE(journal().contains("default." + evicted)) << journal().dump();
  Process second(serve_args(), dir.path("2.log"));
  ASSERT_TRUE(ready()) << second.output();
  ASSERT_TRUE(wait_for([&] { return all_bound(3) && journal().empty(); }, testing::kPatientMs))
      << second.output() << "\njournal: " << journal().dump();
  expect_all_bound_once(3);
  const std::string log = second.output();
  EXPECT_NE(log.find("decision=create"), std::string::npos) << log;
  EXPECT_NE(log.find("pod=default/" + evicted), std::string::npos) << log;
  auto pod = server->get("pods", "default/" + evicted);
  ASSERT_TRUE(pod);
  EXPECT_NE(pod->at("metadata").value("uid", ""), before.at(evicted)) << "a new pod";
  EXPECT_EQ(pod->at("spec")["containers"][0]["resources"]["requests"]["cpu"], "2");
  EXPECT_EQ(pod->at("spec").value("schedulerName", ""), "orrery");
  EXPECT_FALSE(pod->at("metadata").contains("deletionTimestamp"));
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait(), 0);
}

// Killed after the journal write, at the eviction (which does not happen): the restarted serve
// finds the entry, the pod still there with its uid and not terminating, and cancels (drops the
// entry); the pods are intact and the restarted serve makes its own plan.
TEST_F(ServePlanTest, ARestartAfterTheJournalWriteAndBeforeTheEvictionCancels) {
  server->add("pods", running("small-1", "a", false));
  server->add("pods", running("small-2", "b", false));
  server->add("pods", make_pod("default", "big", "4", "1Gi"));
  const auto before = uids();
  std::atomic<bool> killed{false};
  auto first = std::make_unique<Process>(serve_args(), dir.path("1.log"));
  Process* victim = first.get();
  server->set_request_hook([&](const std::string& method, const std::string& path) {
    if (method == "POST" && path.find("/eviction") != std::string::npos && !killed.exchange(true))
      victim->signal(SIGKILL);
  });
  // If the fake's handler still runs (the body was read before the client died), it refuses.
  server->set_eviction_refusal([&](const std::string&) {
    return killed ? std::string("refused: the test killed serve") : std::string();
  });
  ASSERT_TRUE(wait_for([&] { return killed.load(); }, testing::kPatientMs)) << first->output();
  first->wait();
  server->set_request_hook(nullptr);
  server->set_eviction_refusal(nullptr);
  ASSERT_EQ(journal().size(), 1u) << "written before the eviction: " << journal().dump();
  const std::string key = journal().begin().key();  // default.small-N
  const std::string name = key.substr(key.find('.') + 1);
  EXPECT_EQ(uids(), before) << "every pod as it was";
  Process second(serve_args(), dir.path("2.log"));
  ASSERT_TRUE(ready()) << second.output();
  ASSERT_TRUE(wait_for([&] { return all_bound(3) && journal().empty(); }, testing::kPatientMs))
      << second.output() << "\njournal: " << journal().dump();
  expect_all_bound_once(3);
  const std::string log = second.output();
  const size_t at = log.find("msg=\"plan journal entry\" pod=default/" + name);
  ASSERT_NE(at, std::string::npos) << log;
  EXPECT_EQ(log.substr(at, log.find('\n', at) - at).find("decision=cancel") != std::string::npos,
            true)
      << log.substr(at, log.find('\n', at) - at);
  EXPECT_EQ(
      server->requests_with_prefix("POST /api/v1/namespaces/default/pods/small-1/eviction") +
          server->requests_with_prefix("POST /api/v1/namespaces/default/pods/small-2/eviction"),
      2)
      << "the refused one, and the restarted serve's own move";
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait(), 0);
}

// The journal cannot be written (403 on create/update): the packer's move fails at its first
// step, with the reason in the log, and no pod is evicted.
TEST_F(ServePlanTest, NoEvictionWhenThePlanJournalCannotBeWritten) {
  server->add("pods", running("small-1", "a", false));
  server->add("pods", running("small-2", "b", false));
  server->add("pods", make_pod("default", "big", "4", "1Gi"));
  const auto before = uids();
  server->set_configmap_refusal(
      [](const std::string& method) { return method == "GET" ? 0 : 403; });
  Process serve(serve_args(), dir.path("serve.log"));
  ASSERT_TRUE(wait_for(
      [&] {
        return serve.output().find("not evicted: the plan journal could not be written: 403") !=
               std::string::npos;
      },
      30000))
      << serve.output();
  EXPECT_EQ(server->requests_with_prefix("POST /api/v1/namespaces/default/pods/small-"), 0)
      << serve.output();
  EXPECT_EQ(uids(), before);
  EXPECT_TRUE(server->get("pods", "default/big")->at("spec").value("nodeName", "").empty());
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

// ReplicaSet pods: killed at the eviction itself; the controller (the test, as the fake's
// stand-in) replaces the evicted pod, and the restarted serve binds the replacement and the big
// pod. The plan is cancelled with the process; the pods are intact.
TEST_F(ServePlanTest, ARestartAtTheEvictionOfAControllerPodLosesNoPod) {
  server->add("pods", running("web-1", "a", true));
  server->add("pods", running("web-2", "b", true));
  server->add("pods", make_pod("default", "big", "4", "1Gi"));
  std::atomic<bool> killed{false}, done{false};
  Process first(serve_args(), dir.path("1.log"));
  server->set_request_hook([&](const std::string& method, const std::string& path) {
    if (method == "POST" && path.find("/eviction") != std::string::npos && !killed.exchange(true))
      first.signal(SIGKILL);
  });
  // The ReplicaSet controller: two replicas.
  std::thread controller([&] {
    int serial = 3;
    while (!done) {
      int replicas = 0;
      for (const auto& p : server->list("pods"))
        replicas += p["metadata"].contains("ownerReferences");
      for (; replicas < 2; ++replicas) {
        nlohmann::json p = make_pod("default", "web-" + std::to_string(serial++), "2", "1Gi");
        p["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                             {"kind", "ReplicaSet"},
                                             {"name", "web"},
                                             {"uid", "rs-web"},
                                             {"controller", true}}};
        server->add("pods", p);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  const bool was_killed = wait_for([&] { return killed.load(); }, testing::kPatientMs);
  first.wait();
  server->set_request_hook(nullptr);
  Process second(serve_args(), dir.path("2.log"));
  EXPECT_TRUE(ready()) << second.output();
  const bool bound = wait_for([&] { return all_bound(3); }, testing::kPatientMs);
  done = true;
  controller.join();
  ASSERT_TRUE(was_killed) << first.output();
  ASSERT_TRUE(bound) << second.output();
  const auto where = expect_all_bound_once(3);
  EXPECT_EQ(where.count("web-1") + where.count("web-2"), 1u)
      << "one replica was evicted and replaced";
  second.signal(SIGTERM);
  EXPECT_EQ(second.wait(), 0);
}

// KubeDSM on the live runtime: its batches (immediateSchedule) are plans of binds verified by the
// watch; pods go to the edge node while it has room, the rest to the cloud node.
TEST(ServeKubeDsm, BindsABatchOfPendingPodsThroughItsPlans) {
  orrery::testing::ScratchDir dir("k8s_serve_kubedsm");
  FakeApiServer server;
  const std::string kc = dir.path("kubeconfig.yaml");
  std::ofstream(kc) << testing::token_kubeconfig(server.url());
  nlohmann::json edge = make_node("edge-1", "4", "16Gi");
  edge["metadata"]["labels"]["orrery.io/tier"] = "edge";
  nlohmann::json cloud = make_node("cloud-1", "16", "64Gi");
  cloud["metadata"]["labels"]["orrery.io/tier"] = "cloud";
  server.add("nodes", edge);
  server.add("nodes", cloud);
  for (int i = 0; i < 6; ++i)
    server.add("pods", make_pod("default", "svc-" + std::to_string(i), "1", "1Gi"));
  Process serve({ORRERY_BIN, "serve", "--kubeconfig", kc, "--policy", "kubedsm", "--metrics-listen",
                 "127.0.0.1:0", "--backoff-initial-ms", "50"},
                dir.path("serve.log"));
  auto nodes = [&] {
    std::map<std::string, int> n;
    for (const auto& p : server.list("pods")) ++n[p["spec"].value("nodeName", "")];
    return n;
  };
  ASSERT_TRUE(wait_for([&] { return nodes()[""] == 0; }, testing::kPatientMs)) << serve.output();
  const auto where = nodes();
  EXPECT_EQ(where.at("edge-1"), 4) << "the edge node is filled first";
  EXPECT_EQ(where.at("cloud-1"), 2);
  std::map<std::string, int> ok;
  for (const auto& b : server.binds()) ok[b.pod] += b.status == 201;
  EXPECT_EQ(ok.size(), 6u);
  for (const auto& [pod, n] : ok) EXPECT_EQ(n, 1) << pod;
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

// CARICO in `orrery serve` (issue 15): the CaricoCapacity plugin fed by a real aggregator over
// gRPC. Node "a" has an agent (replaying an idle node: Pod-Capacity ≈ 4); node "b" never reports,
// so CaricoCapacity filters it ("node(s) had no CARICO report"). Three pods without requests are
// all bound to "a", each once.
TEST(ServeCarico, BindsOnlyToNodesWhoseAgentsReportCapacity) {
  orrery::testing::ScratchDir dir("k8s_serve_carico");
  FakeApiServer server;
  server.add("nodes", make_node("a", "4", "16Gi"));
  server.add("nodes", make_node("b", "4", "16Gi"));
  for (int i = 0; i < 3; ++i) {
    nlohmann::json p = make_pod("default", "job-" + std::to_string(i), "0", "0");
    p["spec"]["containers"][0].erase("resources");
    server.add("pods", p);
  }
  const std::string kc = dir.path("kubeconfig.yaml"), cfg = dir.path("sched.yaml"),
                    args = dir.path("args.yaml"), replay = dir.path("idle.csv");
  std::ofstream(kc) << testing::token_kubeconfig(server.url());
  std::ofstream(cfg) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                        "kind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: orrery\n"
                        "  plugins:\n    filter: {enabled: [{name: CaricoCapacity}]}\n"
                        "    reserve: {enabled: [{name: CaricoCapacity}]}\n";
  {
    std::ofstream r(replay);
    r << "t_s,cpu_util,mem_util,cpu_pressure,pods\n";
    for (int i = 0; i < 50; ++i) r << i * 0.1 << ",0.02,0.10,0.00,0\n";
  }
  const std::string alog = dir.path("aggregator.log");
  Process aggregator(
      {ORRERY_BIN, "aggregator", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"},
      alog);
  int port = -1;
  ASSERT_TRUE(wait_for(
      [&] {
        const std::string text = aggregator.output();
        const auto at = text.rfind("aggregator listening");
        const auto p = at == std::string::npos ? at : text.find("port=", at);
        if (p != std::string::npos) port = std::stoi(text.substr(p + 5));
        return port > 0;
      },
      10000))
      << aggregator.output();
  const std::string target = "127.0.0.1:" + std::to_string(port);
  std::ofstream(args) << "carico: {aggregator: \"" << target << "\", poll_interval: 200ms}\n";
  Process agent(
      {ORRERY_BIN, "agent", "--aggregator", target, "--node", "a", "--source", "replay:" + replay},
      dir.path("agent.log"));
  Process serve(
      {ORRERY_BIN, "serve", "--kubeconfig", kc, "--config", cfg, "--policy", "carico",
       "--policy-args", args, "--metrics-listen", "127.0.0.1:0", "--backoff-initial-ms", "50"},
      dir.path("serve.log"));
  auto placed = [&] {
    std::map<std::string, int> n;
    for (const auto& p : server.list("pods")) ++n[p["spec"].value("nodeName", "")];
    return n;
  };
  ASSERT_TRUE(wait_for([&] { return placed()[""] == 0; }, testing::kPatientMs))
      << serve.output() << "\n--- agent\n"
      << agent.output();
  EXPECT_EQ(placed().at("a"), 3);
  std::map<std::string, int> ok;
  for (const auto& b : server.binds()) ok[b.pod] += b.status == 201;
  EXPECT_EQ(ok.size(), 3u);
  for (const auto& [pod, n] : ok) EXPECT_EQ(n, 1) << pod;
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

TEST(ServeCarico, PolicyArgsMustBeAYamlMapNamingTheFile) {
  orrery::testing::ScratchDir dir("k8s_serve_carico_args");
  const std::string bad = dir.path("args.yaml"), kc = dir.path("kubeconfig.yaml"),
                    cfg = dir.path("sched.yaml");
  std::ofstream(bad) << "- not a map\n";
  std::ofstream(kc) << testing::token_kubeconfig("http://127.0.0.1:1");
  std::ofstream(cfg) << "apiVersion: kubescheduler.config.k8s.io/v1\n"
                        "kind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: orrery\n";
  Process p({ORRERY_BIN, "serve", "--kubeconfig", kc, "--config", cfg, "--policy", "carico",
             "--policy-args", bad},
            dir.path("out.log"));
  EXPECT_EQ(p.wait(), 1);
  EXPECT_NE(p.output().find(bad + ":1"), std::string::npos) << p.output();
}

}  // namespace
}  // namespace orrery::k8s
