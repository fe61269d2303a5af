#include "policies/optpack/bnb.h"

#include <algorithm>
#include <numeric>

#include "policies/optpack/packing.h"

namespace orrery::optpack {

namespace {

class BranchAndBound {
 public:
  BranchAndBound(const PhaseProblem& pb, const Assignment& incumbent, Deadline& dl)
      : pb_(pb), m_(*pb.m), k_(pb, empty_of(incumbent)), dl_(dl) {
    best_ = incumbent;
    best_cost_ = pb.cost(incumbent);
    order_pods();
    classify_nodes();
    suffix_counts();
    if (pb_.phase == Phase::kPlace) smallest_tables();
  }

  PhaseOutcome run() {
    const bool done = dfs(0);
    PhaseOutcome out;
    out.best = best_;
    out.cost = best_cost_;
    out.optimal = done;
    out.work = nodes_;
    return out;
  }

 private:
  static Assignment empty_of(const Assignment& a) { return Assignment(a.size(), kUnplaced); }

  bool where_matters(int p) const {
    if (m_.where[p] == kUnplaced) return false;
    if (pb_.phase == Phase::kDisrupt) return true;
    return m_.tier[p] < pb_.tier && pb_.fix.max_disruption[m_.tier[p]] >= 0;
  }

  void order_pods() {
    std::vector<double> avg(m_.dims, 0);
    for (int j = 0; j < m_.nodes(); ++j)
      for (int d = 0; d < m_.dims; ++d) avg[d] += std::max<int64_t>(1, m_.capacity(j)[d]);
    std::vector<double> size(m_.pods(), 0);
    for (int p = 0; p < m_.pods(); ++p)
      for (int d = 0; d < m_.dims; ++d) size[p] += m_.request(p)[d] / avg[d];
    for (int p = 0; p < m_.pods(); ++p)
      if (pb_.in_scope(p)) order_.push_back(p);
    const int n = m_.nodes();
    auto key_where = [&](int p) { return where_matters(p) ? m_.where[p] : -2; };
    auto first_running = [&](int p) {
      return pb_.phase == Phase::kDisrupt && m_.where[p] != kUnplaced ? 0 : 1;
    };
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      if (m_.tier[a] != m_.tier[b]) return m_.tier[a] < m_.tier[b];
      if (first_running(a) != first_running(b)) return first_running(a) < first_running(b);
      if (size[a] != size[b]) return size[a] > size[b];
      for (int d = 0; d < m_.dims; ++d)
        if (m_.request(a)[d] != m_.request(b)[d]) return m_.request(a)[d] < m_.request(b)[d];
      for (int j = 0; j < n; ++j)
        if (m_.can_host(a, j) != m_.can_host(b, j)) return m_.can_host(a, j) < m_.can_host(b, j);
      return key_where(a) < key_where(b);
    });
    same_as_prev_.assign(order_.size(), 0);
    for (size_t i = 1; i < order_.size(); ++i) {
      const int a = order_[i - 1], b = order_[i];
      bool same = m_.tier[a] == m_.tier[b] && key_where(a) == key_where(b) &&
                  first_running(a) == first_running(b) &&
                  (pb_.phase == Phase::kPlace || m_.where[a] == kUnplaced);
      for (int d = 0; same && d < m_.dims; ++d) same = m_.request(a)[d] == m_.request(b)[d];
      for (int j = 0; same && j < n; ++j) same = m_.can_host(a, j) == m_.can_host(b, j);
      same_as_prev_[i] = same;
    }
    // The last position at which each node is still some unassigned pod's current node (while
    // that matters): before it, the node is not anonymous.
    last_home_.assign(n, -1);
    for (size_t i = 0; i < order_.size(); ++i)
      if (where_matters(order_[i])) last_home_[m_.where[order_[i]]] = static_cast<int>(i);
  }

