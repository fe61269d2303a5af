// The plan journal (src/k8s/plan_journal.*): the replay decision as a pure function over (entry,
// observed pod), the ConfigMap's read-modify-write against the fake API server (resourceVersion
// conflicts, AlreadyExists, refusals), and ApiBackend's use of it: journal before the eviction,
// no eviction when the journal cannot be written, the entry removed once the replacement is
// seen, and a replay that waits for a terminating pod's DELETED before creating its replacement.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "k8s/api_backend.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/plan_journal.h"

namespace orrery::k8s {
namespace {

using testing::FakeApiServer;
using testing::make_node;
using testing::make_pod;
using testing::run_until;

JournalEntry entry(const std::string& name, const std::string& old_uid) {
  JsonValue pod = make_pod("default", name, "2", "1Gi");
  pod["metadata"].erase("uid");
  return {"default", name, old_uid, pod};
}

TEST(PlanJournalReplay, DecisionTable) {
  const JournalEntry e = entry("web", "uid-old");
  struct Row {
    const char* what;
    std::optional<ObservedPod> seen;
    ReplayAction want;
  };
  const std::vector<Row> rows = {
      {"no pod of that name: evicted, never re-created", std::nullopt, ReplayAction::kCreate},
      {"the old pod, running: the eviction never happened", ObservedPod{"uid-old", false},
       ReplayAction::kCancel},
      {"the old pod, terminating: evicted, not gone yet", ObservedPod{"uid-old", true},
       ReplayAction::kAwaitDeletion},
      {"another pod of that name: already re-created", ObservedPod{"uid-new", false},
       ReplayAction::kDrop},
      {"another pod of that name, itself terminating", ObservedPod{"uid-new", true},
       ReplayAction::kDrop},
  };
  for (const Row& r : rows) EXPECT_EQ(decide_replay(e, r.seen), r.want) << r.what;
  EXPECT_EQ(to_string(ReplayAction::kAwaitDeletion), "await-deletion");
}

TEST(PlanJournalEntry, RoundTripsThroughItsConfigMapKeyAndValue) {
  const JournalEntry e = entry("web.v2-1", "uid-1");
  EXPECT_EQ(journal_key(e.ns, e.name), "default.web.v2-1");
  const JournalEntry back = parse_journal_entry(journal_key(e.ns, e.name), journal_value(e));
  EXPECT_EQ(back.ns, "default");
  EXPECT_EQ(back.name, "web.v2-1") << "the first '.' splits: namespaces hold none";
  EXPECT_EQ(back.old_uid, "uid-1");
  EXPECT_EQ(back.pod, e.pod);
}

TEST(PlanJournalEntry, MalformedEntriesNameTheKeyAndWhatWasExpected) {
  auto message = [](const std::string& key, const std::string& value) {
    try {
      parse_journal_entry(key, value);
    } catch (const InputError& err) {
      return std::string(err.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message("nodot", journal_value(entry("nodot", "u"))).find("<namespace>.<pod name>"),
            std::string::npos);
  EXPECT_NE(message("default.web", "{not json").find("oldUid"), std::string::npos);
  EXPECT_NE(message("default.web", R"({"oldUid": "u"})").find("pod"), std::string::npos);
  EXPECT_NE(message("default.other", journal_value(entry("web", "u"))).find("name and namespace"),
            std::string::npos);
}

class PlanJournalServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterConfig cfg;
    parse_server_url(server.url(), "test", &cfg);
    client = std::make_unique<ApiClient>(cfg);
  }
  std::optional<JsonValue> data() const {
    auto cm = server.get("configmaps", "kube-system/orrery-scheduler-journal");
    if (!cm) return std::nullopt;
    return cm->value("data", JsonValue::object());
  }
  FakeApiServer server;
  std::unique_ptr<ApiClient> client;
};

TEST_F(PlanJournalServerTest, RecordCreatesTheConfigMapEraseEmptiesItLoadReadsIt) {
  PlanJournal j(*client, "kube-system", "orrery-scheduler-journal");
  std::vector<JournalEntry> got;
  ASSERT_TRUE(j.load(&got).ok()) << "a missing ConfigMap is an empty journal";
  EXPECT_TRUE(got.empty());
  ASSERT_TRUE(j.record(entry("a", "uid-a")).ok());
  ASSERT_TRUE(j.record(entry("b", "uid-b")).ok());
  ASSERT_TRUE(data());
  EXPECT_EQ(data()->size(), 2u);
  EXPECT_TRUE(data()->contains("default.a"));
  ASSERT_TRUE(j.load(&got).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "a");
  EXPECT_EQ(got[0].old_uid, "uid-a");
  ASSERT_TRUE(j.erase("default", "a").ok());
  ASSERT_TRUE(j.erase("default", "never-there").ok());
  EXPECT_EQ(data()->size(), 1u);
  EXPECT_EQ(server.requests_with_prefix("POST /api/v1/namespaces/kube-system/configmaps"), 1);
}

TEST_F(PlanJournalServerTest, AStalePutIsReadAgainAndRetried) {
  PlanJournal j(*client, "kube-system", "orrery-scheduler-journal");
  ASSERT_TRUE(j.record(entry("a", "uid-a")).ok());
  // Another writer changes the ConfigMap between our GET and our PUT, once.
  std::atomic<bool> once{false};
  server.set_request_hook([&](const std::string& method, const std::string& path) {
    if (method != "PUT" || path.find("/configmaps/") == std::string::npos || once.exchange(true))
      return;
    JsonValue cm = *server.get("configmaps", "kube-system/orrery-scheduler-journal");
    JournalEntry x = entry("x", "uid-x");
    x.ns = "other";
    x.pod["metadata"]["namespace"] = "other";
    cm["data"]["other.x"] = journal_value(x);
    server.update("configmaps", cm);
  });
  ASSERT_TRUE(j.record(entry("b", "uid-b")).ok());
  server.set_request_hook(nullptr);
  EXPECT_EQ(server.requests_with_prefix("PUT /api/v1/namespaces/kube-system/configmaps/"), 2)
      << "the first PUT got 409, the second went through";
  ASSERT_TRUE(data());
  EXPECT_TRUE(data()->contains("default.a"));
  EXPECT_TRUE(data()->contains("default.b"));
  EXPECT_TRUE(data()->contains("other.x")) << "the other writer's change is kept";
}

TEST_F(PlanJournalServerTest, ACreateRaceEndsInAnUpdateAndRefusalsAreReturned) {
  PlanJournal j(*client, "kube-system", "orrery-scheduler-journal");
  // Someone creates the ConfigMap between our 404 and our POST: 409 AlreadyExists → read, PUT.
  std::atomic<bool> once{false};
  server.set_request_hook([&](const std::string& method, const std::string& path) {
    if (method == "POST" && path.find("/configmaps") != std::string::npos && !once.exchange(true))
      server.add(
          "configmaps",
          {{"apiVersion", "v1"},
           {"kind", "ConfigMap"},
           {"metadata", {{"name", "orrery-scheduler-journal"}, {"namespace", "kube-system"}}},
           {"data", JsonValue::object()}});
  });
  ASSERT_TRUE(j.record(entry("a", "uid-a")).ok());
  server.set_request_hook(nullptr);
  EXPECT_TRUE(data()->contains("default.a"));
  server.set_configmap_refusal([](const std::string& method) { return method == "PUT" ? 403 : 0; });
  const Response r = j.record(entry("b", "uid-b"));
  EXPECT_EQ(r.status, 403) << r.describe();
  EXPECT_FALSE(data()->contains("default.b"));
}

// ApiBackend with a journal.
class JournalledBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeApiServerOptions o;
    o.bookmark_interval_ms = 100;
    server = std::make_unique<FakeApiServer>(o);
    server->add("nodes", make_node("n0"));
  }
  void start() {
    ClusterConfig cfg;
    parse_server_url(server->url(), "test", &cfg);
    client = std::make_unique<ApiClient>(cfg);
    ApiBackendOptions opt;
    opt.backoff.initial_ms = 20;
    opt.backoff.max_ms = 200;
    opt.eviction_backoff_ms = 10;
    opt.journal_namespace = "kube-system";
    opt.journal_name = "orrery-scheduler-journal";
    backend = std::make_unique<ApiBackend>(*client, loop, opt);
    backend->start();
    ASSERT_TRUE(run_until(loop, [&] { return backend->synced(); }));
  }
  void TearDown() override {
    if (backend) {
      client->interrupt();
      backend->stop(true);
    }
  }
  size_t entries() const {
    auto cm = server->get("configmaps", "kube-system/orrery-scheduler-journal");
    return cm ? cm->value("data", JsonValue::object()).size() : 0;
  }
  std::string uid(const std::string& name) const {
    auto p = server->get("pods", "default/" + name);
    return p ? p->at("metadata").value("uid", "") : "";
  }
  fw::RealTimeLoop loop;
  std::unique_ptr<FakeApiServer> server;
  std::unique_ptr<ApiClient> client;
  std::unique_ptr<ApiBackend> backend;
};

