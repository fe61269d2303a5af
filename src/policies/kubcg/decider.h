// The decider (§5.3.2 step 7, Algorithm 3, eqs 16–17): where a pod completes first.
//
// Candidates are (node, resource) pairs: the CPU of every node, the GPU of every node with GPUs,
// for the image variants the pod has (switch.h), minus learned incompatible image/node pairs.
//
//   Δ_CPU_i = Min(T_Run_i) when node i is idle, else Min(T_Run'_i)                       (16)
//             T_Run' from the overlap model (timeline.h): the pod's τ = Min(T_Run_i) shared
//             with the CPU pods running there (their work left from the EP table), Θ_P.
//   Δ_GPU_i = Min(T_Run_i) + T_wGPU_i, T_wGPU = T_rem + T_queue (eqs 13, 17; the paper writes
//             T_queue twice, once inside T_wGPU: we count it once)
//
// Algorithm 3: the best GPU against the best CPU; GPU unless its Δ is larger (ties go to the GPU,
// then to the node listed first). A chosen GPU that is busy means "wait for it": the pod stays
// pending in the node's GPU waiting queue.
//
// Without any history for the pod's images on the candidates (cold start): an idle node first
// (several idle: the one listed first), otherwise the node that becomes idle earliest (from the
// EP table). On the chosen node, a free GPU is used when the pod has a GPU variant, else the CPU.
// Candidates without history are not compared with those that have it (explained as "no
// history").
#pragma once

#include <string>
#include <vector>

#include "policies/kubcg/history.h"
#include "policies/kubcg/timeline.h"

namespace orrery::kubcg {

// A pod running (or placed) on a node, as the EP table estimates it.
struct RunningPod {
  Resource resource = Resource::kCpu;
  double left_s = 0;  // estimated time left (ET − now, ≥ 0)
  double theta_slope = 1;
  int gpus = 0;  // GPUs it holds
};

// The node-status (NS) and running-pod (RP) tables for one candidate node.
struct NodeStatus {
  std::string name;
  int gpus = 0;                     // GPUs the node has
  std::vector<RunningPod> running;  // its pods
  std::vector<double> gpu_queue;    // run times of pods waiting ahead for its GPUs
};

struct PodImages {
  std::string cpu_image;  // empty: no CPU variant
  std::string gpu_image;  // empty: no GPU variant
  int gpus = 1;           // the GPU variant's request
};

struct Candidate {
  std::string node;
  Resource resource = Resource::kCpu;
  std::string image;
  bool usable = false;  // has history and is compatible
  std::string why;      // why not usable, or how Δ was computed
  double tau_s = 0;     // Min(T_Run) from the statistics
  double wait_s = 0;    // T_wGPU
  double delta_s = 0;   // Δ: time until the pod completes
};

struct Decision {
  bool placed = false;    // false: nothing is feasible (no candidate)
  size_t node_index = 0;  // into the NodeStatus list
  std::string node;
  Resource resource = Resource::kCpu;
  std::string image;
  bool wait_for_gpu = false;  // the GPU is busy: stay pending until it frees
  bool cold_start = false;
  double delta_s = 0;
  std::vector<Candidate> candidates;
  // `orrery explain` style: the estimates per candidate and the choice.
  std::string explain() const;
};

struct DeciderInput {
  const std::vector<NodeStatus>* nodes = nullptr;
  PodImages images;
  const StatsCache* stats = nullptr;
  const ThetaModel* theta = nullptr;
  // Learned incompatibilities: true when the image must not run on the node.
  bool (*incompatible)(const void* ctx, const std::string& image,
                       const std::string& node) = nullptr;
  const void* incompatible_ctx = nullptr;
};

Decision decide(const DeciderInput& in);

}  // namespace orrery::kubcg
