#include "sim/sim_backend.h"

#include <algorithm>
#include <stdexcept>

#include "core/error.h"
#include "core/quantity.h"

namespace orrery::sim {
namespace {

using fw::EventKind;

uint64_t pack(uint32_t lo, uint32_t hi) {
  return static_cast<uint64_t>(hi) << 32 | lo;
}
uint32_t lo32(uint64_t v) {
  return static_cast<uint32_t>(v);
}
uint32_t hi32(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}

// The kubelet's oom_score_adj by QoS class (pkg/kubelet/qos/policy.go): the kernel kills the
// process with the largest badness ≈ usage/capacity × 1000 + adj.
int64_t oom_score_adj(const PodSpec& spec, int64_t memory_capacity) {
  bool best_effort = true, guaranteed = true;
  for (const Container& c : spec.containers) {
    for (ResourceId r : {kCpu, kMemory}) {
      const bool req = c.requests_set & (1u << r);
      if (req || c.limits[r] != 0) best_effort = false;
      if (c.limits[r] == 0 || c.requests[r] != c.limits[r]) guaranteed = false;
    }
  }
  if (spec.containers.empty()) guaranteed = false;
  if (guaranteed) return -997;
  if (best_effort) return 1000;
  if (memory_capacity <= 0) return 999;
  int64_t adj = 1000 - 1000 * spec.request[kMemory] / memory_capacity;
  return std::clamp<int64_t>(adj, 3, 999);
}

}  // namespace

SimBackend::SimBackend(EventLoop& loop, uint64_t seed, Lifecycle lifecycle)
    : loop_(loop),
      lc_(lifecycle),
      api_rng_(Rng::derive(seed, "lifecycle/api")),
      bind_rng_(Rng::derive(seed, "lifecycle/bind")),
      startup_rng_(Rng::derive(seed, "lifecycle/startup")),
      termination_rng_(Rng::derive(seed, "lifecycle/termination")),
      gc_rng_(Rng::derive(seed, "lifecycle/gc")) {}

SimBackend::~SimBackend() = default;

// ---------------------------------------------------------------- listeners and owners

void SimBackend::add_listener(fw::EventListener* l) {
  listeners_.push_back(l);
}

void SimBackend::remove_listener(fw::EventListener* l) {
  for (auto& x : listeners_)
    if (x == l) x = nullptr;
  listeners_dirty_ = true;
  if (emitting_ == 0) {
    listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), nullptr), listeners_.end());
    listeners_dirty_ = false;
  }
}

OwnerId SimBackend::add_owner(PodOwner* owner, OwnerKind kind, const std::string& name) {
  const OwnerId id = static_cast<OwnerId>(owners_.size());
  owners_.push_back({owner});
  if (!name.empty()) owner_by_name_[{kind, name}] = id;
  return id;
}

void SimBackend::emit(EventKind kind, PodId pod, NodeId node, uint64_t serial, OwnerId owner,
                      uint32_t tag) {
  const fw::ClusterEvent e{kind, loop_.now(), node, pod, serial, reason_};
  ++notifications_;
  ++emitting_;
  // Index loop: listeners added during delivery see the next events, removed ones are skipped.
  for (size_t i = 0; i < listeners_.size(); ++i)
    if (listeners_[i]) listeners_[i]->on_event(e);
  if (owner != kNoOwner) owners_[owner].owner->on_pod_event(e, tag);
  if (--emitting_ == 0 && listeners_dirty_) {
    listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), nullptr), listeners_.end());
    listeners_dirty_ = false;
  }
}

void SimBackend::emit_pod(EventKind kind, PodId pod) {
  const PodSim& ps = pods_[pod];
  emit(kind, pod, state_.pod_node(pod), state_.pod_serial(pod), ps.owner, ps.tag);
}

// ---------------------------------------------------------------- pods

void SimBackend::register_exec(const std::shared_ptr<const PodSpec>& spec, const ExecSpec& exec) {
  exec_by_spec_[spec.get()] = {spec, exec};
}

