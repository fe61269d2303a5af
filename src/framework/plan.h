// Plans: steps that change the cluster (bind, delete, create, wait for a pod to be created or to
// run), each verified by the cluster event that confirms it (KubeDSM, Table 3). Planners
// (KubeDSM's immediate scheduler and suggester, the priority-optimal packer) build plans; the
// PlanExecutor carries them out over any ClusterBackend (simulator, snapshot, real cluster).
//
// A plan is a dependency graph: each step names the steps it waits for. By default a step waits
// for the one added before it (a sequence, as KubeDSM's plans are); depends_on() changes that, so
// independent steps (e.g. the evictions of a cross-node preemption) run concurrently, each still
// verified by its own event.
//
// Execution rules (KubeDSM §5.1, "Placement Manager"):
//  - a step's action starts only after every step it depends on was verified;
//  - an event that contradicts a waiting step (same pod, wrong kind or wrong node: a failed bind,
//    a bind elsewhere, the pod deleted or finished) cancels the plan, and so does the deletion of
//    a pod a later step needs; the remaining steps are dropped;
//  - the pods a cancelled plan still meant to bind and that are pending are handed to the
//    fallback (KubeDSM: the cloud), each as a one-step plan of its own;
//  - a cancelled plan still re-creates the pods it had started removing: a create step whose
//    prerequisites are all deletions already under way runs once they are confirmed (at once when
//    they are), and is dropped if one of them fails — a bare pod the plan moves exists nowhere
//    else between its eviction and its re-creation; the new pod is then pending like any other;
//  - a step that waits longer than the plan's step timeout cancels the plan (expire());
//  - while a plan runs, the room its bind steps will take is a plan reservation in the runtime's
//    Reservations (when the executor has one), so no scheduler takes the room the plan's deletions
//    free; a step's reservation ends when its bind starts, and all of them when the plan ends.
//
// | step             | action                          | verified by                          |
// |------------------|---------------------------------|--------------------------------------|
// | bind(p, n)       | assume p on n, backend.bind     | PodBound for p on n                  |
// | remove(p)        | backend.delete_pod              | PodDeleted for p                     |
// | create(pod)      | backend.create_pod              | PodAdded for a pod with that ns/name |
// | wait_for_create  | none (a controller creates it)  | PodAdded, pending, of that owner     |
//
// A controller may create the replacement of a deleted pod before the deletion is confirmed (a
// ReplicaSet replaces a pod as soon as it starts terminating), so a wait_for_create right after a
// delete also claims a matching new pod that arrives while the delete is still being verified.
// | wait_for_running | none                            | PodRunning for p (or p already runs) |
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/backend.h"
#include "framework/reservations.h"

namespace orrery::fw {

// The pod a step acts on: a known pod, or the pod an earlier create / wait-for-create step of the
// same plan produced (its slot).
struct PodRef {
  PodId id = kNoPod;
  uint64_t serial = 0;
  int slot = -1;

  static PodRef of(const ClusterState& s, PodId id) { return {id, s.pod_serial(id), -1}; }
  bool is_slot() const { return slot >= 0; }
};

enum class StepKind : uint8_t { kBind, kDelete, kCreate, kWaitForCreate, kWaitForRunning };
std::string_view to_string(StepKind k);

struct Step {
  StepKind kind = StepKind::kBind;
  PodRef pod;                       // bind, delete, wait-for-running
  NodeId node = kNoNode;            // bind
  std::shared_ptr<const Pod> make;  // create: the pod to create (its ns/name must be unused)
  std::string ns;                   // wait-for-create: namespace of the expected pod
  OwnerRef owner;                   // wait-for-create: its owner
  Resources expected_request;       // wait-for-create: its requests, for pending_binds()
  int slot = -1;                    // create / wait-for-create: the slot it fills
  std::string reason;               // delete: recorded by the backend
  std::vector<size_t> after;        // the steps (indices) that must be verified first
};

class Plan {
 public:
  explicit Plan(std::string name = "") : name_(std::move(name)) {}

  Plan& bind(PodRef pod, NodeId node);
  Plan& remove(PodRef pod, std::string reason);
  // Creates `pod`; returns a reference to it for later steps.
  PodRef create(Pod pod);
  // Waits for a controller to create a pending pod of `owner` in `ns` (e.g. the ReplicaSet
  // replacing a deleted pod); `request` is what it is expected to request.
  PodRef wait_for_create(std::string ns, OwnerRef owner, const Resources& request);
  Plan& wait_for_running(PodRef pod);
  // The last step added waits for exactly `steps` (earlier indices; {} = it may start at once)
  // instead of the step before it.
  Plan& depends_on(std::vector<size_t> steps);
  size_t last() const { return steps_.size() - 1; }

  // 0 (default): steps may wait forever.
  Plan& step_timeout_us(int64_t t) {
    step_timeout_us_ = t;
    return *this;
  }

  void set_name(std::string name) { name_ = std::move(name); }
  const std::string& name() const { return name_; }
  const std::vector<Step>& steps() const { return steps_; }
  int slots() const { return slots_; }
  int64_t step_timeout_us() const { return step_timeout_us_; }
  bool empty() const { return steps_.empty(); }

