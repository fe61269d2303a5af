// The ApiBackend's informer cache: informers (list + watch) of PriorityClasses, Nodes and Pods
// whose lists and events are applied on the RealTimeLoop to a ClusterState, each change emitted
// as a ClusterEvent to the listeners. A relist (after 410 Gone) diffs the new list against the
// view; pods bound to a node not seen yet wait as orphans; a malformed object is logged with its
// name and skipped. Watch events that confirm or settle actions (a bind of ours, a pod gone or
// re-created) are passed to the CacheHooks, i.e. the action executor.
// All members except the constructor/start/stop run on the loop thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "framework/backend.h"
#include "framework/realtime_loop.h"
#include "k8s/backend_options.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "k8s/object_codec.h"
#include "k8s/plan_journal.h"

namespace orrery::k8s {

// What the cache tells the action executor (on the loop thread).
class CacheHooks {
 public:
  virtual ~CacheHooks() = default;
  // The watch shows the pod with this serial bound: true when the bind was ours (then forgotten).
  virtual bool confirm_bind(uint64_t serial) = 0;
  // The pod with this serial left the view: a bind of it awaits no confirmation any more.
  virtual void forget_bind(uint64_t serial) = 0;
  // The pod `key` with `uid` left the view (DELETED, relist, its node removed).
  virtual void pod_gone(const std::string& key, const std::string& uid) = 0;
  // A pod `key` with `uid` was added to the view.
  virtual void pod_added(const std::string& key, const std::string& uid) = 0;
};

class InformerCache : public InformerSink {
 public:
  InformerCache(ApiClient& client, fw::RealTimeLoop& loop, const ApiBackendOptions& options,
                std::shared_ptr<std::atomic<bool>> alive);
  void set_hooks(CacheHooks* hooks) { hooks_ = hooks; }

  void start();
  void stop();
  bool synced() const { return synced_.load(); }
  void on_synced(std::function<void()> fn) { on_synced_ = std::move(fn); }
  void on_watch_restart(std::function<void(const std::string&, const std::string&)> fn) {
    on_restart_ = std::move(fn);
  }
  size_t skipped_objects() const { return skipped_; }

  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }
  int64_t now_us() const { return loop_.now_us(); }
  void add_listener(fw::EventListener* l) { listeners_.push_back(l); }
  void remove_listener(fw::EventListener* l);
  void emit(fw::EventKind kind, NodeId node, PodId pod, std::string_view reason = {});

  // The uid of the pod in slot `pod` (a pod re-created under the same name is a new pod).
  const std::string& pod_uid(PodId pod) const { return pod_uid_[pod]; }
  // The pod ns/name as the watch shows it (in the view, or an orphan), for the journal's replay.
  std::optional<ObservedPod> observed(const std::string& ns, const std::string& name) const;

  // InformerSink (informer threads): hand over to the loop.
  void replace(const std::string& kind, std::vector<JsonValue> items) override;
  void event(const std::string& kind, const std::string& type, JsonValue object) override;

 private:
  void apply_replace(const std::string& kind, std::vector<JsonValue>& items);
  void apply_event(const std::string& kind, const std::string& type, JsonValue& obj);
  void upsert_node(const JsonValue& obj);
  void remove_node(const std::string& name);
  void upsert_pod(const JsonValue& obj);
  void remove_pod(const std::string& key);
  void add_pod(Pod pod, uint64_t hash);
  void upsert_priority_class(const JsonValue& obj);
  void skip(const std::string& what, const std::exception& e);

  ApiClient& client_;
  fw::RealTimeLoop& loop_;
  const ApiBackendOptions& options_;
  std::shared_ptr<std::atomic<bool>> alive_;
  CacheHooks* hooks_ = nullptr;
  ClusterState state_;
  std::vector<fw::EventListener*> listeners_;
  PriorityClasses classes_;
  std::vector<std::unique_ptr<Informer>> informers_;
  std::function<void()> on_synced_;
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
  size_t skipped_ = 0;
};

}  // namespace orrery::k8s
