#include "policies/optpack/optimizer.h"

#include <chrono>

#include "core/rng.h"
#include "policies/optpack/bnb.h"
#include "policies/optpack/budget.h"
#include "policies/optpack/cbc_solver.h"
#include "policies/optpack/heuristic.h"
#include "policies/optpack/phase.h"

namespace orrery::optpack {

std::string_view to_string(SolveStatus s) {
  switch (s) {
    case SolveStatus::kOptimal: return "OPTIMAL";
    case SolveStatus::kFeasible: return "FEASIBLE";
    case SolveStatus::kTimeout: return "TIMEOUT";
  }
  return "?";
}

bool OptimizeResult::placement_proven() const {
  for (const TierReport& t : tiers)
    if (t.placement.status != SolveStatus::kOptimal) return false;
  return true;
}

bool OptimizeResult::improves_on_current() const {
  for (const TierReport& t : tiers) {
    if (t.placed_after != t.placed_before) return t.placed_after > t.placed_before;
  }
  return false;
}

namespace {

// The trivially proven cases: every pod of the tier placed, or nothing disrupted.
bool obviously_optimal(const PhaseProblem& pb, const Assignment& a) {
  if (pb.phase == Phase::kDisrupt) return disruption_upto(*pb.m, a, pb.tier) == 0;
  for (int p = 0; p < pb.m->pods(); ++p)
    if (pb.in_scope(p) && a[p] == kUnplaced) return false;
  return true;
}

// One call of Algorithm 1 through the portfolio.
PhaseReport solve_phase(const PhaseProblem& pb, Assignment& a, double limit,
                        const OptimizeOptions& o, Rng& rng, double* used) {
  const auto t0 = std::chrono::steady_clock::now();
  PhaseReport r;
  r.budget = limit;
  const int64_t start_cost = pb.cost(a);
  bool proven = obviously_optimal(pb, a);
  r.solver = proven ? "start" : "";
  double spent = 0;
  auto remaining = [&] { return std::max(0.0, limit - spent); };
  if (!proven && o.use_local_search && remaining() > 0) {
    Deadline dl(remaining() * 0.25, o.deterministic);
    Assignment b = local_search(pb, a, dl, rng);
    if (pb.cost(b) < pb.cost(a)) a = b, r.solver = "local-search";
    spent += dl.used();
    proven = obviously_optimal(pb, a);
  }
  const bool cbc = o.use_cbc && (!o.use_bnb || cbc_variables(pb) <= kCbcMaxVariables);
  if (!proven && o.use_bnb && remaining() > 0) {
    Deadline dl(cbc ? remaining() * 0.7 : remaining(), o.deterministic);
    PhaseOutcome out = branch_and_bound(pb, a, dl);
    if (out.cost < pb.cost(a)) a = out.best, r.solver = "branch-and-bound";
    if (out.optimal) proven = true, r.solver = "branch-and-bound";
    spent += dl.used();
  }
  if (!proven && cbc && remaining() > 0) {
    Deadline dl(remaining(), o.deterministic);
    PhaseOutcome out = solve_with_cbc(pb, a, dl);
    if (out.cost < pb.cost(a)) a = out.best, r.solver = "cbc";
    if (out.optimal) proven = true, r.solver = "cbc";
    spent += dl.used();
  }
  r.value = pb.phase == Phase::kPlace ? placed_upto(*pb.m, a, pb.tier)
                                      : disruption_upto(*pb.m, a, pb.tier);
  r.status = proven                    ? SolveStatus::kOptimal
             : pb.cost(a) < start_cost ? SolveStatus::kFeasible
                                       : SolveStatus::kTimeout;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *used = spent;
  return r;
}

}  // namespace

OptimizeResult optimize(const Model& m, const OptimizeOptions& o) {
  m.validate();
  const auto t0 = std::chrono::steady_clock::now();
  OptimizeResult res;
  Rng rng = Rng::derive(o.seed, "optpack");
  TimeBudget budget(o.timeout_s, o.alpha, m.tiers());
  Fixings fix(m.tiers());
  Assignment a(m.pods(), kUnplaced);
  const Assignment current = current_assignment(m);
  for (int t = 0; t < m.tiers(); ++t) {
    TierReport tr;
    tr.priority = m.tier_priority[t];
    for (int p = 0; p < m.pods(); ++p) tr.pods += m.tier[p] == t;
    tr.placed_before = placed_in_tier(m, current, t);

    PhaseProblem place{&m, t, Phase::kPlace, fix};
    a = greedy_start(place, a);
    double used = 0;
    tr.placement = solve_phase(place, a, budget.next_phase(), o, rng, &used);
    budget.used(used);
    fix.min_placed[t] = tr.placement.value;

    PhaseProblem keep{&m, t, Phase::kDisrupt, fix};
    tr.disruption_phase = solve_phase(keep, a, budget.next_phase(), o, rng, &used);
    budget.used(used);
    fix.max_disruption[t] = tr.disruption_phase.value;
    tr.placed_after = placed_in_tier(m, a, t);
    tr.disruption = disruption_in_tier(m, a, t);
    res.tiers.push_back(tr);
  }
  res.assignment = std::move(a);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace orrery::optpack