 private:
  std::string name_;
  std::vector<Step> steps_;
  int slots_ = 0;
  int64_t step_timeout_us_ = 0;
};

enum class PlanStatus : uint8_t { kCompleted, kCancelled };

struct PlanReport {
  uint64_t id = 0;
  std::string name;
  PlanStatus status = PlanStatus::kCompleted;
  size_t steps_done = 0;
  size_t steps_total = 0;
  std::string reason;           // why it was cancelled
  std::vector<PodId> released;  // pending pods handed to the fallback
  bool fallback = false;        // this was a fallback bind of another plan's pod
};

struct PendingBind {
  NodeId node = kNoNode;
  Resources request;
  PodId pod = kNoPod;  // kNoPod while the pod is still to be created
};

class PlanExecutor : public EventListener {
 public:
  // Where a cancelled plan's pending pods go; kNoNode leaves a pod pending.
  using Fallback = std::function<NodeId(const ClusterState&, PodId)>;
  using DoneCallback = std::function<void(const PlanReport&)>;

  // `reservations`: the runtime's shared registry for plan reservations (null: none are made).
  explicit PlanExecutor(ClusterBackend& backend, Reservations* reservations = nullptr);
  ~PlanExecutor() override;
  PlanExecutor(const PlanExecutor&) = delete;
  PlanExecutor& operator=(const PlanExecutor&) = delete;

  void set_fallback(Fallback f) { fallback_ = std::move(f); }
  void set_on_done(DoneCallback f) { on_done_ = std::move(f); }

  // Starts a plan (its first action runs now). Returns its id (ids increase from 1). An empty
  // plan completes at once.
  uint64_t submit(Plan plan);

  // Feeds a cluster event to the running plans. True when the event verified a step of one of
  // them, so a caller that also schedules new pods must not treat a pod a plan created or claimed
  // as new. Safe to call re-entrantly from inside a backend action (SnapshotBackend delivers
  // events synchronously): verification happens at once, follow-up actions run afterwards.
  bool handle(const ClusterEvent& e);
  // Steps of running plans whose action ran and that wait for their event.
  size_t started_steps() const;
  void on_event(const ClusterEvent& e) override { handle(e); }

  // Cancels plans whose current step has waited longer than their step timeout.
  void expire(int64_t now_us);
  void cancel(uint64_t id, const std::string& reason);

  // The id the next submit() will return.
  uint64_t next_id() const { return next_id_; }
  size_t active() const { return plans_.size(); }
  bool running(uint64_t id) const;
  // True when a running plan refers to the pod (by serial) in a step not yet verified or has it in
  // a slot.
  bool involves(uint64_t pod_serial) const;
  // Binds that running plans have not yet verified (for planners' accounting of reserved room).
  std::vector<PendingBind> pending_binds() const;

  uint64_t completed() const { return completed_; }
  uint64_t cancelled() const { return cancelled_; }

 private:
  struct Running;
  // kClaimed: the event filled a later step's slot ahead of time (see check()).
  enum class Check : uint8_t { kIrrelevant, kVerified, kClaimed, kIncompatible };

  Running* find(uint64_t id);
  Check check_step(Running& r, size_t i, const ClusterEvent& e, std::string* why);
  void reserve(Running& r);
  void start_ready(Running& r);
  PodId resolve(const Running& r, const PodRef& ref) const;
  uint64_t serial_of(const Running& r, const PodRef& ref) const;
  Check check(Running& r, const ClusterEvent& e, std::string* why);
  void pump();
  // Runs the current step's action; false with `why` when it cannot.
  bool start_step(Running& r, size_t i, std::string* why);
  // start_step() per step kind (plan.cc).
  bool start_bind(Running& r, size_t i, std::string* why);
  bool start_delete(Running& r, size_t i);
  bool start_create(Running& r, size_t i, std::string* why);
  bool start_wait_for_create(Running& r, size_t i, std::string* why);
  bool start_wait_for_running(Running& r, size_t i, std::string* why);
  void step_done(Running& r, size_t i);
  void finish(uint64_t id, PlanStatus status, const std::string& reason);
  // Cancelled plan: keeps its re-creations of pods whose removal it started (see above).
  void keep_recreations(const Running& r);
  // A deletion confirmed or failed: runs or drops the kept re-creations waiting for it.
  void settle_recreations(const ClusterEvent& e);
  void create_now(const Pod& pod);
  std::string describe(const Running& r, const Step& s) const;
  std::string describe_pod(const Running& r, const PodRef& ref) const;
  std::string pod_name(PodId id) const;

  ClusterBackend& backend_;
  Reservations* reservations_;
  Fallback fallback_;
  DoneCallback on_done_;
  std::vector<std::unique_ptr<Running>> plans_;  // by id
  uint64_t next_id_ = 1;
  // Work deferred until the current action returns: (plan id, cancel reason or empty = advance).
  struct Work {
    uint64_t id;
    bool cancel;
    std::string reason;
  };
  std::vector<Work> work_;
  struct Recreation {
    std::vector<uint64_t> awaiting;  // serials of the pods whose deletion must be confirmed first
    std::shared_ptr<const Pod> make;
  };
  std::vector<Recreation> recreations_;  // of cancelled plans
  bool pumping_ = false;
  uint64_t completed_ = 0;
  uint64_t cancelled_ = 0;
};

}  // namespace orrery::fw
