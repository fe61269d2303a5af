// Queueing hints of the default plugins, equivalence-class keys, and what they do to a
// scheduler's queue: which events wake which waiting pods, and one failed attempt standing for
// pods of one spec.
#include <gtest/gtest.h>

#include "harness.h"
#include "plugins/register.h"

namespace orrery::plugins {
namespace {

using fw::QueueEvent;
using fw::QueueingHint;
using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;
using testing::profiles_from;

constexpr QueueingHint Q = QueueingHint::kQueue;
constexpr QueueingHint S = QueueingHint::kSkip;

QueueEvent ev(QueueEvent::Kind k, int32_t priority = 0) {
  QueueEvent e;
  e.kind = k;
  e.priority = priority;
  return e;
}

struct Row {
  const char* plugin;
  // NodeAdded, NodeUpdated, NodeRemoved, PodAssigned (priority 5), PodReleased,
  // NominationCleared (priority 5), NominationCleared (priority 20), Other
  std::vector<QueueingHint> want;
};

TEST(QueueHints, DefaultPluginsAnswerPerEvent) {
  // The waiting pods have priority 10.
  PodSpec spec;
  spec.priority = 10;
  fw::PodClassKey waiting;
  waiting.spec = &spec;
  const ClusterState st;
  const std::vector<QueueEvent> events = {ev(QueueEvent::kNodeAdded),
                                          ev(QueueEvent::kNodeUpdated),
                                          ev(QueueEvent::kNodeRemoved),
                                          ev(QueueEvent::kPodAssigned, 5),
                                          ev(QueueEvent::kPodReleased),
                                          ev(QueueEvent::kNominationCleared, 5),
                                          ev(QueueEvent::kNominationCleared, 20),
                                          ev(QueueEvent::kOther)};
  const std::vector<Row> rows = {
      {"NodeUnschedulable", {Q, Q, S, S, S, S, S, S}},
      {"NodeName", {Q, Q, S, S, S, S, S, S}},
      {"TaintToleration", {Q, Q, S, S, S, S, S, S}},
      {"NodeAffinity", {Q, Q, S, S, S, S, S, S}},
      {"MachineConstraints", {Q, Q, S, S, S, S, S, S}},
      {"NodeResourcesFit", {Q, Q, S, S, Q, S, Q, S}},
      {"PodTopologySpread", {Q, Q, Q, Q, Q, S, Q, S}},
      {"DefaultPreemption", {Q, Q, S, Q, Q, S, Q, S}},
  };
  std::vector<std::string> names;
  for (const Row& r : rows) names.emplace_back(r.plugin);
  auto profiles = profiles_from(config_with(names));
  ASSERT_EQ(profiles.size(), 1u);
  for (const Row& r : rows) {
    const fw::Plugin* p = profiles[0]->find(r.plugin);
    ASSERT_NE(p, nullptr) << r.plugin;
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(p->queueing_hint(events[i], st, waiting), r.want[i])
          << r.plugin << " on " << to_string(events[i].kind) << " (" << events[i].priority << ")";
    }
    EXPECT_EQ(p->queueing_hint(ev(QueueEvent::kAll), st, waiting), Q) << r.plugin;
  }
  // A higher-priority pod assigned is no victim for preemption.
  EXPECT_EQ(profiles[0]
                ->find("DefaultPreemption")
                ->queueing_hint(ev(QueueEvent::kPodAssigned, 10), st, waiting),
            S);
}

TEST(QueueHints, TopologySpreadWakesOnlyForPodsItsConstraintsCount) {
  const std::string objs =
      node_doc("n1", "{cpu: 4}", "{zone: a}") +
      pod_doc("waiting", {""},
              "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: "
              "DoNotSchedule, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [tier]}",
              "labels: {app: web, tier: front}") +
      pod_doc("web", {""}, "nodeName: n1", "labels: {app: web, tier: front}") +
      pod_doc("web-back", {""}, "nodeName: n1", "labels: {app: web, tier: back}") +
      pod_doc("db", {""}, "nodeName: n1", "labels: {app: db, tier: front}") +
      pod_doc("prod/web", {""}, "nodeName: n1", "labels: {app: web, tier: front}");
  Harness h(objs, config_with({"PodTopologySpread"}));
  const fw::Plugin* pts = h.scheduler->profiles()[0]->find("PodTopologySpread");
  const PodId w = h.pod("waiting");
  const fw::PodClassKey key = h.scheduler->class_key(w, h.state().pod_serial(w));
  auto hint = [&](QueueEvent::Kind k, const std::string& pod) {
    QueueEvent e = ev(k);
    e.pod = pod.empty() ? kNoPod : h.pod(pod);
    return pts->queueing_hint(e, h.state(), key);
  };
  EXPECT_EQ(hint(QueueEvent::kPodAssigned, "web"), Q);
  EXPECT_EQ(hint(QueueEvent::kPodReleased, "web"), Q);
  EXPECT_EQ(hint(QueueEvent::kPodAssigned, "web-back"), S) << "matchLabelKeys: another tier";
  EXPECT_EQ(hint(QueueEvent::kPodAssigned, "db"), S) << "the selector does not match";
  EXPECT_EQ(hint(QueueEvent::kPodAssigned, "prod/web"), S) << "another namespace";
  EXPECT_EQ(hint(QueueEvent::kPodReleased, ""), Q) << "a deleted pod is not known";
}

Node make_node(const std::string& name, int64_t cpu_m) {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cpu_m;
  n.allocatable[kMemory] = int64_t{1} << 32;
  n.allocatable[kPods] = 110;
  n.capacity = n.allocatable;
  return n;
}

Pod make_pod(const std::string& name, std::shared_ptr<const PodSpec> spec,
             const std::string& owner = "", const std::string& node = "") {
  Pod p;
  p.name = name;
  p.spec = std::move(spec);
  if (!owner.empty()) p.owner = {OwnerKind::kReplicaSet, owner};
  p.node_name = node;
  return p;
}

std::shared_ptr<PodSpec> cpu_spec(int64_t cpu_m, int32_t priority = 0) {
  Resources r;
  r[kCpu] = cpu_m;
  auto s = make_simple_spec(r);
  s->priority = priority;
  return s;
}

TEST(QueueHints, ClassKeysFollowWhatFiltersRead) {
  ClusterState st;
  st.add_node(make_node("n", 4000));
  auto spec = cpu_spec(100);
  const PodId a = st.add_pod(make_pod("a", spec, "rs1"));
  const PodId b = st.add_pod(make_pod("b", spec, "rs2"));
  const PodId c = st.add_pod(make_pod("c", cpu_spec(100), "rs1"));  // equal, not shared
  const PodId d = st.add_pod(make_pod("d", spec, "rs1"));
  Pod elsewhere = make_pod("e", spec, "rs1");
  elsewhere.ns = "prod";
  const PodId e = st.add_pod(elsewhere);
  fw::SnapshotBackend be(std::move(st));
  // The default profile: system default spreading is ScheduleAnyway only, so the owner does not
  // matter to any filter.
  fw::Scheduler s(be, default_profiles());
  auto key = [&](PodId p) { return s.class_key(p, be.state().pod_serial(p)); };
  EXPECT_EQ(key(a), key(b));
  EXPECT_EQ(key(a), key(d));
  EXPECT_NE(key(a), key(c)) << "classes are per shared spec";
  EXPECT_NE(key(a), key(e)) << "spread selectors count pods of the pod's namespace";
  EXPECT_EQ(key(a).salt_plugin, 0u);

  // List defaulting with a DoNotSchedule default constraint: the owner group is read by the
  // filter, so pods of one spec in different ReplicaSets are different classes.
  const std::string cfg =
      config_with({"NodeResourcesFit", "PodTopologySpread"},
                  "  pluginConfig:\n  - name: PodTopologySpread\n    args:\n"
                  "      defaultingType: List\n      defaultConstraints:\n"
                  "      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n");
  fw::Scheduler t(be, profiles_from(cfg));
  auto key2 = [&](PodId p) { return t.class_key(p, be.state().pod_serial(p)); };
  EXPECT_NE(key2(a), key2(b));
  EXPECT_EQ(key2(a), key2(d));

  // A filter that says nothing about what it reads puts every pod in a class of its own.
  class Opaque : public fw::Plugin {
   public:
    std::string_view name() const override { return "Opaque"; }
    uint32_t extension_points() const override { return fw::kFilter; }
  };
  auto prof = std::make_unique<fw::Profile>();
  prof->add(std::make_unique<Opaque>(), fw::kFilter);
  std::vector<std::unique_ptr<fw::Profile>> one;
  one.push_back(std::move(prof));
  fw::Scheduler u(be, std::move(one));
  auto key3 = [&](PodId p) { return u.class_key(p, be.state().pod_serial(p)); };
  EXPECT_NE(key3(a), key3(d));
  EXPECT_EQ(key3(a).salt_plugin, fw::PodClassKey::kUniqueSalt);
}

TEST(QueueHints, PodRejectedByTaintsWaitsForANodeChangeNotForPods) {
  const std::string objs =
      node_doc("n1", "{cpu: 4}", "{}",
               "{taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}") +
      pod_doc("running", {"{cpu: 1}"},
              "nodeName: n1\ntolerations: [{key: dedicated, operator: Exists}]") +
      pod_doc("waiting", {"{cpu: 1}"});
  Harness h(objs, config_with({"TaintToleration", "NodeResourcesFit", "DefaultPreemption"}));
  auto placed = h.schedule_all();
  EXPECT_EQ(placed["waiting"], "");
  fw::SchedulingQueue& q = h.scheduler->queue();
  ASSERT_EQ(q.unschedulable_size(), 1u);
  // A pod deleted on n1 frees resources; the pod failed for a taint: no retry.
  h.backend.delete_pod(h.pod("running"), "test");
  EXPECT_EQ(q.active_size() + q.backoff_size(), 0u);
  EXPECT_FALSE(h.scheduler->schedule_next());
  // The taint goes: the node changed, the pod is retried and placed.
  Node n = h.state().node(0);
  n.taints.clear();
  h.state().update_node(0, n);
  h.scheduler->on_event({fw::EventKind::kNodeUpdated, h.backend.now_us(), 0});
  h.backend.set_now_us(h.backend.now_us() + 20'000'000);
  auto o = h.scheduler->schedule_next();
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->scheduled);
}

