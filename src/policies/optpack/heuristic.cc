#include "policies/optpack/heuristic.h"

#include <algorithm>
#include <numeric>

#include "policies/optpack/packing.h"

namespace orrery::optpack {

namespace {

// A pod's size relative to the average node capacity, summed over dimensions.
std::vector<double> relative_sizes(const Model& m) {
  std::vector<double> avg(m.dims, 0);
  for (int j = 0; j < m.nodes(); ++j)
    for (int d = 0; d < m.dims; ++d)
      avg[d] += static_cast<double>(std::max<int64_t>(0, m.capacity(j)[d]));
  std::vector<double> s(m.pods(), 0);
  for (int p = 0; p < m.pods(); ++p)
    for (int d = 0; d < m.dims; ++d)
      if (avg[d] > 0) s[p] += static_cast<double>(m.request(p)[d]) * m.nodes() / avg[d];
  return s;
}

// Slack a node would keep after taking p (smaller is a better fit).
double slack_after(const Model& m, const Packing& k, int p, int j) {
  double s = 0;
  for (int d = 0; d < m.dims; ++d) {
    const double c = static_cast<double>(std::max<int64_t>(1, m.capacity(j)[d]));
    s += (static_cast<double>(m.capacity(j)[d] - k.load(j)[d] - m.request(p)[d])) / c;
  }
  return s;
}

int best_fit(const Model& m, const Packing& k, int p) {
  int best = kUnplaced;
  double best_slack = 0;
  for (int j = 0; j < m.nodes(); ++j) {
    if (!k.fits(p, j)) continue;
    const double s = slack_after(m, k, p, j);
    if (best == kUnplaced || s < best_slack) best = j, best_slack = s;
  }
  return best;
}

class Search {
 public:
  Search(const PhaseProblem& pb, const Assignment& a, Deadline& dl, Rng& rng)
      : pb_(pb), m_(*pb.m), k_(pb, a), dl_(dl), rng_(rng), size_(relative_sizes(m_)) {}

  Assignment run(int kicks) {
    Assignment best = k_.assignment();
    int64_t best_cost = k_.cost();
    descend();
    if (k_.cost() < best_cost) best = k_.assignment(), best_cost = k_.cost();
    for (int round = 0; round < kicks && !dl_.expired() && !proven_best(); ++round) {
      kick();
      descend();
      if (k_.cost() < best_cost && k_.fixings_hold()) {
        best = k_.assignment();
        best_cost = k_.cost();
      }
    }
    return best;
  }

 private:
  // Nothing can beat it: every tier-t pod placed (phase 1) or no disruption (phase 2).
  bool proven_best() const {
    if (pb_.phase == Phase::kDisrupt) return k_.disruption_upto(pb_.tier) == 0;
    for (int p = 0; p < m_.pods(); ++p)
      if (pb_.in_scope(p) && k_.node_of(p) == kUnplaced) return false;
    return true;
  }

  std::vector<int> pods_on(int j) const {
    std::vector<int> out;
    for (int p = 0; p < m_.pods(); ++p)
      if (k_.node_of(p) == j) out.push_back(p);
    return out;
  }

  // Moves q to a node other than `not_on` where it fits, if the fixings still hold and (phase 2)
  // the tier's disruption does not grow by more than `slack`. Returns the node or kUnplaced.
  int relocate(int q, int not_on) {
    const int from = k_.node_of(q);
    const int before = k_.disruption_upto(pb_.tier);
    for (int j = 0; j < m_.nodes(); ++j) {
      if (j == not_on || j == from || !k_.fits(q, j)) continue;
      k_.move(q, j);
      if (k_.fixings_hold() &&
          (pb_.phase == Phase::kPlace || k_.disruption_upto(pb_.tier) <= before))
        return j;
      k_.move(q, from);
    }
    return kUnplaced;
  }

  // Places p on some node, directly or after moving one pod (depth 1) or two pods (depth 2) out
  // of the way. Leaves everything unchanged on failure.
  bool insert(int p, int depth) {
    int j = best_fit(m_, k_, p);
    if (j != kUnplaced) {
      k_.place(p, j);
      if (k_.fixings_hold()) return true;
      k_.unplace(p);
    }
    if (depth == 0) return false;
    for (j = 0; j < m_.nodes(); ++j) {
      if (!m_.can_host(p, j)) continue;
      for (int q : pods_on(j)) {
        if (dl_.spend()) return false;
        if (!k_.fits_without(p, j, q)) continue;
        const int from = k_.node_of(q);
        if (relocate(q, j) != kUnplaced) {
          if (k_.fits(p, j)) {
            k_.place(p, j);
            if (k_.fixings_hold()) return true;
            k_.unplace(p);
          }
          k_.move(q, from);
        } else if (depth >= 2 && chain(q, j, p)) {
          return true;
        }
      }
    }
    return false;
  }

  // Depth 2: q leaves j for a node k after one pod r on k moves elsewhere; then p takes j.
  bool chain(int q, int j, int p) {
    for (int k = 0; k < m_.nodes(); ++k) {
      if (k == j || !m_.can_host(q, k)) continue;
      for (int r : pods_on(k)) {
        if (dl_.spend()) return false;
        if (!k_.fits_without(q, k, r)) continue;
        const int r_from = k;
        if (relocate(r, k) == kUnplaced) continue;
        if (k_.fits(q, k)) {
          k_.move(q, k);
          if (k_.fits(p, j)) {
            k_.place(p, j);
            if (k_.fixings_hold()) return true;
            k_.unplace(p);
          }
          k_.move(q, j);
        }
        k_.move(r, r_from);
      }
    }
    return false;
  }

