// k8s::ApiBackend against the fake API server: informers (list, watch, relist after 410, dropped
// streams), actions confirmed by watch events (bind, 409, eviction with 429, creation), malformed
// objects skipped.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "k8s/api_backend.h"
#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "obs/log.h"

namespace orrery::k8s {
namespace {

using testing::FakeApiServer;
using testing::make_node;
using testing::make_pod;
using testing::run_until;

struct Recorder : fw::EventListener {
  void on_event(const fw::ClusterEvent& e) override {
    kinds.push_back(e.kind);
    reasons.emplace_back(e.reason);
  }
  int count(fw::EventKind k) const { return static_cast<int>(std::count(kinds.begin(), kinds.end(), k)); }
  std::vector<fw::EventKind> kinds;
  std::vector<std::string> reasons;
};

Backoff fast_backoff() {
  Backoff b;
  b.initial_ms = 20;
  b.max_ms = 200;
  b.watch_timeout_s = 30;
  return b;
}

class ApiBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeApiServerOptions o;
    o.bookmark_interval_ms = 100;
    server = std::make_unique<FakeApiServer>(o);
    for (int i = 0; i < 3; ++i) server->add("nodes", make_node("n" + std::to_string(i)));
    server->add("priorityclasses", {{"apiVersion", "scheduling.k8s.io/v1"},
                                    {"kind", "PriorityClass"},
                                    {"metadata", {{"name", "high"}}},
                                    {"value", 1000}});
    server->add("pods", make_pod("default", "p0", "500m", "256Mi"));
  }
  void start() {
    ClusterConfig cfg;
    parse_server_url(server->url(), "test", &cfg);
    client = std::make_unique<ApiClient>(cfg);
    ApiBackendOptions opt;
    opt.backoff = fast_backoff();
    opt.eviction_backoff_ms = 10;
    backend = std::make_unique<ApiBackend>(*client, loop, opt);
    backend->add_listener(&rec);
    backend->start();
    ASSERT_TRUE(run_until(loop, [&] { return backend->synced(); }));
    // Synced means listed; the tests that expire or drop watches need the three informers'
    // watches open first (a watch opened after expire_watches() would never see the expiry).
    ASSERT_TRUE(run_until(loop, [&] { return server->open_watches() >= 3; }));
    rec.kinds.clear();
    rec.reasons.clear();
  }
  void TearDown() override {
    if (backend) {
      client->interrupt();
      backend->stop(true);
      backend->remove_listener(&rec);
    }
  }
  PodId pod(const std::string& name) {
    auto id = backend->state().find_pod("default", name);
    EXPECT_TRUE(id.has_value()) << name;
    return id.value_or(kNoPod);
  }

  fw::RealTimeLoop loop;
  std::unique_ptr<FakeApiServer> server;
  std::unique_ptr<ApiClient> client;
  std::unique_ptr<ApiBackend> backend;
  Recorder rec;
};

TEST_F(ApiBackendTest, ListsNodesPodsAndPriorityClassesIntoTheState) {
  start();
  EXPECT_EQ(backend->state().node_count(), 3u);
  EXPECT_EQ(backend->state().pod_count(), 1u);
  const PodId p = pod("p0");
  EXPECT_EQ(backend->state().pod(p).spec->request[kCpu], 500);
  EXPECT_EQ(backend->state().pod_node(p), kNoNode);
}

TEST_F(ApiBackendTest, ChunkedListsFollowContinueTokens) {
  for (int i = 3; i < 1203; ++i) server->add("nodes", make_node("n" + std::to_string(i)));
  start();
  EXPECT_EQ(backend->state().node_count(), 1203u);
  EXPECT_GE(server->requests_with_prefix("GET /api/v1/nodes"), 3) << "1203 nodes in pages of 500";
}

TEST_F(ApiBackendTest, WatchEventsBecomeClusterEventsAndAPriorityClassSetsPriority) {
  start();
  JsonValue p = make_pod("default", "hi", "100m", "64Mi");
  p["spec"]["priorityClassName"] = "high";
  server->add("pods", p);
  ASSERT_TRUE(run_until(loop, [&] { return backend->state().find_pod("default", "hi").has_value(); }));
  EXPECT_EQ(backend->state().pod(pod("hi")).spec->priority, 1000);
  server->add("nodes", make_node("n9"));
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kNodeAdded) == 1; }));
  server->remove("pods", "default/hi");
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodDeleted) == 1; }));
  EXPECT_FALSE(backend->state().find_pod("default", "hi").has_value());
}

TEST_F(ApiBackendTest, BindIsConfirmedByTheWatchNotByTheResponse) {
  start();
  const PodId p = pod("p0");
  const NodeId n1 = *backend->state().find_node("n1");
  backend->state().assign(p, n1);
  backend->bind(p, n1);
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodBound) == 1; }));
  EXPECT_EQ(backend->state().pod_node(p), n1);
  EXPECT_EQ(server->get("pods", "default/p0")->at("spec").value("nodeName", ""), "n1");
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodRunning) == 1; }));
  EXPECT_EQ(backend->state().requested(kCpu)[n1], 500);
}

