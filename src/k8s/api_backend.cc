#include "k8s/api_backend.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <set>

#include "core/error.h"
#include "obs/log.h"

namespace orrery::k8s {

namespace {

std::string pod_path(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}

std::string rfc3339_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

ApiBackend::ApiBackend(ApiClient& client, fw::RealTimeLoop& loop, ApiBackendOptions options)
    : client_(client), loop_(loop), options_(std::move(options)) {
  workers_ = std::make_unique<Workers>(options_.workers);
  if (!options_.journal_name.empty()) {
    journal_ =
        std::make_unique<PlanJournal>(client_, options_.journal_namespace, options_.journal_name);
    journal_worker_ = std::make_unique<Workers>(1);
  }
}

ApiBackend::~ApiBackend() {
  *alive_ = false;
  stop(true);
}

void ApiBackend::start() {
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

void ApiBackend::stop(bool drop) {
  for (auto& i : informers_) i->stop();
  if (workers_) workers_->stop(drop);
  if (journal_worker_) journal_worker_->stop(drop);
}

void ApiBackend::remove_listener(fw::EventListener* l) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), l), listeners_.end());
}

void ApiBackend::emit(fw::EventKind kind, NodeId node, PodId pod, std::string_view reason) {
  const uint64_t serial = pod == kNoPod ? 0 : state_.pod_serial(pod);
  const fw::ClusterEvent e{kind, now_us(), node, pod, serial, reason};
  const size_t n = listeners_.size();
  for (size_t i = 0; i < n && i < listeners_.size(); ++i) listeners_[i]->on_event(e);
}

void ApiBackend::report(const std::string& action, const std::string& outcome) {
  if (on_action_) on_action_({action, outcome});
}

void ApiBackend::skip(const std::string& what, const std::exception& e) {
  ++skipped_;
  obs::warn("skipping a malformed object", {{"object", what}, {"error", e.what()}});
}

// ---- informer side ----

void ApiBackend::replace(const std::string& kind, std::vector<JsonValue> items) {
  auto alive = alive_;
  loop_.post([this, alive, kind, items = std::move(items)]() mutable {
    if (*alive) apply_replace(kind, items);
  });
}

void ApiBackend::event(const std::string& kind, const std::string& type, JsonValue object) {
  auto alive = alive_;
  loop_.post([this, alive, kind, type, object = std::move(object)]() mutable {
    if (*alive) apply_event(kind, type, object);
  });
}

void ApiBackend::apply_replace(const std::string& kind, std::vector<JsonValue>& items) {
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
    for (const auto& [key, uid] : gone_orphans) pod_gone(key, uid);
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

void ApiBackend::apply_event(const std::string& kind, const std::string& type, JsonValue& obj) {
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
    if (orphans_.erase(key) > 0) pod_gone(key, object_uid(obj));
    remove_pod(key);
  } else {
    upsert_pod(obj);
  }
}

void ApiBackend::upsert_priority_class(const JsonValue& obj) {
  try {
    PriorityClass pc = priority_class_from_json(obj);
    classes_.by_name[pc.name] = pc;
  } catch (const std::exception& e) {
    skip("PriorityClass " + object_key(obj, false), e);
  }
}

