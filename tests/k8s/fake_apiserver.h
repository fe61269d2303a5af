// A fake Kubernetes API server for tests (test helper, not product code), built from the API
// reference's wire format on a real HTTP(S) server (cpp-httplib):
//
//  - lists (/api/v1/nodes, /api/v1/pods, /api/v1/namespaces/{ns}/pods,
//    /apis/scheduling.k8s.io/v1/priorityclasses) with metadata.resourceVersion, limit/continue
//    (an expired continue token is 410 Gone) and fieldSelector (=, ==, != on dotted paths);
//  - watches (?watch=1&resourceVersion=&allowWatchBookmarks=&timeoutSeconds=) as chunked
//    streams of {"type","object"} lines: ADDED, MODIFIED, DELETED (objects entering/leaving a
//    field selector are ADDED/DELETED as the real server does), BOOKMARK, ERROR 410 Expired;
//    a watch from a compacted resourceVersion gets 410 in-stream (or as the HTTP status);
//  - pods: create (uid, resourceVersion, creationTimestamp, spec.priority from the PriorityClass,
//    phase Pending), get, merge PATCH, DELETE, binding (409 when already assigned), eviction
//    (policy/v1; 429 when throttled; deletionTimestamp then DELETED);
//  - core/v1 events (stored), coordination.k8s.io/v1 leases and core/v1 configmaps (get/create/
//    update with resourceVersion conflicts → 409, an existing name → 409 AlreadyExists);
//  - minimal discovery (/api, /apis, /api/v1, group versions) so kubectl can be a client;
//  - faults: compaction, in-stream expiry, dropped streams, blocked watches, refused binds,
//    throttled evictions; optional bearer-token / basic auth and TLS with client certificates.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/rng.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace orrery::k8s::testing {

using JsonValue = nlohmann::json;

struct FakeApiServerOptions {
  // TLS when cert_pem is set; client certificates are required when client_ca_pem is set.
  std::string cert_pem, key_pem, client_ca_pem;
  std::string token;                   // require "Authorization: Bearer <token>" when set
  std::string username, password;      // require basic auth when set
  bool expired_watch_as_http = false;  // 410 as the HTTP status instead of an in-stream ERROR
  int bookmark_interval_ms = 500;
  int max_watch_seconds = 0;   // cap on timeoutSeconds (0: the client's)
  bool run_bound_pods = true;  // a bound pod becomes Running (a stand-in kubelet)
  int threads = 64;
  int bind_delay_ms = 0;  // each binding waits this long before it is applied (binds in flight)
};

struct BindRecord {
  std::string pod;  // ns/name
  std::string node;
  int status;               // 201 or the refusal
  bool reply_lost = false;  // applied (201), but the client was answered 500 (chaos)
  std::string uid;          // the pod's uid when it was found (a re-created pod has a new one)
  std::string auth;         // the request's Authorization header (tells clients apart)
  uint64_t seq = 0;         // order among binds and Lease writes (LeaseWrite::seq)
};

// What a Lease update meets (FakeApiServer::set_lease_update_fault): refused with 409 before it
// is applied, or applied and its reply held for reply_delay_ms.
struct LeaseUpdateFault {
  bool refuse = false;
  int reply_delay_ms = 0;
};

// A Lease write the server applied (create or update), in order (chaos tests: who led when).
struct LeaseWrite {
  std::string lease;   // ns/name
  std::string holder;  // spec.holderIdentity written
  uint64_t seq = 0;
};

// Every non-GET request's final status, as sent (including chaos 500s answered before routing).
struct ResponseRecord {
  std::string method, path;
  int status;
  std::string auth;      // the request's Authorization header (tells clients apart)
  bool complete = true;  // its whole body arrived (false: the client abandoned it mid-request)
  uint64_t seq = 0;      // order among responses, binds and Lease writes
};

// Chaos mode: faults injected at random from a seeded stream (the stream is fixed by the seed;
// which request draws which number depends on thread timing, as it would on a real network).
struct ChaosOptions {
  uint64_t seed = 1;
  double server_error = 0.02;  // a request is answered 500 before it is handled
  double slow = 0.05;          // a request waits up to slow_ms before it is handled
  int slow_ms = 300;
  double bind_conflict = 0.05;      // a bind is refused with 409 Conflict
  double bind_reply_lost = 0.02;    // a bind is applied and answered 500
  double eviction_throttle = 0.25;  // an eviction is refused with 429
  double lease_conflict = 0;        // a Lease PUT is refused with 409 Conflict (not applied)
  // Stream faults, one on average every this many ms, each one of: open watches dropped
  // mid-stream, an in-stream ERROR 410 Expired, a compaction (a watch or continue from before
  // it gets 410, as the HTTP status or in-stream, chosen at random per watch).
  int mean_stream_fault_ms = 1500;
};

struct ChaosCounts {
  int server_errors = 0, slow = 0, bind_conflicts = 0, bind_replies_lost = 0,
      evictions_throttled = 0, drops = 0, expiries = 0, compactions = 0, gone_http = 0,
      lease_conflicts = 0;
  std::string describe() const;
};

class FakeApiServer {
 public:
  explicit FakeApiServer(FakeApiServerOptions options = {});
  ~FakeApiServer();

  int port() const { return port_; }
  std::string url() const;