void SimBackend::register_image_exec(const std::string& image, const ExecSpec& exec) {
  exec_by_image_[image] = exec;
}

void SimBackend::register_image_node_work(const std::string& image, NodeId node, NodeWork w) {
  work_by_image_node_[{image, node}] = w;
}

ExecSpec SimBackend::exec_for(const Pod& pod) const {
  auto it = exec_by_spec_.find(pod.spec.get());
  if (it != exec_by_spec_.end()) return it->second.second;
  const PodSpec& s = *pod.spec;
  if (!exec_by_image_.empty() && !s.containers.empty()) {
    auto img = exec_by_image_.find(s.containers.front().image);
    if (img != exec_by_image_.end()) return img->second;
  }
  ExecSpec x;
  x.cpu_milli = s.request[kCpu];
  x.memory = s.request[kMemory];
  const std::string where = "pod " + pod.key() + " annotation ";
  if (auto v = s.annotations.get(std::string_view("orrery.io/cpu-usage"))) {
    x.cpu_milli = parse_milli_quantity(*v, where + "orrery.io/cpu-usage");
  }
  if (auto v = s.annotations.get(std::string_view("orrery.io/memory-usage"))) {
    x.memory = parse_unit_quantity(*v, where + "orrery.io/memory-usage");
  }
  if (auto v = s.annotations.get(std::string_view("orrery.io/work"))) {
    x.work = parse_duration_text(std::string(*v), where + "orrery.io/work");
  }
  return x;
}

void SimBackend::create_pod(Pod pod) {
  create_pod(std::move(pod), extras_for(pod));
}

bool SimBackend::update_pod(PodId pod, const fw::PodUpdate& update) {
  if (!state_.pod_alive(pod)) throw std::logic_error("update_pod: pod does not exist");
  fw::apply_update(state_, pod, update);
  PodSim& ps = pods_[pod];
  // A pod that has not started runs with the execution profile of what it now is (its new
  // image or annotations); a running pod keeps running as it started.
  if (update.spec && (ps.stage == PodStage::kPending || ps.stage == PodStage::kBinding)) {
    ps.exec = exec_for(state_.pod(pod));
  }
  loop_.after(0, this, kUpdated, pod, state_.pod_serial(pod));
  return true;
}

PodExtras SimBackend::extras_for(const Pod& pod) const {
  PodExtras x;
  x.exec = exec_for(pod);
  if (pod.owner.kind != OwnerKind::kNone) {
    auto it = owner_by_name_.find({pod.owner.kind, pod.owner.name});
    if (it != owner_by_name_.end()) x.owner = it->second;
  }
  if (auto from = pod.spec->annotations.get(std::string_view("orrery.io/migrated-from"))) {
    auto [ns, name] = split_pod_key(*from);
    if (auto p = state_.find_pod(ns, name)) x.migrated_from = *p;
  }
  return x;
}

PodId SimBackend::create_pod(Pod pod, const PodExtras& extras) {
  pod.creation_us = loop_.now();
  pod.phase = PodPhase::kPending;
  const PodId id = state_.add_pod(std::move(pod));
  if (id >= pods_.size()) pods_.resize(state_.pod_slots());
  PodSim& ps = pods_[id];
  ps = PodSim{};
  ps.owner = extras.owner;
  ps.tag = extras.tag;
  ps.restarts = extras.restarts;
  ps.migrations = extras.migrations;
  ps.exec = extras.exec;
  if (extras.migrated_from != kNoPod && extras.migrated_from != id &&
      state_.pod_alive(extras.migrated_from)) {
    ps.restarts = std::max(ps.restarts, pods_[extras.migrated_from].restarts);
    ps.migrations = pods_[extras.migrated_from].migrations + 1;
  }
  // A pod created with spec.nodeName set skips the scheduler (as a static or pre-bound pod).
  if (state_.pod_node(id) != kNoNode) ps.stage = PodStage::kBinding;
  loop_.after(draw(lc_.api, api_rng_), this, kCreated, id, state_.pod_serial(id));
  return id;
}

