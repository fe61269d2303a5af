// KubeDSM running over a backend: the event handler, placement manager and scheduler core
// together (batching, cloud overflow, migrations through plans, cancellation, QoS annotations),
// plus the plan builder's ordering and the options parser.
#include "policies/kubedsm/kubedsm.h"

#include <gtest/gtest.h>

#include <map>

#include "../../framework/queued_backend.h"
#include "core/error.h"
#include "io/yaml_util.h"
#include "policies/kubedsm/cluster_view.h"
#include "policies/kubedsm/plan_builder.h"
#include "random_models.h"

namespace orrery::kubedsm {
namespace {

using fw::testing::QueuedBackend;
constexpr int64_t kMi = 1LL << 20;

Node node(const std::string& name, int64_t cores, int64_t gb, const std::string& tier) {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cores * 1000;
  n.allocatable[kMemory] = gb * 1024 * kMi;
  n.allocatable[kPods] = 110;
  n.labels.set("orrery.io/tier", tier);
  n.derive_orrery_fields(name);
  return n;
}

// The paper's cluster (Table 4).
ClusterState paper_cluster() {
  ClusterState s;
  s.add_node(node("N2", 5, 5, "edge"));
  s.add_node(node("N3", 4, 4, "edge"));
  s.add_node(node("N4", 7, 5, "edge"));
  s.add_node(node("N5", 22, 17, "cloud"));
  return s;
}

std::shared_ptr<PodSpec> service_spec(int64_t cores, int64_t mem_mi, const char* qos = nullptr) {
  Resources r;
  r[kCpu] = cores * 1000;
  r[kMemory] = mem_mi * kMi;
  auto spec = make_simple_spec(r);
  spec->scheduler_name = intern("kubedsm");
  if (qos != nullptr) spec->annotations.set(kQosAnnotation, qos);
  return spec;
}

PodId add_pod(ClusterState& s, const std::string& service, int i,
              const std::shared_ptr<PodSpec>& spec) {
  Pod p;
  p.name = service + "-" + std::to_string(i);
  p.spec = spec;
  p.owner = {OwnerKind::kReplicaSet, service};
  return s.add_pod(std::move(p));
}

struct Counts {
  int edge = 0, cloud = 0, pending = 0;
};
Counts where(const ClusterState& s, const std::string& owner = "") {
  Counts c;
  for (PodId p : s.pods()) {
    if (!owner.empty() && s.pod(p).owner.name != owner) continue;
    const NodeId n = s.pod_node(p);
    if (n == kNoNode)
      ++c.pending;
    else if (s.node(n).tier == Tier::kEdge)
      ++c.edge;
    else
      ++c.cloud;
  }
  return c;
}

bool nodes_within_capacity(const ClusterState& s) {
  for (NodeId n : s.nodes())
    if (!s.requested_of(n).fits_in(s.allocatable_of(n))) return false;
  return true;
}

Options fast_options() {
  Options o;
  o.batch_window_us = 0;
  return o;
}

TEST(KubeDsm, BatchFillsTheEdgeAndOverflowsToTheCloud) {
  ClusterState s = paper_cluster();
  auto a = service_spec(1, 950);
  for (int i = 0; i < 20; ++i) add_pod(s, "A", i, a);
  QueuedBackend be(std::move(s));
  be.auto_run = true;
  KubeDsm k(be, fast_options());
  k.start();
  EXPECT_EQ(k.batch_size(), 20u);
  k.schedule_batch();
  be.deliver();
  const Counts c = where(be.state());
  // Memory bounds the edge: 5 + 4 + 5 pods of 950Mi on 5, 4 and 5 GiB.
  EXPECT_EQ(c.edge, 14);
  EXPECT_EQ(c.cloud, 6);
  EXPECT_EQ(c.pending, 0);
  EXPECT_TRUE(nodes_within_capacity(be.state()));
  EXPECT_EQ(k.stats().batches, 1u);
  EXPECT_EQ(k.stats().binds_edge, 14u);
  EXPECT_EQ(k.stats().binds_cloud, 6u);
  EXPECT_EQ(k.executor().active(), 0u);
}

TEST(KubeDsm, NewPodsOpenABatchWindow) {
  ClusterState s = paper_cluster();
  QueuedBackend be(std::move(s));
  Options o;
  o.batch_window_us = 2'000'000;
  KubeDsm k(be, o);
  std::vector<int64_t> wakeups;
  k.set_wakeup_hook([&](int64_t t) { wakeups.push_back(t); });
  k.start();
  be.now = 5'000'000;
  auto a = service_spec(1, 950);
  for (int i = 0; i < 3; ++i) {
    Pod p;
    p.name = "A-" + std::to_string(i);
    p.spec = a;
    p.owner = {OwnerKind::kReplicaSet, "A"};
    be.create_pod(std::move(p));
  }
  be.deliver();
  EXPECT_EQ(k.batch_size(), 3u);
  EXPECT_EQ(k.next_wakeup_us(), 7'000'000);  // one window for the three pods
  EXPECT_EQ(wakeups.back(), 7'000'000);
  be.now = 7'000'000;
  k.tick();
  be.deliver();
  EXPECT_EQ(where(be.state()).edge, 3);
  EXPECT_EQ(k.batch_size(), 0u);
}

TEST(KubeDsm, SuggestMigratesCloudPodsToFreedEdgeRoom) {
  ClusterState s = paper_cluster();
  auto a = service_spec(1, 950);
  for (int i = 0; i < 20; ++i) add_pod(s, "A", i, a);
  QueuedBackend be(std::move(s));
  be.auto_run = true;
  KubeDsm k(be, fast_options());
  k.start();
  k.schedule_batch();
  be.deliver();
  // Scale-down removes two edge pods (no replacement).
  int removed = 0;
  for (PodId p : be.state().pods()) {
    const NodeId n = be.state().pod_node(p);
    if (removed < 2 && n != kNoNode && be.state().node(n).name == "N3") {
      be.delete_pod(p, "scaled down");
      ++removed;
    }
  }
  be.deliver();
  EXPECT_EQ(where(be.state()).edge, 12);
  // From now on the "ReplicaSet" replaces deleted pods: delete-first migrations work.
  be.recreate = true;
  k.suggest_now();
  for (int round = 0; round < 5; ++round) be.deliver();
  const Counts c = where(be.state());
  EXPECT_EQ(c.edge, 14);
  EXPECT_EQ(c.cloud, 4);
  EXPECT_EQ(c.pending, 0);
  // Two cloud→edge migrations, plus whatever reordering Alg. 6 found worth doing first.
  EXPECT_GE(k.stats().migrations_planned, 2u);
  EXPECT_EQ(k.stats().migrations_done, k.stats().migrations_planned);
  EXPECT_EQ(k.stats().plans_cancelled, 0u);
  EXPECT_TRUE(nodes_within_capacity(be.state()));
}

TEST(ClusterView, CloudNodesRoomBoundsOffloads) {
  ClusterState s = paper_cluster();
  auto d = service_spec(2, 1900);
  const PodId p = add_pod(s, "D", 0, d);
  s.assign(p, 3);  // N5
  QueuedBackend be(std::move(s));
  fw::PlanExecutor plans(be);
  ViewOptions o;
  const ClusterView v = build_view(be.state(), o, {}, plans);
  EXPECT_TRUE(v.model.cloud_bounded);
  ASSERT_EQ(v.model.cloud_free.size(), 1u);
  EXPECT_EQ(v.model.cloud_free[0].cpu, 20'000);
  EXPECT_EQ(v.model.cloud_free[0].mem, 17 * 1024 * kMi - 1900 * kMi);
  o.bounded_cloud = false;
  EXPECT_FALSE(build_view(be.state(), o, {}, plans).model.cloud_bounded);
}

TEST(KubeDsm, CreateFirstMigrationKeepsTheOriginalUntilTheCopyRuns) {
  ClusterState s = paper_cluster();
  auto a = service_spec(1, 950);
  for (int i = 0; i < 16; ++i) add_pod(s, "A", i, a);
  QueuedBackend be(std::move(s));
  be.auto_run = true;
  Options o = fast_options();
  o.migration = MigrationStyle::kCreateFirst;
  KubeDsm k(be, o);
  k.start();
  k.schedule_batch();
  be.deliver();
  ASSERT_EQ(where(be.state()).cloud, 2);
  for (PodId p : be.state().pods()) {
    const NodeId n = be.state().pod_node(p);
    if (n != kNoNode && be.state().node(n).name == "N2") {
      be.delete_pod(p, "scaled down");
      break;
    }
  }
  be.deliver();
  k.suggest_now();
  for (int round = 0; round < 5; ++round) be.deliver();
  EXPECT_EQ(where(be.state()).edge, 14);
  EXPECT_EQ(where(be.state()).cloud, 1);
  EXPECT_GE(k.stats().migrations_done, 1u);
  bool copy = false;
  for (PodId p : be.state().pods()) {
    if (be.state().pod(p).name.find("-m1") == std::string::npos) continue;
    copy = true;
    EXPECT_EQ(be.state()
                  .pod(p)
                  .spec->annotations.get(std::string_view("orrery.io/migrated-from"))
                  .has_value(),
              true);
  }
  EXPECT_TRUE(copy);
}

// Issue acceptance (with the paper's semantics): an incompatible event cancels the plan and its
// remaining pods go to the cloud.
TEST(KubeDsm, CancelledPlansSendTheirPodsToTheCloud) {
  ClusterState s = paper_cluster();
  auto a = service_spec(1, 950);
  for (int i = 0; i < 4; ++i) add_pod(s, "A", i, a);
  QueuedBackend be(std::move(s));
  // The edge nodes reject bindings (e.g. a node went away between decision and bind).
  for (NodeId n : be.state().nodes())
    if (be.state().node(n).tier == Tier::kEdge) be.failing.insert(n);
  KubeDsm k(be, fast_options());
  k.start();
  k.schedule_batch();
  be.deliver();
  const Counts c = where(be.state());
  EXPECT_EQ(c.cloud, 4);
  EXPECT_EQ(c.edge, 0);
  EXPECT_EQ(k.stats().plans_cancelled, 4u);
  EXPECT_EQ(k.stats().fallback_binds, 4u);
  ASSERT_FALSE(k.stats().cancellations.empty());
  EXPECT_NE(k.stats().cancellations[0].find("PodBindFailed"), std::string::npos);
}

TEST(KubeDsm, QosAnnotationSteersTheEdge) {
  // Room for 5 pods of 1 core on a single edge node; two services with 5 pods each. B's target
  // 1 versus A's 0.2: B gets the edge except for A's one pod that meets A's target.
  ClusterState s;
  s.add_node(node("E", 5, 16, "edge"));
  s.add_node(node("C", 64, 64, "cloud"));
  auto a = service_spec(1, 100, "0.2");
  auto b = service_spec(1, 100, "1");
  for (int i = 0; i < 5; ++i) {
    add_pod(s, "A", i, a);
    add_pod(s, "B", i, b);
  }
  QueuedBackend be(std::move(s));
  KubeDsm k(be, fast_options());
  k.start();
  k.schedule_batch();
  be.deliver();
  EXPECT_EQ(where(be.state(), "A").edge, 1);
  EXPECT_EQ(where(be.state(), "B").edge, 4);
}

TEST(KubeDsm, BadQosAnnotationIsAClearError) {
  ClusterState s = paper_cluster();
  add_pod(s, "A", 0, service_spec(1, 950, "1.5"));
  QueuedBackend be(std::move(s));
  KubeDsm k(be, fast_options());
  k.start();
  try {
    k.schedule_batch();
    FAIL() << "accepted QoS target 1.5";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pod default/A-0 (ReplicaSet/A): annotation "
                                         "kubedsm.orrery.io/qos-target: expected a number in "
                                         "[0, 1]"),
              std::string::npos)
        << e.what();
  }
}

TEST(KubeDsm, PodLargerThanEveryEdgeNodeGoesToTheCloud) {
  ClusterState s = paper_cluster();
  add_pod(s, "Huge", 0, service_spec(8, 1024));  // 8 cores: no edge node has 8
  QueuedBackend be(std::move(s));
  KubeDsm k(be, fast_options());
  k.start();
  k.schedule_batch();
  be.deliver();
  EXPECT_EQ(where(be.state()).cloud, 1);
}

TEST(KubeDsm, PodWithoutRequestsIsSizedWithTheSchedulerDefaults) {
  ClusterState s = paper_cluster();
  auto spec = make_simple_spec({});  // no requests at all
  auto mine = std::make_shared<PodSpec>(*spec);
  mine->scheduler_name = intern("kubedsm");
  add_pod(s, "Bare", 0, mine);
  QueuedBackend be(std::move(s));
  KubeDsm k(be, fast_options());
  k.start();
  k.schedule_batch();
  be.deliver();
  EXPECT_EQ(where(be.state()).edge, 1);
}

TEST(KubeDsm, ResyncPicksUpPendingPodsItMissed) {
  ClusterState s = paper_cluster();
  QueuedBackend be(std::move(s));
  KubeDsm k(be, fast_options());
  k.start();
  // A pod that appears without an event (e.g. a missed watch notification).
  add_pod(be.state(), "A", 0, service_spec(1, 950));
  EXPECT_EQ(k.batch_size(), 0u);
  k.resync();
  EXPECT_EQ(k.batch_size(), 1u);
  k.tick();
  be.deliver();
  EXPECT_EQ(where(be.state()).edge, 1);
}

TEST(KubeDsm, IgnoresPodsOfOtherSchedulers) {
  ClusterState s = paper_cluster();
  Pod p;
  p.name = "other";
  p.spec = make_simple_spec({});
  s.add_pod(std::move(p));
  QueuedBackend be(std::move(s));
  KubeDsm k(be, fast_options());
  k.start();
  EXPECT_EQ(k.batch_size(), 0u);
}

// ---- plan builder ----

TEST(SequenceMoves, SwapTakesTheTwoStepRouteThroughTheCloud) {
  // Two full nodes; the placement swaps their pods. Neither target has room until the other pod
  // leaves, so one migration goes edge → cloud first and cloud → edge at the end (§5.3).
  EdgeModel m;
  m.add_node(testing::units(2, 2));
  m.add_node(testing::units(2, 2));
  const uint32_t big = m.add_service("big", testing::units(2, 2), 1.0);
  const uint32_t wide = m.add_service("wide", testing::units(2, 1), 1.0);
  const uint32_t p0 = m.add_pod(big, 0);
  const uint32_t p1 = m.add_pod(wide, 1);
  Placement p;
  p.migrations = {{p0, 0, 1}, {p1, 1, 0}};
  const std::vector<PlannedMove> seq = sequence_moves(m, p, {});
  ASSERT_EQ(seq.size(), 3u);
  EXPECT_EQ(seq[0].pod, p0);
  EXPECT_EQ(seq[0].to, kCloud);
  EXPECT_EQ(seq[1].pod, p1);
  EXPECT_EQ(seq[1].to, 0);
  EXPECT_EQ(seq[2].pod, p0);
  EXPECT_EQ(seq[2].from, kCloud);
  EXPECT_EQ(seq[2].to, 1);
}

TEST(SequenceMoves, EveryStepOfASuggestedPlacementFindsRoom) {
  Rng rng(909);
  SchedulerCore core;
  for (int iter = 0; iter < 200; ++iter) {
    EdgeModel m = testing::random_model(rng, static_cast<int>(rng.uniform_int(1, 4)),
                                        static_cast<int>(rng.uniform_int(1, 4)),
                                        static_cast<int>(rng.uniform_int(0, 14)));
    const Placement p = core.suggest(m);
    const std::vector<PlannedMove> seq = sequence_moves(m, p, {});
    EdgeModel cur = m;
    for (const PlannedMove& mv : seq) {
      ASSERT_EQ(cur.pods[mv.pod].node, mv.from) << "iteration " << iter;
      cur.move_pod(mv.pod, mv.to);
      ASSERT_TRUE(testing::placement_feasible(cur)) << "iteration " << iter;
    }
    // The final placement is the decision's.
    EdgeModel want = m;
    for (const Move& mv : p.migrations) want.move_pod(mv.pod, mv.to);
    for (const Move& mv : p.edge) want.move_pod(mv.pod, mv.to);
    for (size_t i = 0; i < m.pods.size(); ++i) EXPECT_EQ(cur.pods[i].node, want.pods[i].node);
  }
}

// ---- options ----

yaml::Ctx ctx(const std::string& text) {
  return {"kubedsm.yaml", yaml::parse_document(text, "kubedsm.yaml"), "args", 1};
}

TEST(Options, ParsesTheDocumentedFields) {
  const Options o = parse_options(
      ctx("mC2E: 2\nmER: 1\nalpha: 2\nbeta: 0.5\ngamma: 50\nsuggestBudget: free\n"
          "migration: create-first\nbatchWindow: 500ms\nsuggestPeriod: 1m\nresyncPeriod: 45\n"
          "stepTimeout: 1.5s\nmaxBatch: 10\nqosTargets: {A: 0.5, D: 0.1}\n"));
  EXPECT_EQ(o.core.m_c2e, 2);
  EXPECT_EQ(o.core.m_er, 1);
  EXPECT_DOUBLE_EQ(o.core.qos.alpha, 2.0);
  EXPECT_EQ(o.core.suggest_budget, SuggestBudget::kFree);
  EXPECT_EQ(o.migration, MigrationStyle::kCreateFirst);
  EXPECT_EQ(o.batch_window_us, 500'000);
  EXPECT_EQ(o.suggest_period_us, 60'000'000);
  EXPECT_EQ(o.resync_period_us, 45'000'000);
  EXPECT_EQ(o.step_timeout_us, 1'500'000);
  EXPECT_EQ(o.max_batch, 10u);
  EXPECT_DOUBLE_EQ(o.qos_targets.at("D"), 0.1);
}

TEST(Options, FitCheckAndBoundedCloud) {
  const Options d = parse_options(ctx("mC2E: 5\n"));
  EXPECT_EQ(d.core.fit_check, FitCheck::kApproximate);
  EXPECT_TRUE(d.bounded_cloud);
  const Options o = parse_options(ctx("fitCheck: exact\nboundedCloud: false\n"));
  EXPECT_EQ(o.core.fit_check, FitCheck::kExact);
  EXPECT_FALSE(o.bounded_cloud);
  try {
    parse_options(ctx("fitCheck: tight\n"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "kubedsm.yaml:1: args.fitCheck: expected \"approximate\" or \"exact\""),
              std::string::npos)
        << e.what();
  }
}

TEST(Options, BadValuesNameTheField) {
  auto error = [](const std::string& text) {
    try {
      parse_options(ctx(text));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("mC2E: 99\n").find("kubedsm.yaml:1: args.mC2E: expected an integer in [0, 20]"),
            std::string::npos)
      << error("mC2E: 99\n");
  EXPECT_NE(error("qosTargets: {A: 1.5}\n")
                .find("args.qosTargets.A: expected a QoS target in "
                      "[0, 1], got 1.5"),
            std::string::npos)
      << error("qosTargets: {A: 1.5}\n");
  EXPECT_NE(error("batchWindow: 3h\n").find("unknown duration unit"), std::string::npos);
  EXPECT_NE(error("mcee: 1\n").find("unknown KubeDSM setting"), std::string::npos);
  EXPECT_NE(error("beta: 5\n").find("0 <= beta < alpha"), std::string::npos) << error("beta: 5\n");
  EXPECT_NE(error("migration: teleport\n").find("expected \"delete-first\" or \"create-first\""),
            std::string::npos);
}

}  // namespace
}  // namespace orrery::kubedsm
