// The Deployment/ReplicaSet controller: keeps `replicas` active pods of a template. Pods that are
// deleted, finish or fail (OOM kill, admission failure) are replaced; extra pods are deleted in
// upstream's order (controller.ActivePodsWithRanks): unscheduled before scheduled, pending before
// running, pods doubled up on a node with others of the set first, then the most recently started,
// the most restarted, the newest.
// ScaleDownOrder::kLogarithmic is upstream's LogarithmicScaleDown (on by default since Kubernetes
// 1.22, GA in 1.31; pkg/controller/controller_utils.go ActivePodsWithRanks.Less and
// logarithmicRankDiff): started pods are compared by floor(log2(time since they started, in ns))
// with the start time in whole seconds (the Ready condition's time), and pods in the same bucket
// by UID, i.e. in an order unrelated to age (here a random key per pod); restarts and creation
// times then no longer decide.
//
// A pod that finished or failed (e.g. OOM-killed) is replaced after the kubelet's crash-loop
// back-off for its replica's restart count (10 s doubling up to 5 min), so a replica that keeps
// failing does not spin; pods deleted from under the controller are replaced at once.
//
// Pods are named "<name>-<n>", labelled app=<name> when the template has no labels, and owned by
// OwnerRef{ReplicaSet, <name>}; a pod created by someone else with that OwnerRef is adopted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/sim_backend.h"
#include "sim/workload.h"

namespace orrery::sim {

enum class ScaleDownOrder : uint8_t { kExact, kLogarithmic };

class ReplicaSet : public PodOwner, public EventTarget {
 public:
  ReplicaSet(SimBackend& sim, std::string name, PodTemplate tmpl, int32_t replicas, uint64_t seed);

  const std::string& name() const { return name_; }
  int32_t replicas() const { return replicas_; }
  // Changes the desired count; the controller reconciles at the current time.
  void set_replicas(int32_t n);
  void set_scale_down_order(ScaleDownOrder o) { scale_down_order_ = o; }
  // Active pods: alive, not terminating, not finished.
  std::vector<PodId> active_pods() const;
  // The active pods as an HPA's pod lister sees them: a stable key and whether the pod runs
  // (PodPhase::kRunning; otherwise it is pending).
  struct ActivePod {
    uint64_t serial;
    bool running;
  };
  std::vector<ActivePod> active_pod_states() const;
  // Pods the controller created (or adopted) over the run.
  uint64_t created() const { return created_; }

  void on_pod_event(const fw::ClusterEvent& e, uint32_t tag) override;
  void on_pod_terminating(PodId pod, uint64_t serial, uint32_t tag) override;
  void handle(const Event& e) override;

 private:
  struct Member {
    PodId pod;
    uint64_t serial;
    bool active;
    uint64_t uid = 0;  // random: the UID order of LogarithmicScaleDown
  };
  void request_sync();
  void sync();
  Member* find(uint64_t serial);
  void scale_down(int32_t count);

  SimBackend& sim_;
  std::string name_;
  PodTemplate tmpl_;
  int32_t replicas_;
  Rng rng_;
  Rng uid_rng_;  // separate, so the exact order's runs draw the same exec samples as before
  ScaleDownOrder scale_down_order_ = ScaleDownOrder::kExact;
  OwnerId owner_;
  std::vector<Member> members_;
  // What the replacement of a replica that went inherits: its restarts (+1 when it failed) and
  // migrations (+1 when it was moved).
  struct Credit {
    uint32_t restarts;
    uint32_t migrations;
  };
  Credit credit_for_loss(PodId pod) const;
  std::vector<Credit> credits_;  // of replicas that went and are still to be replaced
  int32_t backing_off_ = 0;      // failed replicas waiting for their back-off
  uint64_t next_index_ = 0;
  uint64_t created_ = 0;
  bool sync_pending_ = false;
};

}  // namespace orrery::sim
