#include "policies/kubcg/timeline.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace orrery::kubcg {

double scenario1_run(double tau, double theta_p, int p) {
  return p <= 1 ? tau : tau * theta_p;
}

TwoPods scenario2(double tau1, double tau2, double t_alpha, double theta) {
  TwoPods r;
  r.t_beta = tau1 - t_alpha;                // pod 1's solo work left when pod 2 starts
  r.t_omega = r.t_beta * theta - r.t_beta;  // (6): the extra time of sharing
  r.run1 = t_alpha + r.t_beta + r.t_omega;  // (5)
  r.t_mu = tau2 - r.t_beta;                 // pod 2 advanced T_β of its work while sharing
  r.run2 = r.t_beta + r.t_omega + r.t_mu;   // (7)
  return r;
}

TwoPods scenario3(double tau1, double tau2, double t_alpha, double theta) {
  TwoPods r;
  r.t_beta = tau2;                                   // pod 2's whole solo work overlaps pod 1
  r.t_omega = r.t_beta * theta - r.t_beta;           // (12)
  r.run2 = r.t_beta + r.t_omega;                     // (11)
  r.t_mu = tau1 - t_alpha - tau2;                    // pod 1's work left after pod 2 ends
  r.run1 = t_alpha + r.t_beta + r.t_omega + r.t_mu;  // (9)
  return r;
}

double gpu_wait(int gpus, std::vector<double> busy_left, const std::vector<double>& queued) {
  if (gpus <= 0) return 0;
  // Free times of every GPU: the busy ones when their pod ends, the others now.
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (double b : busy_left) free_at.push(std::max(0.0, b));
  for (int i = static_cast<int>(busy_left.size()); i < gpus; ++i) free_at.push(0);
  for (double q : queued) {  // T_queue: each pod ahead takes the GPU that frees first
    const double t = free_at.top();
    free_at.pop();
    free_at.push(t + q);
  }
  return free_at.top();  // T_rem + T_queue (0 when a GPU is free and nobody waits ahead)
}

}  // namespace orrery::kubcg