void ApiBackend::upsert_node(const JsonValue& obj) {
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

void ApiBackend::remove_node(const std::string& name) {
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

void ApiBackend::add_pod(Pod pod, uint64_t hash) {
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
  confirm_replacement(key, uid);
}

void ApiBackend::upsert_pod(const JsonValue& obj) {
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
    auto b = binds_.find(serial);
    const bool ours = b != binds_.end();
    if (ours) binds_.erase(b);
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

void ApiBackend::remove_pod(const std::string& key) {
  auto [ns, name] = split_pod_key(key);
  auto id = state_.find_pod(ns, name);
  if (!id) return;
  const uint64_t serial = state_.pod_serial(*id);
  const NodeId node = state_.pod_node(*id);
  const std::string uid = pod_uid_[*id];
  binds_.erase(serial);
  state_.remove_pod(*id);
  const fw::ClusterEvent e{fw::EventKind::kPodDeleted, now_us(), node, *id, serial, {}};
  const size_t n = listeners_.size();
  for (size_t i = 0; i < n && i < listeners_.size(); ++i) listeners_[i]->on_event(e);
  pod_gone(key, uid);
}

void ApiBackend::pod_gone(const std::string& key, const std::string& uid) {
  auto r = recreate_.find(key);
  if (r == recreate_.end() || r->second.old_uid != uid) return;
  std::string body = std::move(r->second.body);
  recreate_.erase(r);
  post_pod(split_pod_key(key).first, key, std::move(body));
}

// ---- actions ----

void ApiBackend::bind(PodId pod, NodeId node) {
  const Pod& p = state_.pod(pod);
  const uint64_t serial = state_.pod_serial(pod);
  binds_[serial] = {pod, node};
  JsonValue body = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", p.name}, {"namespace", p.ns}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", state_.node(node).name}}}};
  if (!p.uid.empty()) body["metadata"]["uid"] = p.uid;
  const std::string path = pod_path(p.ns, p.name) + "/binding";
  auto alive = alive_;
  workers_->submit([this, alive, path, serial, body = body.dump(), key = p.key(),
                    node_name = state_.node(node).name] {
    Response r = client_.post(ApiCall::kBindPod, path, body);  // refused unless leading
    loop_.post([this, alive, r = std::move(r), serial, key, node_name] {
      if (!*alive) return;
      if (r.ok()) {
        report("bind", "ok");
        obs::debug("bound", {{"pod", key}, {"node", node_name}});
        return;  // the watch confirms
      }
      const std::string outcome =
          r.status == 409 ? "conflict" : (r.error == kNotTheLeader ? "refused" : "error");
      report("bind", outcome);
      auto b = binds_.find(serial);
      if (b == binds_.end()) return;  // the watch already settled it
      const Bind bind = b->second;
      binds_.erase(b);
      if (!state_.pod_alive(bind.pod) || state_.pod_serial(bind.pod) != serial) return;
      obs::info("bind failed; forgetting the assumption",
                {{"pod", key}, {"node", node_name}, {"error", r.describe()}});
      if (state_.pod_node(bind.pod) != kNoNode) state_.unassign(bind.pod);
      const std::string why = r.describe();
      emit(fw::EventKind::kPodBindFailed, bind.node, bind.pod, why);
    });
  });
}

void ApiBackend::delete_pod(PodId pod, const std::string& reason) {
  const Pod& p = state_.pod(pod);
  const uint64_t serial = state_.pod_serial(pod);
  if (!claim_eviction(serial, p.key(), reason)) return;
  obs::info("evicting", {{"pod", p.key()}, {"reason", reason}});
  ++evictions_;
  evict(p.ns, p.name, serial, 0);
}

// One eviction per pod at a time, journalled or not (a second plan may ask while the first
// one's 429s are being retried): its outcome, kPodDeleted or kPodDeleteFailed, answers both.
bool ApiBackend::claim_eviction(uint64_t serial, const std::string& key,
                                const std::string& reason) {
  if (evicting_.insert(serial).second) return true;
  obs::debug("eviction already under way", {{"pod", key}, {"reason", reason}});
  return false;
}

void ApiBackend::evict(const std::string& ns, const std::string& name, uint64_t serial,
                       int attempt) {
  JsonValue body = {{"apiVersion", "policy/v1"},
                    {"kind", "Eviction"},
                    {"metadata", {{"name", name}, {"namespace", ns}}}};
  auto alive = alive_;
  workers_->submit([this, alive, ns, name, serial, attempt, body = body.dump()] {
    // A lapsed leader evicts nothing (the client's action gate).
    Response r = client_.post(ApiCall::kEvictPod, pod_path(ns, name) + "/eviction", body);
    loop_.post([this, alive, r = std::move(r), ns, name, serial, attempt] {
      if (!*alive) return;
      if (r.ok() || r.status == 404) {  // accepted, or already gone: the watch tells
        --evictions_;
        evicting_.erase(serial);
        report("evict", "ok");
        return;
      }
      if (r.status == 429 && attempt + 1 < options_.eviction_attempts) {
        report("evict", "throttled");
        static thread_local std::mt19937 rng{std::random_device{}()};
        const int base = options_.eviction_backoff_ms << std::min(attempt, 10);
        const int delay = base + std::uniform_int_distribution<int>(0, base)(rng);
        obs::info("eviction refused (429); retrying after backoff",
                  {{"pod", ns + "/" + name},
                   {"attempt", std::to_string(attempt + 1)},
                   {"backoff_ms", std::to_string(delay)},
                   {"error", r.describe()}});
        loop_.after(int64_t{delay} * 1000, [this, alive, ns, name, serial, attempt] {
          if (!*alive) return;
          // Only the same pod: one deleted meanwhile may have been re-created under its name
          // (a plan's move), and an eviction by name would take the new one.
          auto id = state_.find_pod(ns, name);
          if (!id || state_.pod_serial(*id) != serial) {
            --evictions_;
            evicting_.erase(serial);
            obs::info("eviction retry dropped: the pod is gone or was replaced",
                      {{"pod", ns + "/" + name}});
            return;
          }
          evict(ns, name, serial, attempt + 1);
        });
        return;
      }
      --evictions_;
      evicting_.erase(serial);
      report("evict",
             r.status == 429 ? "throttled" : (r.error == kNotTheLeader ? "refused" : "error"));
      auto id = state_.find_pod(ns, name);
      if (!id || state_.pod_serial(*id) != serial) return;
      recreate_.erase(ns + "/" + name);
      if (journalled_.count(ns + "/" + name)) settle_journal(ns + "/" + name);  // not evicted
      std::string why = r.describe();
      if (r.status == 429) why += " (after " + std::to_string(attempt + 1) + " attempts)";
      obs::warn("eviction failed", {{"pod", ns + "/" + name}, {"error", why}});
      emit(fw::EventKind::kPodDeleteFailed, state_.pod_node(*id), *id, why);
    });
  });
}

