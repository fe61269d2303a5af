// Scheduling plugins, modelled on kube-scheduler's framework but batched over nodes: Filter and
// Score receive the whole candidate list at once, so a plugin is one tight loop over
// struct-of-arrays node data instead of one virtual call per node.
//
// A plugin implements any subset of the extension points (extension_points() says which); the
// profile decides where it is enabled. Plugin instances belong to one scheduler and are used from
// one thread, so they keep per-cycle scratch data in members (computed in pre_filter/pre_score).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "framework/backend.h"
#include "framework/cycle.h"
#include "framework/diagnosis.h"
#include "framework/handle.h"
#include "framework/queueing_hint.h"
#include "framework/status.h"

namespace orrery::fw {

enum ExtensionPoint : uint32_t {
  kQueueSort = 1u << 0,
  kPreFilter = 1u << 1,
  kFilter = 1u << 2,
  kPostFilter = 1u << 3,
  kPreScore = 1u << 4,
  kScore = 1u << 5,
  kReserve = 1u << 6,
  kPermit = 1u << 7,
  kPreBind = 1u << 8,
  kBind = 1u << 9,
  kPostBind = 1u << 10,
  kPreEnqueue = 1u << 11,
  kMutate = 1u << 12,  // orrery extension: change the pod between decision and binding
};
std::string_view to_string(ExtensionPoint p);

// A pod waiting in the scheduling queue.
struct QueuedPod {
  PodId pod = kNoPod;
  uint64_t serial = 0;
  int32_t priority = 0;
  int64_t timestamp_us = 0;  // when it (re-)entered the active queue
  int attempts = 0;
  NodeId nominated_node = kNoNode;
  // Requeue-all mode only: a retry that counts for nothing if it fails (framework/queue.h).
  bool probe = false;
};

struct PostFilterResult {
  Status status;  // kSuccess: the pod may fit on nominated_node after victims are gone
  NodeId nominated_node = kNoNode;
  std::vector<PodId> victims;
  std::string message;  // for the diagnosis ("preemption: ...")
  // The pod's earlier nomination no longer holds (upstream: a result with an empty nominated node
  // name, e.g. when preemption found no candidate).
  bool clear_nomination = false;
  // A failure that only the filters' verdicts can change (e.g. no node where removing pods could
  // help): the queue's hints then need not wake the pod for this plugin.
  bool filters_decide = false;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
  virtual uint32_t extension_points() const = 0;

  // PreEnqueue: may a pending pod enter the scheduling queue at all? A rejection (e.g.
  // SchedulingGates: the pod has gates) keeps it out, with the status's message as the reason,
  // until the pod is updated; it is then asked again.
  virtual Status pre_enqueue(const ClusterState& state, PodId pod);

  // QueueSort: strict weak order, "a is scheduled before b".
  virtual bool less(const QueuedPod& a, const QueuedPod& b) const;

  // PreFilter: per-pod setup. May reject the pod (kUnschedulable*), return kSkip (filter() is
  // then not called for this pod), or narrow the candidates by filling `*only` (node ids).
  virtual Status pre_filter(const CycleContext& cycle, std::optional<std::vector<NodeId>>* only);
  // PreFilterExtensions, for preemption's what-if: `other` was removed from / added to `node`.
  virtual void pre_filter_remove_pod(const CycleContext& cycle, PodId other, NodeId node);
  virtual void pre_filter_add_pod(const CycleContext& cycle, PodId other, NodeId node);

  // Filter: keeps the feasible nodes of nodes[0..n) at the front, in their original order, and
  // records every rejected node in `rejections`. Returns the number kept.
  virtual size_t filter(const CycleContext& cycle, NodeId* nodes, size_t n, Rejections& rejections);
  // The upstream reason strings of one of this plugin's rejections, e.g. "Insufficient cpu".
  virtual void describe(const ClusterState& state, const Rejection& r,
                        std::vector<std::string>* reasons) const;

  // PostFilter: runs when no node is feasible (e.g. preemption). `handle` is the profile's handle
  // (the one the plugin's factory got as PluginArgs::handle), for its what-if services.
  virtual PostFilterResult post_filter(const CycleContext& cycle, Handle& handle,
                                       const Rejections& rejections);

  // PreScore / Score / NormalizeScore. score() writes one value per node into scores[];
  // normalize() rescales them in place to [0, kMaxNodeScore] (default: leave as is).
  virtual Status pre_score(const CycleContext& cycle, std::span<const NodeId> nodes);
  virtual void score(const CycleContext& cycle, std::span<const NodeId> nodes, int64_t* scores);
  virtual void normalize(const CycleContext& cycle, std::span<const NodeId> nodes, int64_t* scores);
  // Optional shortcut, asked after a successful PreScore: when the pod's normalized score is the
  // same on every node (e.g. TaintToleration when no node has a PreferNoSchedule taint), returns
  // it, and the scheduling cycle skips score() and normalize() for this pod (a score common to
  // every node changes no choice). It must equal what score() then normalize() would give.
  // Default: nullopt (score every node).
  virtual std::optional<int64_t> uniform_score(const CycleContext& cycle,
                                               std::span<const NodeId> nodes);

  // Reserve / Unreserve: the pod is already assumed on `node` in the state.
  virtual Status reserve(const CycleContext& cycle, NodeId node);
  virtual void unreserve(const CycleContext& cycle, NodeId node);
  // Permit: kSuccess, a rejection, or (not yet supported) kWait.
  virtual Status permit(const CycleContext& cycle, NodeId node);
  // Mutate (orrery extension, after Permit, before PreBind): a change to the pod the cycle decided
  // on, for the chosen node (KubCG: the image and GPU request). The backend carries it out: in
  // place (the simulator changes the spec and the execution profile), or by re-creating the pod
  // (a real API server, for fields it cannot change), in which case this pod is not bound and the
  // replacement is scheduled as a new pod.
  virtual std::optional<PodUpdate> mutate(const CycleContext& cycle, NodeId node);

  // PreBind / Bind / PostBind. A binder returns kSkip to pass to the next binder.
  virtual Status pre_bind(const CycleContext& cycle, NodeId node);
  virtual Status bind(const CycleContext& cycle, NodeId node, ClusterBackend& backend);
  virtual void post_bind(const CycleContext& cycle, NodeId node);

  // Every cluster event the scheduler observes (for plugins that keep their own state).
  virtual void on_event(const ClusterEvent& event);

  // Queueing hints (upstream's EventsToRegister + QueueingHintFn), asked for PreFilter, Filter
  // and PostFilter plugins: may `event` make the pods of class `waiting` (waiting.spec is set),
  // which this plugin rejected (on some node, or at PreFilter/PostFilter), schedulable? `state`
  // is the state after the event. kSkip must be provable: the event cannot change this plugin's
  // verdict for those pods on any node. Default: kQueue.
  virtual QueueingHint queueing_hint(const QueueEvent& event, const ClusterState& state,
                                     const PodClassKey& waiting) const;
  // Equivalence classes (framework/queueing_hint.h): what this PreFilter/Filter/PostFilter plugin
  // reads of a pending pod beyond its spec and namespace, as a number: 0 when nothing (pods of one
  // spec are interchangeable for it), kUniqueClass when it cannot say (the pod is put in a class
  // of its own). Default: kUniqueClass.
  static constexpr uint64_t kUniqueClass = ~uint64_t{0};
  virtual uint64_t class_salt(const ClusterState& state, PodId pod) const;
};

}  // namespace orrery::fw
