#include "k8s/fake_apiserver.h"

#include <httplib.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <chrono>
#include <ctime>
#include <sstream>

namespace orrery::k8s::testing {

namespace {

std::string now_rfc3339() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

JsonValue status(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", JsonValue::object()},
          {"status", code < 300 ? "Success" : "Failure"},
          {"message", message},
          {"reason", reason},
          {"code", code}};
}

void reply(httplib::Response& res, int code, const JsonValue& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

void fail(httplib::Response& res, int code, const std::string& reason, const std::string& msg) {
  reply(res, code, status(code, reason, msg));
}

// fieldSelector: comma-separated key=value, key==value, key!=value on dotted paths.
struct Requirement {
  std::string path;
  std::string value;
  bool negate;
};
using Selector = std::vector<Requirement>;

Selector parse_selector(const std::string& s) {
  Selector out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.empty()) continue;
    size_t p = part.find("!=");
    if (p != std::string::npos) {
      out.push_back({part.substr(0, p), part.substr(p + 2), true});
      continue;
    }
    p = part.find("==");
    if (p != std::string::npos) {
      out.push_back({part.substr(0, p), part.substr(p + 2), false});
      continue;
    }
    p = part.find('=');
    if (p != std::string::npos) out.push_back({part.substr(0, p), part.substr(p + 1), false});
  }
  return out;
}

std::string field(const JsonValue& obj, const std::string& path) {
  const JsonValue* cur = &obj;
  std::stringstream ss(path);
  std::string seg;
  while (std::getline(ss, seg, '.')) {
    if (!cur->is_object() || !cur->contains(seg)) return "";
    cur = &(*cur)[seg];
  }
  if (cur->is_string()) return cur->get<std::string>();
  if (cur->is_null()) return "";
  return cur->dump();
}

bool matches(const Selector& sel, const JsonValue& obj) {
  for (const Requirement& r : sel) {
    std::string v = field(obj, r.path);
    if (r.path == "metadata.namespace" && v.empty()) v = "default";
    if ((v == r.value) == r.negate) return false;
  }
  return true;
}

std::string param(const httplib::Request& req, const std::string& k) {
  return req.has_param(k) ? req.get_param_value(k) : "";
}

}  // namespace

