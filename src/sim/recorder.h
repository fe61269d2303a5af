// Run metrics gathered while the simulation runs: one record per pod (pods.csv), cluster
// utilisation sampled at a fixed interval (timeseries.csv), and the edge ratio of each tracked
// deployment (edge_ratio.csv).
//
// Definitions (docs/simulator.md):
//   pending_s  = bound - created            (T_Pen of KubCG eq. 1: queue wait + scheduling)
//   pct_s      = finished - running         (Pod Completion Time as in CARICO §5: from start)
//   cpu_util   = Σ CPU used / Σ CPU capacity (actual usage from the execution model)
//   mem_util   = Σ memory used / Σ memory capacity
//   slot_util  = Σ pods counted on nodes / Σ allocatable pods
//   edge_ratio = pods of the deployment on edge-tier nodes / its pods on any node
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "framework/backend.h"
#include "sim/metrics.h"
#include "sim/replicaset.h"
#include "sim/sim_backend.h"

namespace orrery::sim {

class Recorder : public fw::EventListener, public EventTarget {
 public:
  Recorder(SimBackend& sim, Time sample_interval);
  ~Recorder() override;

  void track_deployment(const ReplicaSet* rs) { deployments_.push_back(rs); }
  // Room for this many pods (a hint: trace replays know their task count).
  void reserve(size_t pods) { records_.reserve(pods + 1); }
  // Takes the first sample now and keeps sampling every interval until stop().
  void start();
  // Takes a last sample at the current time (if none was taken at it) and stops sampling.
  void stop();

  void on_event(const fw::ClusterEvent& e) override;
  void handle(const Event& e) override;

  size_t pods_created() const { return created_; }
  size_t pending_now() const { return pending_; }
  size_t running_now() const { return running_; }
  // When a pod was last added, bound, started, finished or deleted.
  Time last_activity() const { return last_activity_; }

  std::string pods_csv() const;
  std::string timeseries_csv() const;
  std::string edge_ratio_csv() const;
  bool has_edge() const;
  // {"count","pending_p50_s","pending_p99_s","pct_mean_s", "pending_mean_s", ...outcomes}
  Json pods_summary() const;
  // {"cpu_mean","slots_mean","mem_mean"}
  Json utilization_summary() const;
  // {"mean": average over deployments of the time-averaged ratio, "<deployment>": ...}
  Json edge_summary() const;
  // The pooled edge ratio (the KubeDSM authors' metric, docs/repro/kubedsm.md): at every sample,
  // the tracked deployments' pods on edge nodes over all their pods (starting or running); the
  // mean over samples with at least one pod. `all` over every sample, `busy` over the samples
  // with busy_from <= t < busy_to. NaN when no sample counts.
  struct PooledEdgeRatio {
    double all = 0, busy = 0;
  };
  PooledEdgeRatio edge_pooled(Time busy_from, Time busy_to) const;

 private:
  struct PodRecord {
    std::string name;
    StrId owner = kNoStr;
    StrId outcome = kNoStr;
    NodeId node = kNoNode;
    uint32_t restarts = 0;
    uint32_t migrations = 0;
    bool running = false;
    bool terminal = false;
    Time created = -1, bound = -1, started = -1, finished = -1;
  };
  struct Sample {
    Time t;
    double cpu, mem, slots;
    size_t pending, running;
    double cpu_requested, mem_requested;
    size_t nodes;
  };
  struct EdgeSample {
    Time t;
    uint32_t deployment;
    uint32_t edge, total;
    int32_t replicas;
  };
  PodRecord* record(uint64_t serial) {
    return serial < records_.size() && records_[serial].created >= 0 ? &records_[serial] : nullptr;
  }
  void sample();

  SimBackend& sim_;
  Time interval_;
  bool stopped_ = false;
  std::vector<const ReplicaSet*> deployments_;
  std::vector<PodRecord> records_;  // by pod serial
  size_t created_ = 0, pending_ = 0, running_ = 0;
  Time last_activity_ = 0;
  std::string last_owner_;  // consecutive pods mostly share an owner: skip re-interning it
  StrId last_owner_id_ = kNoStr;
  std::vector<Sample> samples_;
  // Cluster capacity totals, recomputed only after node events.
  bool capacity_dirty_ = true;
  double cpu_capacity_ = 0, mem_capacity_ = 0, slots_ = 0, cpu_alloc_ = 0, mem_alloc_ = 0;
  std::vector<EdgeSample> edge_;
};

}  // namespace orrery::sim
