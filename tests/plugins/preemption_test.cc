// DefaultPreemption: victim selection with reprieve, candidate ranking (pickOneNodeForPreemption),
// messages, nomination, and waiting for terminating victims.
#include <gtest/gtest.h>

#include "harness.h"
#include "io/k8s_objects.h"
#include "plugins/defaultpreemption/default_preemption.h"

namespace orrery::plugins {
namespace {

using testing::Harness;
using testing::node_doc;
using testing::pod_doc;
using testing::profiles_from;

const std::string kConfig =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    "profiles:\n- deterministic: true\n";

std::string bound(const std::string& name, const std::string& node, int prio,
                  const std::string& cpu, const std::string& created = "2024-01-01T00:00:00Z") {
  return pod_doc(name, {"{cpu: " + cpu + "}"},
                 "nodeName: " + node + "\npriority: " + std::to_string(prio),
                 "creationTimestamp: \"" + created + "\"");
}
std::string pending(const std::string& name, int prio, const std::string& cpu) {
  return pod_doc(name, {"{cpu: " + cpu + "}"}, "priority: " + std::to_string(prio));
}

// The first scheduling attempt of `pod`, scheduling only until then.
fw::ScheduleOutcome first_attempt(Harness& h, const std::string& pod,
                                  std::vector<std::string>* victims) {
  h.scheduler->enqueue_pending();
  while (auto o = h.scheduler->schedule_next()) {
    if (h.state().pod_alive(o->pod) && h.state().pod(o->pod).name == pod) {
      // Victims are deleted right after the cycle; their names were captured in the deletions.
      for (const auto& d : h.backend.deletions()) victims->push_back(split_pod_key(d.pod).second);
      return *o;
    }
  }
  ADD_FAILURE() << "pod " << pod << " was never attempted";
  return {};
}

TEST(DefaultPreemption, ReprievesMostImportantVictimsFirst) {
  // Node cpu 3: a (prio 1), b (prio 2), c (prio 3) each 1 cpu; p (prio 10) needs 1.5.
  // Without all three p fits; reprieve c (1 + 1.5 ≤ 3: kept), then b (2 + 1.5 > 3: victim), then
  // a (victim).
  Harness h(node_doc("n", "{cpu: 3, memory: 1Gi}") + bound("a", "n", 1, "1") +
                bound("b", "n", 2, "1") + bound("c", "n", 3, "1") + pending("p", 10, "1500m"),
            kConfig);
  std::vector<std::string> victims;
  auto o = first_attempt(h, "p", &victims);
  EXPECT_FALSE(o.scheduled);
  EXPECT_EQ(h.state().node(o.nominated_node).name, "n");
  EXPECT_EQ(victims, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(o.message, "0/1 nodes are available: 1 Insufficient cpu.");
  // The victims' deletion requeues p, which then lands on its nominated node.
  auto placed = h.schedule_all();
  EXPECT_EQ(placed["p"], "n");
  EXPECT_EQ(placed["c"], "n");
}

TEST(DefaultPreemption, PrefersLowestHighestVictimPriority) {
  Harness h(node_doc("n1", "{cpu: 1, memory: 1Gi}") + node_doc("n2", "{cpu: 1, memory: 1Gi}") +
                bound("x", "n1", 5, "1") + bound("y", "n2", 3, "1") + pending("p", 10, "1"),
            kConfig);
  std::vector<std::string> victims;
  auto o = first_attempt(h, "p", &victims);
  EXPECT_EQ(h.state().node(o.nominated_node).name, "n2");
  EXPECT_EQ(victims, std::vector<std::string>{"y"});
}

TEST(DefaultPreemption, PrefersFewerVictimsViaPrioritySum) {
  // Both highest victims have priority 4; n1 needs two victims (sum 6 + 2·2^31), n2 one (4 + 2^31).
  Harness h(node_doc("n1", "{cpu: 2, memory: 1Gi}") + node_doc("n2", "{cpu: 2, memory: 1Gi}") +
                bound("x", "n1", 4, "1") + bound("y", "n1", 2, "1") + bound("u", "n2", 4, "2") +
                pending("p", 10, "2"),
            kConfig);
  std::vector<std::string> victims;
  auto o = first_attempt(h, "p", &victims);
  EXPECT_EQ(h.state().node(o.nominated_node).name, "n2");
  EXPECT_EQ(victims, std::vector<std::string>{"u"});
}

TEST(DefaultPreemption, PrefersLatestStartedVictims) {
  Harness h(node_doc("n1", "{cpu: 1, memory: 1Gi}") + node_doc("n2", "{cpu: 1, memory: 1Gi}") +
                bound("old", "n1", 4, "1", "2024-01-01T00:00:00Z") +
                bound("young", "n2", 4, "1", "2024-01-01T06:00:00Z") + pending("p", 10, "1"),
            kConfig);
  std::vector<std::string> victims;
  auto o = first_attempt(h, "p", &victims);
  EXPECT_EQ(h.state().node(o.nominated_node).name, "n2");
  EXPECT_EQ(victims, std::vector<std::string>{"young"});
}

TEST(DefaultPreemption, NeverPreemptsEqualOrHigherPriority) {
  Harness h(
      node_doc("n", "{cpu: 1, memory: 1Gi}") + bound("same", "n", 10, "1") + pending("p", 10, "1"),
      kConfig);
  std::vector<std::string> victims;
  auto o = first_attempt(h, "p", &victims);
  EXPECT_EQ(o.nominated_node, kNoNode);
  EXPECT_TRUE(victims.empty());
  EXPECT_EQ(o.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "No preemption victims found for incoming pod.");
}

TEST(DefaultPreemption, VictimsThatDoNotHelpAreNotEvicted) {
  // Removing the only lower-priority pod frees 1 cpu; p needs 1.5 → the filter's reason is kept.
  Harness h(node_doc("n", "{cpu: 2, memory: 1Gi}") + bound("low", "n", 0, "1") +
                bound("high", "n", 100, "1") + pending("p", 10, "1500m"),
            kConfig);
  std::vector<std::string> victims;
  auto o = first_attempt(h, "p", &victims);
  EXPECT_TRUE(victims.empty());
  EXPECT_EQ(o.message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 "
            "Insufficient cpu.");
  EXPECT_EQ(h.state().requested(kCpu)[*h.state().find_node("n")], 2000) << "state restored";
}

// Deletions take effect only on flush(), like pods in their graceful termination period.
class SlowDeletes : public fw::SnapshotBackend {
 public:
  using SnapshotBackend::SnapshotBackend;
  void delete_pod(PodId pod, const std::string& reason) override {
    pending_.push_back({state().pod_serial(pod), reason});
  }
  void flush() {
    auto p = std::move(pending_);
    for (auto& [serial, reason] : p) {
      for (PodId id : state().pods())
        if (state().pod_serial(id) == serial) SnapshotBackend::delete_pod(id, reason);
    }
  }

 private:
  std::vector<std::pair<uint64_t, std::string>> pending_;
};

TEST(DefaultPreemption, WaitsForTerminatingVictims) {
  SlowDeletes be(build_cluster(parse_k8s_objects(
      node_doc("n", "{cpu: 1, memory: 1Gi}") + bound("low", "n", 0, "1") + pending("p", 10, "1"),
      "t.yaml")));
  fw::Scheduler s(be, profiles_from(kConfig));
  s.enqueue_pending();
  auto first = s.schedule_next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->victims.size(), 1u);
  // Something else happens in the cluster; p is retried while "low" is still terminating.
  s.queue().move_all_to_active_or_backoff(be.now_us() + 60'000'000);
  be.set_now_us(be.now_us() + 60'000'000);
  auto second = s.schedule_next();
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->scheduled);
  EXPECT_TRUE(second->victims.empty()) << "no second round of victims";
  EXPECT_EQ(second->message,
            "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a "
            "terminating pod on the nominated node.");
  be.flush();  // the victim is gone: the deletion event requeues p
  be.set_now_us(be.now_us() + 60'000'000);
  auto third = s.schedule_next();
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->scheduled);
  EXPECT_EQ(be.state().node(third->node).name, "n");
}

TEST(DefaultPreemption, NumCandidates) {
  DefaultPreemption p;
  EXPECT_EQ(p.num_candidates(50), 50u);     // fewer nodes than the absolute minimum
  EXPECT_EQ(p.num_candidates(500), 100u);   // max(10 % = 50, 100)
  EXPECT_EQ(p.num_candidates(5000), 500u);  // 10 %
  DefaultPreemption q({50, 10});
  EXPECT_EQ(q.num_candidates(100), 50u);
  EXPECT_EQ(q.num_candidates(8), 8u);
}

}  // namespace
}  // namespace orrery::plugins
