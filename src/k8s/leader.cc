#include "k8s/leader.h"

#include <unistd.h>

#include <ctime>
#include <random>

#include "k8s/objects.h"
#include "obs/log.h"

namespace orrery::k8s {

namespace {

std::string micro_time_now() {
  const auto now = std::chrono::system_clock::now();
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t t = static_cast<std::time_t>(us / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%06lldZ", buf, static_cast<long long>(us % 1000000));
  return out;
}

std::string lease_path(const LeaderElectionConfig& c, bool with_name) {
  std::string p = "/apis/coordination.k8s.io/v1/namespaces/" + c.lease_namespace + "/leases";
  if (with_name) p += "/" + c.lease_name;
  return p;
}

}  // namespace

std::string default_identity() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::random_device rd;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%08x", rd());
  return std::string(host) + "_" + suffix;
}

LeaderElector::LeaderElector(ApiClient& client, LeaderElectionConfig config,
                             std::function<void(bool)> on_change)
    : client_(client), config_(std::move(config)), on_change_(std::move(on_change)) {}

LeaderElector::~LeaderElector() { stop(false); }

void LeaderElector::start() { thread_ = std::thread([this] { run(); }); }

void LeaderElector::stop(bool release) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (release && leading_) release_lease();
  set_leading(false);
}

bool LeaderElector::may_act() const {
  if (!leading_) return false;
  const int64_t now = Clock::now().time_since_epoch().count();
  return now < renewed_at_ns_.load() + int64_t{config_.renew_deadline_ms} * 1000000;
}

void LeaderElector::set_leading(bool l) {
  if (leading_.exchange(l) == l) return;
  obs::info(l ? "became the leader" : "stopped leading",
            {{"lease", config_.lease_namespace + "/" + config_.lease_name},
             {"identity", config_.identity}});
  if (on_change_) on_change_(l);
}

void LeaderElector::run() {
  std::mt19937 rng{std::random_device{}()};
  while (!stop_) {
    // A renewal counts from before its requests were sent, not from when the answer came back:
    // the server wrote it after this instant, and others time the lease from when they see that
    // write, so our renew deadline ends before their lease duration can. (Timed from the answer, a
    // reply read late — a paused or starved process — would extend our right to act past the
    // moment another replica may take the lease.)
    const int64_t attempt_started = Clock::now().time_since_epoch().count();
    const bool ok = try_acquire_or_renew();
    if (ok) {
      renewed_at_ns_ = attempt_started;
      set_leading(true);
    } else if (leading_ && !may_act()) {
      set_leading(false);  // could not renew within the renew deadline
    }
    const int base = config_.retry_period_ms;
    const int delay = base + std::uniform_int_distribution<int>(0, base / 5)(rng);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::milliseconds(delay), [&] { return stop_.load(); });
  }
}

bool LeaderElector::try_acquire_or_renew() {
  const std::string now = micro_time_now();
  const int lease_s = std::max(1, (config_.lease_duration_ms + 999) / 1000);
  Response got = client_.get(ApiCall::kGetLease, lease_path(config_, true));
  if (got.status == 404) {
    JsonValue lease = {{"apiVersion", "coordination.k8s.io/v1"},
                       {"kind", "Lease"},
                       {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
                       {"spec",
                        {{"holderIdentity", config_.identity},
                         {"leaseDurationSeconds", lease_s},
                         {"acquireTime", now},
                         {"renewTime", now},
                         {"leaseTransitions", 0}}}};
    Response r = client_.post(ApiCall::kCreateLease, lease_path(config_, false), lease.dump());
    if (!r.ok()) obs::debug("lease create failed", {{"error", r.describe()}});
    return r.ok();
  }
  if (!got.ok()) {
    obs::warn("cannot read the lease", {{"error", got.describe()}});
    return false;
  }
  JsonValue lease = JsonValue::parse(got.body, nullptr, false);
  if (!lease.is_object() || !lease.contains("metadata")) return false;
  JsonValue& spec = lease["spec"];
  if (!spec.is_object()) spec = JsonValue::object();
  const std::string holder = spec.value("holderIdentity", "");
  const std::string record = holder + "|" + spec.value("renewTime", "");
  const auto t = Clock::now();
  if (record != observed_record_) {
    observed_record_ = record;
    observed_at_ = t;
  }
  const int64_t held_ms = int64_t{spec.value("leaseDurationSeconds", lease_s)} * 1000;
  if (!holder.empty() && holder != config_.identity &&
      t < observed_at_ + std::chrono::milliseconds(held_ms)) {
    if (leading_) set_leading(false);
    return false;  // someone else holds a live lease
  }
  if (holder != config_.identity) {
    spec["acquireTime"] = now;
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + (holder.empty() ? 0 : 1);
    transitions_ = spec["leaseTransitions"].get<uint64_t>();
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = lease_s;
  spec["renewTime"] = now;
  Response r = client_.put(ApiCall::kUpdateLease, lease_path(config_, true), lease.dump());
  if (r.status == 409) {
    obs::debug("lease update conflict", {{"identity", config_.identity}});
    return false;
  }
  if (!r.ok()) {
    obs::warn("cannot update the lease", {{"error", r.describe()}});
    return false;
  }
  return true;
}

void LeaderElector::release_lease() {
  Response got = client_.get(ApiCall::kGetLease, lease_path(config_, true));
  if (!got.ok()) return;
  JsonValue lease = JsonValue::parse(got.body, nullptr, false);
  if (!lease.is_object() || lease["spec"].value("holderIdentity", "") != config_.identity) return;
  const std::string now = micro_time_now();
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = now;
  lease["spec"]["acquireTime"] = now;
  Response r = client_.put(ApiCall::kUpdateLease, lease_path(config_, true), lease.dump());
  obs::info(r.ok() ? "released the lease" : "could not release the lease",
            {{"identity", config_.identity}, {"status", std::to_string(r.status)}});
}

}  // namespace orrery::k8s
