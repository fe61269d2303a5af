#include "sim/replicaset.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace orrery::sim {

ReplicaSet::ReplicaSet(SimBackend& sim, std::string name, PodTemplate tmpl, int32_t replicas,
                       uint64_t seed)
    : sim_(sim),
      name_(std::move(name)),
      tmpl_(std::move(tmpl)),
      replicas_(replicas),
      rng_(Rng::derive(seed, "replicaset/" + name_)),
      uid_rng_(Rng::derive(seed, "replicaset-uid/" + name_)) {
  if (tmpl_.spec->labels.empty()) {
    auto spec = std::make_shared<PodSpec>(*tmpl_.spec);
    spec->labels.set("app", name_);
    tmpl_.spec = spec;
  }
  owner_ = sim_.add_owner(this, OwnerKind::kReplicaSet, name_);
  request_sync();
}

void ReplicaSet::set_replicas(int32_t n) {
  if (n == replicas_) return;
  replicas_ = n;
  request_sync();
}

std::vector<PodId> ReplicaSet::active_pods() const {
  std::vector<PodId> out;
  for (const Member& m : members_)
    if (m.active) out.push_back(m.pod);
  return out;
}

std::vector<ReplicaSet::ActivePod> ReplicaSet::active_pod_states() const {
  std::vector<ActivePod> out;
  for (const Member& m : members_)
    if (m.active) out.push_back({m.serial, sim_.state().pod(m.pod).phase == PodPhase::kRunning});
  return out;
}

ReplicaSet::Member* ReplicaSet::find(uint64_t serial) {
  for (Member& m : members_)
    if (m.serial == serial) return &m;
  return nullptr;
}

void ReplicaSet::request_sync() {
  if (sync_pending_) return;
  sync_pending_ = true;
  sim_.loop().after(0, this, 0);
}

void ReplicaSet::handle(const Event& e) {
  if (e.kind == 1) {  // a failed replica's back-off is over
    --backing_off_;
    credits_.push_back({static_cast<uint32_t>(e.a), static_cast<uint32_t>(e.b)});
  } else {
    sync_pending_ = false;
  }
  sync();
}

void ReplicaSet::on_pod_event(const fw::ClusterEvent& e, uint32_t) {
  switch (e.kind) {
    case fw::EventKind::kPodAdded:
      if (!find(e.pod_serial)) {  // adopted
        members_.push_back({e.pod, e.pod_serial, true, uid_rng_.next()});
        request_sync();
      }
      return;
    case fw::EventKind::kPodFinished:
      if (Member* m = find(e.pod_serial); m && m->active) {
        m->active = false;
        const uint32_t restarts = sim_.restarts(e.pod) + 1;
        const Time backoff =
            std::min<Time>(10 * kSecond << std::min<uint32_t>(restarts - 1, 5), 300 * kSecond);
        ++backing_off_;
        sim_.loop().after(backoff, this, 1, restarts, sim_.migrations(e.pod));
      }
      return;
    case fw::EventKind::kPodDeleted: {
      auto it = std::find_if(members_.begin(), members_.end(),
                             [&](const Member& m) { return m.serial == e.pod_serial; });
      if (it != members_.end()) {
        const bool was_active = it->active;
        members_.erase(it);
        if (was_active) {
          // Deleted without our asking (eviction, node loss, preemption: a restart; a
          // migration: a move). The backend still holds the pod's facts during the delivery.
          credits_.push_back(credit_for_loss(e.pod));
          request_sync();
        }
      }
      return;
    }
    default: return;
  }
}

void ReplicaSet::on_pod_terminating(PodId pod, uint64_t serial, uint32_t) {
  if (Member* m = find(serial); m && m->active) {
    m->active = false;
    credits_.push_back(credit_for_loss(pod));
    request_sync();
  }
}

ReplicaSet::Credit ReplicaSet::credit_for_loss(PodId pod) const {
  if (fw::is_migration(sim_.event_reason())) return {sim_.restarts(pod), sim_.migrations(pod) + 1};
  return {sim_.restarts(pod) + 1, sim_.migrations(pod)};
}

