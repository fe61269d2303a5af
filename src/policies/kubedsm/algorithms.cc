#include "policies/kubedsm/algorithms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "policies/kubedsm/fragmentation.h"

namespace orrery::kubedsm {
namespace {

// QoS values within this distance are ties (they come from sums of a few products).
constexpr double kQosEps = 1e-9;
// A reordering must lower fragmentation by more than this: re-deriving the same state through the
// DP can differ from the direct sum by rounding, and a migration for nothing is not free.
constexpr double kFragEps = 1e-9;

// Scores (eqs 10, 12) within this relative distance are equal: services with equal |P_i|·size(pod)
// score the same up to rounding, and rounding must not decide between them (the first wins).
bool higher_score(double a, double b) {
  return a > b + 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

ServiceCounts with_moves(ServiceCounts c, const EdgeModel& m, std::span<const uint32_t> to_edge) {
  for (uint32_t p : to_edge) ++c.edge[m.pods[p].service];
  return c;
}

// Candidates per service (by_service, pre-sized) and the services with some (dims), in order.
void group_by_service(const EdgeModel& m, std::span<const uint32_t> candidates,
                      std::vector<std::vector<uint32_t>>& by_service, std::vector<uint32_t>& dims) {
  const size_t services = m.services.size();
  for (uint32_t c : candidates) {
    if (m.pods[c].node != kCloud)
      throw std::invalid_argument("kubedsm::make_decision: candidates must be cloud pods");
    by_service[m.pods[c].service].push_back(c);
  }
  for (uint32_t s = 0; s < services; ++s)
    if (!by_service[s].empty()) dims.push_back(s);
}

// Next count vector k (odometer) with its n, cur and sum; false once all have been visited.
bool next_subset(const EdgeModel& m, const std::vector<std::vector<uint32_t>>& by_service,
                 const std::vector<uint32_t>& dims, std::vector<uint32_t>& k, size_t& n,
                 ServiceCounts& cur, Vec2& sum) {
  size_t d = 0;
  for (; d < dims.size(); ++d) {
    const uint32_t s = dims[d];
    if (k[d] < by_service[s].size()) {
      ++k[d];
      ++n;
      ++cur.edge[s];
      sum += m.services[s].request;
      break;
    }
    n -= k[d];
    cur.edge[s] -= k[d];
    sum -= m.services[s].request * k[d];
    k[d] = 0;
  }
  return d != dims.size();
}

// Splits the candidates into out.to_edge (best_k[d] of service dims[d]) and out.to_cloud.
void split_candidates(const std::vector<std::vector<uint32_t>>& by_service,
                      const std::vector<uint32_t>& dims, const std::vector<uint32_t>& best_k,
                      Decision& out) {
  for (size_t d = 0; d < dims.size(); ++d) {
    const auto& pods = by_service[dims[d]];
    for (size_t i = 0; i < pods.size(); ++i)
      (i < best_k[d] ? out.to_edge : out.to_cloud).push_back(pods[i]);
  }
}

}  // namespace

void Config::validate() const {
  qos.validate();
  if (m_c2e < 0 || m_c2e > 20)
    throw InputError(fmt::format(
        "kubedsm: M_C2E must be in [0, 20] (makeDecision enumerates 2^M_C2E subsets); got {}",
        m_c2e));
  if (m_er < 0 || m_er > 6)
    throw InputError(fmt::format(
        "kubedsm: M_ER must be in [0, 6] (reorderEdge enumerates |P_E|^M_ER subsets); got {}",
        m_er));
}

Vec2 sum_requests(const EdgeModel& m, std::span<const uint32_t> pods) {
  Vec2 s;
  for (uint32_t p : pods) s += m.request_of(p);
  return s;
}

SchedulerCore::SchedulerCore(Config config) : config_(config) {
  config_.validate();
}

FragNorm SchedulerCore::frag_norm(const EdgeModel& m) const {
  return FragNorm(m.total_capacity(), config_.frag, m.capacity);
}

double SchedulerCore::size_of(const EdgeModel& m, const Vec2& request) const {
  if (config_.pod_size == PodSize::kEcmus) {
    Vec2 largest;
    for (const Vec2& c : m.capacity) {
      largest.cpu = std::max(largest.cpu, c.cpu);
      largest.mem = std::max(largest.mem, c.mem);
    }
    return pod_size_ecmus(request, largest);
  }
  return pod_size(request, m.total_capacity());
}

std::vector<int64_t> SchedulerCore::running_pods(const EdgeModel& m) const {
  std::vector<int64_t> running(m.services.size(), 0);
  for (const ModelPod& p : m.pods)
    if (p.movable) ++running[p.service];
  return running;
}

// ---- Algorithm 1 ----

Placement SchedulerCore::immediate_schedule(const EdgeModel& m,
                                            std::span<const uint32_t> new_pods) {
  const Decision d = make_decision(m, new_pods, /*do_migrate=*/false);
  return apply_decision(m, d);
}

// ---- Algorithm 2 ----

std::vector<uint32_t> SchedulerCore::suggest_candidates(const EdgeModel& m) {
  const size_t services = m.services.size();
  const Vec2 total = m.total_capacity();
  std::vector<uint32_t> chosen;
  if (config_.m_c2e <= 0 || total.cpu <= 0 || total.mem <= 0) return chosen;

  // candidPods: movable cloud pods, per service in model order. A pod larger than every edge node
  // can never be matched, so it is not a candidate.
  std::vector<std::vector<uint32_t>> cand(services);
  const std::vector<int64_t> running = running_pods(m);
  for (uint32_t i = 0; i < m.pods.size(); ++i) {
    const ModelPod& p = m.pods[i];
    if (p.node != kCloud || !p.movable) continue;
    if (config_.last_pod && running[p.service] <= 1) continue;  // its last running pod
    const Vec2& r = m.services[p.service].request;
    bool fits_some = false;
    for (const Vec2& c : m.capacity) fits_some |= r.fits_in(c);
    if (fits_some) cand[p.service].push_back(i);
  }
  std::vector<size_t> next(services, 0);

  Vec2 budget = m.total_free();
  if (config_.suggest_budget == SuggestBudget::kReclaimable)
    for (const ModelPod& p : m.pods)
      if (p.node != kCloud && p.movable) budget += m.services[p.service].request;

  ServiceCounts counts = count_pods(m);  // CS'
  while (static_cast<int>(chosen.size()) < config_.m_c2e) {
    // Sort by score (eq. 10): pods of one service share it, so pick the best service.
    int best = -1;
    double best_score = 0;
    for (size_t s = 0; s < services; ++s) {
      if (next[s] >= cand[s].size()) continue;
      const Service& sv = m.services[s];
      const double gain =
          service_qos(config_.qos, sv.qos_target, counts.edge[s] + 1, counts.total[s]) -
          service_qos(config_.qos, sv.qos_target, counts.edge[s], counts.total[s]);
      const double score = gain / size_of(m, sv.request);
      if (best < 0 || higher_score(score, best_score)) {
        best = static_cast<int>(s);
        best_score = score;
      }
    }
    if (best < 0) break;
    const uint32_t pod = cand[best][next[best]++];
    const Vec2& r = m.services[best].request;
    if (r.fits_in(budget)) {
      chosen.push_back(pod);
      budget -= r;
      ++counts.edge[best];
    } else {
      // CS' is unchanged, so every other pod of this service would be popped next and would not
      // fit either: drop them all at once (same result as popping them one by one).
      next[best] = cand[best].size();
    }
  }
  return chosen;
}

Placement SchedulerCore::suggest(const EdgeModel& m) {
  const std::vector<uint32_t> chosen = suggest_candidates(m);
  // Even with no candidate, makeDecision's empty subset runs bestFit, i.e. reorderEdge (unless
  // reorder_without_candidates is off, as in ecmus).
  if (chosen.empty() && !config_.reorder_without_candidates) return {};
  const Decision d = make_decision(m, chosen, /*do_migrate=*/true);
  return apply_decision(m, d);
}

// ---- Algorithm 3 ----

Decision SchedulerCore::make_decision(const EdgeModel& m, std::span<const uint32_t> candidates,
                                      bool do_migrate) {
  std::vector<std::vector<uint32_t>> by_service(m.services.size());
  std::vector<uint32_t> dims;
  group_by_service(m, candidates, by_service, dims);

  const ServiceCounts base = count_pods(m);
  const Vec2 capacity = m.total_capacity();
  const Vec2 free = m.total_free();

  // bestDecision ← all candidates on the cloud.
  double best_qos = total_qos(config_.qos, m, base);
  std::vector<uint32_t> best_k(dims.size(), 0);
  std::vector<uint32_t> best_offloads;
  size_t best_n = 0;

  std::vector<uint32_t> k(dims.size(), 0);
  ServiceCounts cur = base;
  Vec2 sum;
  size_t n = 0;
  while (true) {
    if (sum.fits_in(capacity) && (do_migrate || sum.fits_in(free))) {
      bool feasible = true;
      double q;
      std::vector<uint32_t> offloads;
      if (do_migrate) {
        // bestFit's offloads decide the QoS; its reorderings only move pods inside the edge and
        // leave QoS unchanged, so they are computed for the winning subset only (below).
        q = qos_after_offloads(m, sum, cur, free, offloads, feasible);
      } else {
        q = total_qos(config_.qos, m, cur);
      }
      bool better =
          feasible &&
          (q > best_qos + kQosEps ||
           (q >= best_qos - kQosEps && (offloads.size() < best_offloads.size() ||
                                        (offloads.size() == best_offloads.size() && n > best_n))));
      if (better && config_.fit_check == FitCheck::kExact && n > 0) {
        subset_.clear();
        for (size_t d = 0; d < dims.size(); ++d)
          for (uint32_t i = 0; i < k[d]; ++i) subset_.push_back(by_service[dims[d]][i]);
        better = placeable(m, subset_, offloads);
      }
      if (better) {
        best_qos = q;
        best_k = k;
        best_offloads = std::move(offloads);
        best_n = n;
      }
    }
    if (!next_subset(m, by_service, dims, k, n, cur, sum)) break;
  }

  Decision out;
  out.qos = best_qos;
  split_candidates(by_service, dims, best_k, out);
  if (do_migrate) {
    out.offloads = std::move(best_offloads);
    EdgeModel after = m;
    for (uint32_t p : out.offloads) after.move_pod(p, kCloud);
    out.reorders = reorder_edge(after);
  }
  return out;
}

double SchedulerCore::qos_after_offloads(const EdgeModel& m, const Vec2& sum,
                                         const ServiceCounts& cur, const Vec2& free,
                                         std::vector<uint32_t>& offloads, bool& feasible) {
  offloads = free_edge_as_needed(m, sum, cur);
  ServiceCounts after = cur;
  Vec2 avail = free;
  for (uint32_t p : offloads) {
    --after.edge[m.pods[p].service];
    avail += m.request_of(p);
  }
  // Offloads that cannot free the need (immovable pods, a full cloud) leave the subset
  // without room: it is discarded like one larger than the edge (Alg. 3 line 4).
  feasible = sum.fits_in(avail);
  return total_qos(config_.qos, m, after);
}

bool SchedulerCore::placeable(const EdgeModel& m, std::span<const uint32_t> to_edge,
                              std::span<const uint32_t> offloads) {
  free_work_.resize(m.node_count());
  for (size_t n = 0; n < m.node_count(); ++n) free_work_[n] = m.free(n);
  for (uint32_t p : offloads) free_work_[static_cast<size_t>(m.pods[p].node)] += m.request_of(p);
  vec_scratch_.clear();
  for (uint32_t p : to_edge) vec_scratch_.push_back(m.request_of(p));
  return matcher_.match(free_work_, vec_scratch_, frag_norm(m)).matched == to_edge.size();
}

// ---- Algorithm 4 ----

void SchedulerCore::best_fit(const EdgeModel& m, std::span<const uint32_t> to_edge, Decision* d) {
  d->offloads =
      free_edge_as_needed(m, sum_requests(m, to_edge), with_moves(count_pods(m), m, to_edge));
  EdgeModel after = m;
  for (uint32_t p : d->offloads) after.move_pod(p, kCloud);
  d->reorders = reorder_edge(after);
}

// ---- Algorithm 5 ----

std::vector<uint32_t> SchedulerCore::free_edge_as_needed(const EdgeModel& m, const Vec2& need,
                                                         ServiceCounts counts) {
  std::vector<uint32_t> freed;
  Vec2 avail = m.total_free();
  if (need.fits_in(avail)) return freed;
  const FragNorm norm = frag_norm(m);
  const size_t services = m.services.size();

  std::vector<std::vector<uint32_t>> cand(services);
  for (uint32_t i = 0; i < m.pods.size(); ++i)
    if (m.pods[i].node != kCloud && m.pods[i].movable) cand[m.pods[i].service].push_back(i);
  // last_pod: how many more pods of each service may leave (all but one running pod).
  std::vector<int64_t> may_leave = running_pods(m);
  for (int64_t& v : may_leave) v = config_.last_pod ? v - 1 : std::numeric_limits<int64_t>::max();
  free_scratch_.resize(m.node_count());
  for (size_t n = 0; n < m.node_count(); ++n) free_scratch_[n] = m.free(n);
  cloud_scratch_.assign(m.cloud_free.begin(), m.cloud_free.end());
  // The cloud node an offloaded pod of request r would take (the most free cpu that fits, as the
  // running scheduler picks it), or -1 when none has room; always 0 for an unbounded cloud.
  auto cloud_for = [&](const Vec2& r) {
    if (!m.cloud_bounded) return 0;
    int pick = -1;
    for (size_t c = 0; c < cloud_scratch_.size(); ++c)
      if (r.fits_in(cloud_scratch_[c]) &&
          (pick < 0 || cloud_scratch_[c].cpu > cloud_scratch_[static_cast<size_t>(pick)].cpu))
        pick = static_cast<int>(c);
    return pick;
  };

  while (!need.fits_in(avail)) {
    // Sort by score (eq. 12, re-evaluated after every removal): the least QoS loss per size.
    int best = -1;
    double best_score = 0;
    for (size_t s = 0; s < services; ++s) {
      if (cand[s].empty() || may_leave[s] <= 0 || cloud_for(m.services[s].request) < 0) continue;
      const Service& sv = m.services[s];
      const double loss =
          service_qos(config_.qos, sv.qos_target, counts.edge[s] - 1, counts.total[s]) -
          service_qos(config_.qos, sv.qos_target, counts.edge[s], counts.total[s]);
      const double score = loss / size_of(m, sv.request);
      if (best < 0 || higher_score(score, best_score)) {
        best = static_cast<int>(s);
        best_score = score;
      }
    }
    if (best < 0) break;
    // Pods of one service score the same; take the one whose leaving lowers fragmentation most.
    auto& pods = cand[best];
    const Vec2& r = m.services[best].request;
    size_t pick = 0;
    double pick_delta = std::numeric_limits<double>::infinity();
    for (size_t j = 0; j < pods.size(); ++j) {
      const auto k = static_cast<size_t>(m.pods[pods[j]].node);
      const Vec2& f = free_scratch_[k];
      const double delta = node_frag(f + r, norm, k) - node_frag(f, norm, k);
      if (delta < pick_delta) {
        pick = j;
        pick_delta = delta;
      }
    }
    const uint32_t pod = pods[pick];
    pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(pick));
    if (m.cloud_bounded) cloud_scratch_[static_cast<size_t>(cloud_for(r))] -= r;
    freed.push_back(pod);
    avail += r;
    free_scratch_[m.pods[pod].node] += r;
    --counts.edge[best];
    --may_leave[best];
  }
  return freed;
}

// ---- Algorithm 6 ----

std::vector<Move> SchedulerCore::reorder_edge(const EdgeModel& m) {
  std::vector<Move> moves;
  if (config_.m_er <= 0) return moves;
  const Vec2 total = m.total_capacity();
  if (total.cpu <= 0 || total.mem <= 0) return moves;

  // Movable edge pods, grouped by (node, request): pods of a group are interchangeable, so the
  // subsets of P_E are enumerated as multisets of groups.
  groups_.clear();
  for (uint32_t i = 0; i < m.pods.size(); ++i) {
    const ModelPod& p = m.pods[i];
    if (p.node == kCloud || !p.movable) continue;
    const Vec2& r = m.services[p.service].request;
    auto it = std::find_if(groups_.begin(), groups_.end(),
                           [&](const Group& g) { return g.node == p.node && g.request == r; });
    if (it == groups_.end()) {
      groups_.push_back({p.node, r, {}});
      it = groups_.end() - 1;
    }
    it->pods.push_back(i);
  }
  if (groups_.empty()) return moves;
  free_scratch_.resize(m.node_count());
  for (size_t n = 0; n < m.node_count(); ++n) free_scratch_[n] = m.free(n);
  least_frag_ = edge_frag(free_scratch_, frag_norm(m));
  running_ = running_pods(m);
  best_removed_.clear();
  best_targets_.clear();
  chosen_count_.assign(groups_.size(), 0);
  // Smaller subsets first: at equal fragmentation the first (fewest migrations) is kept.
  for (int size = 1; size <= config_.m_er; ++size) enumerate_reorders(m, 0, size);
  if (best_removed_.empty()) return moves;

  // Identical pods may have swapped places in the match; give back their own node to pods whose
  // origin is among the targets for their shape, so only real moves remain.
  const size_t k = best_removed_.size();
  std::vector<int32_t> target(k, kCloud);
  std::vector<uint8_t> used(k, 0);
  for (size_t i = 0; i < k; ++i) {
    const int32_t origin = m.pods[best_removed_[i]].node;
    const Vec2& r = m.request_of(best_removed_[i]);
    for (size_t j = 0; j < k; ++j) {
      if (!used[j] && best_targets_[j] == origin && m.request_of(best_removed_[j]) == r) {
        used[j] = 1;
        target[i] = origin;
        break;
      }
    }
  }
  for (size_t i = 0; i < k; ++i) {
    if (target[i] != kCloud) continue;
    const Vec2& r = m.request_of(best_removed_[i]);
    for (size_t j = 0; j < k; ++j) {
      if (!used[j] && m.request_of(best_removed_[j]) == r) {
        used[j] = 1;
        target[i] = best_targets_[j];
        break;
      }
    }
  }
  for (size_t i = 0; i < k; ++i) {
    const int32_t origin = m.pods[best_removed_[i]].node;
    if (target[i] != origin) moves.push_back({best_removed_[i], origin, target[i]});
  }
  return moves;
}

void SchedulerCore::enumerate_reorders(const EdgeModel& m, size_t start, int left) {
  if (left == 0) {
    evaluate_reorder(m);
    return;
  }
  for (size_t g = start; g < groups_.size(); ++g) {
    if (chosen_count_[g] >= groups_[g].pods.size()) continue;
    ++chosen_count_[g];
    enumerate_reorders(m, g, left - 1);
    --chosen_count_[g];
  }
}

void SchedulerCore::evaluate_reorder(const EdgeModel& m) {
  // CS' ← CS − podsToReorder; mapping ← match(CS', podsToReorder).
  removed_.clear();
  vec_scratch_.clear();
  free_work_.assign(free_scratch_.begin(), free_scratch_.end());
  for (size_t g = 0; g < groups_.size(); ++g) {
    for (uint32_t j = 0; j < chosen_count_[g]; ++j) {
      removed_.push_back(groups_[g].pods[j]);
      vec_scratch_.push_back(groups_[g].request);
      free_work_[groups_[g].node] += groups_[g].request;
    }
  }
  if (config_.last_pod) {  // never move every running pod of a service
    std::vector<int64_t> moving(running_.size(), 0);
    for (uint32_t p : removed_)
      if (++moving[m.pods[p].service] >= running_[m.pods[p].service]) return;
  }
  const MatchResult& r = matcher_.match(free_work_, vec_scratch_, frag_norm(m));
  if (r.matched < removed_.size()) return;  // cannot even go back (over-committed origin)
  if (r.frag < least_frag_ - kFragEps) {
    least_frag_ = r.frag;
    best_removed_ = removed_;
    best_targets_ = r.target;
  }
}

// ---- Algorithm 7 ----

Placement SchedulerCore::apply_decision(const EdgeModel& m, const Decision& d) {
  Placement p;
  p.decision = d;
  EdgeModel after = m;
  for (uint32_t off : d.offloads) {
    p.migrations.push_back({off, m.pods[off].node, kCloud});
    after.move_pod(off, kCloud);
  }
  for (const Move& r : d.reorders) {
    p.migrations.push_back(r);
    after.move_pod(r.pod, r.to);
  }
  p.cloud = d.to_cloud;
  if (!d.to_edge.empty()) {
    free_scratch_.resize(after.node_count());
    for (size_t n = 0; n < after.node_count(); ++n) free_scratch_[n] = after.free(n);
    vec_scratch_.clear();
    for (uint32_t pod : d.to_edge) vec_scratch_.push_back(m.request_of(pod));
    const MatchResult& r = matcher_.match(free_scratch_, vec_scratch_, frag_norm(after));
    for (size_t i = 0; i < d.to_edge.size(); ++i) {
      if (r.target[i] != kCloud)
        p.edge.push_back({d.to_edge[i], m.pods[d.to_edge[i]].node, r.target[i]});
      else
        p.cloud.push_back(d.to_edge[i]);
    }
  }
  return p;
}

}  // namespace orrery::kubedsm