void ApiBackend::create_pod(Pod pod) {
  post_pod(pod.ns, pod.key(), pod_to_json(pod).dump());
}

void ApiBackend::post_pod(const std::string& ns, const std::string& key, std::string body) {
  ++creations_;
  create(key, ns, std::move(body), 0);
}

// A creation refused by a server error (5xx), throttled (429) or lost in transport is sent again
// after a jittered doubling backoff: the pod it creates may be the only copy of an evicted bare pod
// (a plan's move), so giving up at once would lose it. A resend whose first attempt did reach the
// server gets 409 AlreadyExists, and the watch shows the pod.
void ApiBackend::create(const std::string& key, const std::string& ns, const std::string& body,
                        int attempt) {
  auto alive = alive_;
  workers_->submit([this, alive, key, ns, body, attempt] {
    Response r = client_.post(ApiCall::kCreatePod, "/api/v1/namespaces/" + ns + "/pods", body);
    loop_.post([this, alive, r = std::move(r), key, ns, body, attempt] {
      if (!*alive) return;
      const bool refused = r.error == kNotTheLeader;
      report("create", r.ok()            ? "ok"
                       : r.status == 409 ? "conflict"
                       : refused         ? "refused"
                                         : "error");
      // A replica that may no longer act stops: the next leader replays the plan journal.
      const bool transient = !refused && (r.status == 0 || r.status == 429 || r.status >= 500);
      if (!r.ok() && transient && attempt + 1 < options_.create_attempts) {
        static thread_local std::mt19937 rng{std::random_device{}()};
        const int base = options_.create_backoff_ms << std::min(attempt, 10);
        const int delay = base + std::uniform_int_distribution<int>(0, base)(rng);
        obs::warn("pod creation failed; retrying after backoff",
                  {{"pod", key},
                   {"attempt", std::to_string(attempt + 1)},
                   {"backoff_ms", std::to_string(delay)},
                   {"error", r.describe()}});
        loop_.after(int64_t{delay} * 1000, [this, alive, key, ns, body, attempt] {
          if (*alive) create(key, ns, body, attempt + 1);
        });
        return;
      }
      --creations_;
      if (r.status == 409 && r.status_reason() == "AlreadyExists" && journalled_.count(key)) {
        obs::info("a journalled replacement's name is taken: already re-created", {{"pod", key}});
        settle_journal(key);
        return;
      }
      if (!r.ok()) obs::error("pod creation failed", {{"pod", key}, {"error", r.describe()}});
    });
  });
}

