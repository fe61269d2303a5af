#include "policies/baselines/sencillo.h"

#include <gtest/gtest.h>

#include <map>

#include "framework/scheduler.h"
#include "plugins/register.h"
#include "policies/baselines/edge_preference.h"
#include "policies/baselines/profiles.h"

namespace orrery::baselines {
namespace {

constexpr int64_t kGi = 1LL << 30;

Node node(const std::string& name, int64_t cores, int64_t gib, const std::string& tier) {
  Node n;
  n.name = name;
  n.allocatable[kCpu] = cores * 1000;
  n.allocatable[kMemory] = gib * kGi;
  n.allocatable[kPods] = 110;
  if (!tier.empty()) n.labels.set("orrery.io/tier", tier);
  n.derive_orrery_fields(name);
  return n;
}

Pod pod(const std::string& name, int64_t cores, int64_t gib) {
  Resources r;
  r[kCpu] = cores * 1000;
  r[kMemory] = gib * kGi;
  Pod p;
  p.name = name;
  p.spec = make_simple_spec(r);
  return p;
}

// Feasibility for these tests: cpu and memory fit (the real profiles use NodeResourcesFit).
class Fit : public fw::Plugin {
 public:
  std::string_view name() const override { return "Fit"; }
  uint32_t extension_points() const override { return fw::kFilter; }
  size_t filter(const fw::CycleContext& c, NodeId* nodes, size_t n, fw::Rejections& rej) override {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (c.spec.request.fits_in(c.state.free_of(nodes[i])))
        nodes[k++] = nodes[i];
      else
        rej.add(nodes[i], 0, 0, false);
    }
    return k;
  }
  void describe(const ClusterState&, const fw::Rejection&,
                std::vector<std::string>* r) const override {
    r->push_back("Insufficient resources");
  }
};

// Schedules the pending pods of `st` one by one with Fit + the baseline; returns node names.
std::vector<std::string> schedule(ClusterState st, Sencillo kind, uint64_t seed = 1) {
  fw::SnapshotBackend be(std::move(st));
  auto prof = std::make_unique<fw::Profile>();
  prof->deterministic_ties = false;
  prof->add(std::make_unique<Fit>(), fw::kFilter);
  prof->add(std::make_unique<SencilloScore>(kind), fw::kScore, 1);
  std::vector<std::unique_ptr<fw::Profile>> profiles;
  profiles.push_back(std::move(prof));
  fw::SchedulerOptions opt;
  opt.seed = seed;
  fw::Scheduler s(be, std::move(profiles), opt);
  s.enqueue_pending();
  std::vector<std::string> out;
  for (const auto& o : s.run_until_idle())
    out.push_back(o.scheduled ? be.state().node(o.node).name : "-");
  return out;
}

// Edge nodes of the paper's Table 4 (free space differs once pods run) and its cloud node.
ClusterState paper_cluster() {
  ClusterState st;
  st.add_node(node("N2", 5, 5, "edge"));
  st.add_node(node("N3", 4, 4, "edge"));
  st.add_node(node("N4", 7, 5, "edge"));
  st.add_node(node("N5", 22, 17, "cloud"));
  return st;
}

TEST(Sencillo, BiggestEdgeFirstPicksTheEdgeNodeWithMostFreeResources) {
  ClusterState st = paper_cluster();
  st.add_pod(pod("a", 1, 1));
  EXPECT_EQ(schedule(std::move(st), Sencillo::kBiggestEdgeFirst),
            std::vector<std::string>{"N4"});  // sqrt(7/16 × 5/14) is the largest
}

TEST(Sencillo, SmallestEdgeFirstPicksTheSmallestFittingEdgeNode) {
  ClusterState st = paper_cluster();
  st.add_pod(pod("a", 1, 1));
  EXPECT_EQ(schedule(std::move(st), Sencillo::kSmallestEdgeFirst), std::vector<std::string>{"N3"});
}

TEST(Sencillo, EdgeFirstBaselinesFillTheEdgeThenUseTheCloud) {
  for (Sencillo k : {Sencillo::kBiggestEdgeFirst, Sencillo::kSmallestEdgeFirst}) {
    ClusterState st = paper_cluster();
    // 16 one-core pods fit on the edge's 16 cores (memory allows it: 1 GiB each, 14 GiB).
    for (int i = 0; i < 15; ++i) st.add_pod(pod("p" + std::to_string(i), 1, 0));
    st.add_pod(pod("big", 6, 1));  // no edge node has 6 free cores any more
    const std::vector<std::string> got = schedule(std::move(st), k);
    ASSERT_EQ(got.size(), 16u);
    std::map<std::string, int> per;
    for (size_t i = 0; i < 15; ++i) ++per[got[i]];
    EXPECT_EQ(per["N5"], 0) << plugin_name(k);
    EXPECT_EQ(got[15], "N5") << plugin_name(k);
  }
}

TEST(Sencillo, SmallestEdgeFirstPacksWhereBiggestSpreads) {
  ClusterState a = paper_cluster(), b = paper_cluster();
  for (int i = 0; i < 4; ++i) {
    a.add_pod(pod("p" + std::to_string(i), 1, 1));
    b.add_pod(pod("p" + std::to_string(i), 1, 1));
  }
  const auto sef = schedule(std::move(a), Sencillo::kSmallestEdgeFirst);
  const auto bef = schedule(std::move(b), Sencillo::kBiggestEdgeFirst);
  EXPECT_EQ(sef, (std::vector<std::string>{"N3", "N3", "N3", "N3"}));
  std::map<std::string, int> spread;
  for (const auto& n : bef) ++spread[n];
  EXPECT_GE(spread.size(), 2u);  // BEF moves on once N4 is no longer the biggest
}

TEST(Sencillo, CloudFirstUsesTheCloudUntilItIsFull) {
  ClusterState st = paper_cluster();
  st.add_pod(pod("a", 20, 1));
  st.add_pod(pod("b", 3, 1));  // only 2 cores left on the cloud
  const std::vector<std::string> got = schedule(std::move(st), Sencillo::kCloudFirst);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "N5");
  EXPECT_TRUE(got[1] == "N2" || got[1] == "N3" || got[1] == "N4") << got[1];
}

