// SimBackend: the ClusterBackend of the simulator. It owns the cluster state and plays the roles
// of the API server and the kubelets on the event loop, following the pod lifecycle of KubCG
// (eqs 1–3):
//
//   create_pod ─api─▶ kPodAdded (Pending: queue wait + scheduling, T_Pen)
//   bind ─bind─▶ kPodBound ─startup (container creation / image pull, T_Cr)─▶ kPodRunning
//   running: work at the rate of the execution model (T_Ex) ─▶ kPodFinished (Succeeded)
//   finished ─gc (T_Del)─▶ kPodDeleted;   delete_pod ─api + termination grace─▶ kPodDeleted
//
// Every delay is a seeded distribution (Lifecycle); each draws from its own Rng stream. All
// notifications are delivered from event-loop events, never from inside an API call, so a
// listener may call back into the backend. Listeners are notified in registration order; the
// pod's owner (a controller) is notified after them.
//
// Kubelet behaviour modelled: admission (a pod bound to a node where it does not fit next to the
// pods already admitted there fails with reason OutOf<resource>), processor sharing and OOM kills
// (execution.h), node failure (pods stop; after `detection` the node is tainted unreachable, after
// `eviction` more its pods are deleted), node removal (its pods are deleted).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "framework/backend.h"
#include "framework/telemetry.h"
#include "sim/event_loop.h"
#include "sim/execution.h"
#include "util/distribution.h"

namespace orrery::sim {

struct Lifecycle {
  Dist api;          // create/delete request → seen by watchers
  Dist bind;         // bind request → kPodBound
  Dist startup;      // kPodBound → kPodRunning (T_Cr)
  Dist termination;  // deletion of a started pod → kPodDeleted (graceful termination)
  Dist gc;           // kPodFinished → the finished pod is removed (T_Del)
  Time failure_detection = 40 * kSecond;  // node-monitor-grace-period
  Time failure_eviction = 300 * kSecond;  // default tolerationSeconds for unreachable:NoExecute
};

using OwnerId = uint32_t;
inline constexpr OwnerId kNoOwner = 0;

// A controller that owns pods (ReplicaSet, Job, trace replay). Called after the listeners.
class PodOwner {
 public:
  virtual ~PodOwner() = default;
  // kPodAdded, kPodBound, kPodRunning, kPodFinished and kPodDeleted of the owner's pods. `tag` is
  // the value given at creation (e.g. a task index).
  virtual void on_pod_event(const fw::ClusterEvent& e, uint32_t tag) = 0;
  // The pod is being deleted (graceful termination started); it no longer counts as active.
  virtual void on_pod_terminating(PodId pod, uint64_t serial, uint32_t tag) {
    (void)pod, (void)serial, (void)tag;
  }
};

// Simulator-side facts about a new pod.
struct PodExtras {
  ExecSpec exec;
  OwnerId owner = kNoOwner;
  uint32_t tag = 0;
  uint32_t restarts = 0;    // predecessors of this replica that failed and were replaced
  uint32_t migrations = 0;  // predecessors of this replica that were moved (fw::is_migration)
  // The pod this one replaces by migration (alive at creation): it inherits its restart count and
  // its migration count plus one.
  PodId migrated_from = kNoPod;
};

enum class PodStage : uint8_t { kPending, kBinding, kStarting, kRunning, kDone, kTerminating };

class SimBackend : public fw::ClusterBackend, public EventTarget, public fw::NodeTelemetry {
 public:
  SimBackend(EventLoop& loop, uint64_t seed, Lifecycle lifecycle = {});
  ~SimBackend() override;

