// The signal pipeline of one CARICO node agent (thesis Fig. 4.2, §4.2), independent of where the
// samples come from and how reports travel:
//
//   poll (hz, default 10) → combine (§4.2.1) → dynamic EMA (§4.2.2) → batch of `batch` samples
//   → local Incremental-SVD with damped-merge forgetting (§3.2–3.3)
//   → model = damped merge of the local and the latest global subspace (§4.3: agents merge the
//     global view they get back with their own)
//   → Capacity k of the latest filtered sample under the model's σ1·u1 (eqs 3.3–3.4)
//   → Pod-Capacity with the two Kalman filters, halting and dual mode (eqs 3.5–3.6, §4.2.4)
//
// Bad polls (a source problem, NaN/inf, out-of-range readings) are skipped: the batch is filled
// with the last good filtered sample instead, so the agent keeps serving its last good signal at
// its usual cadence. A change of the running pod count opens a churn window (§4.2.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "policies/carico/ema.h"
#include "policies/carico/kalman.h"
#include "policies/carico/subspace.h"
#include "policies/carico/telemetry_source.h"

namespace orrery::carico {

struct AgentOptions {
  double hz = 10;
  int batch = 10;
  int rank = 2;
  double forget = 0.5;         // weight of each new batch in the local model's damped merge
  double global_weight = 0.5;  // weight of the global subspace when merging it with the local
  double churn_window_s = 2.0;
  double k_max = 1000;
  EmaOptions ema;
  PodCapacityOptions pod;
};

struct AgentReport {
  Subspace local;  // what the agent submits to the aggregator
  Subspace model;  // what k was computed with
  Eigen::VectorXd y;
  double capacity = 0;      // k
  double pod_capacity = 0;  // eq. 3.5 or 3.6
  int pods = 0;
  bool dual_mode = false;
};

class NodeAgent {
 public:
  explicit NodeAgent(AgentOptions options = {});

  // One poll at `now_s`. `sample` is nullopt when the source gave nothing usable; `pods` is the
  // running pod count (the sample's own count wins when it has one). Returns a report when a
  // batch completes. `*skipped` (if given) says why the sample was dropped.
  std::optional<AgentReport> poll(double now_s, std::optional<RawSample> sample, int pods,
                                  std::string* skipped = nullptr);
  // A churn warning from outside (e.g. a pod bound to the node, whose containers are starting).
  void churn(double now_s);
  // The latest global subspace from the aggregator.
  void set_global(Subspace global) { global_ = std::move(global); }

  const Subspace& local() const { return svd_.subspace(); }
  const Subspace& global() const { return global_; }
  const std::optional<AgentReport>& last_report() const { return last_; }
  uint64_t skipped_samples() const { return skipped_; }
  const AgentOptions& options() const { return opt_; }

 private:
  AgentOptions opt_;
  DynamicEma ema_;
  IncrementalSvd svd_;
  PodCapacityEstimator pods_est_;
  Subspace global_;
  Eigen::MatrixXd batch_;
  int filled_ = 0;
  int pods_ = -1;
  double churn_until_ = -1;
  uint64_t skipped_ = 0;
  std::optional<AgentReport> last_;
};

}  // namespace orrery::carico
