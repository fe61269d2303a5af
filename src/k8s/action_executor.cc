#include "k8s/action_executor.h"

#include <algorithm>
#include <random>

#include "core/error.h"
#include "obs/log.h"

namespace orrery::k8s {

ActionExecutor::ActionExecutor(ApiClient& client, fw::RealTimeLoop& loop,
                               const ApiBackendOptions& options, InformerCache& cache,
                               std::shared_ptr<std::atomic<bool>> alive)
    : client_(client),
      loop_(loop),
      options_(options),
      cache_(cache),
      state_(cache.state()),
      alive_(std::move(alive)) {
  workers_ = std::make_unique<Workers>(options_.workers);
  if (!options_.journal_name.empty()) {
    journal_ =
        std::make_unique<PlanJournal>(client_, options_.journal_namespace, options_.journal_name);
    journal_worker_ = std::make_unique<Workers>(1);
  }
}

void ActionExecutor::stop(bool drop) {
  if (workers_) workers_->stop(drop);
  if (journal_worker_) journal_worker_->stop(drop);
}

void ActionExecutor::report(const std::string& action, const std::string& outcome) {
  if (on_action_) on_action_({action, outcome});
}

bool ActionExecutor::confirm_bind(uint64_t serial) {
  auto b = binds_.find(serial);
  if (b == binds_.end()) return false;
  binds_.erase(b);
  return true;
}

void ActionExecutor::pod_gone(const std::string& key, const std::string& uid) {
  auto r = recreate_.find(key);
  if (r == recreate_.end() || r->second.old_uid != uid) return;
  std::string body = std::move(r->second.body);
  recreate_.erase(r);
  post_pod(split_pod_key(key).first, key, std::move(body));
}

// ---- actions ----

void ActionExecutor::bind(PodId pod, NodeId node) {
  const Pod& p = state_.pod(pod);
  const uint64_t serial = state_.pod_serial(pod);
  binds_[serial] = {pod, node};
  const JsonValue body = binding_body(p, state_.node(node).name);
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

void ActionExecutor::delete_pod(PodId pod, const std::string& reason) {
  const Pod& p = state_.pod(pod);
  const uint64_t serial = state_.pod_serial(pod);
  if (!claim_eviction(serial, p.key(), reason)) return;
  obs::info("evicting", {{"pod", p.key()}, {"reason", reason}});
  ++evictions_;
  evict(p.ns, p.name, serial, 0);
}

// One eviction per pod at a time, journalled or not (a second plan may ask while the first
// one's 429s are being retried): its outcome, kPodDeleted or kPodDeleteFailed, answers both.
bool ActionExecutor::claim_eviction(uint64_t serial, const std::string& key,
                                    const std::string& reason) {
  if (evicting_.insert(serial).second) return true;
  obs::debug("eviction already under way", {{"pod", key}, {"reason", reason}});
  return false;
}

void ActionExecutor::evict(const std::string& ns, const std::string& name, uint64_t serial,
                           int attempt) {
  const JsonValue body = eviction_body(ns, name);
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

void ActionExecutor::create_pod(Pod pod) {
  post_pod(pod.ns, pod.key(), pod_to_json(pod).dump());
}

void ActionExecutor::post_pod(const std::string& ns, const std::string& key, std::string body) {
  ++creations_;
  create(key, ns, std::move(body), 0);
}

// A creation refused by a server error (5xx), throttled (429) or lost in transport is sent again
// after a jittered doubling backoff: the pod it creates may be the only copy of an evicted bare pod
// (a plan's move), so giving up at once would lose it. A resend whose first attempt did reach the
// server gets 409 AlreadyExists, and the watch shows the pod.
void ActionExecutor::create(const std::string& key, const std::string& ns, const std::string& body,
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

bool ActionExecutor::update_pod(PodId pod, const fw::PodUpdate& update) {
  const Pod& p = state_.pod(pod);
  auto spec = std::make_shared<PodSpec>(*p.spec);
  if (update.spec) update.spec(*spec);
  spec->finalize();
  // Requests can change only by re-creating the pod (in-place resize is not used).
  if (!same_requests(*p.spec, *spec)) {
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
  const JsonValue patch = pod_patch(p, changed, static_cast<bool>(update.scheduling_gates));
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

void ActionExecutor::record_event(PodId pod, const std::string& type, const std::string& reason,
                                  const std::string& message) {
  const Pod& p = state_.pod(pod);
  const JsonValue ev =
      event_body(p, type, reason, message, options_.component, options_.instance, rfc3339_now());
  auto alive = alive_;
  workers_->submit([this, alive, ns = p.ns, body = ev.dump()] {
    Response r = client_.post(ApiCall::kCreateEvent, "/api/v1/namespaces/" + ns + "/events", body);
    if (!r.ok()) obs::debug("event not recorded", {{"error", r.describe()}});
  });
}

// ---- plan journal ----

void ActionExecutor::delete_for_recreation(PodId pod, const Pod& replacement,
                                           const std::string& reason) {
  Pod r = replacement;
  r.uid.clear();
  evict_journalled(pod, pod_to_json(r), reason, false);
}

void ActionExecutor::evict_journalled(PodId pod, JsonValue replacement, const std::string& reason,
                                      bool recreate) {
  const Pod& p = state_.pod(pod);
  const std::string key = p.key(), uid = cache_.pod_uid(pod);
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

void ActionExecutor::confirm_replacement(const std::string& key, const std::string& uid) {
  auto it = journalled_.find(key);
  if (it == journalled_.end() || it->second == uid) return;
  obs::info("replacement confirmed; dropping its plan journal entry", {{"pod", key}, {"uid", uid}});
  settle_journal(key);
}

void ActionExecutor::settle_journal(const std::string& key) {
  journalled_.erase(key);
  auto [ns, name] = split_pod_key(key);
  journal_erase(ns, name);
}

void ActionExecutor::journal_erase(const std::string& ns, const std::string& name) {
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

void ActionExecutor::replay_journal() {
  if (!journal_) replayed_ = true;
  if (!journal_ || replay_started_) return;
  replay_started_ = true;
  load_journal(0);
}

void ActionExecutor::load_journal(int attempt) {
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

void ActionExecutor::replay_entry(const JournalEntry& e) {
  const std::string key = e.pod_key();
  const std::optional<ObservedPod> seen = cache_.observed(e.ns, e.name);
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
