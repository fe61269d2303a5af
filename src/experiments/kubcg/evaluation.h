// The paper's evaluation (§6) in the simulator: the cluster of Table 1, the images of Table 2
// with per-node run times consistent with Fig. 11 and the speedups the text states, the warm-up
// of the history (100 runs per image), and one run of a workload under one of the four cases:
//
//   D-CPU      kube-default, every pod its CPU image
//   D-GPU      kube-default, every pod its GPU image (nvidia.com/gpu: 1)
//   K-CPU      KubCG, pods declare only their CPU image
//   K-CPU+GPU  KubCG, pods declare both (orrery.io/images), the switch picks one
//
// Run times (seconds, one pod alone; docs/repro/kubcg.md "Cluster and images"): the text fixes
// scale CPU5/GPU5 = 1.85, matrix CPU5/GPU5 = 28.4, GPU3 slower than CPU3–CPU5 for scale, and
// tensorflow failing on CPU1/CPU2; the rest are our choices, in Fig. 11's order of magnitude.
// CPU demand is Table 2's CPU usage (550 %, 705 %, 102 %, 612 %; GPU variants 34–77 %), so pods
// on one node share its cores (processor sharing: Θ_P ≈ P on the 8-core nodes, as Fig. 10).
// kube-default gets tensorflow pods with a node selector for the nodes that can run it (as an
// operator would configure it); KubCG learns it from the warm-up's failed runs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "policies/kubcg/history.h"

namespace orrery::kubcg {

enum class Case { kDCpu, kDGpu, kKCpu, kKCpuGpu };
const char* to_string(Case c);  // "D-CPU", "D-GPU", "K-CPU", "K-CPU+GPU"
inline constexpr Case kAllCases[] = {Case::kDCpu, Case::kDGpu, Case::kKCpu, Case::kKCpuGpu};

struct PaperNode {
  std::string name;
  int cores = 0;
  int gpus = 0;
  std::string gpu_model;
};
const std::vector<PaperNode>& paper_cluster();  // node-1 … node-5 (Table 1; the master excluded)

struct PaperImage {
  std::string name;  // scale, encode, matrix, tensorflow
  double cpu_cores = 1, gpu_cpu_cores = 0.5;
  std::vector<double> cpu_s;  // per node (paper_cluster order); < 0: fails there
  std::vector<double> gpu_s;  // per node; 0: no GPU
  std::string cpu_image() const { return "kubcg/" + name + ":cpu"; }
  std::string gpu_image() const { return "kubcg/" + name + ":gpu"; }
};
const std::vector<PaperImage>& paper_images();

struct Arrival {
  double t_s = 0;
  int image = 0;  // index into paper_images()
};

struct RunResult {
  double makespan_s = 0;         // last completion − first arrival
  double mean_completion_s = 0;  // mean over pods of completion − arrival
  int pods = 0;
  int failed_runs = 0;   // runs that failed (re-created)
  bool complete = true;  // every pod finished
  int64_t gpu_waits = 0, switches = 0;
  std::map<std::string, int> placements;  // "node-5/GPU" → pods
};

// The warm-up: `runs_per_image` runs of every image, spread over its (node, resource) pairs,
// one at a time, recorded by KubCG's feedback loop. Returns the records (failed runs included).
std::vector<Record> warm_up(int runs_per_image, uint64_t seed);

// One run; KubCG cases start from `history` (the warm-up) in a fresh in-memory database.
// `explain`: receives every KubCG decision's explanation.
RunResult run_case(Case c, const std::vector<Arrival>& arrivals, const std::vector<Record>& history,
                   uint64_t seed, std::vector<std::string>* explain = nullptr);

// A KubCG run against a real history database (`db_url`, holding whatever history it has), for
// fault injection: `on_finished(n)` runs after the n-th pod finished (e.g. stops the database
// server), inside the simulation.
struct FaultRun {
  RunResult result;
  int pods_bound = 0;   // distinct pods bound
  int bound_twice = 0;  // pods bound more than once
  int64_t records = 0, acknowledged = 0, pending = 0, lost = 0, failed_flushes = 0;
  std::vector<std::string> warnings;  // the policy's end-of-run warnings
};
FaultRun run_case_on_db(Case c, const std::vector<Arrival>& arrivals, const std::string& db_url,
                        uint64_t seed, const std::function<void(int finished)>& on_finished);

}  // namespace orrery::kubcg
