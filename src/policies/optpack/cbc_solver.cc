#include "policies/optpack/cbc_solver.h"

#include <CbcModel.hpp>
#include <CglGomory.hpp>
#include <CglKnapsackCover.hpp>
#include <CglProbing.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <cmath>
#include <vector>

namespace orrery::optpack {

namespace {

struct Var {
  int pod, node;
};

struct Mip {
  std::vector<Var> vars;
  CoinPackedMatrix rows{false, 0, 0};
  std::vector<double> row_lo, row_hi, obj;
  double obj_offset = 0;  // cost = obj·x + offset (CBC minimises)

  void add_row(const std::vector<int>& idx, const std::vector<double>& val, double lo, double hi) {
    rows.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
    row_lo.push_back(lo);
    row_hi.push_back(hi);
  }
};

Mip build(const PhaseProblem& pb) {
  const Model& m = *pb.m;
  Mip mip;
  std::vector<std::vector<int>> by_pod(m.pods()), by_node(m.nodes());
  for (int p = 0; p < m.pods(); ++p) {
    if (!pb.in_scope(p)) continue;
    for (int j = 0; j < m.nodes(); ++j)
      if (m.can_host(p, j)) {
        by_pod[p].push_back(static_cast<int>(mip.vars.size()));
        by_node[j].push_back(static_cast<int>(mip.vars.size()));
        mip.vars.push_back({p, j});
      }
  }
  mip.rows.setDimensions(0, static_cast<int>(mip.vars.size()));
  for (int p = 0; p < m.pods(); ++p)
    if (!by_pod[p].empty())
      mip.add_row(by_pod[p], std::vector<double>(by_pod[p].size(), 1.0), -COIN_DBL_MAX, 1.0);
  for (int j = 0; j < m.nodes(); ++j)
    for (int d = 0; d < m.dims; ++d) {
      std::vector<int> idx;
      std::vector<double> val;
      for (int v : by_node[j])
        if (m.request(mip.vars[v].pod)[d] > 0) {
          idx.push_back(v);
          val.push_back(static_cast<double>(m.request(mip.vars[v].pod)[d]));
        }
      if (!idx.empty()) mip.add_row(idx, val, -COIN_DBL_MAX, static_cast<double>(m.capacity(j)[d]));
    }
  // Per tier: the placed-count and disruption metrics as coefficient vectors.
  auto count_row = [&](int t, std::vector<int>& idx, std::vector<double>& val) {
    for (size_t v = 0; v < mip.vars.size(); ++v)
      if (m.tier[mip.vars[v].pod] <= t) idx.push_back(static_cast<int>(v)), val.push_back(1.0);
  };
  int running = 0;
  auto keep_row = [&](int t, std::vector<int>& idx, std::vector<double>& val) {
    running = 0;
    for (int p = 0; p < m.pods(); ++p)
      if (m.tier[p] <= t && pb.in_scope(p) && m.where[p] != kUnplaced) ++running;
    for (size_t v = 0; v < mip.vars.size(); ++v) {
      const Var& x = mip.vars[v];
      if (m.tier[x.pod] > t || m.where[x.pod] == kUnplaced) continue;
      idx.push_back(static_cast<int>(v));
      val.push_back(x.node == m.where[x.pod] ? 2.0 : 1.0);
    }
  };
  for (int t = 0; t <= pb.tier; ++t) {
    if (pb.fix.min_placed[t] >= 0) {
      std::vector<int> idx;
      std::vector<double> val;
      count_row(t, idx, val);
      mip.add_row(idx, val, pb.fix.min_placed[t], COIN_DBL_MAX);
    }
    if (pb.fix.max_disruption[t] >= 0) {
      std::vector<int> idx;
      std::vector<double> val;
      keep_row(t, idx, val);
      mip.add_row(idx, val, 2.0 * running - pb.fix.max_disruption[t], COIN_DBL_MAX);
    }
  }
  mip.obj.assign(mip.vars.size(), 0.0);
  std::vector<int> idx;
  std::vector<double> val;
  if (pb.phase == Phase::kPlace) {
    count_row(pb.tier, idx, val);
  } else {
    keep_row(pb.tier, idx, val);
    mip.obj_offset = 2.0 * running;
  }
  for (size_t k = 0; k < idx.size(); ++k) mip.obj[idx[k]] = -val[k];
  return mip;
}

}  // namespace

size_t cbc_variables(const PhaseProblem& pb) {
  const Model& m = *pb.m;
  size_t n = 0;
  for (int p = 0; p < m.pods(); ++p)
    if (pb.in_scope(p))
      for (int j = 0; j < m.nodes(); ++j) n += m.can_host(p, j);
  return n;
}

PhaseOutcome solve_with_cbc(const PhaseProblem& pb, const Assignment& incumbent,
                            Deadline& deadline) {
  const Model& m = *pb.m;
  Mip mip = build(pb);
  PhaseOutcome out;
  out.best = incumbent;
  out.cost = pb.cost(incumbent);
  if (mip.vars.empty()) {  // nothing can be placed: the incumbent (all unplaced) is optimal
    out.optimal = true;
    return out;
  }
  const int cols = static_cast<int>(mip.vars.size());
  std::vector<double> lo(cols, 0.0), hi(cols, 1.0);
  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(mip.rows, lo.data(), hi.data(), mip.obj.data(), mip.row_lo.data(),
                     mip.row_hi.data());
  for (int c = 0; c < cols; ++c) solver.setInteger(c);

  // Clp checks its own clock inside the root LP, which CBC's limit does not reach.
  if (!deadline.deterministic())
    solver.getModelPtr()->setMaximumSeconds(std::max(0.001, deadline.left()));
  CbcModel model(solver);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  CglProbing probing;
  CglKnapsackCover cover;
  CglGomory gomory;
  // Probing is the costly generator on large models (one probe per binary); only small ones.
  if (cols <= 2000) model.addCutGenerator(&probing, -1, "Probing");
  model.addCutGenerator(&cover, -1, "KnapsackCover");
  model.addCutGenerator(&gomory, -1, "Gomory");
  if (deadline.deterministic()) {
    // Node limits only (no clock), and a bounded root: its cut loop is not counted in nodes.
    model.setMaximumNodes(std::max(1, static_cast<int>(deadline.left() * kCbcNodesPerSecond)));
    model.setMaximumCutPassesAtRoot(2);
    model.setMaximumCutPasses(1);
    model.setNumberStrong(2);
  } else {
    model.setUseElapsedTime(true);
    model.setMaximumSeconds(std::max(0.001, deadline.left()));
    model.setMaximumCutPassesAtRoot(cols <= 2000 ? 10 : 3);
  }
  // Seed with the incumbent.
  std::vector<double> start(cols, 0.0);
  for (int c = 0; c < cols; ++c)
    if (incumbent[mip.vars[c].pod] == mip.vars[c].node) start[c] = 1.0;
  double start_obj = 0;
  for (int c = 0; c < cols; ++c) start_obj += start[c] * mip.obj[c];
  model.setBestSolution(start.data(), cols, start_obj, true);
  model.branchAndBound();

  const int64_t nodes = model.getNodeCount();
  deadline.spend(std::max<int64_t>(1, nodes) * (kWorkPerSecond / kCbcNodesPerSecond));
  out.work = nodes;
  const double* sol = model.bestSolution();
  bool sol_ok = sol == nullptr;
  if (sol) {
    Assignment a(m.pods(), kUnplaced);
    for (int c = 0; c < cols; ++c)
      if (sol[c] > 0.5) a[mip.vars[c].pod] = mip.vars[c].node;
    sol_ok = pb.satisfies(a);
    if (sol_ok && pb.cost(a) < out.cost) {
      out.best = a;
      out.cost = pb.cost(a);
    }
  }
  // Proven optimal: CBC's best (or the seeded incumbent, when it found nothing better).
  out.optimal = model.isProvenOptimal() && sol_ok;
  return out;
}

}  // namespace orrery::optpack