bool ApiBackend::update_pod(PodId pod, const fw::PodUpdate& update) {
  const Pod& p = state_.pod(pod);
  auto spec = std::make_shared<PodSpec>(*p.spec);
  if (update.spec) update.spec(*spec);
  spec->finalize();
  // Requests can change only by re-creating the pod (in-place resize is not used).
  bool same_requests = spec->containers.size() == p.spec->containers.size() &&
                       spec->init_containers.size() == p.spec->init_containers.size();
  for (size_t i = 0; same_requests && i < spec->containers.size(); ++i) {
    same_requests = spec->containers[i].requests == p.spec->containers[i].requests &&
                    spec->containers[i].limits == p.spec->containers[i].limits;
  }
  if (!same_requests) {
    Pod replacement = p;
    replacement.spec = spec;
    replacement.uid.clear();
    replacement.node_name.clear();
    replacement.phase = PodPhase::kPending;
    if (update.scheduling_gates) replacement.scheduling_gates = *update.scheduling_gates;
    evict_journalled(pod, pod_to_json(replacement), "re-created to change its requests", true);
    return false;
  }
  Pod changed = p;
  changed.spec = spec;
  if (update.scheduling_gates) changed.scheduling_gates = *update.scheduling_gates;
  const JsonValue full = pod_to_json(changed);
  JsonValue patch = {
      {"metadata",
       {{"labels", full["metadata"].value("labels", JsonValue::object())},
        {"annotations", full["metadata"].value("annotations", JsonValue::object())}}}};
  // Labels and annotations removed by the update are deleted (null in a merge patch).
  for (const auto& [k, v] : p.spec->labels.items()) {
    const std::string key(interned(k));
    if (!patch["metadata"]["labels"].contains(key)) patch["metadata"]["labels"][key] = nullptr;
  }
  for (const auto& [k, v] : p.spec->annotations.items()) {
    const std::string key(interned(k));
    if (!patch["metadata"]["annotations"].contains(key))
      patch["metadata"]["annotations"][key] = nullptr;
  }
  if (update.scheduling_gates) {
    patch["spec"]["schedulingGates"] = full["spec"].value("schedulingGates", JsonValue::array());
  }
  bool images_changed = false;
  for (size_t i = 0; i < spec->containers.size(); ++i)
    images_changed |= spec->containers[i].image != p.spec->containers[i].image;
  if (images_changed) patch["spec"]["containers"] = full["spec"]["containers"];
  auto alive = alive_;
  workers_->submit(
      [this, alive, path = pod_path(p.ns, p.name), body = patch.dump(), key = p.key()] {
        Response r = client_.patch(ApiCall::kPatchPod, path, body);
        loop_.post([this, alive, r = std::move(r), key] {
          if (!*alive) return;
          report("patch", r.ok() ? "ok" : "error");
          if (!r.ok()) obs::error("pod update failed", {{"pod", key}, {"error", r.describe()}});
        });
      });
  return true;
}

void ApiBackend::record_event(PodId pod, const std::string& type, const std::string& reason,
                              const std::string& message) {
  const Pod& p = state_.pod(pod);
  const std::string now = rfc3339_now();
  JsonValue ev = {{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"generateName", p.name + "."}, {"namespace", p.ns}}},
                  {"involvedObject",
                   {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"namespace", p.ns},
                    {"name", p.name},
                    {"uid", p.uid}}},
                  {"reason", reason},
                  {"message", message},
                  {"type", type},
                  {"source", {{"component", options_.component}}},
                  {"reportingComponent", options_.component},
                  {"reportingInstance", options_.instance},
                  {"firstTimestamp", now},
                  {"lastTimestamp", now},
                  {"count", 1}};
  auto alive = alive_;
  workers_->submit([this, alive, ns = p.ns, body = ev.dump()] {
    Response r = client_.post(ApiCall::kCreateEvent, "/api/v1/namespaces/" + ns + "/events", body);
    if (!r.ok()) obs::debug("event not recorded", {{"error", r.describe()}});
  });
}

// ---- plan journal ----

void ApiBackend::delete_for_recreation(PodId pod, const Pod& replacement,
                                       const std::string& reason) {
  Pod r = replacement;
  r.uid.clear();
  evict_journalled(pod, pod_to_json(r), reason, false);
}

void ApiBackend::evict_journalled(PodId pod, JsonValue replacement, const std::string& reason,
                                  bool recreate) {
  const Pod& p = state_.pod(pod);
  const std::string key = p.key(), uid = pod_uid_[pod];
  if (recreate) recreate_[key] = {uid, replacement.dump()};
  if (!journal_) {
    delete_pod(pod, reason);
    return;
  }
  const uint64_t serial = state_.pod_serial(pod);
  // A second journal write for a pod whose eviction is under way could fail and drop the entry
  // the first eviction still needs: the first one's outcome answers both.
  if (!claim_eviction(serial, key, reason)) return;
  obs::info(
      "journalling the replacement before evicting",
      {{"pod", key}, {"reason", reason}, {"journal", journal_->ns() + "/" + journal_->name()}});
  journalled_[key] = uid;
  ++evictions_;  // from now on: the journal write, then the eviction
  JournalEntry e{p.ns, p.name, uid, std::move(replacement)};
  auto alive = alive_;
  journal_worker_->submit([this, alive, e = std::move(e), serial, reason] {
    Response r = journal_->record(e);
    loop_.post([this, alive, r = std::move(r), ns = e.ns, name = e.name, serial, reason] {
      if (!*alive) return;
      report("journal", r.ok() ? "ok" : "error");
      const std::string key = ns + "/" + name;
      auto id = state_.find_pod(ns, name);
      const bool same = id && state_.pod_serial(*id) == serial;
      if (r.ok() && same) {
        obs::info("evicting", {{"pod", key}, {"reason", reason}});
        evict(ns, name, serial, 0);
        return;
      }
      --evictions_;
      evicting_.erase(serial);
      if (r.ok()) return;  // gone meanwhile: its DELETED (and the replacement's ADDED) settle it
      journalled_.erase(key);
      recreate_.erase(key);
      const std::string why = "not evicted: the plan journal could not be written: " + r.describe();
      obs::warn("eviction refused", {{"pod", key}, {"error", why}});
      if (same) emit(fw::EventKind::kPodDeleteFailed, state_.pod_node(*id), *id, why);
    });
  });
}