JsonValue make_node(const std::string& name, const std::string& cpu, const std::string& memory,
                    const std::string& pods) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"spec", JsonValue::object()},
          {"status",
           {{"capacity", {{"cpu", cpu}, {"memory", memory}, {"pods", pods}}},
            {"allocatable", {{"cpu", cpu}, {"memory", memory}, {"pods", pods}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

JsonValue make_pod(const std::string& ns, const std::string& name, const std::string& cpu,
                   const std::string& memory, const std::string& scheduler) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", "test"}}}}},
          {"spec",
           {{"schedulerName", scheduler},
            {"containers",
             {{{"name", "main"},
               {"image", "registry.k8s.io/pause:3.9"},
               {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

struct FakeApiServer::Watch {
  std::string resource;
  std::string ns;
  Selector sel;
  int64_t cursor;
  bool bookmarks;
  std::chrono::steady_clock::time_point deadline;
  uint64_t drop_gen, expire_gen;
  bool ended = false;
};

FakeApiServer::FakeApiServer(FakeApiServerOptions options) : options_(std::move(options)) {
  if (!options_.cert_pem.empty()) {
    auto read_pem = [](const std::string& pem, bool key) -> void* {
      BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
      void* out = key ? static_cast<void*>(PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr))
                      : static_cast<void*>(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
      BIO_free(bio);
      return out;
    };
    X509* cert = static_cast<X509*>(read_pem(options_.cert_pem, false));
    EVP_PKEY* key = static_cast<EVP_PKEY*>(read_pem(options_.key_pem, true));
    X509_STORE* client_ca = nullptr;
    if (!options_.client_ca_pem.empty()) {
      client_ca = X509_STORE_new();
      X509* ca = static_cast<X509*>(read_pem(options_.client_ca_pem, false));
      X509_STORE_add_cert(client_ca, ca);
      X509_free(ca);
    }
    server_ = std::make_unique<httplib::SSLServer>(cert, key, client_ca);
    X509_free(cert);
    EVP_PKEY_free(key);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  const int threads = options_.threads;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_keep_alive_timeout(5);
  server_->set_tcp_nodelay(true);
  routes();
  server_->set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    record_response(req, res.status);
  });
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

FakeApiServer::~FakeApiServer() {
  stop();
}

std::string ChaosCounts::describe() const {
  return "server_errors=" + std::to_string(server_errors) + " slow=" + std::to_string(slow) +
         " bind_conflicts=" + std::to_string(bind_conflicts) +
         " bind_replies_lost=" + std::to_string(bind_replies_lost) +
         " evictions_throttled=" + std::to_string(evictions_throttled) +
         " watch_drops=" + std::to_string(drops) + " in_stream_410=" + std::to_string(expiries) +
         " compactions=" + std::to_string(compactions) + " http_410=" + std::to_string(gone_http) +
         " lease_conflicts=" + std::to_string(lease_conflicts);
}

void FakeApiServer::start_chaos(const ChaosOptions& options) {
  stop_chaos();
  {
    std::lock_guard<std::mutex> lock(chaos_mu_);
    chaos_ = options;
    chaos_rng_ = Rng::derive(options.seed, "fake-apiserver-chaos");
    chaos_on_ = true;
  }
  chaos_thread_ = std::thread([this] { chaos_loop(); });
}

void FakeApiServer::stop_chaos() {
  {
    std::lock_guard<std::mutex> lock(chaos_mu_);
    chaos_on_ = false;
  }
  chaos_cv_.notify_all();
  if (chaos_thread_.joinable()) chaos_thread_.join();
}

ChaosCounts FakeApiServer::chaos_counts() const {
  std::lock_guard<std::mutex> lock(chaos_mu_);
  return chaos_counts_;
}

bool FakeApiServer::chaos_draw(double ChaosOptions::*p) {
  std::lock_guard<std::mutex> lock(chaos_mu_);
  return chaos_on_ && chaos_.*p > 0 && chaos_rng_.bernoulli(chaos_.*p);
}

// Stream faults at exponentially distributed intervals.
// Their own stream: the sequence of stream faults and their times depend on the seed alone.
void FakeApiServer::chaos_loop() {
  std::unique_lock<std::mutex> lock(chaos_mu_);
  Rng rng = Rng::derive(chaos_.seed, "fake-apiserver-stream-faults");
  while (chaos_on_) {
    const double wait_ms = rng.exponential(1.0 / std::max(1, chaos_.mean_stream_fault_ms));
    chaos_cv_.wait_for(lock, std::chrono::microseconds(static_cast<int64_t>(wait_ms * 1000)),
                       [&] { return !chaos_on_; });
    if (!chaos_on_) break;
    const uint64_t fault = rng.below(3);
    if (fault == 0) ++chaos_counts_.drops;
    if (fault == 1) ++chaos_counts_.expiries;
    if (fault == 2) ++chaos_counts_.compactions;
    lock.unlock();
    if (fault == 0) drop_watches();
    if (fault == 1) expire_watches();
    if (fault == 2) compact();
    lock.lock();
  }
}

void FakeApiServer::stop() {
  stop_chaos();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string FakeApiServer::url() const {
  return std::string(options_.cert_pem.empty() ? "http" : "https") +
         "://127.0.0.1:" + std::to_string(port_);
}

std::string FakeApiServer::key_of(const std::string& resource, const JsonValue& obj) const {
  const std::string name = obj["metadata"].value("name", "");
  if (resource == "nodes" || resource == "priorityclasses") return name;
  return obj["metadata"].value("namespace", "default") + "/" + name;
}

void FakeApiServer::stamp(JsonValue& obj) {
  JsonValue& m = obj["metadata"];
  if (!m.contains("uid")) m["uid"] = "uid-" + std::to_string(++uid_counter_);
  if (!m.contains("creationTimestamp")) m["creationTimestamp"] = "2025-01-01T00:00:00Z";
}

// Under mu_.
void FakeApiServer::store(const std::string& resource, const std::string& type, JsonValue obj,
                          std::optional<JsonValue> old) {
  ++rv_;
  obj["metadata"]["resourceVersion"] = std::to_string(rv_);
  const std::string key = key_of(resource, obj);
  if (type == "DELETED") {
    objects_[resource].erase(key);
  } else {
    objects_[resource][key] = obj;
  }
  history_.push_back({rv_, resource, type, std::move(obj), std::move(old)});
  cv_.notify_all();
}

void FakeApiServer::add(const std::string& resource, JsonValue obj) {
  std::lock_guard<std::mutex> lock(mu_);
  stamp(obj);
  if (resource == "pods") {
    obj["spec"]["schedulerName"] = obj["spec"].value("schedulerName", "default-scheduler");
    if (!obj.contains("status")) obj["status"] = {{"phase", "Pending"}};
  }
  store(resource, "ADDED", std::move(obj), std::nullopt);
}

void FakeApiServer::update(const std::string& resource, JsonValue obj) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = key_of(resource, obj);
  auto it = objects_[resource].find(key);
  std::optional<JsonValue> old;
  if (it != objects_[resource].end()) old = it->second;
  store(resource, old ? "MODIFIED" : "ADDED", std::move(obj), old);
}

void FakeApiServer::remove(const std::string& resource, const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_[resource].find(key);
  if (it == objects_[resource].end()) return;
  store(resource, "DELETED", it->second, std::nullopt);
}

std::optional<JsonValue> FakeApiServer::get(const std::string& resource,
                                            const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto r = objects_.find(resource);
  if (r == objects_.end()) return std::nullopt;
  auto it = r->second.find(key);
  if (it == r->second.end()) return std::nullopt;
  return it->second;
}

std::vector<JsonValue> FakeApiServer::list(const std::string& resource) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<JsonValue> out;
  auto r = objects_.find(resource);
  if (r != objects_.end())
    for (const auto& [k, v] : r->second) out.push_back(v);
  return out;
}

int64_t FakeApiServer::resource_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rv_;
}

void FakeApiServer::compact() {
  std::lock_guard<std::mutex> lock(mu_);
  compacted_rv_ = rv_ + 1;
  history_.clear();
}

void FakeApiServer::expire_watches() {
  std::lock_guard<std::mutex> lock(mu_);
  ++expire_gen_;
  cv_.notify_all();
}

void FakeApiServer::drop_watches() {
  std::lock_guard<std::mutex> lock(mu_);
  ++drop_gen_;
  cv_.notify_all();
}

void FakeApiServer::block_watches(bool blocked) {
  std::lock_guard<std::mutex> lock(mu_);
  watches_blocked_ = blocked;
}

void FakeApiServer::set_bind_refusal(std::function<int(const std::string&, const std::string&)> f) {
  std::lock_guard<std::mutex> lock(mu_);
  bind_refusal_ = std::move(f);
}

void FakeApiServer::set_bind_refusal_message(
    std::function<std::string(const std::string&, const std::string&)> f) {
  std::lock_guard<std::mutex> lock(mu_);
  bind_refusal_message_ = std::move(f);
}

void FakeApiServer::set_eviction_refusal(std::function<std::string(const std::string&)> f) {
  std::lock_guard<std::mutex> lock(mu_);
  eviction_refusal_ = std::move(f);
}

void FakeApiServer::throttle_evictions(int count) {
  std::lock_guard<std::mutex> lock(mu_);
  throttled_evictions_ = count;
}

void FakeApiServer::set_configmap_refusal(std::function<int(const std::string& method)> f) {
  std::lock_guard<std::mutex> lock(mu_);
  configmap_refusal_ = std::move(f);
}

void FakeApiServer::set_lease_update_fault(std::function<LeaseUpdateFault()> f) {
  std::lock_guard<std::mutex> lock(mu_);
  lease_update_fault_ = std::move(f);
}

void FakeApiServer::set_request_hook(
    std::function<void(const std::string&, const std::string&)> f) {
  std::lock_guard<std::mutex> lock(mu_);
  request_hook_ = std::move(f);
}

// ---- records for the chaos tests (who bound what, who led when, every write's status) ----

bool FakeApiServer::chaos_server_error(httplib::Response& res) {
  if (!chaos_draw(&ChaosOptions::server_error)) return false;
  {
    std::lock_guard<std::mutex> lock(chaos_mu_);
    ++chaos_counts_.server_errors;
  }
  fail(res, 500, "InternalError", "Internal error occurred: injected by the chaos mode (test)");
  return true;
}

bool FakeApiServer::chaos_refuses_lease_update() {
  if (!chaos_draw(&ChaosOptions::lease_conflict)) return false;
  std::lock_guard<std::mutex> lock(chaos_mu_);
  ++chaos_counts_.lease_conflicts;
  return true;
}

void FakeApiServer::record_lease_write(const std::string& key, const JsonValue& lease) {
  std::string holder;
  if (lease.contains("spec") && lease["spec"].is_object())
    holder = lease["spec"].value("holderIdentity", "");
  lease_writes_.push_back({key, holder, ++seq_});
}

void FakeApiServer::record_response(const httplib::Request& req, int status) {
  if (req.method == "GET") return;
  const std::string length = req.get_header_value("Content-Length");
  const bool complete =
      length.empty() || req.body.size() == std::strtoull(length.c_str(), nullptr, 10);
  std::lock_guard<std::mutex> lock(mu_);
  responses_.push_back(
      {req.method, req.path, status, req.get_header_value("Authorization"), complete, ++seq_});
}

std::vector<LeaseWrite> FakeApiServer::lease_writes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lease_writes_;
}

std::vector<ResponseRecord> FakeApiServer::responses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return responses_;
}

std::vector<BindRecord> FakeApiServer::binds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return binds_;
}

int FakeApiServer::requests_with_prefix(const std::string& prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [k, v] : request_counts_)
    if (k.rfind(prefix, 0) == 0) n += v;
  return n;
}

void FakeApiServer::update_lease(const httplib::Request& req, httplib::Response& res) {
  JsonValue obj = JsonValue::parse(req.body, nullptr, false);
  if (!obj.is_object() || !obj.contains("metadata"))
    return fail(res, 400, "BadRequest", "malformed Lease");
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
  auto it = objects_["leases"].find(key);
  if (it == objects_["leases"].end()) return fail(res, 404, "NotFound", "lease not found");
  if (obj["metadata"].value("resourceVersion", "") !=
      it->second["metadata"].value("resourceVersion", "")) {
    return fail(res, 409, "Conflict",
                "Operation cannot be fulfilled on leases.coordination.k8s.io \"" +
                    std::string(req.matches[2]) +
                    "\": the object has been modified; please apply your changes to the "
                    "latest version and try again");
  }
  if (chaos_refuses_lease_update()) {
    return fail(res, 409, "Conflict",
                "Operation cannot be fulfilled on leases.coordination.k8s.io \"" +
                    std::string(req.matches[2]) + "\": the object has been modified (chaos)");
  }
  obj["metadata"]["uid"] = it->second["metadata"]["uid"];
  obj["metadata"]["namespace"] = std::string(req.matches[1]);
  JsonValue old = it->second;
  store("leases", "MODIFIED", obj, old);
  record_lease_write(key, obj);
  reply(res, 200, objects_["leases"][key]);
}

void FakeApiServer::routes() {
  httplib::Server& s = *server_;

  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    std::function<void(const std::string&, const std::string&)> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      request_counts_[req.method + " " + req.path]++;
      hook = request_hook_;
    }
    if (hook) hook(req.method, req.path);
    if (chaos_draw(&ChaosOptions::slow)) {
      int ms;
      {
        std::lock_guard<std::mutex> lock(chaos_mu_);
        ++chaos_counts_.slow;
        ms = static_cast<int>(chaos_rng_.below(static_cast<uint64_t>(std::max(1, chaos_.slow_ms))));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
    // Requests with a body get their 500 from the handler, once the body is read (see
    // with_chaos_500): answered here, the unread body would be parsed as the connection's next
    // request (and answered 400 in place of whatever the client sends next).
    if (req.method != "POST" && req.method != "PUT" && req.method != "PATCH" &&
        chaos_server_error(res))
      return httplib::Server::HandlerResponse::Handled;
    if (!options_.token.empty()) {
      if (req.get_header_value("Authorization") != "Bearer " + options_.token) {
        fail(res, 401, "Unauthorized", "Unauthorized");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    if (!options_.username.empty()) {
      const std::string plain = options_.username + ":" + options_.password;
      std::string enc(4 * ((plain.size() + 2) / 3) + 1, '\0');
      const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(enc.data()),
                                    reinterpret_cast<const unsigned char*>(plain.data()),
                                    static_cast<int>(plain.size()));
      enc.resize(static_cast<size_t>(n));
      const std::string want = "Basic " + enc;
      if (req.get_header_value("Authorization") != want) {
        fail(res, 401, "Unauthorized", "Unauthorized");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  // Discovery, enough for kubectl.
  s.Get("/api", [](const httplib::Request&, httplib::Response& res) {
    reply(res, 200,
          {{"kind", "APIVersions"},
           {"versions", {"v1"}},
           {"serverAddressByClientCIDRs",
            {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1"}}}}});
  });
  s.Get("/apis", [](const httplib::Request&, httplib::Response& res) {
    JsonValue groups = JsonValue::array();
    for (const char* g : {"scheduling.k8s.io", "coordination.k8s.io", "policy"}) {
      groups.push_back(
          {{"name", g},
           {"versions", {{{"groupVersion", std::string(g) + "/v1"}, {"version", "v1"}}}},
           {"preferredVersion", {{"groupVersion", std::string(g) + "/v1"}, {"version", "v1"}}}});
    }
    reply(res, 200, {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
  });
  auto resource = [](const std::string& name, const std::string& kind, bool namespaced) {
    return JsonValue{{"name", name},
                     {"singularName", ""},
                     {"namespaced", namespaced},
                     {"kind", kind},
                     {"verbs", {"create", "delete", "get", "list", "patch", "update", "watch"}}};
  };
  s.Get("/api/v1", [resource](const httplib::Request&, httplib::Response& res) {
    reply(res, 200,
          {{"kind", "APIResourceList"},
           {"groupVersion", "v1"},
           {"resources",
            {resource("nodes", "Node", false), resource("pods", "Pod", true),
             resource("events", "Event", true), resource("configmaps", "ConfigMap", true)}}});
  });
  s.Get("/apis/scheduling.k8s.io/v1", [resource](const httplib::Request&, httplib::Response& res) {
    reply(res, 200,
          {{"kind", "APIResourceList"},
           {"groupVersion", "scheduling.k8s.io/v1"},
           {"resources", {resource("priorityclasses", "PriorityClass", false)}}});
  });
  s.Get("/apis/coordination.k8s.io/v1",
        [resource](const httplib::Request&, httplib::Response& res) {
          reply(res, 200,
                {{"kind", "APIResourceList"},
                 {"groupVersion", "coordination.k8s.io/v1"},
                 {"resources", {resource("leases", "Lease", true)}}});
        });
  s.Get("/apis/policy/v1", [](const httplib::Request&, httplib::Response& res) {
    reply(res, 200,
          {{"kind", "APIResourceList"},
           {"groupVersion", "policy/v1"},
           {"resources", JsonValue::array()}});
  });

  // Lists and watches.
  auto list_or_watch = [this](const std::string& resource, const std::string& kind,
                              const std::string& ns, const httplib::Request& req,
                              httplib::Response& res) {
    const Selector sel = parse_selector(param(req, "fieldSelector"));
    const std::string watch = param(req, "watch");
    if (watch == "1" || watch == "true") {
      ++watch_requests_;
      auto w = std::make_shared<Watch>();
      w->resource = resource;
      w->ns = ns;
      w->sel = sel;
      w->bookmarks = param(req, "allowWatchBookmarks") == "true";
      int timeout =
          req.has_param("timeoutSeconds") ? std::stoi(param(req, "timeoutSeconds")) : 1800;
      if (options_.max_watch_seconds > 0) timeout = std::min(timeout, options_.max_watch_seconds);
      w->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (watches_blocked_) {
          fail(res, 503, "ServiceUnavailable", "watches are blocked (test)");
          return;
        }
        const std::string rv = param(req, "resourceVersion");
        w->cursor = rv.empty() || rv == "0" ? rv_ : std::stoll(rv);
        w->drop_gen = drop_gen_;
        w->expire_gen = expire_gen_;
        if (w->cursor + 1 < compacted_rv_) {  // events after the cursor were compacted
          const std::string msg =
              "too old resource version: " + rv + " (" + std::to_string(compacted_rv_) + ")";
          bool as_http = options_.expired_watch_as_http;
          {
            std::lock_guard<std::mutex> chaos_lock(chaos_mu_);
            if (chaos_on_) {
              as_http = chaos_rng_.bernoulli(0.5);
              if (as_http) ++chaos_counts_.gone_http;
            }
          }
          if (as_http) {
            fail(res, 410, "Expired", msg);
            return;
          }
          w->expire_gen = expire_gen_ - 1;  // in-stream ERROR at once
        }
      }
      ++open_watches_;
      res.set_chunked_content_provider(
          "application/json", [this, w](size_t, httplib::DataSink& sink) {
            std::string out;
            bool end = false, cut = false;
            {
              std::unique_lock<std::mutex> lock(mu_);
              while (true) {
                if (stopping_) {
                  end = true;
                  break;
                }
                if (drop_gen_ != w->drop_gen) {
                  cut = true;
                  break;
                }
                // A watch that had not yet read events a compaction removed cannot go on (etcd:
                // "required revision has been compacted").
                if (expire_gen_ != w->expire_gen || w->cursor + 1 < compacted_rv_) {
                  out = JsonValue{{"type", "ERROR"},
                                  {"object", status(410, "Expired", "too old resource version")}}
                            .dump() +
                        "\n";
                  end = true;
                  break;
                }
                if (std::chrono::steady_clock::now() >= w->deadline) {
                  end = true;
                  break;
                }
                for (const Entry& e : history_) {
                  if (e.rv <= w->cursor || e.resource != w->resource) continue;
                  w->cursor = e.rv;
                  if (!w->ns.empty() && e.obj["metadata"].value("namespace", "default") != w->ns)
                    continue;
                  const bool now_in = matches(w->sel, e.obj);
                  const bool was_in = e.old && matches(w->sel, *e.old);
                  std::string type = e.type;
                  if (type == "MODIFIED") {
                    if (now_in && !was_in) type = "ADDED";
                    if (!now_in && was_in) type = "DELETED";
                    if (!now_in && !was_in) continue;
                  } else if (!now_in) {
                    continue;
                  }
                  out += JsonValue{{"type", type}, {"object", e.obj}}.dump() + "\n";
                }
                if (w->cursor < rv_) w->cursor = rv_;
                if (!out.empty()) break;
                if (cv_.wait_for(lock, std::chrono::milliseconds(options_.bookmark_interval_ms)) ==
                        std::cv_status::timeout &&
                    w->bookmarks) {
                  JsonValue bm = {{"apiVersion", "v1"},
                                  {"kind", "Bookmark"},
                                  {"metadata", {{"resourceVersion", std::to_string(rv_)}}}};
                  out = JsonValue{{"type", "BOOKMARK"}, {"object", bm}}.dump() + "\n";
                  break;
                }
              }
            }
            if (cut) {
              --open_watches_;
              return false;  // no final chunk: the client sees a broken stream
            }
            if (!out.empty() && !sink.write(out.data(), out.size())) {
              --open_watches_;
              return false;
            }
            if (end) {
              --open_watches_;
              sink.done();
            }
            return true;
          });
      return;
    }
    ++list_requests_;
    const size_t limit = req.has_param("limit") ? std::stoul(param(req, "limit")) : 0;
    const std::string cont = param(req, "continue");
    std::lock_guard<std::mutex> lock(mu_);
    int64_t list_rv = rv_;
    std::string after;
    if (!cont.empty()) {  // "<rv>/<last key>"
      const size_t slash = cont.find('/');
      list_rv = std::stoll(cont.substr(0, slash));
      after = cont.substr(slash + 1);
      if (list_rv + 1 < compacted_rv_) {
        fail(res, 410, "Expired",
             "The provided continue parameter is too old to display a consistent list result.");
        return;
      }
    }
    JsonValue items = JsonValue::array();
    std::string last;
    bool more = false;
    for (const auto& [k, v] : objects_[resource]) {
      if (!after.empty() && k <= after) continue;
      if (!ns.empty() && v["metadata"].value("namespace", "default") != ns) continue;
      if (!matches(sel, v)) continue;
      if (limit > 0 && items.size() == limit) {
        more = true;
        break;
      }
      JsonValue item = v;
      item.erase("kind");
      item.erase("apiVersion");
      items.push_back(std::move(item));
      last = k;
    }
    JsonValue meta = {{"resourceVersion", std::to_string(list_rv)}};
    if (more) meta["continue"] = std::to_string(list_rv) + "/" + last;
    const std::string group_version = resource == "priorityclasses" ? "scheduling.k8s.io/v1" : "v1";
    reply(res, 200,
          {{"kind", kind + "List"},
           {"apiVersion", group_version},
           {"metadata", meta},
           {"items", items}});
  };
  s.Get("/api/v1/nodes", [list_or_watch](const httplib::Request& req, httplib::Response& res) {
    list_or_watch("nodes", "Node", "", req, res);
  });
  s.Get("/api/v1/pods", [list_or_watch](const httplib::Request& req, httplib::Response& res) {
    list_or_watch("pods", "Pod", "", req, res);
  });
  s.Get(R"(/api/v1/namespaces/([^/]+)/pods)",
        [list_or_watch](const httplib::Request& req, httplib::Response& res) {
          list_or_watch("pods", "Pod", req.matches[1], req, res);
        });
  s.Get("/apis/scheduling.k8s.io/v1/priorityclasses",
        [list_or_watch](const httplib::Request& req, httplib::Response& res) {
          list_or_watch("priorityclasses", "PriorityClass", "", req, res);
        });
  s.Get(R"(/api/v1/namespaces/([^/]+)/events)",
        [list_or_watch](const httplib::Request& req, httplib::Response& res) {
          list_or_watch("events", "Event", req.matches[1], req, res);
        });

  // Writes: a chaos 500 is injected after the body was read (see the pre-routing handler).
  auto with_chaos_500 = [this](httplib::Server::Handler h) {
    return [this, h = std::move(h)](const httplib::Request& req, httplib::Response& res) {
      if (!chaos_server_error(res)) h(req, res);
    };
  };
  auto post = [&](const std::string& pattern, httplib::Server::Handler h) {
    s.Post(pattern, with_chaos_500(std::move(h)));
  };
  auto put = [&](const std::string& pattern, httplib::Server::Handler h) {
    s.Put(pattern, with_chaos_500(std::move(h)));
  };
  auto patch = [&](const std::string& pattern, httplib::Server::Handler h) {
    s.Patch(pattern, with_chaos_500(std::move(h)));
  };

  // Pods.
  s.Get(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))", [this](const httplib::Request& req,
                                                             httplib::Response& res) {
    auto p = get("pods", std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
    if (!p)
      return fail(res, 404, "NotFound", "pods \"" + std::string(req.matches[2]) + "\" not found");
    reply(res, 200, *p);
  });
  post(R"(/api/v1/namespaces/([^/]+)/pods)",
       [this](const httplib::Request& req, httplib::Response& res) {
         JsonValue obj = JsonValue::parse(req.body, nullptr, false);
         if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].contains("name"))
           return fail(res, 400, "BadRequest", "malformed Pod");
         obj["metadata"]["namespace"] = std::string(req.matches[1]);
         obj["apiVersion"] = "v1";
         obj["kind"] = "Pod";
         std::lock_guard<std::mutex> lock(mu_);
         const std::string key = key_of("pods", obj);
         if (objects_["pods"].count(key))
           return fail(res, 409, "AlreadyExists",
                       "pods \"" + obj["metadata"].value("name", "") + "\" already exists");
         stamp(obj);
         obj["metadata"]["creationTimestamp"] = now_rfc3339();
         JsonValue& spec = obj["spec"];
         if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
         if (!spec.contains("priority") && spec.contains("priorityClassName")) {
           auto pc = objects_["priorityclasses"].find(spec["priorityClassName"].get<std::string>());
           if (pc == objects_["priorityclasses"].end())
             return fail(res, 403, "Forbidden",
                         "no PriorityClass with name " +
                             spec["priorityClassName"].get<std::string>() + " was found");
           spec["priority"] = pc->second["value"];
         }
         obj["status"] = {{"phase", "Pending"}};
         store("pods", "ADDED", obj, std::nullopt);
         reply(res, 201, objects_["pods"][key]);
       });
  patch(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          JsonValue patch = JsonValue::parse(req.body, nullptr, false);
          if (!patch.is_object()) return fail(res, 400, "BadRequest", "malformed patch");
          std::lock_guard<std::mutex> lock(mu_);
          const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
          auto it = objects_["pods"].find(key);
          if (it == objects_["pods"].end()) return fail(res, 404, "NotFound", "pod not found");
          JsonValue old = it->second;
          JsonValue obj = old;
          obj.merge_patch(patch);
          store("pods", "MODIFIED", obj, old);
          reply(res, 200, objects_["pods"][key]);
        });
  s.Delete(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))", [this](const httplib::Request& req,
                                                                httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
    auto it = objects_["pods"].find(key);
    if (it == objects_["pods"].end()) return fail(res, 404, "NotFound", "pod not found");
    JsonValue obj = it->second;
    store("pods", "DELETED", obj, std::nullopt);
    reply(res, 200, obj);
  });
  post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)", [this](const httplib::Request& req,
                                                                    httplib::Response& res) {
    if (options_.bind_delay_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.bind_delay_ms));
    JsonValue b = JsonValue::parse(req.body, nullptr, false);
    if (!b.is_object() || !b.contains("target") || !b["target"].contains("name"))
      return fail(res, 400, "BadRequest", "malformed Binding");
    const std::string node = b["target"]["name"].get<std::string>();
    const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_["pods"].find(key);
    auto record_bind = [&](int code, bool lost = false) {
      const std::string uid =
          it == objects_["pods"].end() ? "" : it->second["metadata"].value("uid", "");
      binds_.push_back({key, node, code, lost, uid, req.get_header_value("Authorization"), ++seq_});
    };
    if (it == objects_["pods"].end()) {
      record_bind(404);
      return fail(res, 404, "NotFound", "pods \"" + std::string(req.matches[2]) + "\" not found");
    }
    if (bind_refusal_) {
      if (int code = bind_refusal_(key, node); code != 0) {
        record_bind(code);
        return fail(res, code, code == 409 ? "Conflict" : "InternalError",
                    "Operation cannot be fulfilled on pods/binding \"" +
                        std::string(req.matches[2]) + "\": refused by the test");
      }
    }
    if (bind_refusal_message_) {
      if (std::string why = bind_refusal_message_(key, node); !why.empty()) {
        record_bind(409);
        return fail(res, 409, "Conflict", why);
      }
    }
    if (chaos_draw(&ChaosOptions::bind_conflict)) {
      {
        std::lock_guard<std::mutex> chaos_lock(chaos_mu_);
        ++chaos_counts_.bind_conflicts;
      }
      record_bind(409);
      return fail(res, 409, "Conflict",
                  "Operation cannot be fulfilled on pods/binding \"" + std::string(req.matches[2]) +
                      "\": the object has been modified (chaos)");
    }
    const std::string current = it->second["spec"].value("nodeName", "");
    if (!current.empty()) {
      record_bind(409);
      return fail(res, 409, "Conflict",
                  "Operation cannot be fulfilled on pods/binding \"" + std::string(req.matches[2]) +
                      "\": pod " + std::string(req.matches[2]) + " is already assigned to node \"" +
                      current + "\"");
    }
    if (b["metadata"].contains("uid") && b["metadata"]["uid"] != it->second["metadata"]["uid"]) {
      record_bind(409);
      return fail(res, 409, "Conflict", "Precondition failed: UID in precondition does not match");
    }
    const bool lost = chaos_draw(&ChaosOptions::bind_reply_lost);
    if (lost) {
      std::lock_guard<std::mutex> chaos_lock(chaos_mu_);
      ++chaos_counts_.bind_replies_lost;
    }
    record_bind(201, lost);
    JsonValue old = it->second;
    JsonValue obj = old;
    obj["spec"]["nodeName"] = node;
    store("pods", "MODIFIED", obj, old);
    if (options_.run_bound_pods) {
      JsonValue running = obj;
      running["metadata"].erase("resourceVersion");
      running["status"]["phase"] = "Running";
      store("pods", "MODIFIED", running, objects_["pods"][key]);
    }
    if (lost) return fail(res, 500, "InternalError", "Internal error occurred: reply lost (chaos)");
    reply(res, 201, status(201, "", ""));
  });
  post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction)",
       [this](const httplib::Request& req, httplib::Response& res) {
         const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
         std::lock_guard<std::mutex> lock(mu_);
         auto it = objects_["pods"].find(key);
         if (it == objects_["pods"].end()) return fail(res, 404, "NotFound", "pod not found");
         if (eviction_refusal_) {
           if (std::string why = eviction_refusal_(key); !why.empty())
             return fail(res, 429, "TooManyRequests", why);
         }
         bool throttle = throttled_evictions_ > 0;
         if (throttle) {
           --throttled_evictions_;
         } else if (chaos_draw(&ChaosOptions::eviction_throttle)) {
           throttle = true;
           std::lock_guard<std::mutex> chaos_lock(chaos_mu_);
           ++chaos_counts_.evictions_throttled;
         }
         if (throttle) {
           return fail(res, 429, "TooManyRequests",
                       "Cannot evict pod as it would violate the pod's disruption budget.");
         }
         JsonValue obj = it->second;
         if (obj["status"].value("phase", "") == "Running") {
           JsonValue old = obj;
           obj["metadata"]["deletionTimestamp"] = now_rfc3339();
           obj["metadata"]["deletionGracePeriodSeconds"] = 0;
           store("pods", "MODIFIED", obj, old);
           obj = objects_["pods"][key];
         }
         store("pods", "DELETED", obj, std::nullopt);
         reply(res, 201, status(201, "", ""));
       });
  post(R"(/api/v1/namespaces/([^/]+)/events)",
       [this](const httplib::Request& req, httplib::Response& res) {
         JsonValue ev = JsonValue::parse(req.body, nullptr, false);
         if (!ev.is_object()) return fail(res, 400, "BadRequest", "malformed Event");
         std::lock_guard<std::mutex> lock(mu_);
         if (!ev["metadata"].contains("name"))
           ev["metadata"]["name"] =
               ev["metadata"].value("generateName", "ev.") + std::to_string(++uid_counter_);
         ev["metadata"]["namespace"] = std::string(req.matches[1]);
         stamp(ev);
         store("events", "ADDED", ev, std::nullopt);
         reply(res, 201, ev);
       });

  // Leases.
  s.Get(R"(/apis/coordination.k8s.io/v1/namespaces/([^/]+)/leases/([^/]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          auto l = get("leases", std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
          if (!l)
            return fail(
                res, 404, "NotFound",
                "leases.coordination.k8s.io \"" + std::string(req.matches[2]) + "\" not found");
          reply(res, 200, *l);
        });
  post(R"(/apis/coordination.k8s.io/v1/namespaces/([^/]+)/leases)",
       [this](const httplib::Request& req, httplib::Response& res) {
         JsonValue obj = JsonValue::parse(req.body, nullptr, false);
         if (!obj.is_object() || !obj.contains("metadata"))
           return fail(res, 400, "BadRequest", "malformed Lease");
         obj["metadata"]["namespace"] = std::string(req.matches[1]);
         std::lock_guard<std::mutex> lock(mu_);
         const std::string key = key_of("leases", obj);
         if (objects_["leases"].count(key))
           return fail(res, 409, "AlreadyExists", "leases.coordination.k8s.io already exists");
         stamp(obj);
         store("leases", "ADDED", obj, std::nullopt);
         record_lease_write(key, obj);
         reply(res, 201, objects_["leases"][key]);
       });
  put(R"(/apis/coordination.k8s.io/v1/namespaces/([^/]+)/leases/([^/]+))",
      [this](const httplib::Request& req, httplib::Response& res) {
        LeaseUpdateFault fault;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (lease_update_fault_) fault = lease_update_fault_();
        }
        if (fault.refuse)
          return fail(res, 409, "Conflict",
                      "Operation cannot be fulfilled on leases.coordination.k8s.io \"" +
                          std::string(req.matches[2]) + "\": refused by the test");
        update_lease(req, res);
        // Applied; the reply is held (a slow network, a client that reads it late).
        if (fault.reply_delay_ms > 0)
          std::this_thread::sleep_for(std::chrono::milliseconds(fault.reply_delay_ms));
      });

  // ConfigMaps (the plan journal): get / create / update by resourceVersion, as the Lease.
  // Refused with the status set_configmap_refusal returns (0: not refused); under mu_.
  auto refused = [this](const httplib::Request& req, httplib::Response& res) {
    const int code = configmap_refusal_ ? configmap_refusal_(req.method) : 0;
    if (code == 0) return false;
    fail(res, code, code == 403 ? "Forbidden" : "InternalError",
         "configmaps is refused by the test (" + req.method + ")");
    return true;
  };
  s.Get(R"(/api/v1/namespaces/([^/]+)/configmaps/([^/]+))",
        [this, refused](const httplib::Request& req, httplib::Response& res) {
          std::lock_guard<std::mutex> lock(mu_);
          if (refused(req, res)) return;
          auto it = objects_["configmaps"].find(std::string(req.matches[1]) + "/" +
                                                std::string(req.matches[2]));
          if (it == objects_["configmaps"].end())
            return fail(res, 404, "NotFound",
                        "configmaps \"" + std::string(req.matches[2]) + "\" not found");
          reply(res, 200, it->second);
        });
  s.Post(R"(/api/v1/namespaces/([^/]+)/configmaps)",
         [this, refused](const httplib::Request& req, httplib::Response& res) {
           JsonValue obj = JsonValue::parse(req.body, nullptr, false);
           if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].contains("name"))
             return fail(res, 400, "BadRequest", "malformed ConfigMap");
           obj["metadata"]["namespace"] = std::string(req.matches[1]);
           std::lock_guard<std::mutex> lock(mu_);
           if (refused(req, res)) return;
           const std::string key = key_of("configmaps", obj);
           if (objects_["configmaps"].count(key))
             return fail(res, 409, "AlreadyExists",
                         "configmaps \"" + obj["metadata"].value("name", "") + "\" already exists");
           stamp(obj);
           store("configmaps", "ADDED", obj, std::nullopt);
           reply(res, 201, objects_["configmaps"][key]);
         });
  s.Put(R"(/api/v1/namespaces/([^/]+)/configmaps/([^/]+))",
        [this, refused](const httplib::Request& req, httplib::Response& res) {
          JsonValue obj = JsonValue::parse(req.body, nullptr, false);
          if (!obj.is_object() || !obj.contains("metadata"))
            return fail(res, 400, "BadRequest", "malformed ConfigMap");
          std::lock_guard<std::mutex> lock(mu_);
          if (refused(req, res)) return;
          const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
          auto it = objects_["configmaps"].find(key);
          if (it == objects_["configmaps"].end())
            return fail(res, 404, "NotFound",
                        "configmaps \"" + std::string(req.matches[2]) + "\" not found");
          if (obj["metadata"].value("resourceVersion", "") !=
              it->second["metadata"].value("resourceVersion", "")) {
            return fail(res, 409, "Conflict",
                        "Operation cannot be fulfilled on configmaps \"" +
                            std::string(req.matches[2]) +
                            "\": the object has been modified; please apply your changes to the "
                            "latest version and try again");
          }
          obj["metadata"]["uid"] = it->second["metadata"]["uid"];
          obj["metadata"]["namespace"] = std::string(req.matches[1]);
          obj["metadata"]["name"] = std::string(req.matches[2]);
          JsonValue old = it->second;
          store("configmaps", "MODIFIED", obj, old);
          reply(res, 200, objects_["configmaps"][key]);
        });
}

}  // namespace orrery::k8s::testing