  // ---- fw::ClusterBackend ----
  ClusterState& state() override { return state_; }
  int64_t now_us() const override { return loop_.now(); }
  void bind(PodId pod, NodeId node) override { bind_after(pod, node, 0); }
  void delete_pod(PodId pod, const std::string& reason) override { delete_after(pod, reason, 0); }
  // A pod created through the generic interface gets the ExecSpec registered for its spec
  // (register_exec), else one from its annotations (orrery.io/work, orrery.io/cpu-usage,
  // orrery.io/memory-usage), else usage = requests and no end. An OwnerRef naming a registered
  // owner attaches the pod to it. The annotation orrery.io/migrated-from: "ns/name" marks it as
  // the replacement of a live pod (see PodExtras::migrated_from).
  void create_pod(Pod pod) override;
  // Changes the pod in place; a pod that has not started gets the execution profile of what it
  // now is (register_image_exec for its first container's new image, else its annotations).
  // kPodUpdated follows from the loop.
  bool update_pod(PodId pod, const fw::PodUpdate& update) override;
  void add_listener(fw::EventListener* l) override;
  void remove_listener(fw::EventListener* l) override;

  // ---- simulator extensions ----
  PodId create_pod(Pod pod, const PodExtras& extras);
  // Bind/delete whose request leaves `extra` later (the scheduler's decision latency).
  void bind_after(PodId pod, NodeId node, Time extra);
  void delete_after(PodId pod, const std::string& reason, Time extra);
  void register_exec(const std::shared_ptr<const PodSpec>& spec, const ExecSpec& exec);
  // What pods whose first container runs `image` do (used when no spec registration applies).
  void register_image_exec(const std::string& image, const ExecSpec& exec);
  // The work of pods running `image` on one node, replacing their ExecSpec's work there
  // (hardware-specific run times: KubCG's Fig. 11). `fails`: the container exits with an error
  // after `work` (an image the node cannot run, e.g. KubCG's tensorflow on CPU1/CPU2); the pod
  // ends Failed with reason "Error".
  struct NodeWork {
    Time work = 0;
    bool fails = false;
  };
  void register_image_node_work(const std::string& image, NodeId node, NodeWork w);
  // Refuse binds or deletions (fault injection, conformance tests); see fw::Refusals.
  void set_refusals(fw::Refusals r) { refusals_ = std::move(r); }
  OwnerId add_owner(PodOwner* owner, OwnerKind kind, const std::string& name);

  NodeId add_node(Node node, double speed = 1.0);
  void fail_node(NodeId node);
  void recover_node(NodeId node);
  void remove_node(NodeId node);
  bool node_failed(NodeId node) const { return node < nodes_.size() && nodes_[node].failed; }

  PodStage stage(PodId pod) const { return pods_[pod].stage; }
  Time started_at(PodId pod) const { return pods_[pod].started; }
  uint32_t restarts(PodId pod) const { return pods_[pod].restarts; }
  uint32_t migrations(PodId pod) const { return pods_[pod].migrations; }
  uint32_t owner_tag(PodId pod) const { return pods_[pod].tag; }
  OwnerId owner_of(PodId pod) const { return pods_[pod].owner; }
  const ExecSpec& exec(PodId pod) const { return pods_[pod].exec; }
  // Why the event being delivered happened: "Succeeded", "OOMKilled", "OutOfcpu", a deletion
  // reason ("preempted by ns/p", "scaled down", "completed", "node failure"), or "".
  const std::string& event_reason() const { return reason_; }

  EventLoop& loop() { return loop_; }
  const Execution& execution() const { return exec_; }
  uint64_t notifications() const { return notifications_; }

  // ---- NodeTelemetry ----
  int64_t cpu_capacity_milli(NodeId node) const override { return nodes_[node].cpu_capacity; }
  int64_t cpu_demand_milli(NodeId node) const override { return exec_.cpu_demand(node); }
  int64_t cpu_used_milli(NodeId node) const override { return exec_.cpu_used(node); }
  int64_t memory_capacity(NodeId node) const override { return nodes_[node].memory_capacity; }
  int64_t memory_used(NodeId node) const override { return exec_.memory_used(node); }
  double cpu_pressure(NodeId node) const override { return 1.0 - exec_.share(node); }
  int running_pods(NodeId node) const override {
    return static_cast<int>(exec_.running_on(node).size());
  }
  double cpu_seconds_total(NodeId node) const override {
    return exec_.cpu_time(node, loop_.now()) * 1e-6;
  }
  double cpu_stall_seconds_total(NodeId node) const override {
    return to_seconds(exec_.stall_time(node, loop_.now()));
  }