TEST(Sencillo, RandomSpreadsOverEveryFeasibleNode) {
  std::map<std::string, int> hits;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    ClusterState st = paper_cluster();
    st.add_pod(pod("a", 1, 1));
    ++hits[schedule(std::move(st), Sencillo::kRandom, seed)[0]];
  }
  ASSERT_EQ(hits.size(), 4u);
  for (const auto& [n, k] : hits) EXPECT_GT(k, 60) << n;  // 100 expected each
}

TEST(Sencillo, NodesWithoutATierCountAsCloud) {
  ClusterState st;
  st.add_node(node("plain", 8, 8, ""));
  st.add_node(node("edge", 2, 2, "edge"));
  st.add_pod(pod("a", 1, 1));
  EXPECT_EQ(schedule(std::move(st), Sencillo::kBiggestEdgeFirst), std::vector<std::string>{"edge"});
}

TEST(Sencillo, RegistersFourPlugins) {
  fw::PluginRegistry r;
  register_sencillo_plugins(r);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"BiggestEdgeFirst", "CloudFirst", "SencilloRandom",
                                                 "SmallestEdgeFirst"}));
  EXPECT_EQ(r.create("CloudFirst", {})->name(), "CloudFirst");
}

// Schedules with full profiles (the default plugins); returns per-tier counts.
std::map<std::string, int> tiers(fw::SnapshotBackend& be,
                                 std::vector<std::unique_ptr<fw::Profile>> profiles) {
  fw::SchedulerOptions opt;
  opt.seed = 3;
  fw::Scheduler s(be, std::move(profiles), opt);
  s.enqueue_pending();
  std::map<std::string, int> out;
  for (const auto& o : s.run_until_idle())
    ++out[o.scheduled ? std::string(to_string(be.state().node(o.node).tier)) : "pending"];
  return out;
}

TEST(SencilloProfiles, KeepTheDefaultFilters) {
  ClusterState st = paper_cluster();
  Node n4 = st.node(*st.find_node("N4"));
  Taint t;
  t.key = intern("maintenance");
  t.effect = TaintEffect::kNoSchedule;
  n4.taints.push_back(t);
  st.update_node(*st.find_node("N4"), n4);
  st.add_pod(pod("a", 1, 1));
  fw::SnapshotBackend be(std::move(st));
  fw::Scheduler s(be, sencillo_profiles(Sencillo::kBiggestEdgeFirst));
  s.enqueue_pending();
  const auto outs = s.run_until_idle();
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(be.state().node(outs[0].node).name, "N2");  // N4 is tainted, N2 is the next biggest
}

// The paper's K8S baseline: the default profile with the cloud tainted PreferNoSchedule and pods
// preferring edge nodes fills the edge first; without them, LeastAllocated favours the big cloud.
TEST(SencilloProfiles, EdgePreferenceMakesKubeDefaultFillTheEdgeFirst) {
  auto run = [](bool prefer) {
    ClusterState st = paper_cluster();
    if (prefer) {
      const NodeId c = *st.find_node("N5");
      Node n = st.node(c);
      taint_cloud_node(n);
      st.update_node(c, n);
    }
    auto spec = std::make_shared<PodSpec>(*pod("x", 1, 0).spec);
    spec->containers[0].requests[kMemory] = 950LL << 20;
    spec->containers[0].requests_set = spec->containers[0].requests.nonzero_mask();
    if (prefer) prefer_edge(*spec);
    spec->finalize();
    for (int i = 0; i < 20; ++i) {
      Pod p;
      p.name = "a-" + std::to_string(i);
      p.spec = spec;
      st.add_pod(std::move(p));
    }
    fw::SnapshotBackend be(std::move(st));
    return tiers(be, plugins::default_profiles());
  };
  const auto with = run(true);
  EXPECT_EQ(with.at("edge"), 14);  // memory-bound: 5 + 4 + 5 pods of 950Mi
  EXPECT_EQ(with.at("cloud"), 6);
  const auto without = run(false);
  EXPECT_LT(without.at("edge"), 14);
}

TEST(EdgePreference, TaintsCloudNodesOnceAndLeavesEdgeNodesAlone) {
  Node cloud = node("c", 8, 8, "cloud"), edge = node("e", 2, 2, "edge");
  EXPECT_TRUE(taint_cloud_node(cloud));
  EXPECT_FALSE(taint_cloud_node(cloud));
  ASSERT_EQ(cloud.taints.size(), 1u);
  EXPECT_EQ(cloud.taints[0].effect, TaintEffect::kPreferNoSchedule);
  EXPECT_EQ(interned(cloud.taints[0].key), "orrery.io/tier");
  EXPECT_FALSE(taint_cloud_node(edge));
  EXPECT_TRUE(edge.taints.empty());
}

TEST(EdgePreference, AddsOnePreferredEdgeAffinity) {
  PodSpec spec = *make_simple_spec({});
  EXPECT_TRUE(prefer_edge(spec));
  EXPECT_FALSE(prefer_edge(spec));
  ASSERT_EQ(spec.node_affinity.preferred.size(), 1u);
  EXPECT_EQ(spec.node_affinity.preferred[0].weight, 100);
  EXPECT_FALSE(spec.node_affinity.required.has_value());
}

}  // namespace
}  // namespace orrery::baselines