void SimBackend::bind_after(PodId pod, NodeId node, Time extra) {
  if (!state_.pod_alive(pod)) throw std::logic_error("bind: pod does not exist");
  PodSim& ps = pods_[pod];
  if (ps.stage != PodStage::kPending) {
    throw std::logic_error("bind: pod " + state_.pod(pod).key() + " is not pending");
  }
  ps.stage = PodStage::kBinding;
  loop_.after(extra + draw(lc_.bind, bind_rng_), this, kBindDone, pack(pod, node),
              state_.pod_serial(pod));
}

void SimBackend::delete_after(PodId pod, const std::string& reason, Time extra) {
  if (!state_.pod_alive(pod)) return;
  pods_[pod].reason = reason;
  loop_.after(extra + draw(lc_.api, api_rng_), this, kDeleteReq, pod, state_.pod_serial(pod));
}

void SimBackend::after_bound(PodId pod, NodeId node) {
  // Kubelet admission: the pod must fit next to the pods the kubelet already admitted (pods
  // other schedulers merely assumed on the node do not count).
  const PodSpec& spec = *state_.pod(pod).spec;
  Resources& admitted = nodes_[node].admitted;
  for (uint32_t mask = spec.request_mask; mask != 0; mask &= mask - 1) {
    const ResourceId r = static_cast<ResourceId>(__builtin_ctz(mask));
    if (admitted[r] + spec.request[r] > state_.allocatable(r)[node]) {
      finish(pod, PodPhase::kFailed, "OutOf" + std::string(resource_name(r)));
      return;
    }
  }
  for (uint32_t mask = spec.request_mask; mask != 0; mask &= mask - 1) {
    const ResourceId r = static_cast<ResourceId>(__builtin_ctz(mask));
    admitted[r] += spec.request[r];
  }
  PodSim& ps = pods_[pod];
  ps.admitted = true;
  ps.stage = PodStage::kStarting;
  const Time startup = draw(lc_.startup, startup_rng_);
  if (startup == 0) {
    start_running(pod);  // no container start-up delay: running at once, without an event
  } else {
    loop_.after(startup, this, kStarted, pod, state_.pod_serial(pod));
  }
}

void SimBackend::start_running(PodId pod) {
  PodSim& ps = pods_[pod];
  const NodeId node = state_.pod_node(pod);
  if (nodes_[node].failed) {
    ps.start_deferred = true;
    return;
  }
  ps.start_deferred = false;
  ps.stage = PodStage::kRunning;
  ps.started = loop_.now();
  ps.fails = false;
  if (!work_by_image_node_.empty() && !state_.pod(pod).spec->containers.empty()) {
    auto w = work_by_image_node_.find({state_.pod(pod).spec->containers.front().image, node});
    if (w != work_by_image_node_.end()) {
      ps.exec.work = w->second.work;
      ps.fails = w->second.fails;
    }
  }
  state_.set_phase(pod, PodPhase::kRunning);
  reason_.clear();
  emit_pod(EventKind::kPodRunning, pod);
  // A listener may have deleted it already (deletions are deferred, so it is still here).
  exec_.start(pod, node, ps.exec, state_.pod(pod).spec->request[kGpu] > 0, loop_.now());
  apply_exec_changes();
  check_memory(node);
}

void SimBackend::apply_exec_changes() {
  auto& changes = exec_.changes();
  for (const Execution::Change& c : changes) {
    PodSim& ps = pods_[c.pod];
    ++ps.gen;
    if (c.finish != kForever) {
      loop_.at(c.finish, this, kFinish, pack(c.pod, ps.gen), state_.pod_serial(c.pod));
    }
  }
  changes.clear();
}

