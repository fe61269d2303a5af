#include "policies/carico/agent.h"

#include <algorithm>

#include "policies/carico/capacity.h"

namespace orrery::carico {

NodeAgent::NodeAgent(AgentOptions options)
    : opt_(options),
      ema_(kDims, options.ema, options.hz),
      svd_(options.rank, options.forget),
      pods_est_(options.pod),
      batch_(kDims, options.batch) {
  opt_.pod.max_pod_capacity = options.pod.max_pod_capacity;
}

void NodeAgent::churn(double now_s) {
  churn_until_ = std::max(churn_until_, now_s + opt_.churn_window_s);
}

std::optional<AgentReport> NodeAgent::poll(double now_s, std::optional<RawSample> sample,
                                           int pods, std::string* skipped) {
  // A clock that went backwards must not stretch an open churn window by the jump.
  churn_until_ = std::min(churn_until_, now_s + opt_.churn_window_s);
  std::string why;
  if (sample && !plausible(*sample, &why)) sample.reset();
  if (sample && sample->pods >= 0) pods = sample->pods;
  if (pods >= 0) {
    if (pods_ >= 0 && pods != pods_) churn(now_s);
    pods_ = pods;
  }
  if (sample) {
    ema_.add(combine(*sample));
  } else {
    ++skipped_;
    if (skipped) *skipped = why.empty() ? "no sample" : why;
    if (!ema_.primed()) return std::nullopt;  // nothing good yet to keep serving
  }
  batch_.col(filled_++) = ema_.value();
  if (filled_ < opt_.batch) return std::nullopt;
  filled_ = 0;

  svd_.update(batch_);
  AgentReport r;
  r.local = svd_.subspace();
  r.model = global_.empty() || global_.dims() != r.local.dims()
                ? r.local
                : merge(r.local, 1.0 - opt_.global_weight, global_, opt_.global_weight, opt_.rank);
  r.y = ema_.value();
  r.capacity = capacity_k(r.y, r.model.sigma1(), r.model.u1(), opt_.k_max);
  r.pods = std::max(0, pods_);
  const bool churning = now_s < churn_until_;
  r.pod_capacity = pods_est_.add(r.capacity, r.pods, churning);
  r.dual_mode = pods_est_.dual_mode();
  last_ = r;
  return r;
}

}  // namespace orrery::carico
