// The ApiBackend's action executor: binds, evictions, creations, patches and Events as API calls
// on worker threads, their outcomes handed back to the loop, each effect confirmed by the watch
// (through the informer cache's CacheHooks), never by the call's response. It owns the retries
// (429 evictions, transient creation errors: jittered doubling backoff), the one-eviction-per-pod
// rule and the plan journal's use: a replacement is journalled before its pod is evicted, the
// entry dropped when the replacement shows up, and replay() settles what a crashed process left.
// The contract is ApiBackend's (api_backend.h). All members except the constructor/stop run on
// the loop thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "k8s/backend_options.h"
#include "k8s/informer_cache.h"
#include "k8s/object_codec.h"
#include "k8s/plan_journal.h"
#include "k8s/workers.h"

namespace orrery::k8s {

class ActionExecutor : public CacheHooks {
 public:
  ActionExecutor(ApiClient& client, fw::RealTimeLoop& loop, const ApiBackendOptions& options,
                 InformerCache& cache, std::shared_ptr<std::atomic<bool>> alive);

  // Stops the workers (in-flight calls finish; queued ones are dropped when `drop`).
  void stop(bool drop);
  void on_action(std::function<void(const ActionOutcome&)> fn) { on_action_ = std::move(fn); }
  // Calls in flight (binds awaiting confirmation, evictions, creations, journal removals).
  size_t in_flight() const { return binds_.size() + evictions_ + creations_ + journal_erases_; }

  void bind(PodId pod, NodeId node);
  void delete_pod(PodId pod, const std::string& reason);
  void delete_for_recreation(PodId pod, const Pod& replacement, const std::string& reason);
  void create_pod(Pod pod);
  bool update_pod(PodId pod, const fw::PodUpdate& update);
  void record_event(PodId pod, const std::string& type, const std::string& reason,
                    const std::string& message);
  void replay_journal();
  bool journal_replayed() const { return replayed_; }

  // CacheHooks.
  bool confirm_bind(uint64_t serial) override;
  void forget_bind(uint64_t serial) override { binds_.erase(serial); }
  // Creates the awaited replacement of the pod `key` with `uid`, if any.
  void pod_gone(const std::string& key, const std::string& uid) override;
  // If the pod replaces a journalled one, drops the entry.
  void pod_added(const std::string& key, const std::string& uid) override {
    confirm_replacement(key, uid);
  }

 private:
  void emit(fw::EventKind kind, NodeId node, PodId pod, std::string_view reason = {}) {
    cache_.emit(kind, node, pod, reason);
  }
  void report(const std::string& action, const std::string& outcome);
  bool claim_eviction(uint64_t serial, const std::string& key, const std::string& reason);
  void evict(const std::string& ns, const std::string& name, uint64_t serial, int attempt);
  void create(const std::string& key, const std::string& ns, const std::string& body, int attempt);
  // Evicts `pod` after journalling `replacement` (its POST body); `recreate` also creates it here
  // on the pod's DELETED (a change of requests; a plan creates its own replacement).
  void evict_journalled(PodId pod, JsonValue replacement, const std::string& reason, bool recreate);
  void post_pod(const std::string& ns, const std::string& key, std::string body);
  void confirm_replacement(const std::string& key, const std::string& uid);
  void settle_journal(const std::string& key);  // drop the in-memory and the ConfigMap entry
  void journal_erase(const std::string& ns, const std::string& name);
  void load_journal(int attempt);
  void replay_entry(const JournalEntry& e);

  ApiClient& client_;
  fw::RealTimeLoop& loop_;
  const ApiBackendOptions& options_;
  InformerCache& cache_;
  ClusterState& state_;  // the cache's
  std::shared_ptr<std::atomic<bool>> alive_;
  std::unique_ptr<Workers> workers_;
  std::function<void(const ActionOutcome&)> on_action_;
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
};

}  // namespace orrery::k8s