void SimBackend::check_memory(NodeId node) {
  const int64_t cap = nodes_[node].memory_capacity;
  if (cap <= 0) return;
  while (exec_.memory_used(node) > cap) {
    // The kernel OOM killer: largest badness, ties to the most recently started pod.
    PodId victim = kNoPod;
    int64_t best = 0;
    for (PodId p : exec_.running_on(node)) {
      const int64_t badness =
          exec_.memory_of(p) * 1000 / cap + oom_score_adj(*state_.pod(p).spec, cap);
      if (victim == kNoPod || badness > best ||
          (badness == best && (pods_[p].started > pods_[victim].started ||
                               (pods_[p].started == pods_[victim].started &&
                                state_.pod_serial(p) > state_.pod_serial(victim))))) {
        victim = p;
        best = badness;
      }
    }
    if (victim == kNoPod) return;
    finish(victim, PodPhase::kFailed, "OOMKilled");
  }
}

void SimBackend::release_admission(PodId pod) {
  PodSim& ps = pods_[pod];
  if (!ps.admitted) return;
  ps.admitted = false;
  const PodSpec& spec = *state_.pod(pod).spec;
  Resources& admitted = nodes_[state_.pod_node(pod)].admitted;
  for (uint32_t mask = spec.request_mask; mask != 0; mask &= mask - 1) {
    const ResourceId r = static_cast<ResourceId>(__builtin_ctz(mask));
    admitted[r] -= spec.request[r];
  }
}

void SimBackend::finish(PodId pod, PodPhase phase, const std::string& reason) {
  PodSim& ps = pods_[pod];
  release_admission(pod);
  exec_.stop(pod, loop_.now());
  apply_exec_changes();
  ps.stage = PodStage::kDone;
  state_.set_phase(pod, phase);
  reason_ = reason;
  emit_pod(EventKind::kPodFinished, pod);
  if (!state_.pod_alive(pod) || pods_[pod].stage != PodStage::kDone) return;
  const Time gc = draw(lc_.gc, gc_rng_);
  if (gc == 0) {
    remove(pod, "completed");
  } else {
    loop_.after(gc, this, kRemove, pod, state_.pod_serial(pod));
  }
}

void SimBackend::remove(PodId pod, const std::string& reason) {
  const PodSim ps = pods_[pod];
  const NodeId node = state_.pod_node(pod);
  const uint64_t serial = state_.pod_serial(pod);
  if (exec_.running(pod)) {
    exec_.stop(pod, loop_.now());
    apply_exec_changes();
  }
  release_admission(pod);
  state_.remove_pod(pod);
  reason_ = reason;
  emit(EventKind::kPodDeleted, pod, node, serial, ps.owner, ps.tag);
}

void SimBackend::process_delete(PodId pod) {
  PodSim& ps = pods_[pod];
  switch (ps.stage) {
    case PodStage::kTerminating: return;
    case PodStage::kPending:
    case PodStage::kBinding:
    case PodStage::kDone: remove(pod, ps.reason); return;
    case PodStage::kStarting:
    case PodStage::kRunning: break;
  }
  const Time grace = draw(lc_.termination, termination_rng_);
  if (grace == 0) {
    remove(pod, ps.reason);
    return;
  }
  // Graceful termination: the containers stop working at once but the pod keeps its node's
  // resources until it is gone; its owner no longer counts it.
  ps.stage = PodStage::kTerminating;
  state_.set_terminating(pod);
  if (exec_.running(pod)) {
    exec_.stop(pod, loop_.now());
    apply_exec_changes();
  }
  const uint64_t serial = state_.pod_serial(pod);
  const OwnerId owner = ps.owner;
  const uint32_t tag = ps.tag;
  loop_.after(grace, this, kRemove, pod, serial);
  reason_ = ps.reason;
  // Listeners first (the pod's owner is told separately, below, as before this event existed).
  emit(EventKind::kPodTerminating, pod, state_.pod_node(pod), serial, kNoOwner, 0);
  if (owner != kNoOwner && valid(pod, serial))
    owners_[owner].owner->on_pod_terminating(pod, serial, tag);
}

// ---------------------------------------------------------------- nodes