TEST_F(JournalledBackendTest, ARequestsChangeIsJournalledEvictedRecreatedAndTheEntryDropped) {
  JsonValue p = make_pod("default", "web", "1", "1Gi");
  p["spec"]["nodeName"] = "n0";
  p["status"]["phase"] = "Running";
  server->add("pods", p);
  const std::string old_uid = uid("web");
  start();
  int journal_puts_before_eviction = -1;
  server->set_request_hook([&](const std::string& method, const std::string& path) {
    if (method == "POST" && path.find("/eviction") != std::string::npos)
      journal_puts_before_eviction =
          server->requests_with_prefix("POST /api/v1/namespaces/kube-system/configmaps") +
          server->requests_with_prefix("PUT /api/v1/namespaces/kube-system/configmaps/");
  });
  const PodId id = *backend->state().find_pod("default", "web");
  fw::PodUpdate u;
  u.spec = [](PodSpec& s) { s.containers[0].requests[kCpu] = 2000; };
  EXPECT_FALSE(backend->update_pod(id, u)) << "requests change only by re-creation";
  ASSERT_TRUE(run_until(loop, [&] {
    return !uid("web").empty() && uid("web") != old_uid && entries() == 0 &&
           backend->in_flight() == 0;
  })) << "re-created and the entry removed";
  server->set_request_hook(nullptr);
  EXPECT_EQ(journal_puts_before_eviction, 1) << "the entry was written before the eviction";
  EXPECT_EQ(server->get("pods", "default/web")
                ->at("spec")["containers"][0]["resources"]["requests"]["cpu"],
            "2");
}

