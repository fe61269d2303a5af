// ResourceTable's memoised batch scores (ScoreMemo keyed by ClusterState::node_versions and the
// pod's requests) against the plain per-node formulas, over random runs of identical and mixed
// pods while pods come and go, on two diverging copies of one cluster state.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cluster_state.h"
#include "core/rng.h"
#include "plugins/noderesources/resource_allocation.h"

namespace orrery::plugins {
namespace {

Resources res(int64_t cpu_milli, int64_t memory) {
  Resources r;
  r[kCpu] = cpu_milli;
  r[kMemory] = memory;
  return r;
}

TEST(ScoreMemo, MemoisedScoresEqualDirectOnes) {
  Rng rng(11);
  ClusterState base;
  for (int i = 0; i < 12; ++i) {
    Node n;
    n.name = "n" + std::to_string(i);
    n.allocatable = res(1000 * (1 + static_cast<int64_t>(rng.below(4))),
                        (i % 5 == 0 ? 0 : 1 + static_cast<int64_t>(rng.below(4))) << 30);
    n.allocatable[kPods] = 110;
    base.add_node(n);
  }
  // Pod shapes differing in one or both resources.
  const std::vector<std::shared_ptr<PodSpec>> specs = {
      make_simple_spec(res(500, 1 << 30)), make_simple_spec(res(250, 0)),
      make_simple_spec(res(0, 512 << 20)), make_simple_spec(res(1500, 3LL << 30))};
  std::vector<ResourceSpec> weighted = default_scoring_resources();
  weighted[0].weight = 3;
  struct Scorer {
    ResourceTable table;
    int kind;  // 0 least, 1 most, 2 balanced
  };
  std::vector<Scorer> scorers = {{ResourceTable(default_scoring_resources(), false), 0},
                                 {ResourceTable(weighted, false), 0},
                                 {ResourceTable(weighted, false), 1},
                                 {ResourceTable(default_scoring_resources(), true), 2}};
  ClusterState states[2] = {base, base};
  std::vector<PodId> placed[2];
  size_t shape = 0;
  int pod_serial = 0;
  for (int step = 0; step < 600; ++step) {
    ClusterState& st = states[rng.below(2)];
    std::vector<PodId>& on = placed[&st - states];
    // Mostly runs of one shape (the memoised case), sometimes a switch.
    if (rng.bernoulli(0.25)) shape = rng.below(specs.size());
    const PodSpec& spec = *specs[shape];
    const std::vector<NodeId>& nodes = st.nodes();
    for (Scorer& s : scorers) {
      int64_t req[kMaxResources];
      s.table.pod_requests(spec, req);
      s.table.bind(st, req);
      std::vector<int64_t> got(nodes.size());
      if (s.kind == 0) s.table.least_allocated(nodes, got.data());
      if (s.kind == 1) s.table.most_allocated(nodes, got.data());
      if (s.kind == 2) s.table.balanced(nodes, got.data());
      for (size_t i = 0; i < nodes.size(); ++i) {
        int64_t r[kMaxResources], a[kMaxResources];
        s.table.node_values(nodes[i], r, a);
        const size_t k = s.table.size();
        const int64_t want =
            s.kind == 0   ? least_allocated_score({r, k}, {a, k}, s.table.resources())
            : s.kind == 1 ? most_allocated_score({r, k}, {a, k}, s.table.resources())
                          : balanced_allocation_score({r, k}, {a, k});
        ASSERT_EQ(got[i], want) << "step " << step << " scorer kind " << s.kind << " node "
                                << nodes[i];
      }
    }
    // Change the state: place a pod of a random shape, or take one away.
    if (on.empty() || rng.bernoulli(0.6)) {
      Pod p;
      p.name = "p" + std::to_string(pod_serial++);
      p.spec = specs[rng.below(specs.size())];
      const PodId id = st.add_pod(p);
      st.assign(id, nodes[rng.below(nodes.size())]);
      on.push_back(id);
    } else {
      const size_t j = rng.below(on.size());
      if (rng.bernoulli(0.5)) {
        st.unassign(on[j]);
      } else {
        st.remove_pod(on[j]);
      }
      on[j] = on.back();
      on.pop_back();
    }
  }
}

}  // namespace
}  // namespace orrery::plugins
