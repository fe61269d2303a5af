#include "policies/optpack/model.h"

#include "core/error.h"

namespace orrery::optpack {

int Model::add_node(std::string name, std::vector<int64_t> capacity) {
  if (static_cast<int>(capacity.size()) != dims) throw InputError("node " + name + ": wrong dims");
  node_names.push_back(std::move(name));
  cap.insert(cap.end(), capacity.begin(), capacity.end());
  // Keep the feasibility matrix rectangular: existing pods may go to the new node.
  std::vector<uint8_t> f;
  const int n = nodes();
  for (int p = 0; p < pods(); ++p) {
    for (int j = 0; j < n - 1; ++j) f.push_back(feasible[static_cast<size_t>(p) * (n - 1) + j]);
    f.push_back(1);
  }
  feasible = std::move(f);
  return n - 1;
}

int Model::add_pod(std::string name, std::vector<int64_t> request, int t, int at) {
  if (static_cast<int>(request.size()) != dims) throw InputError("pod " + name + ": wrong dims");
  pod_names.push_back(std::move(name));
  req.insert(req.end(), request.begin(), request.end());
  tier.push_back(t);
  where.push_back(at);
  feasible.insert(feasible.end(), static_cast<size_t>(nodes()), 1);
  return pods() - 1;
}

void Model::validate() const {
  const size_t n = node_names.size(), p = pod_names.size();
  if (dims <= 0 || static_cast<int>(dim_names.size()) != dims)
    throw InputError("model: no resource dimensions");
  if (cap.size() != n * dims || req.size() != p * dims || tier.size() != p || where.size() != p ||
      feasible.size() != n * p)
    throw InputError("model: inconsistent sizes");
  for (size_t i = 0; i < p; ++i) {
    if (tier[i] < 0 || tier[i] >= tiers()) throw InputError("pod " + pod_names[i] + ": bad tier");
    if (where[i] < kUnplaced || where[i] >= static_cast<int>(n))
      throw InputError("pod " + pod_names[i] + ": bad node");
    for (int d = 0; d < dims; ++d)
      if (req[i * dims + d] < 0)
        throw InputError("pod " + pod_names[i] + ": negative " + dim_names[d] + " request");
  }
  for (size_t t = 1; t < tier_priority.size(); ++t)
    if (tier_priority[t] >= tier_priority[t - 1])
      throw InputError("model: tier priorities must decrease");
}

int disruption_of(const Model& m, const Assignment& a, int p) {
  if (m.where[p] == kUnplaced) return 0;
  if (a[p] == m.where[p]) return 0;
  return a[p] == kUnplaced ? 2 : 1;
}

int placed_in_tier(const Model& m, const Assignment& a, int t) {
  int n = 0;
  for (int p = 0; p < m.pods(); ++p) n += m.tier[p] == t && a[p] != kUnplaced;
  return n;
}

int disruption_in_tier(const Model& m, const Assignment& a, int t) {
  int d = 0;
  for (int p = 0; p < m.pods(); ++p)
    if (m.tier[p] == t) d += disruption_of(m, a, p);
  return d;
}

int placed_upto(const Model& m, const Assignment& a, int t) {
  int n = 0;
  for (int i = 0; i <= t; ++i) n += placed_in_tier(m, a, i);
  return n;
}

int disruption_upto(const Model& m, const Assignment& a, int t) {
  int n = 0;
  for (int i = 0; i <= t; ++i) n += disruption_in_tier(m, a, i);
  return n;
}

bool respects_capacity(const Model& m, const Assignment& a, std::string* why) {
  std::vector<int64_t> load(m.cap.size(), 0);
  for (int p = 0; p < m.pods(); ++p) {
    const int j = a[p];
    if (j == kUnplaced) continue;
    if (j < 0 || j >= m.nodes() || !m.can_host(p, j)) {
      if (why) *why = "pod " + m.pod_names[p] + " on an infeasible node";
      return false;
    }
    for (int d = 0; d < m.dims; ++d) load[static_cast<size_t>(j) * m.dims + d] += m.request(p)[d];
  }
  for (int j = 0; j < m.nodes(); ++j)
    for (int d = 0; d < m.dims; ++d)
      if (load[static_cast<size_t>(j) * m.dims + d] > 0 &&
          load[static_cast<size_t>(j) * m.dims + d] > m.capacity(j)[d]) {
        if (why) *why = "node " + m.node_names[j] + " over its " + m.dim_names[d] + " capacity";
        return false;
      }
  return true;
}

Assignment current_assignment(const Model& m) {
  return m.where;
}

}  // namespace orrery::optpack