TEST_F(JournalledBackendTest, NoEvictionWhenTheJournalCannotBeWritten) {
  JsonValue p = make_pod("default", "web", "1", "1Gi");
  p["spec"]["nodeName"] = "n0";
  server->add("pods", p);
  start();
  struct Recorder : fw::EventListener {
    void on_event(const fw::ClusterEvent& e) override {
      if (e.kind == fw::EventKind::kPodDeleteFailed) reason = std::string(e.reason);
    }
    std::string reason;
  } rec;
  backend->add_listener(&rec);
  server->set_configmap_refusal(
      [](const std::string& method) { return method == "GET" ? 0 : 403; });
  const PodId id = *backend->state().find_pod("default", "web");
  Pod replacement = backend->state().pod(id);
  replacement.node_name.clear();
  backend->delete_for_recreation(id, replacement, "moved");
  ASSERT_TRUE(run_until(loop, [&] { return !rec.reason.empty(); }));
  backend->remove_listener(&rec);
  EXPECT_NE(rec.reason.find("not evicted: the plan journal could not be written: 403"),
            std::string::npos)
      << rec.reason;
  EXPECT_EQ(server->requests_with_prefix("POST /api/v1/namespaces/default/pods/web/eviction"), 0);
  EXPECT_TRUE(server->get("pods", "default/web"));
  EXPECT_EQ(backend->in_flight(), 0u);
}

TEST_F(JournalledBackendTest, ReplayWaitsForATerminatingPodsDeletionThenCreatesItsReplacement) {
  JsonValue p = make_pod("default", "web", "1", "1Gi");
  p["spec"]["nodeName"] = "n0";
  p["status"]["phase"] = "Running";
  p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  server->add("pods", p);
  const std::string old_uid = uid("web");
  JournalEntry e = entry("web", old_uid);
  e.pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3";
  server->add("configmaps",
              {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "orrery-scheduler-journal"}, {"namespace", "kube-system"}}},
               {"data", {{journal_key("default", "web"), journal_value(e)}}}});
  start();
  backend->replay_journal();
  ASSERT_TRUE(run_until(loop, [&] { return backend->journal_replayed(); }));
  loop.run_for(100 * 1000);
  EXPECT_EQ(uid("web"), old_uid) << "nothing is created while the old pod terminates";
  EXPECT_EQ(entries(), 1u);
  server->remove("pods", "default/web");  // the kubelet finishes it
  ASSERT_TRUE(run_until(loop, [&] { return !uid("web").empty() && entries() == 0; }));
  EXPECT_NE(uid("web"), old_uid);
  EXPECT_EQ(server->get("pods", "default/web")
                ->at("spec")["containers"][0]["resources"]["requests"]["cpu"],
            "3");
}

TEST_F(JournalledBackendTest, ReplayCancelsAnEntryWhoseEvictionNeverHappened) {
  server->add("pods", make_pod("default", "web", "1", "1Gi"));
  const std::string old_uid = uid("web");
  server->add("configmaps",
              {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", "orrery-scheduler-journal"}, {"namespace", "kube-system"}}},
               {"data",
                {{journal_key("default", "web"), journal_value(entry("web", old_uid))},
                 {journal_key("default", "gone"), journal_value(entry("gone", "uid-gone"))}}}});
  start();
  backend->replay_journal();
  ASSERT_TRUE(run_until(loop, [&] { return entries() == 0 && !uid("gone").empty(); }));
  EXPECT_EQ(uid("web"), old_uid) << "cancelled: the pod is kept as it was";
  EXPECT_EQ(server->requests_with_prefix("POST /api/v1/namespaces/default/pods/web/eviction"), 0);
}

}  // namespace
}  // namespace orrery::k8s
