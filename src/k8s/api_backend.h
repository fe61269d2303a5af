// k8s::ApiBackend: the ClusterBackend of a real cluster. Its view is kept by informers (Nodes,
// Pods without terminal phases, PriorityClasses) whose lists and watch events are applied on the
// runtime's RealTimeLoop and turned into ClusterState changes and ClusterEvents; its actions are
// API calls made by worker threads and confirmed by watch events, never by the call's response:
//
//   bind(p, n)       POST pods/{name}/binding      → kPodBound when the watch shows spec.nodeName
//                    (409 Conflict / 404 / a transport error before the watch confirms →
//                    kPodBindFailed; the assumption is forgotten and the call is not repeated:
//                    a pod that someone else bound arrives as kPodBound on that node)
//   delete_pod(p)    POST pods/{name}/eviction (policy/v1) → kPodTerminating on deletionTimestamp,
//                    kPodDeleted on DELETED; 429 (a PodDisruptionBudget) is retried with jittered
//                    backoff and, when the attempts run out, becomes kPodDeleteFailed with the
//                    server's message
//   create_pod(pod)  POST pods                     → kPodAdded when the watch shows it; a 5xx, 429
//                    or transport error is retried with jittered backoff (the pod may be the
//                    only copy of an evicted bare pod)
//   update_pod(p,u)  PATCH (labels, annotations, images, scheduling gates) → kPodUpdated; a change
//                    of requests re-creates the pod (evict, then create when DELETED): false
//   delete_for_recreation(p, r)  a plan's move of a bare pod: the eviction above, after r is in
//                    the plan journal
//
// Plan journal (plan_journal.h, when ApiBackendOptions::journal_name is set): before an eviction
// whose pod is to be re-created (a change of requests, a plan's move), the replacement goes into
// a ConfigMap; the eviction is sent only once that write succeeded (otherwise kPodDeleteFailed,
// "not evicted: the plan journal could not be written: ..."). The entry is removed when the
// replacement shows up (ADDED of a pod of that name with another uid, or a create answered 409
// AlreadyExists) or the eviction is refused. replay_journal() — at start-up, when this replica may
// act — finishes or cancels what a crashed process left (decide_replay).
//
// Leader election: the ApiClient's action gate (ApiClient::set_action_gate) refuses every acting
// request of a replica that may not act, at the moment it would be sent; a refused bind or
// eviction is kPodBindFailed / kPodDeleteFailed ("not the leader"), a refused creation is not
// retried (the next leader replays the plan journal).
//
// A relist (after 410 Gone) diffs the new list against the view: pods that vanished are deleted,
// new ones added, changed ones updated, so a pod created during a watch gap is picked up.
// A malformed object is logged with its name and skipped; the informer goes on.
// All members except the constructor/start/stop run on the loop thread.
//
// It is composed of three parts: the informer cache (informer_cache.h: list/watch → ClusterState
// and ClusterEvents), the object codec (object_codec.h, objects.h: JSON ↔ model and the request
// bodies) and the action executor (action_executor.h: the API calls, their retries and workers,
// the plan journal's use); the ApiBackend forwards to them.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "framework/backend.h"
#include "framework/realtime_loop.h"
#include "k8s/action_executor.h"
#include "k8s/backend_options.h"
#include "k8s/client.h"
#include "k8s/informer_cache.h"
#include "k8s/object_codec.h"

namespace orrery::k8s {

class ApiBackend : public fw::ClusterBackend, public InformerSink {
 public:
  ApiBackend(ApiClient& client, fw::RealTimeLoop& loop, ApiBackendOptions options = {});
  ~ApiBackend() override;

  void start() { cache_.start(); }
  // Stops the informers and the workers (in-flight calls finish; queued ones are dropped when
  // `drop`). Call from outside the loop thread or before the loop runs again.
  void stop(bool drop = false);
  // Every informer listed once and the lists are applied.
  bool synced() const { return cache_.synced(); }
  void on_synced(std::function<void()> fn) { cache_.on_synced(std::move(fn)); }
  void on_action(std::function<void(const ActionOutcome&)> fn) { exec_.on_action(std::move(fn)); }
  void on_watch_restart(std::function<void(const std::string&, const std::string&)> fn) {
    cache_.on_watch_restart(std::move(fn));
  }
  // Calls in flight (binds awaiting confirmation, evictions, creations, journal removals).
  size_t in_flight() const { return exec_.in_flight(); }
  size_t skipped_objects() const { return cache_.skipped_objects(); }

  // Reads the plan journal and acts on each entry (decide_replay; each decision is logged). Call
  // on the loop once the informers synced and this replica may act; later calls do nothing. An
  // unreadable journal is read again after a backoff.
  void replay_journal() { exec_.replay_journal(); }
  // The journal was read and its entries acted on (true at once without a journal). A policy
  // starts only after this, so it plans on a cluster whose interrupted moves are settled.
  bool journal_replayed() const { return exec_.journal_replayed(); }

  // A core/v1 Event about a pod (Scheduled, FailedScheduling, Preempted), sent asynchronously.
  void record_event(PodId pod, const std::string& type, const std::string& reason,
                    const std::string& message) {
    exec_.record_event(pod, type, reason, message);
  }

  ClusterState& state() override { return cache_.state(); }
  int64_t now_us() const override { return cache_.now_us(); }
  void bind(PodId pod, NodeId node) override { exec_.bind(pod, node); }
  void delete_pod(PodId pod, const std::string& reason) override { exec_.delete_pod(pod, reason); }
  void delete_for_recreation(PodId pod, const Pod& replacement,
                             const std::string& reason) override {
    exec_.delete_for_recreation(pod, replacement, reason);
  }
  void create_pod(Pod pod) override { exec_.create_pod(std::move(pod)); }
  bool update_pod(PodId pod, const fw::PodUpdate& update) override {
    return exec_.update_pod(pod, update);
  }
  void add_listener(fw::EventListener* l) override { cache_.add_listener(l); }
  void remove_listener(fw::EventListener* l) override { cache_.remove_listener(l); }

 private:
  // InformerSink (informer threads; tests and fuzz targets feed events here): the cache's.
  void replace(const std::string& kind, std::vector<JsonValue> items) override {
    cache_.replace(kind, std::move(items));
  }
  void event(const std::string& kind, const std::string& type, JsonValue object) override {
    cache_.event(kind, type, std::move(object));
  }

  const ApiBackendOptions options_;  // before the parts, which hold references to it
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
  InformerCache cache_;
  ActionExecutor exec_;
};

}  // namespace orrery::k8s