  void classify_nodes() {
    const int n = m_.nodes();
    node_class_.assign(n, -1);
    int classes = 0;
    for (int j = 0; j < n; ++j) {
      if (node_class_[j] >= 0) continue;
      node_class_[j] = classes;
      for (int k = j + 1; k < n; ++k) {
        if (node_class_[k] >= 0) continue;
        bool same = std::equal(m_.capacity(j), m_.capacity(j) + m_.dims, m_.capacity(k));
        for (int p : order_)
          if (same && m_.can_host(p, j) != m_.can_host(p, k)) same = false;
        if (same) node_class_[k] = classes;
      }
      ++classes;
    }
  }

  void suffix_counts() {
    const int T = m_.tiers();
    rem_.assign((order_.size() + 1) * T, 0);
    rem_running_.assign((order_.size() + 1) * T, 0);
    for (int i = static_cast<int>(order_.size()) - 1; i >= 0; --i) {
      for (int t = 0; t < T; ++t) {
        rem_[i * T + t] = rem_[(i + 1) * T + t];
        rem_running_[i * T + t] = rem_running_[(i + 1) * T + t];
      }
      const int p = order_[i];
      ++rem_[i * T + m_.tier[p]];
      if (m_.where[p] != kUnplaced) ++rem_running_[i * T + m_.tier[p]];
    }
  }

  // For phase 1: for each depth in the tier's segment, per dimension, prefix sums of the
  // remaining tier pods' requests sorted ascending.
  void smallest_tables() {
    seg_start_ = static_cast<int>(order_.size());
    for (size_t i = 0; i < order_.size(); ++i)
      if (m_.tier[order_[i]] == pb_.tier) {
        seg_start_ = static_cast<int>(i);
        break;
      }
    const int len = static_cast<int>(order_.size()) - seg_start_;
    prefix_.assign(static_cast<size_t>(len + 1) * m_.dims, {});
    for (int i = 0; i <= len; ++i)
      for (int d = 0; d < m_.dims; ++d) {
        std::vector<int64_t> v;
        for (int k = seg_start_ + i; k < static_cast<int>(order_.size()); ++k)
          v.push_back(m_.request(order_[k])[d]);
        std::sort(v.begin(), v.end());
        std::vector<int64_t> pre(v.size() + 1, 0);
        for (size_t k = 0; k < v.size(); ++k) pre[k + 1] = pre[k] + v[k];
        prefix_[static_cast<size_t>(i) * m_.dims + d] = std::move(pre);
      }
  }

  // How many of the remaining tier pods can still be placed, at most (phase 1).
  int placement_bound(int depth) const {
    const int i = std::max(0, depth - seg_start_);
    const auto row = [&](int d) -> const std::vector<int64_t>& {
      return prefix_[static_cast<size_t>(i) * m_.dims + d];
    };
    const int rem = static_cast<int>(row(0).size()) - 1;
    if (rem == 0) return 0;
    auto count_within = [&](int d, int64_t room) {
      const auto& pre = row(d);
      return static_cast<int>(std::upper_bound(pre.begin(), pre.end(), room) - pre.begin()) - 1;
    };
    int aggregate = rem;
    int per_node = 0;
    for (int d = 0; d < m_.dims; ++d) {
      int64_t total = 0;
      for (int j = 0; j < m_.nodes(); ++j)
        total += std::max<int64_t>(0, m_.capacity(j)[d] - k_.load(j)[d]);
      aggregate = std::min(aggregate, count_within(d, total));
    }
    for (int j = 0; j < m_.nodes() && per_node < aggregate; ++j) {
      int c = rem;
      for (int d = 0; d < m_.dims && c > 0; ++d)
        c = std::min(c, count_within(d, std::max<int64_t>(0, m_.capacity(j)[d] - k_.load(j)[d])));
      per_node += c;
    }
    return std::min(aggregate, per_node);
  }

  // A lower bound of a tier's final disruption given the pods assigned so far.
  int disruption_bound(int depth, int t, bool with_homes) const {
    const int T = m_.tiers();
    int lb = k_.disruption(t) - 2 * rem_running_[depth * T + t];
    if (with_homes)
      for (size_t i = depth; i < order_.size(); ++i) {
        const int p = order_[i];
        if (m_.tier[p] == t && m_.where[p] != kUnplaced && !k_.fits(p, m_.where[p])) ++lb;
      }
    return lb;
  }

