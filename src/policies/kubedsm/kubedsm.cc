#include "policies/kubedsm/kubedsm.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace orrery::kubedsm {
namespace {

int64_t wall_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

KubeDsm::KubeDsm(fw::ClusterBackend& backend, Options options, fw::Reservations* reservations)
    : backend_(backend),
      opts_(std::move(options)),
      core_(opts_.core),
      executor_(backend, reservations) {
  opts_.validate();
  view_opts_.scheduler_name = intern(opts_.scheduler_name);
  view_opts_.qos_targets = opts_.qos_targets;
  view_opts_.default_qos = opts_.default_qos;
  view_opts_.bounded_cloud = opts_.bounded_cloud;
  plan_opts_.style = opts_.migration;
  plan_opts_.wait_running = opts_.wait_running;
  plan_opts_.step_timeout_us = opts_.step_timeout_us;
  plan_opts_.cloud_node = [this](PodId p) { return choose_cloud(p); };
  plan_opts_.replacement_name = [this](const Pod& p) {
    return fmt::format("{}-m{}", p.name, ++replacements_);
  };
  // A cancelled plan's pending pods go to the cloud (§5.1).
  executor_.set_fallback([this](const ClusterState&, PodId p) {
    if (abandoning_) {  // ecmus schedules them as new pods
      enqueue(p);
      return kNoNode;
    }
    // The fallback plan's bind shows up in pending_binds(): no reservation of our own.
    const NodeId n = choose_cloud(p, /*reserve=*/false);
    if (n != kNoNode) ++stats_.fallback_binds;
    return n;
  });
  executor_.set_on_done([this](const fw::PlanReport& r) { on_plan_done(r); });
}

KubeDsm::~KubeDsm() {
  if (started_) backend_.remove_listener(this);
}

void KubeDsm::start() {
  if (started_) return;
  started_ = true;
  backend_.add_listener(this);
  const ClusterState& s = backend_.state();
  for (PodId p : s.pods()) {
    if (opts_.abandon_migrations && managed(s.pod(p))) ours_.insert(s.pod_serial(p));
    if (s.pod_node(p) == kNoNode && managed(s.pod(p)) && !is_terminal(s.pod(p).phase)) enqueue(p);
  }
  const int64_t now = backend_.now_us();
  next_suggest_ = now + opts_.suggest_period_us;
  next_resync_ = now + opts_.resync_period_us;
  announce_wakeup(next_wakeup_us());
}

void KubeDsm::enqueue(PodId pod) {
  const uint64_t serial = backend_.state().pod_serial(pod);
  for (const auto& [id, s] : batch_)
    if (s == serial) return;
  batch_.emplace_back(pod, serial);
  arm_batch(backend_.now_us() + opts_.batch_window_us);
}

void KubeDsm::arm_batch(int64_t at) {
  if (batch_due_ != kNever) return;  // the window is already open
  batch_due_ = at;
  announce_wakeup(at);
}

void KubeDsm::on_event(const fw::ClusterEvent& e) {
  // The placement manager sees every event first (verification, or a plan claiming a new pod).
  const bool consumed = executor_.handle(e);
  const ClusterState& s = backend_.state();
  if (opts_.abandon_migrations) {
    // A deleted pod's record is gone: ours are known by serial from their kPodAdded.
    bool ours = false;
    if (e.kind == fw::EventKind::kPodAdded && s.pod_alive(e.pod) && managed(s.pod(e.pod))) {
      ours_.insert(e.pod_serial);
      ours = true;
    } else if (e.kind == fw::EventKind::kPodDeleted)
      ours = ours_.erase(e.pod_serial) > 0;
    if (ours && !consumed && migrating()) {
      if (e.kind == fw::EventKind::kPodDeleted && !fw::is_migration(e.reason))
        abandon_migrations("a pod deleted outside the plan");
      else if (e.kind == fw::EventKind::kPodAdded && s.pod_node(e.pod) == kNoNode)
        abandon_migrations("a new pod during the migration");
    }
  }
  switch (e.kind) {
    case fw::EventKind::kPodAdded:
      if (!consumed && s.pod_alive(e.pod) && s.pod_node(e.pod) == kNoNode && managed(s.pod(e.pod)))
        enqueue(e.pod);
      break;
    case fw::EventKind::kPodDeleted:
    case fw::EventKind::kPodFinished:
    case fw::EventKind::kNodeAdded:
    case fw::EventKind::kNodeUpdated:
      if (e.kind == fw::EventKind::kPodDeleted) {
        auto gone = [&](const auto& b) { return b.second == e.pod_serial; };
        batch_.erase(std::remove_if(batch_.begin(), batch_.end(), gone), batch_.end());
        parked_.erase(std::remove_if(parked_.begin(), parked_.end(), gone), parked_.end());
      }
      // Room may have freed up: parked pods get another try.
      for (const auto& [id, serial] : parked_)
        if (s.pod_alive(id) && s.pod_serial(id) == serial && s.pod_node(id) == kNoNode) enqueue(id);
      parked_.clear();
      break;
    default: break;
  }
}

int64_t KubeDsm::next_wakeup_us() const {
  return std::min({batch_due_, next_suggest_, next_resync_});
}

void KubeDsm::tick() {
  const int64_t now = backend_.now_us();
  if (batch_due_ <= now) schedule_batch();
  if (next_suggest_ <= now) {
    suggest_now();
    while (next_suggest_ <= now) next_suggest_ += opts_.suggest_period_us;
  }
  if (next_resync_ <= now) {
    resync();
    while (next_resync_ <= now) next_resync_ += opts_.resync_period_us;
  }
}

bool KubeDsm::migrating() const {
  for (const auto& [id, m] : plan_migrations_)
    if (m > 0) return true;
  return false;
}

NodeId KubeDsm::choose_cloud(PodId pod, bool reserve) {
  const ClusterState& s = backend_.state();
  const Resources& req = s.pod(pod).spec->request;
  NodeId best = kNoNode;
  int64_t best_free = -1;
  for (NodeId n : s.nodes()) {
    const Node& node = s.node(n);
    if (is_edge_node(node) || !accepts_pods(node)) continue;
    Resources free = s.free_of(n);
    for (const fw::PendingBind& b : executor_.pending_binds())
      if (b.node == n) free -= b.request;
    if (auto it = cloud_reserved_.find(n); it != cloud_reserved_.end()) free -= it->second;
    if (!req.fits_in(free)) continue;
    if (free[kCpu] > best_free) {
      best = n;
      best_free = free[kCpu];
    }
  }
  if (best != kNoNode && reserve) cloud_reserved_[best] += req;
  return best;
}

void KubeDsm::submit(BuiltPlans built) {
  cloud_reserved_.clear();
  for (size_t i = 0; i < built.plans.size(); ++i) {
    stats_.migrations_planned += static_cast<uint64_t>(built.migrations[i]);
    // Register before submitting: a snapshot backend completes plans inside submit().
    const uint64_t id = executor_.next_id();
    plan_migrations_[id] = built.migrations[i];
    executor_.submit(std::move(built.plans[i]));
  }
}

void KubeDsm::abandon_migrations(const std::string& why) {
  std::vector<uint64_t> ids;
  for (const auto& [id, m] : plan_migrations_)
    if (m > 0 && executor_.running(id)) ids.push_back(id);
  abandoning_ = true;
  for (uint64_t id : ids) {
    ++stats_.plans_abandoned;
    executor_.cancel(id, "abandoned: " + why);
  }
  abandoning_ = false;
}

void KubeDsm::on_plan_done(const fw::PlanReport& r) {
  auto it = plan_migrations_.find(r.id);
  const int migrations = it != plan_migrations_.end() ? it->second : 0;
  if (it != plan_migrations_.end()) plan_migrations_.erase(it);
  if (r.status == fw::PlanStatus::kCompleted) {
    ++stats_.plans_completed;
    stats_.migrations_done += static_cast<uint64_t>(migrations);
  } else {
    ++stats_.plans_cancelled;
    if (stats_.cancellations.size() < 20)
      stats_.cancellations.push_back(fmt::format("{}: {}", r.name, r.reason));
  }
}

void KubeDsm::schedule_batch() {
  batch_due_ = kNever;
  const ClusterState& s = backend_.state();
  // Pods still pending, ours, not claimed by a plan meanwhile.
  std::vector<PodId> pods;
  std::vector<std::pair<PodId, uint64_t>> rest;
  for (const auto& [id, serial] : batch_) {
    if (!s.pod_alive(id) || s.pod_serial(id) != serial || s.pod_node(id) != kNoNode ||
        executor_.involves(serial))
      continue;
    if (pods.size() < opts_.max_batch)
      pods.push_back(id);
    else
      rest.emplace_back(id, serial);
  }
  batch_ = std::move(rest);
  if (!batch_.empty()) arm_batch(backend_.now_us());
  if (pods.empty()) return;

  const ClusterView v = build_view(s, view_opts_, pods, executor_);
  const int64_t t0 = wall_now_ns();
  const Placement p = core_.immediate_schedule(v.model, v.batch);
  stats_.immediate_wall_ns.push_back(wall_now_ns() - t0);
  ++stats_.batches;
  BuiltPlans built = build_plans(v, s, p, plan_opts_);
  stats_.immediate_pods.push_back(built.edge_binds + built.cloud_binds);
  stats_.immediate_parked.push_back(static_cast<int>(built.parked.size()));
  stats_.binds_edge += static_cast<uint64_t>(built.edge_binds);
  stats_.binds_cloud += static_cast<uint64_t>(built.cloud_binds);
  stats_.parked += built.parked.size();
  for (uint32_t pod : built.parked)
    parked_.emplace_back(v.pod_ids[pod], s.pod_serial(v.pod_ids[pod]));
  submit(std::move(built));
}

void KubeDsm::suggest_now() {
  if (migrating()) {
    ++stats_.suggestions_skipped;
    return;
  }
  const ClusterState& s = backend_.state();
  const ClusterView v = build_view(s, view_opts_, {}, executor_);
  const int64_t t0 = wall_now_ns();
  const Placement p = core_.suggest(v.model);
  stats_.suggest_wall_ns.push_back(wall_now_ns() - t0);
  ++stats_.suggestions;
  if (p.migrations.empty() && p.edge.empty()) return;
  submit(build_plans(v, s, p, plan_opts_));
}

void KubeDsm::resync() {
  executor_.expire(backend_.now_us());
  parked_.clear();  // every pending pod is queued again below
  const ClusterState& s = backend_.state();
  for (PodId p : s.pods()) {
    if (s.pod_node(p) != kNoNode || !managed(s.pod(p)) || is_terminal(s.pod(p).phase)) continue;
    if (executor_.involves(s.pod_serial(p))) continue;
    enqueue(p);
  }
}

void KubeDsm::report(fw::PolicyStats& out) {
  const Stats& s = stats_;
  for (size_t& i = reported_batches_; i < s.immediate_wall_ns.size(); ++i) {
    // One decision per batch: scheduled if it bound pods, failed if every pod found no room
    // anywhere (those are retried; the "parked" counter has them all).
    const int bound = s.immediate_pods[i], parked = s.immediate_parked[i];
    out.decision(bound > 0 || parked == 0, s.immediate_wall_ns[i], bound > 0 ? bound : parked);
    if (parked > 0) out.count("parked", parked);
  }
  for (size_t& i = reported_suggestions_; i < s.suggest_wall_ns.size(); ++i)
    out.decision(true, s.suggest_wall_ns[i], 0);
  out.count("migrations_planned",
            static_cast<int64_t>(s.migrations_planned - reported_migrations_planned_));
  reported_migrations_planned_ = s.migrations_planned;
}

void KubeDsm::finish(Json* out) {
  const Stats& s = stats_;
  Json j;
  j["batches"] = s.batches;
  j["suggestions"] = s.suggestions;
  j["suggestions_skipped"] = s.suggestions_skipped;
  j["binds_edge"] = s.binds_edge;
  j["binds_cloud"] = s.binds_cloud;
  j["parked"] = s.parked;
  j["migrations_planned"] = s.migrations_planned;
  j["migrations_done"] = s.migrations_done;
  j["plans_completed"] = s.plans_completed;
  j["plans_cancelled"] = s.plans_cancelled;
  if (s.plans_abandoned) j["plans_abandoned"] = s.plans_abandoned;
  j["fallback_binds"] = s.fallback_binds;
  j["cancellations"] = s.cancellations;
  (*out)["kubedsm"] = std::move(j);
  (*out)["migrations"] = s.migrations_done;
}

}  // namespace orrery::kubedsm
