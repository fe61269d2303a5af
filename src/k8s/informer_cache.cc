#include "k8s/informer_cache.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "obs/log.h"

namespace orrery::k8s {

InformerCache::InformerCache(ApiClient& client, fw::RealTimeLoop& loop,
                             const ApiBackendOptions& options,
                             std::shared_ptr<std::atomic<bool>> alive)
    : client_(client), loop_(loop), options_(options), alive_(std::move(alive)) {}

void InformerCache::start() {
  auto restart = [this](const std::string& kind, const std::string& reason) {
    if (on_restart_) on_restart_(kind, reason);
  };
  // PriorityClasses and nodes first so that pods usually find them (orphans cover the rest).
  informers_.push_back(std::make_unique<Informer>(
      client_,
      InformerSpec{"PriorityClass", ApiCall::kListPriorityClasses, ApiCall::kWatchPriorityClasses,
                   "/apis/scheduling.k8s.io/v1/priorityclasses", "", 500},
      *this, options_.backoff, restart));
  informers_.push_back(std::make_unique<Informer>(
      client_,
      InformerSpec{"Node", ApiCall::kListNodes, ApiCall::kWatchNodes, "/api/v1/nodes", "", 500},
      *this, options_.backoff, restart));
  informers_.push_back(
      std::make_unique<Informer>(client_,
                                 InformerSpec{"Pod", ApiCall::kListPods, ApiCall::kWatchPods,
                                              "/api/v1/pods", options_.pod_field_selector, 500},
                                 *this, options_.backoff, restart));
  for (auto& i : informers_) i->start();
}

void InformerCache::stop() {
  for (auto& i : informers_) i->stop();
}

void InformerCache::remove_listener(fw::EventListener* l) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

void InformerCache::emit(fw::EventKind kind, NodeId node, PodId pod, std::string_view reason) {
  const uint64_t serial = pod == kNoPod ? 0 : state_.pod_serial(pod);
  const fw::ClusterEvent e{kind, now_us(), node, pod, serial, reason};
  const size_t n = listeners_.size();
  for (size_t i = 0; i < n && i < listeners_.size(); ++i) listeners_[i]->on_event(e);
}

void InformerCache::skip(const std::string& what, const std::exception& e) {
  ++skipped_;
  obs::warn("skipping a malformed object", {{"object", what}, {"error", e.what()}});
}

// ---- informer side ----

void InformerCache::replace(const std::string& kind, std::vector<JsonValue> items) {
  auto alive = alive_;
  loop_.post([this, alive, kind, items = std::move(items)]() mutable {
    if (*alive) apply_replace(kind, items);
  });
}

void InformerCache::event(const std::string& kind, const std::string& type, JsonValue object) {
  auto alive = alive_;
  loop_.post([this, alive, kind, type, object = std::move(object)]() mutable {
    if (*alive) apply_event(kind, type, object);
  });
}

void InformerCache::apply_replace(const std::string& kind, std::vector<JsonValue>& items) {
  if (kind == "PriorityClass") {
    classes_.by_name.clear();
    for (const JsonValue& o : items) upsert_priority_class(o);
  } else if (kind == "Node") {
    std::set<std::string> listed;
    for (const JsonValue& o : items) listed.insert(object_key(o, false));
    std::vector<std::string> gone;
    for (NodeId n : state_.nodes())
      if (!listed.count(state_.node(n).name)) gone.push_back(state_.node(n).name);
    for (const auto& name : gone) remove_node(name);
    for (const JsonValue& o : items) upsert_node(o);
  } else {
    std::set<std::string> listed;
    for (const JsonValue& o : items) listed.insert(object_key(o));
    std::vector<std::string> gone;
    for (PodId p : state_.pods())
      if (!listed.count(state_.pod(p).key())) gone.push_back(state_.pod(p).key());
    std::vector<std::pair<std::string, std::string>> gone_orphans;  // key, uid
    for (auto it = orphans_.begin(); it != orphans_.end();) {
      if (listed.count(it->first)) {
        ++it;
        continue;
      }
      gone_orphans.emplace_back(it->first, object_uid(it->second));
      it = orphans_.erase(it);
    }
    for (const auto& key : gone) remove_pod(key);
    for (const auto& [key, uid] : gone_orphans) hooks_->pod_gone(key, uid);
    for (const JsonValue& o : items) upsert_pod(o);
  }
  if (!listed_[kind]) {
    listed_[kind] = true;
    if (listed_.size() == 3 && !synced_) {
      synced_ = true;
      obs::info("informers synced", {{"nodes", std::to_string(state_.node_count())},
                                     {"pods", std::to_string(state_.pod_count())}});
      if (on_synced_) on_synced_();
    }
  }
}

void InformerCache::apply_event(const std::string& kind, const std::string& type, JsonValue& obj) {
  if (kind == "PriorityClass") {
    if (type == "DELETED") {
      classes_.by_name.erase(object_key(obj, false));
    } else {
      upsert_priority_class(obj);
    }
  } else if (kind == "Node") {
    if (type == "DELETED") {
      remove_node(object_key(obj, false));
    } else {
      upsert_node(obj);
    }
  } else if (type == "DELETED") {
    const std::string key = object_key(obj);
    if (orphans_.erase(key) > 0) hooks_->pod_gone(key, object_uid(obj));
    remove_pod(key);
  } else {
    upsert_pod(obj);
  }
}

void InformerCache::upsert_priority_class(const JsonValue& obj) {
  try {
    PriorityClass pc = priority_class_from_json(obj);
    classes_.by_name[pc.name] = pc;
  } catch (const std::exception& e) {
    skip("PriorityClass " + object_key(obj, false), e);
  }
}

void InformerCache::upsert_node(const JsonValue& obj) {
  const std::string name = object_key(obj, false);
  const uint64_t hash = scheduling_hash(obj, false);
  auto known = state_.find_node(name);
  if (known && node_hash_[name] == hash) return;  // heartbeats, status conditions
  Node node;
  try {
    node = node_from_json(obj);
    // The view is keyed by metadata.name: an object without a usable one (empty, not a string)
    // would make ClusterState throw on the loop thread (found by fuzz_watch_stream).
    if (node.name.empty() || node.name != name)
      throw InputError("metadata.name: expected a non-empty string");
  } catch (const std::exception& e) {
    skip("Node " + name, e);
    return;
  }
  node_hash_[name] = hash;
  if (known) {
    state_.update_node(*known, std::move(node));
    emit(fw::EventKind::kNodeUpdated, *known, kNoPod);
    return;
  }
  const NodeId id = state_.add_node(std::move(node));
  emit(fw::EventKind::kNodeAdded, id, kNoPod);
  // Pods that were bound to it before we saw it.
  std::vector<JsonValue> waiting;
  for (auto it = orphans_.begin(); it != orphans_.end();) {
    if (it->second["spec"].value("nodeName", "") == name) {
      waiting.push_back(std::move(it->second));
      it = orphans_.erase(it);
    } else {
      ++it;
    }
  }
  for (const JsonValue& o : waiting) upsert_pod(o);
}

void InformerCache::remove_node(const std::string& name) {
  node_hash_.erase(name);
  auto id = state_.find_node(name);
  if (!id) return;
  // The pod garbage collector deletes its pods; the view drops them now.
  const std::vector<PodId> on = state_.pods_on(*id);
  for (PodId p : on) remove_pod(state_.pod(p).key());
  for (PodId p : state_.pods())
    if (state_.pod_node(p) == *id) remove_pod(state_.pod(p).key());  // terminal pods
  state_.remove_node(*id);
  emit(fw::EventKind::kNodeRemoved, *id, kNoPod);
}

void InformerCache::add_pod(Pod pod, uint64_t hash) {
  const std::string uid = pod.uid;
  const PodId id = state_.add_pod(std::move(pod));
  if (pod_hash_.size() <= id) {
    pod_hash_.resize(id + 1);
    pod_uid_.resize(id + 1);
  }
  pod_hash_[id] = hash;
  pod_uid_[id] = uid;
  const std::string key = state_.pod(id).key();
  emit(fw::EventKind::kPodAdded, state_.pod_node(id), id);
  hooks_->pod_added(key, uid);
}

void InformerCache::upsert_pod(const JsonValue& obj) {
  const std::string key = object_key(obj);
  Pod pod;
  try {
    pod = pod_from_json(obj, classes_);
    if (pod.name.empty() || pod.key() != key)
      throw InputError("metadata.name/namespace: expected non-empty strings");
  } catch (const std::exception& e) {
    skip("Pod " + key, e);
    return;
  }
  const uint64_t hash = scheduling_hash(obj, true);
  NodeId node = kNoNode;
  if (!pod.node_name.empty()) {
    auto n = state_.find_node(pod.node_name);
    if (!n) {  // its node is not in the view yet
      remove_pod(key);
      orphans_[key] = obj;
      return;
    }
    node = *n;
  }
  auto existing = state_.find_pod(pod.ns, pod.name);
  if (existing && pod_uid_[*existing] != pod.uid) {  // deleted and re-created meanwhile
    remove_pod(key);
    existing.reset();
  }
  if (!existing) {
    add_pod(std::move(pod), hash);
    return;
  }
  const PodId id = *existing;
  const uint64_t serial = state_.pod_serial(id);
  const NodeId was = state_.pod_node(id);
  // Binding.
  if (node != kNoNode) {
    const bool ours = hooks_->confirm_bind(serial);
    if (was != node) {
      if (was != kNoNode) state_.unassign(id);  // assumed elsewhere: someone else bound it
      state_.assign(id, node);
      emit(fw::EventKind::kPodBound, node, id);
    } else if (ours) {
      emit(fw::EventKind::kPodBound, node, id);
    }
  }
  // Spec, labels, gates.
  if (pod_hash_[id] != hash) {
    pod_hash_[id] = hash;
    const bool spec_changed = true;
    if (spec_changed) {
      state_.replace_spec(id, pod.spec);
      state_.set_scheduling_gates(id, pod.scheduling_gates);
      emit(fw::EventKind::kPodUpdated, state_.pod_node(id), id);
    }
  }
  if (!state_.pod_alive(id) || state_.pod_serial(id) != serial) return;
  // Lifecycle.
  const PodPhase old_phase = state_.pod(id).phase;
  if (pod.phase != old_phase) {
    state_.set_phase(id, pod.phase);
    if (pod.phase == PodPhase::kRunning) emit(fw::EventKind::kPodRunning, state_.pod_node(id), id);
    if (is_terminal(pod.phase)) emit(fw::EventKind::kPodFinished, state_.pod_node(id), id);
  }
  if (!state_.pod_alive(id) || state_.pod_serial(id) != serial) return;
  if (pod.terminating && !state_.pod(id).terminating) {
    state_.set_terminating(id);
    emit(fw::EventKind::kPodTerminating, state_.pod_node(id), id);
  }
}

void InformerCache::remove_pod(const std::string& key) {
  auto [ns, name] = split_pod_key(key);
  auto id = state_.find_pod(ns, name);
  if (!id) return;
  const uint64_t serial = state_.pod_serial(*id);
  const NodeId node = state_.pod_node(*id);
  const std::string uid = pod_uid_[*id];
  hooks_->forget_bind(serial);
  state_.remove_pod(*id);
  const fw::ClusterEvent e{fw::EventKind::kPodDeleted, now_us(), node, *id, serial, {}};
  const size_t n = listeners_.size();
  for (size_t i = 0; i < n && i < listeners_.size(); ++i) listeners_[i]->on_event(e);
  hooks_->pod_gone(key, uid);
}

std::optional<ObservedPod> InformerCache::observed(const std::string& ns,
                                                   const std::string& name) const {
  if (auto id = state_.find_pod(ns, name))
    return ObservedPod{pod_uid_[*id], state_.pod(*id).terminating};
  if (auto o = orphans_.find(ns + "/" + name); o != orphans_.end()) {
    const JsonValue& obj = o->second;  // const: operator[] must not meet a missing key
    const bool terminating =
        obj.contains("metadata") && obj["metadata"].contains("deletionTimestamp");
    return ObservedPod{object_uid(obj), terminating};
  }
  return std::nullopt;
}

}  // namespace orrery::k8s