  void handle(const Event& e) override;

 private:
  enum Kind : uint32_t {
    kCreated,
    kBindDone,
    kStarted,
    kFinish,
    kDeleteReq,
    kRemove,
    kTaint,
    kEvict,
    kUpdated
  };
  struct PodSim {
    PodStage stage = PodStage::kPending;
    bool start_deferred = false;  // bound to a failed node: starts when it recovers
    bool admitted = false;        // counted in its node's admitted requests
    uint32_t gen = 0;             // invalidates stale finish events
    OwnerId owner = kNoOwner;
    uint32_t tag = 0;
    uint32_t restarts = 0;
    uint32_t migrations = 0;
    Time started = 0;
    ExecSpec exec;
    bool fails = false;  // NodeWork::fails on its node
    std::string reason;  // deletion reason
  };
  struct NodeSim {
    bool failed = false;
    bool tainted = false;
    uint32_t epoch = 0;  // invalidates taint/evict events after a recovery
    int64_t cpu_capacity = 0;
    int64_t memory_capacity = 0;
    Resources admitted;  // requests of the pods the kubelet admitted and still holds
  };
  struct OwnerEntry {
    PodOwner* owner;
  };

  bool valid(PodId pod, uint64_t serial) const {
    return state_.pod_alive(pod) && state_.pod_serial(pod) == serial;
  }
  ExecSpec exec_for(const Pod& pod) const;
  PodExtras extras_for(const Pod& pod) const;
  void emit(fw::EventKind kind, PodId pod, NodeId node, uint64_t serial, OwnerId owner,
            uint32_t tag);
  void emit_pod(fw::EventKind kind, PodId pod);
  void after_bound(PodId pod, NodeId node);
  void start_running(PodId pod);
  void finish(PodId pod, PodPhase phase, const std::string& reason);
  void remove(PodId pod, const std::string& reason);
  void release_admission(PodId pod);
  void process_delete(PodId pod);
  void apply_exec_changes();
  void check_memory(NodeId node);
  void set_unreachable_taint(NodeId node, bool on);
  // handle(kCreated): a pod's creation reaches the API server (a prebound pod is bound too).
  void on_created(const Event& e);
  // handle(kBindDone): a binding takes effect, or is rejected and the pod is pending again.
  void on_bind_done(const Event& e);
  // handle(kEvict): a failed node that has not recovered since evicts its running pods.
  void on_evict(const Event& e);
  Time draw(const Dist& d, Rng& rng) { return d.is_zero() ? 0 : d.sample_time(rng); }

  EventLoop& loop_;
  Lifecycle lc_;
  Rng api_rng_, bind_rng_, startup_rng_, termination_rng_, gc_rng_;
  ClusterState state_;
  Execution exec_;
  std::vector<PodSim> pods_;
  std::vector<NodeSim> nodes_;
  std::vector<fw::EventListener*> listeners_;
  int emitting_ = 0;
  bool listeners_dirty_ = false;
  std::vector<OwnerEntry> owners_{{nullptr}};
  std::map<std::pair<OwnerKind, std::string>, OwnerId> owner_by_name_;
  std::unordered_map<const PodSpec*, std::pair<std::shared_ptr<const PodSpec>, ExecSpec>>
      exec_by_spec_;
  std::unordered_map<std::string, ExecSpec> exec_by_image_;
  std::map<std::pair<std::string, NodeId>, NodeWork> work_by_image_node_;
  fw::Refusals refusals_;
  std::string reason_;
  uint64_t notifications_ = 0;
};

}  // namespace orrery::sim