  bool prune(int depth) const {
    const int T = m_.tiers();
    int reach = 0, disr = 0, rem_before = 0;  // over tiers 0..t
    for (int t = 0; t <= pb_.tier; ++t) {
      reach += k_.placed(t) + rem_[depth * T + t];
      disr += disruption_bound(depth, t, false);
      if (pb_.fix.min_placed[t] >= 0 && reach < pb_.fix.min_placed[t]) return true;
      if (pb_.fix.max_disruption[t] >= 0 && disr > pb_.fix.max_disruption[t]) return true;
      if (t < pb_.tier) rem_before += rem_[depth * T + t];
    }
    if (pb_.phase == Phase::kPlace)
      return -(k_.placed_upto(pb_.tier) + rem_before + placement_bound(depth)) >= best_cost_;
    int lb = 0;
    for (int t = 0; t <= pb_.tier; ++t) lb += disruption_bound(depth, t, true);
    return lb >= best_cost_;
  }

  // Returns false when the deadline stopped the search.
  bool dfs(int depth) {
    if (dl_.spend()) return false;
    ++nodes_;
    if (depth == static_cast<int>(order_.size())) {
      const int64_t c = k_.cost();
      if (c < best_cost_ && k_.fixings_hold()) {
        best_cost_ = c;
        best_ = k_.assignment();
      }
      return true;
    }
    if (prune(depth)) return true;
    const int p = order_[depth];
    const int n = m_.nodes();
    // Identical to the previous pod: its node index (kUnplaced = n) may not be smaller.
    int lo = 0;
    if (same_as_prev_[depth]) {
      const int prev = k_.node_of(order_[depth - 1]);
      lo = prev == kUnplaced ? n : prev;
    }
    // Identical empty nodes that are nobody's current node any more: only the lowest index of
    // each class is tried (with the pod order above, the lowest one keeps both rules valid).
    const bool node_symmetry = !same_as_prev_[depth];
    std::vector<int> lowest_empty(node_symmetry ? n : 0, -1);
    if (node_symmetry)
      for (int j = n - 1; j >= 0; --j)
        if (last_home_[j] < depth && is_empty(j)) lowest_empty[node_class_[j]] = j;
    auto try_node = [&](int j) -> bool {
      if (j < lo || !k_.fits(p, j)) return true;
      if (node_symmetry && last_home_[j] < depth && is_empty(j) &&
          lowest_empty[node_class_[j]] != j)
        return true;
      k_.place(p, j);
      const bool ok = dfs(depth + 1);
      k_.unplace(p);
      return ok;
    };
    const int home = m_.where[p];
    if (home != kUnplaced && !try_node(home)) return false;
    for (int j = 0; j < n; ++j)
      if (j != home && !try_node(j)) return false;
    return dfs(depth + 1);  // unplaced (allowed for every lo)
  }

  bool is_empty(int j) const {
    const int64_t* l = k_.load(j);
    for (int d = 0; d < m_.dims; ++d)
      if (l[d] != 0) return false;
    return true;
  }

  const PhaseProblem& pb_;
  const Model& m_;
  Packing k_;
  Deadline& dl_;
  Assignment best_;
  int64_t best_cost_ = 0;
  int64_t nodes_ = 0;
  std::vector<int> order_;
  std::vector<uint8_t> same_as_prev_;
  std::vector<int> last_home_, node_class_;
  std::vector<int> rem_, rem_running_;
  int seg_start_ = 0;
  std::vector<std::vector<int64_t>> prefix_;
};

}  // namespace

PhaseOutcome branch_and_bound(const PhaseProblem& pb, const Assignment& incumbent,
                              Deadline& deadline) {
  BranchAndBound b(pb, incumbent, deadline);
  return b.run();
}

}  // namespace orrery::optpack