TEST_F(ApiBackendTest, BindConflictForgetsTheAssumptionAndTheWatchShowsTheRealNode) {
  start();
  // Someone else binds p0 to n2 while we assume n0: our bind gets 409.
  JsonValue other = *server->get("pods", "default/p0");
  server->set_bind_refusal([](const std::string&, const std::string&) { return 409; });
  const PodId p = pod("p0");
  const NodeId n0 = *backend->state().find_node("n0");
  const NodeId n2 = *backend->state().find_node("n2");
  backend->state().assign(p, n0);
  backend->bind(p, n0);
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodBindFailed) == 1; }));
  EXPECT_EQ(backend->state().pod_node(p), kNoNode);
  EXPECT_EQ(backend->state().requested(kCpu)[n0], 0);
  EXPECT_NE(rec.reasons.back().find("409"), std::string::npos) << rec.reasons.back();
  other["spec"]["nodeName"] = "n2";
  server->update("pods", other);
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodBound) == 1; }));
  EXPECT_EQ(backend->state().pod_node(p), n2);
  EXPECT_EQ(server->binds().size(), 1u) << "the refused bind is not repeated by the backend";
}

TEST_F(ApiBackendTest, EvictionRetries429WithBackoffThenDeletes) {
  server->add("pods", [] {
    JsonValue p = make_pod("default", "run", "100m", "64Mi");
    p["spec"]["nodeName"] = "n0";
    p["status"]["phase"] = "Running";
    return p;
  }());
  start();
  server->throttle_evictions(2);
  backend->delete_pod(pod("run"), "preempted");
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodDeleted) == 1; }));
  EXPECT_EQ(rec.count(fw::EventKind::kPodTerminating), 1);
  EXPECT_EQ(rec.count(fw::EventKind::kPodDeleteFailed), 0);
  EXPECT_EQ(server->requests_with_prefix("POST /api/v1/namespaces/default/pods/run/eviction"), 3);
}

TEST_F(ApiBackendTest, EvictionThatStays429IsPodDeleteFailedWithTheServersMessage) {
  start();
  server->throttle_evictions(100);
  backend->delete_pod(pod("p0"), "preempted");
  ASSERT_TRUE(run_until(loop, [&] { return rec.count(fw::EventKind::kPodDeleteFailed) == 1; }));
  EXPECT_NE(rec.reasons.back().find("disruption budget"), std::string::npos) << rec.reasons.back();
  EXPECT_TRUE(backend->state().find_pod("default", "p0").has_value());
}

TEST_F(ApiBackendTest, CreatedPodArrivesAsPodAdded) {
  start();
  Pod p;
  p.name = "made";
  Resources r;
  r[kCpu] = 250;
  p.spec = make_simple_spec(r);
  backend->create_pod(p);
  ASSERT_TRUE(run_until(loop, [&] { return backend->state().find_pod("default", "made").has_value(); }));
  EXPECT_EQ(backend->state().pod(pod("made")).spec->request[kCpu], 250);
  EXPECT_FALSE(backend->state().pod(pod("made")).uid.empty());
}

TEST_F(ApiBackendTest, APodAddedDuringAWatchGapIsPickedUpAfterA410Relist) {
  start();
  const int lists = server->list_requests();
  server->block_watches(true);
  server->drop_watches();
  server->add("pods", make_pod("default", "gap", "100m", "64Mi"));
  server->remove("pods", "default/p0");
  server->compact();
  server->block_watches(false);
  ASSERT_TRUE(run_until(loop, [&] {
    return backend->state().find_pod("default", "gap").has_value() &&
           !backend->state().find_pod("default", "p0").has_value();
  }));
  EXPECT_GT(server->list_requests(), lists) << "picked up by a relist";
  EXPECT_EQ(rec.count(fw::EventKind::kPodDeleted), 1);
}

TEST_F(ApiBackendTest, InStreamExpiryAndHttp410BothRelist) {
  start();
  int lists = server->list_requests();
  server->expire_watches();
  ASSERT_TRUE(run_until(loop, [&] { return server->list_requests() >= lists + 3; }))
      << "each of the three informers relists";
  server->add("pods", make_pod("default", "after", "100m", "64Mi"));
  ASSERT_TRUE(run_until(loop, [&] { return backend->state().find_pod("default", "after").has_value(); }));
}

TEST_F(ApiBackendTest, MalformedObjectIsSkippedAndTheInformerKeepsRunning) {
  start();
  JsonValue bad = make_pod("default", "bad", "lots", "64Mi");  // not a quantity
  JsonValue odd = make_pod("default", "odd", "100m", "64Mi");
  odd["spec"]["someFutureField"] = {{"x", 1}};  // unexpected fields are ignored
  odd["metadata"]["unknownMeta"] = "y";
  server->add("pods", bad);
  server->add("pods", odd);
  ASSERT_TRUE(run_until(loop, [&] { return backend->state().find_pod("default", "odd").has_value(); }));
  EXPECT_FALSE(backend->state().find_pod("default", "bad").has_value());
  EXPECT_EQ(backend->skipped_objects(), 1u);
  server->add("pods", make_pod("default", "later", "100m", "64Mi"));
  ASSERT_TRUE(run_until(loop, [&] { return backend->state().find_pod("default", "later").has_value(); }));
}

TEST_F(ApiBackendTest, DroppedStreamsReconnect) {
  start();
  const int watches = server->watch_requests();
  server->drop_watches();
  server->add("pods", make_pod("default", "x", "100m", "64Mi"));
  ASSERT_TRUE(run_until(loop, [&] {
    return backend->state().find_pod("default", "x").has_value() &&
           server->watch_requests() >= watches + 3;
  })) << "each informer watches again";
}

}  // namespace
}  // namespace orrery::k8s
