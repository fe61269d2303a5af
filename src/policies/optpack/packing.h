// A partial or complete assignment with incremental accounting (node loads, placed pods and
// disruption per tier), shared by the local search and the branch-and-bound.
#pragma once

#include <vector>

#include "policies/optpack/phase.h"

namespace orrery::optpack {

class Packing {
 public:
  Packing(const PhaseProblem& pb, const Assignment& a)
      : pb_(pb),
        m_(*pb.m),
        a_(a.size(), kUnplaced),
        load_(m_.cap.size(), 0),
        placed_(m_.tiers(), 0),
        disr_(m_.tiers(), 0) {
    for (int p = 0; p < m_.pods(); ++p)
      if (m_.where[p] != kUnplaced && pb_.in_scope(p)) disr_[m_.tier[p]] += 2;
    for (int p = 0; p < m_.pods(); ++p)
      if (a[p] != kUnplaced) place(p, a[p]);
  }

  const Assignment& assignment() const { return a_; }
  int node_of(int p) const { return a_[p]; }
  int placed(int t) const { return placed_[t]; }
  int disruption(int t) const { return disr_[t]; }
  // Over tiers 0..t (the paper's metrics are over every pod with p.priority <= pr).
  int placed_upto(int t) const {
    int s = 0;
    for (int i = 0; i <= t; ++i) s += placed_[i];
    return s;
  }
  int disruption_upto(int t) const {
    int s = 0;
    for (int i = 0; i <= t; ++i) s += disr_[i];
    return s;
  }
  const int64_t* load(int j) const { return &load_[static_cast<size_t>(j) * m_.dims]; }

  bool fits(int p, int j) const {
    if (!m_.can_host(p, j)) return false;
    const int64_t* r = m_.request(p);
    const int64_t* l = load(j);
    const int64_t* c = m_.capacity(j);
    for (int d = 0; d < m_.dims; ++d)
      if (r[d] > 0 && l[d] + r[d] > c[d]) return false;
    return true;
  }
  // Fits once pod q leaves j.
  bool fits_without(int p, int j, int q) const {
    if (!m_.can_host(p, j)) return false;
    const int64_t* r = m_.request(p);
    const int64_t* rq = m_.request(q);
    const int64_t* l = load(j);
    const int64_t* c = m_.capacity(j);
    for (int d = 0; d < m_.dims; ++d)
      if (r[d] > 0 && l[d] - rq[d] + r[d] > c[d]) return false;
    return true;
  }
  void place(int p, int j) {
    a_[p] = j;
    int64_t* l = &load_[static_cast<size_t>(j) * m_.dims];
    const int64_t* r = m_.request(p);
    for (int d = 0; d < m_.dims; ++d) l[d] += r[d];
    ++placed_[m_.tier[p]];
    disr_[m_.tier[p]] += cost_at(p, j) - 2 * running(p);
  }
  void unplace(int p) {
    const int j = a_[p];
    int64_t* l = &load_[static_cast<size_t>(j) * m_.dims];
    const int64_t* r = m_.request(p);
    for (int d = 0; d < m_.dims; ++d) l[d] -= r[d];
    --placed_[m_.tier[p]];
    disr_[m_.tier[p]] -= cost_at(p, j) - 2 * running(p);
    a_[p] = kUnplaced;
  }
  void move(int p, int j) {
    unplace(p);
    place(p, j);
  }
  // Disruption of pod p if placed on j (or kUnplaced).
  int cost_at(int p, int j) const {
    if (m_.where[p] == kUnplaced) return 0;
    return j == m_.where[p] ? 0 : (j == kUnplaced ? 2 : 1);
  }
  int running(int p) const { return m_.where[p] != kUnplaced ? 1 : 0; }

  // Earlier tiers' fixings (and, in phase 2, this tier's count) hold.
  bool fixings_hold() const {
    int placed = 0, disr = 0;
    for (int t = 0; t <= pb_.tier; ++t) {
      placed += placed_[t];
      disr += disr_[t];
      if (pb_.fix.min_placed[t] >= 0 && placed < pb_.fix.min_placed[t]) return false;
      if (pb_.fix.max_disruption[t] >= 0 && disr > pb_.fix.max_disruption[t]) return false;
    }
    return true;
  }
  int64_t cost() const {
    return pb_.phase == Phase::kPlace ? -placed_upto(pb_.tier) : disruption_upto(pb_.tier);
  }

 private:
  const PhaseProblem& pb_;
  const Model& m_;
  Assignment a_;
  std::vector<int64_t> load_;
  std::vector<int> placed_, disr_;
};

}  // namespace orrery::optpack
