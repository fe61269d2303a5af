#include "policies/carico/rpc/wire.h"

#include <cmath>

namespace orrery::carico::rpc {

void to_wire(const Subspace& s, v1::Subspace* out) {
  out->Clear();
  if (s.empty()) return;
  out->set_dims(static_cast<uint32_t>(s.dims()));
  out->set_rank(static_cast<uint32_t>(s.rank()));
  for (int j = 0; j < s.rank(); ++j)
    for (int i = 0; i < s.dims(); ++i) out->add_u(s.u(i, j));
  for (int j = 0; j < s.rank(); ++j) out->add_sigma(s.sigma(j));
}

std::optional<Subspace> from_wire(const v1::Subspace& m, std::string* why) {
  if (m.dims() == 0 && m.rank() == 0 && m.u_size() == 0 && m.sigma_size() == 0) return Subspace{};
  if (m.dims() < 1 || m.dims() > kMaxDims) {
    *why = "subspace dims " + std::to_string(m.dims()) + " out of range [1, 16]";
    return std::nullopt;
  }
  if (m.rank() < 1 || m.rank() > m.dims()) {
    *why = "subspace rank " + std::to_string(m.rank()) + " out of range [1, dims]";
    return std::nullopt;
  }
  if (m.u_size() != static_cast<int>(m.dims() * m.rank()) ||
      m.sigma_size() != static_cast<int>(m.rank())) {
    *why = "subspace arrays have the wrong sizes";
    return std::nullopt;
  }
  Subspace s;
  s.u.resize(m.dims(), m.rank());
  s.sigma.resize(m.rank());
  for (uint32_t j = 0; j < m.rank(); ++j) {
    for (uint32_t i = 0; i < m.dims(); ++i) {
      const double v = m.u(static_cast<int>(j * m.dims() + i));
      if (!std::isfinite(v) || std::abs(v) > 1 + 1e-6) {
        *why = "subspace vector component is not a finite number in [-1, 1]";
        return std::nullopt;
      }
      s.u(i, j) = v;
    }
    const double sg = m.sigma(static_cast<int>(j));
    if (!std::isfinite(sg) || sg < 0 || sg > 1e6) {
      *why = "singular value is not a finite number >= 0";
      return std::nullopt;
    }
    if (j > 0 && sg > s.sigma(j - 1)) {  // Subspace's invariant: largest first (u1, sigma1)
      *why = "singular values are not in non-increasing order";
      return std::nullopt;
    }
    s.sigma(j) = sg;
  }
  return s;
}

bool valid_submit(const v1::SubmitRequest& r, Subspace* local, std::string* why) {
  if (r.node().empty() || r.node().size() > kMaxNodeName) {
    *why = "node name must have 1 to 253 characters";
    return false;
  }
  for (double v : {r.pod_capacity(), r.capacity()}) {
    if (!std::isfinite(v) || v < 0 || v > 1e9) {
      *why = "pod_capacity and capacity must be finite numbers >= 0";
      return false;
    }
  }
  auto s = from_wire(r.local(), why);
  if (!s) return false;
  *local = std::move(*s);
  return true;
}

}  // namespace orrery::carico::rpc
