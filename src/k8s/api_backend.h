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
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "framework/backend.h"
#include "framework/realtime_loop.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "k8s/objects.h"
#include "k8s/plan_journal.h"
#include "k8s/workers.h"

namespace orrery::k8s {

struct ApiBackendOptions {
  // Terminal pods hold nothing; the watch drops them (DELETED) when they finish.
  std::string pod_field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  Backoff backoff;
  int eviction_attempts = 5;      // a 429 is retried this many times in all
  int eviction_backoff_ms = 500;  // doubling, jittered
  int create_attempts = 8;        // a 5xx, 429 or transport error is retried this many times in all
  int create_backoff_ms = 200;    // doubling, jittered
  int workers = 4;
  std::string component = "orrery";  // Events' source
  std::string instance;              // Events' reportingInstance (the replica's identity)
  // The plan journal's ConfigMap (empty name: no journal; re-creations are then not crash-safe).
  std::string journal_namespace = "kube-system";
  std::string journal_name;
};

// What happened to an action, for metrics and logs (called on the loop thread).
struct ActionOutcome {
  std::string action;   // bind, evict, create, patch, event
  std::string outcome;  // ok, conflict, throttled, error, refused
};

class ApiBackend : public fw::ClusterBackend, public InformerSink {
 public:
  ApiBackend(ApiClient& client, fw::RealTimeLoop& loop, ApiBackendOptions options = {});
  ~ApiBackend() override;

  void start();
  // Stops the informers and the workers (in-flight calls finish; queued ones are dropped when
  // `drop`). Call from outside the loop thread or before the loop runs again.
  void stop(bool drop = false);
  // Every informer listed once and the lists are applied.
  bool synced() const { return synced_.load(); }
  void on_synced(std::function<void()> fn) { on_synced_ = std::move(fn); }
  void on_action(std::function<void(const ActionOutcome&)> fn) { on_action_ = std::move(fn); }
  void on_watch_restart(std::function<void(const std::string&, const std::string&)> fn) {
    on_restart_ = std::move(fn);
  }
  // Calls in flight (binds awaiting confirmation, evictions, creations, journal removals).
  size_t in_flight() const { return binds_.size() + evictions_ + creations_ + journal_erases_; }
  size_t skipped_objects() const { return skipped_; }

  // Reads the plan journal and acts on each entry (decide_replay; each decision is logged). Call
  // on the loop once the informers synced and this replica may act; later calls do nothing. An
  // unreadable journal is read again after a backoff.
  void replay_journal();
  // The journal was read and its entries acted on (true at once without a journal). A policy
  // starts only after this, so it plans on a cluster whose interrupted moves are settled.
  bool journal_replayed() const { return replayed_; }

  // A core/v1 Event about a pod (Scheduled, FailedScheduling, Preempted), sent asynchronously.
  void record_event(PodId pod, const std::string& type, const std::string& reason,
                    const std::string& message);

  ClusterState& state() override { return state_; }
  int64_t now_us() const override { return loop_.now_us(); }
  void bind(PodId pod, NodeId node) override;
  void delete_pod(PodId pod, const std::string& reason) override;
  void delete_for_recreation(PodId pod, const Pod& replacement, const std::string& reason) override;
  void create_pod(Pod pod) override;
  bool update_pod(PodId pod, const fw::PodUpdate& update) override;
  void add_listener(fw::EventListener* l) override { listeners_.push_back(l); }
  void remove_listener(fw::EventListener* l) override;

 private:
  // InformerSink (informer threads): hand over to the loop.
  void replace(const std::string& kind, std::vector<JsonValue> items) override;
  void event(const std::string& kind, const std::string& type, JsonValue object) override;

  void apply_replace(const std::string& kind, std::vector<JsonValue>& items);
  void apply_event(const std::string& kind, const std::string& type, JsonValue& obj);
  void upsert_node(const JsonValue& obj);
  void remove_node(const std::string& name);
  void upsert_pod(const JsonValue& obj);
  void remove_pod(const std::string& key);
  void add_pod(Pod pod, uint64_t hash);
  void upsert_priority_class(const JsonValue& obj);
  void emit(fw::EventKind kind, NodeId node, PodId pod, std::string_view reason = {});
  void report(const std::string& action, const std::string& outcome);
  bool claim_eviction(uint64_t serial, const std::string& key, const std::string& reason);
  void evict(const std::string& ns, const std::string& name, uint64_t serial, int attempt);
  void create(const std::string& key, const std::string& ns, const std::string& body, int attempt);
  void skip(const std::string& what, const std::exception& e);
  // Evicts `pod` after journalling `replacement` (its POST body); `recreate` also creates it here
  // on the pod's DELETED (a change of requests; a plan creates its own replacement).
  void evict_journalled(PodId pod, JsonValue replacement, const std::string& reason, bool recreate);
  void post_pod(const std::string& ns, const std::string& key, std::string body);
  // The pod `key` with `uid` left the view: create its awaited replacement, if any.
  void pod_gone(const std::string& key, const std::string& uid);
  // A pod `key` with `uid` appeared: if it replaces a journalled one, drop the entry.
  void confirm_replacement(const std::string& key, const std::string& uid);
  void settle_journal(const std::string& key);  // drop the in-memory and the ConfigMap entry
  void journal_erase(const std::string& ns, const std::string& name);
  void load_journal(int attempt);
  void replay_entry(const JournalEntry& e);

  ApiClient& client_;
  fw::RealTimeLoop& loop_;
  ApiBackendOptions options_;
  ClusterState state_;
  std::vector<fw::EventListener*> listeners_;
  PriorityClasses classes_;
  std::vector<std::unique_ptr<Informer>> informers_;
  std::unique_ptr<Workers> workers_;
  std::function<void()> on_synced_;
  std::function<void(const ActionOutcome&)> on_action_;
  std::function<void(const std::string&, const std::string&)> on_restart_;
  std::atomic<bool> synced_{false};
  std::map<std::string, bool> listed_;  // kind → first list applied
  // Per pod slot: what the scheduler reads of the object (to tell real updates from status
  // noise) and its uid (a pod re-created under the same name is a new pod).
  std::vector<uint64_t> pod_hash_;
  std::vector<std::string> pod_uid_;
  std::unordered_map<std::string, uint64_t> node_hash_;
  // Pods bound to nodes the node informer has not shown yet, by key.
  std::map<std::string, JsonValue> orphans_;
  struct Bind {
    PodId pod;
    NodeId node;
  };
  std::unordered_map<uint64_t, Bind> binds_;  // by pod serial: sent, not confirmed by the watch
  size_t evictions_ = 0, creations_ = 0;
  struct Replacement {
    std::string old_uid;  // created when the pod with this uid is gone
    std::string body;     // the POST body
  };
  std::unordered_map<std::string, Replacement> recreate_;  // by pod key
  std::unique_ptr<PlanJournal> journal_;
  std::unique_ptr<Workers> journal_worker_;  // one thread: journal writes in order
  // Pod key → the old pod's uid, for every entry written (or being written) by this process.
  std::unordered_map<std::string, std::string> journalled_;
  size_t journal_erases_ = 0;
  bool replay_started_ = false;
  std::atomic<bool> replayed_{false};
  std::unordered_set<uint64_t> evicting_;  // pod serials with an eviction under way
  size_t skipped_ = 0;
  std::shared_ptr<std::atomic<bool>> alive_ = std::make_shared<std::atomic<bool>>(true);
};

}  // namespace orrery::k8s