NodeId SimBackend::add_node(Node node, double speed) {
  const NodeId id = state_.add_node(std::move(node));
  if (id >= nodes_.size()) nodes_.resize(id + 1);
  const Node& n = state_.node(id);
  NodeSim& ns = nodes_[id];
  ns = NodeSim{};
  ns.cpu_capacity = n.capacity[kCpu] > 0 ? n.capacity[kCpu] : n.allocatable[kCpu];
  ns.memory_capacity = n.capacity[kMemory] > 0 ? n.capacity[kMemory] : n.allocatable[kMemory];
  exec_.set_node(id, ns.cpu_capacity, speed);
  reason_.clear();
  emit(EventKind::kNodeAdded, kNoPod, id, 0, kNoOwner, 0);
  return id;
}

void SimBackend::set_unreachable_taint(NodeId node, bool on) {
  static const StrId key = intern("node.kubernetes.io/unreachable");
  Node n = state_.node(node);
  std::erase_if(n.taints, [](const Taint& t) { return t.key == key; });
  if (on) {
    n.taints.push_back({key, kNoStr, TaintEffect::kNoSchedule});
    n.taints.push_back({key, kNoStr, TaintEffect::kNoExecute});
  }
  state_.update_node(node, std::move(n));
  nodes_[node].tainted = on;
  reason_ = on ? "NodeUnreachable" : "NodeReady";
  emit(EventKind::kNodeUpdated, kNoPod, node, 0, kNoOwner, 0);
}

void SimBackend::fail_node(NodeId node) {
  if (!state_.node_alive(node) || nodes_[node].failed) return;
  NodeSim& ns = nodes_[node];
  ns.failed = true;
  ++ns.epoch;
  exec_.set_paused(node, true, loop_.now());
  apply_exec_changes();
  loop_.after(lc_.failure_detection, this, kTaint, node, ns.epoch);
  loop_.after(lc_.failure_detection + lc_.failure_eviction, this, kEvict, node, ns.epoch);
}

void SimBackend::recover_node(NodeId node) {
  if (!state_.node_alive(node) || !nodes_[node].failed) return;
  NodeSim& ns = nodes_[node];
  ns.failed = false;
  ++ns.epoch;
  exec_.set_paused(node, false, loop_.now());
  apply_exec_changes();
  if (ns.tainted) set_unreachable_taint(node, false);
  std::vector<PodId> deferred;
  for (PodId p : state_.pods_on(node))
    if (pods_[p].stage == PodStage::kStarting && pods_[p].start_deferred) deferred.push_back(p);
  std::sort(deferred.begin(), deferred.end(),
            [&](PodId a, PodId b) { return state_.pod_serial(a) < state_.pod_serial(b); });
  for (PodId p : deferred) loop_.after(0, this, kStarted, p, state_.pod_serial(p));
}

void SimBackend::remove_node(NodeId node) {
  if (!state_.node_alive(node)) return;
  std::vector<PodId> on(state_.pods_on(node).begin(), state_.pods_on(node).end());
  std::sort(on.begin(), on.end(),
            [&](PodId a, PodId b) { return state_.pod_serial(a) < state_.pod_serial(b); });
  for (PodId p : on) {
    if (pods_[p].stage == PodStage::kPending || pods_[p].stage == PodStage::kBinding) {
      // Only assumed by a scheduler: its bind will fail.
      state_.unassign(p);
    } else {
      remove(p, "node removed");
    }
  }
  state_.remove_node(node);
  reason_.clear();
  emit(EventKind::kNodeRemoved, kNoPod, node, 0, kNoOwner, 0);
}

// ---------------------------------------------------------------- events

void SimBackend::on_created(const Event& e) {
  const PodId pod = static_cast<PodId>(e.a);
  if (!valid(pod, e.b)) return;
  reason_.clear();
  const bool prebound = pods_[pod].stage == PodStage::kBinding;
  emit_pod(EventKind::kPodAdded, pod);
  if (prebound && valid(pod, e.b) && pods_[pod].stage == PodStage::kBinding &&
      state_.pod_node(pod) != kNoNode) {
    emit_pod(EventKind::kPodBound, pod);
    if (valid(pod, e.b) && pods_[pod].stage == PodStage::kBinding) {
      after_bound(pod, state_.pod_node(pod));
    }
  }
}