  // resource: "nodes", "pods", "priorityclasses", "leases", "configmaps", "events". Objects get
  // uid, resourceVersion and creationTimestamp when missing.
  void add(const std::string& resource, JsonValue obj);
  void update(const std::string& resource, JsonValue obj);  // whole object (MODIFIED)
  void remove(const std::string& resource, const std::string& key);
  std::optional<JsonValue> get(const std::string& resource, const std::string& key) const;
  std::vector<JsonValue> list(const std::string& resource) const;
  int64_t resource_version() const;

  // Faults.
  void compact();         // every resourceVersion so far is too old (watches/continues → 410)
  void expire_watches();  // open watches get an ERROR 410 Expired event and end
  void drop_watches();    // open watches are cut without a final chunk
  void block_watches(bool blocked);  // new watches are answered 503 while blocked
  // Called for each bind; a non-zero status refuses it with that status (e.g. 409).
  void set_bind_refusal(std::function<int(const std::string& pod, const std::string& node)> f);
  // Called for each bind / eviction; a non-empty message refuses it with 409 Conflict / 429
  // TooManyRequests carrying that message (the worlds' Refusals, framework/backend.h).
  void set_bind_refusal_message(
      std::function<std::string(const std::string& pod, const std::string& node)> f);
  void set_eviction_refusal(std::function<std::string(const std::string& pod)> f);
  void throttle_evictions(int count);  // the next `count` evictions get 429
  // Called for each ConfigMap request ("GET", "POST", "PUT"); a non-zero status refuses it
  // (403 Forbidden, or 500 InternalError for anything else).
  void set_configmap_refusal(std::function<int(const std::string& method)> f);
  // Called for each Lease update (PUT) before it is handled (tests of the elector's timing).
  void set_lease_update_fault(std::function<LeaseUpdateFault()> f);
  void set_request_hook(std::function<void(const std::string& method, const std::string& path)> f);
  // Chaos mode (see ChaosOptions) until stop_chaos(); the counts of what was injected.
  void start_chaos(const ChaosOptions& options);
  void stop_chaos();
  ChaosCounts chaos_counts() const;

  std::vector<BindRecord> binds() const;
  std::vector<LeaseWrite> lease_writes() const;
  std::vector<ResponseRecord> responses() const;  // non-GET requests only
  int open_watches() const { return open_watches_.load(); }
  int watch_requests() const { return watch_requests_.load(); }
  int list_requests() const { return list_requests_.load(); }
  int requests_with_prefix(const std::string& method_path_prefix) const;
  void stop();

 private:
  struct Entry {
    int64_t rv;
    std::string resource;
    std::string type;
    JsonValue obj;
    std::optional<JsonValue> old;
  };
  struct Watch;
  void routes();
  void store(const std::string& resource, const std::string& type, JsonValue obj,
             std::optional<JsonValue> old);
  std::string key_of(const std::string& resource, const JsonValue& obj) const;
  void stamp(JsonValue& obj);
  bool chaos_draw(double ChaosOptions::*p);         // a draw with that probability (false when off)
  bool chaos_server_error(httplib::Response& res);  // ChaosOptions::server_error: answered 500
  bool chaos_refuses_lease_update();                // ChaosOptions::lease_conflict, counted
  void record_lease_write(const std::string& key, const JsonValue& lease);  // under mu_
  void record_response(const httplib::Request& req, int status);
  void update_lease(const httplib::Request& req, httplib::Response& res);
  void chaos_loop();

  FakeApiServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int64_t rv_ = 100;
  int64_t compacted_rv_ = 0;
  uint64_t uid_counter_ = 0;
  std::map<std::string, std::map<std::string, JsonValue>> objects_;
  std::vector<Entry> history_;
  uint64_t drop_gen_ = 0, expire_gen_ = 0;
  bool watches_blocked_ = false;
  bool stopping_ = false;
  std::function<int(const std::string&, const std::string&)> bind_refusal_;
  int throttled_evictions_ = 0;
  std::function<std::string(const std::string&, const std::string&)> bind_refusal_message_;
  std::function<std::string(const std::string&)> eviction_refusal_;
  std::function<int(const std::string&)> configmap_refusal_;
  std::function<LeaseUpdateFault()> lease_update_fault_;
  std::vector<BindRecord> binds_;
  uint64_t seq_ = 0;  // under mu_: BindRecord::seq, LeaseWrite::seq
  std::vector<LeaseWrite> lease_writes_;
  std::vector<ResponseRecord> responses_;
  std::map<std::string, int> request_counts_;
  std::function<void(const std::string&, const std::string&)> request_hook_;
  std::atomic<int> open_watches_{0};
  std::atomic<int> watch_requests_{0};
  std::atomic<int> list_requests_{0};

  mutable std::mutex chaos_mu_;
  std::condition_variable chaos_cv_;
  bool chaos_on_ = false;
  ChaosOptions chaos_;
  Rng chaos_rng_;  // under chaos_mu_
  ChaosCounts chaos_counts_;
  std::thread chaos_thread_;
};

// A Node and a Pod as the API would hold them (for tests).
JsonValue make_node(const std::string& name, const std::string& cpu = "4",
                    const std::string& memory = "8Gi", const std::string& pods = "110");
JsonValue make_pod(const std::string& ns, const std::string& name, const std::string& cpu,
                   const std::string& memory, const std::string& scheduler = "orrery");

}  // namespace orrery::k8s::testing
