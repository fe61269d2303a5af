// The CaricoCapacity plugin against a fake CapacityFeed: filter reasons (no capacity, no report,
// stale), score normalisation, pods without requests, and reservations released on every path
// (Running, Finished, Deleted, BindFailed, Unreserve, the reservation removed by others).
#include <gtest/gtest.h>

#include <map>

#include "core/rng.h"
#include "framework/reservations.h"
#include "policies/carico/plugin.h"

namespace orrery::carico {
namespace {

class FakeFeed : public CapacityFeed {
 public:
  std::optional<NodeCapacity> capacity(const ClusterState&, NodeId node, Time now_us) const override {
    auto it = rows.find(node);
    if (it == rows.end()) return std::nullopt;
    NodeCapacity c = it->second.first;
    c.age_s = to_seconds(now_us - it->second.second);
    return c;
  }
  void set(NodeId n, double pod_capacity, Time at) {
    rows[n] = {NodeCapacity{pod_capacity, pod_capacity, 0, 0}, at};
    updated(n);
  }
  std::map<NodeId, std::pair<NodeCapacity, Time>> rows;
};

struct Fixture {
  Fixture() {
    for (const char* n : {"a", "b", "c", "d"}) {
      Node node;
      node.name = n;
      node.allocatable[kCpu] = 4000;
      node.allocatable[kPods] = 110;
      nodes.push_back(state.add_node(node));
    }
  }
  PodId pod(const std::string& name) {
    Pod p;
    p.name = name;
    p.spec = make_simple_spec({});  // no requests at all
    return state.add_pod(p);
  }
  fw::CycleContext cycle(PodId p, Time now) {
    return fw::CycleContext{state, p, state.pod(p), *state.pod(p).spec, now, rng};
  }
  ClusterState state;
  std::vector<NodeId> nodes;
  FakeFeed feed;
  fw::Reservations res;
  Rng rng{1};
};

std::vector<std::string> reasons(const CaricoCapacity& pl, const ClusterState& s,
                                 const fw::Rejections& r) {
  std::vector<std::string> out;
  for (const auto& item : r.items()) pl.describe(s, item, &out);
  return out;
}

TEST(CaricoPlugin, FiltersByCapacityReportAndFreshness) {
  Fixture f;
  CaricoCapacity pl(&f.feed, &f.res);
  const Time now = 10 * kSecond;
  f.feed.set(f.nodes[0], 3.5, now - kSecond);       // usable
  f.feed.set(f.nodes[1], 0.6, now - kSecond);       // < 1 pod
  f.feed.set(f.nodes[2], 9.0, now - 4 * kSecond);   // stale (> 3 s)
  // nodes[3] never reported
  const PodId p = f.pod("p");
  std::vector<NodeId> cand = f.nodes;
  fw::Rejections rej;
  const auto cyc = f.cycle(p, now);
  ASSERT_EQ(pl.filter(cyc, cand.data(), cand.size(), rej), 1u);
  EXPECT_EQ(cand[0], f.nodes[0]);
  EXPECT_EQ(reasons(pl, f.state, rej),
            (std::vector<std::string>{"node(s) had no CARICO capacity",
                                      "node(s) had a stale CARICO report (older than 3s)",
                                      "node(s) had no CARICO report"}));
}

TEST(CaricoPlugin, ScoresCapacityMinusReservedOnZeroToHundred) {
  Fixture f;
  CaricoCapacity pl(&f.feed, &f.res);
  const Time now = kSecond;
  f.feed.set(f.nodes[0], 8, now);
  f.feed.set(f.nodes[1], 4, now);
  f.feed.set(f.nodes[2], 2, now);
  const PodId p = f.pod("p");
  std::vector<NodeId> cand(f.nodes.begin(), f.nodes.begin() + 3);
  std::vector<int64_t> s(3);
  auto cyc = f.cycle(p, now);
  pl.score(cyc, cand, s.data());
  pl.normalize(cyc, cand, s.data());
  EXPECT_EQ(s, (std::vector<int64_t>{100, 50, 25}));
  // Four reservations on node a: 8 − 4 = 4, now level with b.
  for (int i = 0; i < 4; ++i) {
    const PodId q = f.pod("q" + std::to_string(i));
    ASSERT_TRUE(pl.reserve(f.cycle(q, now), f.nodes[0]).is_ok());
  }
  EXPECT_EQ(pl.reserved(f.nodes[0]), 4);
  pl.score(cyc, cand, s.data());
  pl.normalize(cyc, cand, s.data());
  EXPECT_EQ(s, (std::vector<int64_t>{100, 100, 50}));
}

TEST(CaricoPlugin, ReservationsAreReleasedOnEveryPath) {
  Fixture f;
  CaricoCapacity pl(&f.feed, &f.res);
  const Time now = kSecond;
  f.feed.set(f.nodes[0], 100, now);
  const NodeId a = f.nodes[0];
  const fw::EventKind kinds[] = {fw::EventKind::kPodRunning, fw::EventKind::kPodFinished,
                                 fw::EventKind::kPodDeleted, fw::EventKind::kPodBindFailed};
  for (fw::EventKind k : kinds) {
    const PodId p = f.pod("p");
    ASSERT_TRUE(pl.reserve(f.cycle(p, now), a).is_ok());
    EXPECT_EQ(pl.reserved(a), 1);
    EXPECT_EQ(f.res.size(), 1u);
    // Events that do not end Pending change nothing.
    pl.on_event(fw::ClusterEvent{fw::EventKind::kPodBound, now, a, p, f.state.pod_serial(p)});
    EXPECT_EQ(pl.reserved(a), 1);
    pl.on_event(fw::ClusterEvent{k, now, a, p, f.state.pod_serial(p)});
    EXPECT_EQ(pl.reserved(a), 0) << fw::to_string(k);
    EXPECT_TRUE(f.res.empty()) << fw::to_string(k);
    f.state.remove_pod(p);
  }
  // Unreserve (a later extension point failed).
  const PodId p = f.pod("u");
  ASSERT_TRUE(pl.reserve(f.cycle(p, now), a).is_ok());
  pl.unreserve(f.cycle(p, now), a);
  EXPECT_EQ(pl.reserved(a), 0);
  EXPECT_TRUE(f.res.empty());
  // Reserving twice keeps one reservation.
  ASSERT_TRUE(pl.reserve(f.cycle(p, now), a).is_ok());
  ASSERT_TRUE(pl.reserve(f.cycle(p, now), f.nodes[1]).is_ok());
  EXPECT_EQ(pl.reserved(a), 0);
  EXPECT_EQ(pl.reserved(f.nodes[1]), 1);
  EXPECT_EQ(f.res.size(), 1u);
  // Removed by someone else (the node went away): the count follows.
  f.res.forget_node(f.nodes[1]);
  EXPECT_EQ(pl.reserved(f.nodes[1]), 0);
  EXPECT_EQ(pl.reservations_held(), 0u);
}

TEST(CaricoPlugin, AReportThatFreesABlockedNodeWakesTheQueue) {
  Fixture f;
  CaricoCapacity pl(&f.feed, &f.res);
  struct Counter : fw::Reservations::Listener {
    void on_released(const fw::Reservation& r) override { nodes.push_back(r.node); }
    std::vector<NodeId> nodes;
  } released;
  f.res.add_listener(&released);
  const Time now = kSecond;
  f.feed.set(f.nodes[0], 0.2, now);
  const PodId p = f.pod("p");
  std::vector<NodeId> cand{f.nodes[0]};
  fw::Rejections rej;
  EXPECT_EQ(pl.filter(f.cycle(p, now), cand.data(), 1, rej), 0u);
  f.feed.set(f.nodes[0], 0.5, now);  // still blocked: nothing
  EXPECT_TRUE(released.nodes.empty());
  f.feed.set(f.nodes[0], 3.0, now);  // usable again: one queue event on that node
  EXPECT_EQ(released.nodes, std::vector<NodeId>{f.nodes[0]});
  EXPECT_TRUE(f.res.empty());
  f.res.remove_listener(&released);
}

}  // namespace
}  // namespace orrery::carico