void ReplicaSet::sync() {
  int32_t active = 0;
  for (const Member& m : members_) active += m.active;
  if (active > replicas_) {
    scale_down(active - replicas_);
  } else {
    for (int32_t i = active + backing_off_; i < replicas_; ++i) {
      Pod pod;
      pod.ns = tmpl_.ns;
      pod.name = name_ + "-" + std::to_string(next_index_++);
      pod.spec = tmpl_.spec;
      pod.owner = {OwnerKind::kReplicaSet, name_};
      PodExtras x;
      x.exec = tmpl_.exec.sample(*tmpl_.spec, rng_);
      x.owner = owner_;
      if (!credits_.empty()) {
        x.restarts = credits_.front().restarts;
        x.migrations = credits_.front().migrations;
        credits_.erase(credits_.begin());
      }
      const PodId id = sim_.create_pod(std::move(pod), x);
      members_.push_back({id, sim_.state().pod_serial(id), true, uid_rng_.next()});
      ++created_;
    }
  }
  credits_.clear();
}

namespace {

// logarithmicRankDiff's rank: floor(log2(ns since the start, the start in whole seconds)), -1
// when not in the past.
int64_t log_age_rank(Time started, Time now) {
  const Time start_s = started / kSecond * kSecond;
  const double ns = static_cast<double>(now - start_s) * 1e3;
  return ns > 0 ? static_cast<int64_t>(std::log2(ns)) : -1;
}

}  // namespace

void ReplicaSet::scale_down(int32_t count) {
  const ClusterState& st = sim_.state();
  const Time now = sim_.loop().now();
  // Pods of this set per node ("rank": doubled-up pods go first).
  std::map<NodeId, int> per_node;
  std::vector<const Member*> cand;
  for (const Member& m : members_) {
    if (!m.active) continue;
    cand.push_back(&m);
    if (st.pod_node(m.pod) != kNoNode) per_node[st.pod_node(m.pod)]++;
  }
  auto phase_rank = [&](PodId p) {
    switch (st.pod(p).phase) {
      case PodPhase::kPending: return 0;
      case PodPhase::kUnknown: return 1;
      default: return 2;
    }
  };
  std::sort(cand.begin(), cand.end(), [&](const Member* a, const Member* b) {
    const NodeId na = st.pod_node(a->pod), nb = st.pod_node(b->pod);
    if ((na == kNoNode) != (nb == kNoNode)) return na == kNoNode;
    if (phase_rank(a->pod) != phase_rank(b->pod)) return phase_rank(a->pod) < phase_rank(b->pod);
    const int ra = na == kNoNode ? 0 : per_node[na], rb = nb == kNoNode ? 0 : per_node[nb];
    if (ra != rb) return ra > rb;
    const Time sa = sim_.started_at(a->pod), sb = sim_.started_at(b->pod);
    if (sa != sb) {
      if (scale_down_order_ == ScaleDownOrder::kExact) return sa > sb;
      const int64_t diff = log_age_rank(sa, now) - log_age_rank(sb, now);
      return diff == 0 ? a->uid < b->uid : diff < 0;  // younger bucket first
    }
    if (sim_.restarts(a->pod) != sim_.restarts(b->pod)) {
      return sim_.restarts(a->pod) > sim_.restarts(b->pod);
    }
    if (st.pod(a->pod).creation_us != st.pod(b->pod).creation_us) {
      return st.pod(a->pod).creation_us > st.pod(b->pod).creation_us;
    }
    return a->serial > b->serial;
  });
  std::vector<std::pair<PodId, uint64_t>> victims;
  for (int32_t i = 0; i < count && i < static_cast<int32_t>(cand.size()); ++i) {
    victims.emplace_back(cand[i]->pod, cand[i]->serial);
  }
  for (auto [pod, serial] : victims) {
    if (Member* m = find(serial)) m->active = false;
    sim_.delete_pod(pod, "scaled down");
  }
}

}  // namespace orrery::sim
