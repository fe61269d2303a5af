#include "policies/carico/subspace.h"

#include <algorithm>
#include <stdexcept>

namespace orrery::carico {

void orient(Subspace& s) {
  for (int j = 0; j < s.rank(); ++j) {
    auto col = s.u.col(j);
    bool flip;
    if (j == 0) {
      flip = col.sum() < 0;
    } else {
      Eigen::Index at = 0;
      col.cwiseAbs().maxCoeff(&at);
      flip = col(at) < 0;
    }
    if (flip) col = -col;
  }
}

Subspace svd_left(const Eigen::MatrixXd& a, int rank) {
  if (rank < 1) throw std::invalid_argument("svd_left: rank must be >= 1");
  Subspace s;
  if (a.rows() == 0 || a.cols() == 0) return s;
  const int r = static_cast<int>(std::min<Eigen::Index>({rank, a.rows(), a.cols()}));
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(a, Eigen::ComputeThinU);
  s.u = svd.matrixU().leftCols(r);
  s.sigma = svd.singularValues().head(r);
  orient(s);
  return s;
}

Subspace merge(const Subspace& a, double wa, const Subspace& b, double wb, int rank) {
  if (wa < 0 || wb < 0) throw std::invalid_argument("merge: weights must be >= 0");
  if (a.empty() && b.empty()) return {};
  const int m = a.empty() ? b.dims() : a.dims();
  if (!a.empty() && !b.empty() && a.dims() != b.dims())
    throw std::invalid_argument("merge: subspaces of different dimensions");
  Eigen::MatrixXd c(m, a.rank() + b.rank());
  if (!a.empty()) c.leftCols(a.rank()) = std::sqrt(wa) * a.scaled();
  if (!b.empty()) c.rightCols(b.rank()) = std::sqrt(wb) * b.scaled();
  return svd_left(c, rank);
}

double projected_sum(const Eigen::MatrixXd& m, const Eigen::VectorXd& u) {
  return (u.transpose() * m).squaredNorm();
}

void IncrementalSvd::update(const Eigen::MatrixXd& batch) {
  if (s_.empty()) {
    s_ = svd_left(batch, rank_);
    return;
  }
  if (batch.rows() != s_.dims()) throw std::invalid_argument("IncrementalSvd: wrong batch rows");
  const double w_old = w_new_ > 0 ? 1.0 - w_new_ : 1.0;
  const double w_b = w_new_ > 0 ? w_new_ : 1.0;
  Eigen::MatrixXd c(batch.rows(), s_.rank() + batch.cols());
  c.leftCols(s_.rank()) = std::sqrt(w_old) * s_.scaled();
  c.rightCols(batch.cols()) = std::sqrt(w_b) * batch;
  s_ = svd_left(c, rank_);
}

}  // namespace orrery::carico