  void descend() {
    bool improved = true;
    while (improved && !dl_.expired()) {
      improved = false;
      if (pb_.phase == Phase::kPlace) {
        std::vector<int> todo;
        for (int p = 0; p < m_.pods(); ++p)
          if (pb_.in_scope(p) && k_.node_of(p) == kUnplaced) todo.push_back(p);
        std::sort(todo.begin(), todo.end(), [&](int a, int b) { return size_[a] < size_[b]; });
        for (int p : todo)
          if (insert(p, 2)) improved = true;
      } else {
        improved = reduce_disruption();
      }
    }
  }

  // Phase 2: brings displaced running pods of the tier home, or an evicted one anywhere (moving a
  // pod out of the way, or taking the place of a pending pod of the same tier).
  bool reduce_disruption() {
    bool any = false;
    for (int p = 0; p < m_.pods() && !dl_.expired(); ++p) {
      if (!pb_.in_scope(p) || m_.where[p] == kUnplaced) continue;
      const int home = m_.where[p];
      const int at = k_.node_of(p);
      if (at == home) continue;
      const int before = k_.disruption_upto(pb_.tier);
      if (try_home(p, home) && k_.disruption_upto(pb_.tier) < before) {
        any = true;
        continue;
      }
      if (at == kUnplaced && (insert(p, 1) || take_place_of_pending(p))) any = true;
    }
    return any;
  }

  bool try_home(int p, int home) {
    const int at = k_.node_of(p);
    auto go_home = [&] {
      if (at == kUnplaced)
        k_.place(p, home);
      else
        k_.move(p, home);
    };
    auto undo = [&] {
      if (at == kUnplaced)
        k_.unplace(p);
      else
        k_.move(p, at);
    };
    if (!m_.can_host(p, home)) return false;
    if (k_.fits(p, home)) {
      go_home();
      if (k_.fixings_hold()) return true;
      undo();
      return false;
    }
    for (int q : pods_on(home)) {
      if (dl_.spend()) return false;
      if (q == p || !k_.fits_without(p, home, q) || k_.node_of(q) == m_.where[q]) continue;
      const int from = k_.node_of(q);
      if (relocate(q, home) == kUnplaced) continue;
      if (k_.fits(p, home)) {
        go_home();
        if (k_.fixings_hold()) return true;
        undo();
      }
      k_.move(q, from);
    }
    return false;
  }

  bool take_place_of_pending(int p) {
    for (int q = 0; q < m_.pods(); ++q) {
      if (!pb_.in_scope(q) || m_.where[q] != kUnplaced) continue;
      const int j = k_.node_of(q);
      if (j == kUnplaced || !k_.fits_without(p, j, q)) continue;
      k_.unplace(q);
      k_.place(p, j);
      if (k_.fixings_hold()) {
        insert(q, 1);  // the pending pod may still find room elsewhere
        return true;
      }
      k_.unplace(p);
      k_.place(q, j);
    }
    return false;
  }

  // A random perturbation that keeps the solution feasible and no worse in phase 1: a few random
  // relocations and swaps of in-scope pods.
  void kick() {
    std::vector<int> placed;
    for (int p = 0; p < m_.pods(); ++p)
      if (k_.node_of(p) != kUnplaced) placed.push_back(p);
    if (placed.empty() || m_.nodes() < 2) return;
    const int moves = 1 + static_cast<int>(rng_.uniform_int(0, 3));
    for (int i = 0; i < moves; ++i) {
      dl_.spend();
      const int q = placed[static_cast<size_t>(rng_.uniform_int(0, placed.size() - 1))];
      const int from = k_.node_of(q);
      const int to = static_cast<int>(rng_.uniform_int(0, m_.nodes() - 1));
      if (to == from) continue;
      if (k_.fits(q, to)) {
        k_.move(q, to);
        if (!k_.fixings_hold() || (pb_.phase == Phase::kDisrupt)) k_.move(q, from);
        continue;
      }
      // Swap with a pod on `to`.
      for (int r : pods_on(to)) {
        if (!k_.fits_without(q, to, r) || !k_.fits_without(r, from, q)) continue;
        k_.unplace(q);
        k_.unplace(r);
        k_.place(q, to);
        k_.place(r, from);
        if (k_.fixings_hold() && pb_.phase == Phase::kPlace) break;
        k_.unplace(q);
        k_.unplace(r);
        k_.place(q, from);
        k_.place(r, to);
        break;
      }
    }
  }

  const PhaseProblem& pb_;
  const Model& m_;
  Packing k_;
  Deadline& dl_;
  Rng& rng_;
  std::vector<double> size_;
};

}  // namespace

Assignment greedy_start(const PhaseProblem& pb, const Assignment& start) {
  const Model& m = *pb.m;
  Packing k(pb, start);
  for (int p = 0; p < m.pods(); ++p)
    if (m.tier[p] == pb.tier && k.node_of(p) == kUnplaced && m.where[p] != kUnplaced &&
        k.fits(p, m.where[p]))
      k.place(p, m.where[p]);
  const std::vector<double> size = relative_sizes(m);
  std::vector<int> rest;
  for (int p = 0; p < m.pods(); ++p)
    if (pb.in_scope(p) && k.node_of(p) == kUnplaced) rest.push_back(p);
  std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) {
    return m.tier[a] != m.tier[b] ? m.tier[a] < m.tier[b] : size[a] > size[b];
  });
  for (int p : rest) {
    const int j = best_fit(m, k, p);
    if (j != kUnplaced) k.place(p, j);
  }
  return k.assignment();
}

Assignment local_search(const PhaseProblem& pb, const Assignment& a, Deadline& deadline, Rng& rng,
                        int kicks) {
  Search s(pb, a, deadline, rng);
  return s.run(kicks);
}

}  // namespace orrery::optpack