TEST(QueueHints, PreemptorWaitsForALowerPriorityPodNotAHigherOne) {
  ClusterState st;
  st.add_node(make_node("n", 1000));
  st.add_node(make_node("m", 500));
  st.add_pod(make_pod("busy", cpu_spec(800, 100), "", "n"));
  st.add_pod(make_pod("waiting", cpu_spec(800, 100)));
  fw::SnapshotBackend be(std::move(st));
  fw::Scheduler s(be, default_profiles(true));
  auto outs = fw::schedule_snapshot(s, be);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_FALSE(outs[0].scheduled) << "no node fits and no pod has a lower priority";
  fw::SchedulingQueue& q = s.queue();
  // A pod of equal priority is created bound: no victim for the waiting pod, no retry.
  be.create_pod(make_pod("peer", cpu_spec(400, 100), "", "m"));
  EXPECT_EQ(q.active_size() + q.backoff_size(), 0u);
  // A lower-priority one: preemption may now find a victim.
  be.create_pod(make_pod("victim", cpu_spec(50, 0), "", "m"));
  EXPECT_EQ(q.active_size() + q.backoff_size(), 1u);
}

TEST(QueueHints, OneFailedAttemptStandsForPodsOfOneSpec) {
  ClusterState st;
  st.add_node(make_node("n", 1000));
  st.add_pod(make_pod("running", cpu_spec(600), "", "n"));
  auto spec = cpu_spec(600);
  for (int i = 0; i < 5; ++i) st.add_pod(make_pod("p" + std::to_string(i), spec, "rs"));
  fw::SnapshotBackend be(std::move(st));
  fw::Scheduler s(be, default_profiles(true));
  auto first = fw::schedule_snapshot(s, be);
  EXPECT_EQ(first.size(), 5u) << "every first attempt counts";
  for (const auto& o : first) EXPECT_FALSE(o.scheduled);
  EXPECT_EQ(s.queue().class_count(), 1u);
  // The running pod goes: its class may fit now. The first member is placed, the second fails
  // and stands for the three others, which are not tried.
  be.delete_pod(*be.state().find_pod("default", "running"), "test");
  be.set_now_us(20'000'000);
  auto after = s.run_until_idle();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_TRUE(after[0].scheduled);
  EXPECT_EQ(be.state().pod(after[0].pod).name, "p0");
  EXPECT_FALSE(after[1].scheduled);
  EXPECT_EQ(be.state().pod(after[1].pod).name, "p1");
  EXPECT_EQ(s.queue().unschedulable_size(), 4u);
}

}  // namespace
}  // namespace orrery::plugins
