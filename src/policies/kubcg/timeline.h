// The pod timeline model of §4 (eqs 1–15).
//
//   T_Pen = T_Wait + T_Sch                         (1)
//   T_Run = T_Cr + T_Ex                            (2)
//   T_P   = T_Pen + T_Run + T_Del                  (3)
//
// Multiple pods on one node (§4.1): with P pods running at once, each runs Θ_P times slower.
// Θ_P = P by default (Fig. 10); per image it can be 1 + s·(P − 1) (s = 1: the default; s < 1 for
// images that do not use the whole node, e.g. the single-threaded matrix pod).
//
// The three overlap scenarios (Fig. 3) are closed forms of one rule, processor sharing with Θ_P:
// while P pods overlap, each advances 1/Θ_P seconds of its solo work per second. share_finish()
// solves it for any number of pods; scenario1..3 are the paper's cases for two pods (tests check
// they agree).
//
// GPUs (§4.2): one pod per GPU; a new GPU pod waits T_wGPU = 0 when a GPU is free, else
// T_rem + T_queue (13); T'_Pen = T_Pen + T_wGPU (14); T_GPU = T'_Pen + T_Run + T_Del (15).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace orrery::kubcg {

inline double t_pen(double t_wait, double t_sch) {
  return t_wait + t_sch;
}  // (1)
inline double t_run(double t_cr, double t_ex) {
  return t_cr + t_ex;
}  // (2)
inline double t_p(double pen, double run, double del) {
  return pen + run + del;
}  // (3)

// Θ_P per image: 1 + slope·(P − 1); slope 1 (Θ_P = P) unless configured.
class ThetaModel {
 public:
  void set_slope(const std::string& image, double slope) { slopes_[image] = slope; }
  void set_default_slope(double slope) { default_ = slope; }
  double slope(const std::string& image) const {
    auto it = slopes_.find(image);
    return it == slopes_.end() ? default_ : it->second;
  }
  double theta(const std::string& image, int p) const { return theta_of(slope(image), p); }
  static double theta_of(double slope, int p) { return p <= 1 ? 1.0 : 1.0 + slope * (p - 1); }

 private:
  std::map<std::string, double> slopes_;
  double default_ = 1.0;
};

// (4) P pods starting and finishing together: τ for P = 1, else τ·Θ_P.
double scenario1_run(double tau, double theta_p, int p);

// Two pods, the second starting T_α after the first (both with Θ = theta while they overlap).
struct TwoPods {
  double run1 = 0;  // T_Run'_1
  double run2 = 0;  // T_Run'_2
  double t_beta = 0, t_omega = 0, t_mu = 0;
};
// (5)–(8): pod 2 finishes after pod 1. T_β = τ1 − T_α (pod 1's work left when pod 2 starts),
// T_β·Θ = T_β + T_ω (6), T_Run'_1 = T_α + T_β + T_ω (5), T_Run'_2 = T_β + T_ω + T_μ (7) with T_μ
// pod 2's work left alone. Requires τ2 ≥ T_β (else it is scenario 3).
TwoPods scenario2(double tau1, double tau2, double t_alpha, double theta);
// (9)–(12): pod 2 starts after and finishes before pod 1. T_β = τ2, T_β·Θ = T_β + T_ω (12),
// T_Run'_2 = T_β + T_ω (11), T_Run'_1 = T_α + T_β + T_ω + T_μ (9) with T_μ pod 1's work left
// after pod 2 ends (the paper splits it into T_μ + T_k). Requires τ1 − T_α ≥ τ2.
TwoPods scenario3(double tau1, double tau2, double t_alpha, double theta);

// Processor sharing with Θ: pods with `work` seconds of solo work left, all running from now;
// theta(P) the factor while P of them run. Returns each pod's time to finish, in input order.
// O(n log n).
template <class Theta>
std::vector<double> share_finish(const std::vector<double>& work, Theta theta);

// (13) T_wGPU for a node with `gpus` GPUs: `busy_left` are the times left of the pods holding a
// GPU (one each), `queued` the run times of pods waiting ahead for this node's GPUs (in order).
// Each queued pod takes the GPU that frees first.
double gpu_wait(int gpus, std::vector<double> busy_left, const std::vector<double>& queued);

}  // namespace orrery::kubcg

#include "policies/kubcg/timeline_impl.h"