void ApiBackend::confirm_replacement(const std::string& key, const std::string& uid) {
  auto it = journalled_.find(key);
  if (it == journalled_.end() || it->second == uid) return;
  obs::info("replacement confirmed; dropping its plan journal entry", {{"pod", key}, {"uid", uid}});
  settle_journal(key);
}

void ApiBackend::settle_journal(const std::string& key) {
  journalled_.erase(key);
  auto [ns, name] = split_pod_key(key);
  journal_erase(ns, name);
}

void ApiBackend::journal_erase(const std::string& ns, const std::string& name) {
  if (!journal_) return;
  ++journal_erases_;
  auto alive = alive_;
  journal_worker_->submit([this, alive, ns, name] {
    Response r = journal_->erase(ns, name);
    loop_.post([this, alive, r = std::move(r), key = ns + "/" + name] {
      if (!*alive) return;
      --journal_erases_;
      report("journal", r.ok() ? "ok" : "error");
      if (!r.ok())
        obs::warn("cannot remove a plan journal entry (the next replay drops it)",
                  {{"pod", key}, {"error", r.describe()}});
    });
  });
}

void ApiBackend::replay_journal() {
  if (!journal_) replayed_ = true;
  if (!journal_ || replay_started_) return;
  replay_started_ = true;
  load_journal(0);
}

void ApiBackend::load_journal(int attempt) {
  auto alive = alive_;
  journal_worker_->submit([this, alive, attempt] {
    auto entries = std::make_shared<std::vector<JournalEntry>>();
    Response r = journal_->load(entries.get());
    loop_.post([this, alive, r = std::move(r), entries, attempt] {
      if (!*alive) return;
      const std::string where = journal_->ns() + "/" + journal_->name();
      if (!r.ok()) {
        const int base =
            std::min(options_.backoff.max_ms, options_.backoff.initial_ms << std::min(attempt, 16));
        obs::warn(
            "cannot read the plan journal; no plan starts before it is read",
            {{"configmap", where}, {"error", r.describe()}, {"retry_ms", std::to_string(base)}});
        loop_.after(int64_t{base} * 1000, [this, alive, attempt] {
          if (*alive) load_journal(attempt + 1);
        });
        return;
      }
      obs::info("replaying the plan journal",
                {{"configmap", where}, {"entries", std::to_string(entries->size())}});
      for (const JournalEntry& e : *entries) replay_entry(e);
      replayed_ = true;
    });
  });
}

void ApiBackend::replay_entry(const JournalEntry& e) {
  const std::string key = e.pod_key();
  std::optional<ObservedPod> seen;
  if (auto id = state_.find_pod(e.ns, e.name)) {
    seen = ObservedPod{pod_uid_[*id], state_.pod(*id).terminating};
  } else if (auto o = orphans_.find(key); o != orphans_.end()) {
    seen = ObservedPod{object_uid(o->second), o->second["metadata"].contains("deletionTimestamp")};
  }
  const ReplayAction action = decide_replay(e, seen);
  obs::info("plan journal entry", {{"pod", key},
                                   {"decision", std::string(to_string(action))},
                                   {"oldUid", e.old_uid},
                                   {"uid", seen ? seen->uid : std::string()}});
  switch (action) {
    case ReplayAction::kCancel:
    case ReplayAction::kDrop: journal_erase(e.ns, e.name); break;
    case ReplayAction::kAwaitDeletion:
      journalled_[key] = e.old_uid;
      recreate_[key] = {e.old_uid, e.pod.dump()};
      break;
    case ReplayAction::kCreate:
      journalled_[key] = e.old_uid;
      post_pod(e.ns, key, e.pod.dump());
      break;
  }
}

}  // namespace orrery::k8s