void SimBackend::on_bind_done(const Event& e) {
  const PodId pod = lo32(e.a);
  const NodeId node = hi32(e.a);
  if (!valid(pod, e.b) || pods_[pod].stage != PodStage::kBinding) return;
  reason_.clear();
  if (state_.pod_node(pod) != node || !state_.node_alive(node)) {
    reason_ = "binding rejected: node " +
              (node < state_.node_slots() ? state_.node(node).name : std::string("?")) + " is gone";
  } else if (refusals_.bind) {
    reason_ = refusals_.bind(state_, pod, node);
  }
  if (!reason_.empty()) {
    if (state_.pod_node(pod) != kNoNode) state_.unassign(pod);
    pods_[pod].stage = PodStage::kPending;
    emit_pod(EventKind::kPodBindFailed, pod);
    return;
  }
  emit_pod(EventKind::kPodBound, pod);
  if (valid(pod, e.b) && pods_[pod].stage == PodStage::kBinding) after_bound(pod, node);
}

void SimBackend::on_evict(const Event& e) {
  const NodeId node = static_cast<NodeId>(e.a);
  if (!state_.node_alive(node) || !nodes_[node].failed || nodes_[node].epoch != e.b) return;
  std::vector<PodId> on(state_.pods_on(node).begin(), state_.pods_on(node).end());
  std::sort(on.begin(), on.end(),
            [&](PodId a, PodId b) { return state_.pod_serial(a) < state_.pod_serial(b); });
  for (PodId p : on) {
    if (!state_.pod_alive(p) || state_.pod_node(p) != node) continue;
    if (pods_[p].stage == PodStage::kPending || pods_[p].stage == PodStage::kBinding) continue;
    remove(p, "node failure: evicted");
  }
}

void SimBackend::handle(const Event& e) {
  switch (e.kind) {
    case kCreated: on_created(e); return;
    case kBindDone: on_bind_done(e); return;
    case kStarted: {
      const PodId pod = static_cast<PodId>(e.a);
      if (!valid(pod, e.b) || pods_[pod].stage != PodStage::kStarting) return;
      start_running(pod);
      return;
    }
    case kFinish: {
      const PodId pod = lo32(e.a);
      if (!valid(pod, e.b) || pods_[pod].gen != hi32(e.a) ||
          pods_[pod].stage != PodStage::kRunning) {
        return;
      }
      if (pods_[pod].fails)
        finish(pod, PodPhase::kFailed, "Error");
      else
        finish(pod, PodPhase::kSucceeded, "Succeeded");
      return;
    }
    case kDeleteReq: {
      const PodId pod = static_cast<PodId>(e.a);
      if (!valid(pod, e.b)) return;
      if (refusals_.remove && pods_[pod].stage != PodStage::kTerminating) {
        reason_ = refusals_.remove(state_, pod);
        if (!reason_.empty()) {
          emit_pod(EventKind::kPodDeleteFailed, pod);
          return;
        }
      }
      process_delete(pod);
      return;
    }
    case kUpdated: {
      const PodId pod = static_cast<PodId>(e.a);
      if (!valid(pod, e.b)) return;
      reason_.clear();
      emit_pod(EventKind::kPodUpdated, pod);
      return;
    }
    case kRemove: {
      const PodId pod = static_cast<PodId>(e.a);
      if (!valid(pod, e.b)) return;
      const PodSim& ps = pods_[pod];
      remove(pod, ps.stage == PodStage::kDone ? std::string("completed") : ps.reason);
      return;
    }
    case kTaint: {
      const NodeId node = static_cast<NodeId>(e.a);
      if (state_.node_alive(node) && nodes_[node].failed && nodes_[node].epoch == e.b) {
        set_unreachable_taint(node, true);
      }
      return;
    }
    case kEvict: on_evict(e); return;
  }
}

}  // namespace orrery::sim
