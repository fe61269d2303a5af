// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection package does
// it (LeaseLock, tryAcquireOrRenew):
//
//  - every retry period (jittered ×[1, 1.2)) a candidate GETs the Lease; a missing Lease is
//    created with holderIdentity = us; a Lease held by someone else is taken over only when its
//    record has not changed for leaseDurationSeconds, measured on *our* clock from when we saw it
//    change (no clock-skew assumptions); taking over increments leaseTransitions and sets
//    acquireTime;
//  - every write is a PUT carrying the resourceVersion read: a 409 Conflict means someone else
//    wrote first and this round failed (never a blind overwrite);
//  - the leader renews every retry period; when it has not renewed for renewDeadline it stops
//    leading. may_act() is true only while now < start of the last successful renewal attempt +
//    renewDeadline, which is before the lease can expire for others (they time leaseDuration from
//    when they see the write, after it was sent; renewDeadline < leaseDuration), so a leader that
//    cannot renew stops acting before anyone else may start. The API client asks may_act() at the
//    moment each acting request's body is written (ApiClient::set_action_gate), so a request
//    decided before a pause is abandoned, not sent, when the process resumes;
//  - release() (on SIGTERM) writes an empty holderIdentity with leaseDurationSeconds 1, so a
//    standby takes over at once.
// Defaults are client-go's: 15 s lease, 10 s renew deadline, 2 s retry period.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "k8s/client.h"

namespace orrery::k8s {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name = "orrery-scheduler";
  std::string identity;  // unique per replica (hostname_uuid)
  int lease_duration_ms = 15000;
  int renew_deadline_ms = 10000;
  int retry_period_ms = 2000;
};

class LeaderElector {
 public:
  // on_change(leading) is called from the elector's thread.
  LeaderElector(ApiClient& client, LeaderElectionConfig config,
                std::function<void(bool leading)> on_change);
  ~LeaderElector();
  void start();
  // Stops campaigning; releases the lease when we hold it and `release` is set.
  void stop(bool release = true);
  bool leading() const { return leading_.load(); }
  // Leading and the last renewal is younger than the renew deadline (thread-safe).
  bool may_act() const;
  uint64_t transitions_seen() const { return transitions_.load(); }

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  bool try_acquire_or_renew();
  void set_leading(bool l);
  void release_lease();

  ApiClient& client_;
  LeaderElectionConfig config_;
  std::function<void(bool)> on_change_;
  std::atomic<bool> leading_{false};
  std::atomic<int64_t> renewed_at_ns_{0};  // steady clock of the last successful write
  std::atomic<uint64_t> transitions_{0};
  std::string observed_record_;  // holder + renewTime as last read
  Clock::time_point observed_at_{};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

// A replica identity: hostname plus a random suffix, as kube-scheduler's id.
std::string default_identity();

}  // namespace orrery::k8s
