// Per-node memo of a score that is a function of the node's accounting (allocatable and counted
// requests, see ClusterState::node_versions) and of a per-pod key (e.g. the pod's requests). A
// memoised score is reused only while the node's version and the key are unchanged, so the result
// is exactly the computed one; node versions are never reused, so entries can never be mistaken
// for another node's or another state's.
//
// It pays for runs of identical pods (a Job's or trace's tasks, a Deployment's replicas): a node
// scored for one pod is scored again for the next at the cost of two loads. Memoisation starts
// when two consecutive cycles have the same key; pods with a key different from the previous
// one are scored directly, without storing, so mixed workloads pay one key comparison per cycle.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/cluster_state.h"

namespace orrery::plugins {

class ScoreMemo {
 public:
  static constexpr size_t kMaxKey = 2 * kMaxResources + 2;

  struct Entry {
    uint64_t version = 0;  // the node's version when `score` was computed (0: never)
    uint32_t gen = 0;      // the key generation it was computed for
    int32_t score = 0;
  };

  // Starts a cycle with the pod's key (at most kMaxKey values). Returns whether the memo is used
  // this cycle; if so, look entries up with lookup() / store().
  bool begin(const ClusterState& st, const int64_t* key, size_t len) {
    const bool same_as_memo = len == memo_len_ && std::equal(key, key + len, memo_key_.data());
    bool use = same_as_memo;
    if (!use && len == prev_len_ && std::equal(key, key + len, prev_key_.data())) {
      std::copy_n(key, len, memo_key_.data());  // a run of identical pods: (re)start the memo
      memo_len_ = len;
      if (++gen_ == 0) {  // wrapped: forget every entry rather than risk an old generation
        std::fill(entries_.begin(), entries_.end(), Entry{});
        gen_ = 1;
      }
      use = true;
    }
    std::copy_n(key, len, prev_key_.data());
    prev_len_ = len;
    if (use) {
      if (entries_.size() < st.node_slots()) entries_.resize(st.node_slots());
      versions_ = st.node_versions();
    }
    return use;
  }

  // Scores nodes[i] into scores[i] with `compute(NodeId)`, through the memo when begin() said so.
  // Scores must fit in 32 bits (node scores are 0..100).
  template <class Compute>
  void score(bool use, const NodeId* nodes, size_t n, int64_t* scores, Compute&& compute) {
    if (!use) {
      for (size_t i = 0; i < n; ++i) scores[i] = compute(nodes[i]);
      return;
    }
    Entry* entries = entries_.data();
    const uint64_t* versions = versions_;
    const uint32_t gen = gen_;
    for (size_t i = 0; i < n; ++i) {
      const NodeId id = nodes[i];
      Entry& e = entries[id];
      const uint64_t v = versions[id];
      if (e.version == v && e.gen == gen) {
        scores[i] = e.score;
        continue;
      }
      const int64_t s = compute(id);
      e = {v, gen, static_cast<int32_t>(s)};
      scores[i] = s;
    }
  }

 private:
  std::vector<Entry> entries_;
  const uint64_t* versions_ = nullptr;
  uint32_t gen_ = 0;
  std::array<int64_t, kMaxKey> memo_key_{};
  size_t memo_len_ = ~size_t{0};
  std::array<int64_t, kMaxKey> prev_key_{};
  size_t prev_len_ = ~size_t{0};
};

}  // namespace orrery::plugins
