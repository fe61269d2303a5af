#include "k8s/client.h"

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "k8s/watch_stream.h"

namespace orrery::k8s {

namespace {

// X509 store holding every certificate of a PEM bundle (nullptr when none parses).
X509_STORE* store_from_pem(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509_STORE* store = X509_STORE_new();
  int n = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, cert);
    X509_free(cert);
    ++n;
  }
  BIO_free(bio);
  if (n == 0) {
    X509_STORE_free(store);
    return nullptr;
  }
  return store;
}

X509* cert_from_pem(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* c = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return c;
}

EVP_PKEY* key_from_pem(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return k;
}

void set_ms(httplib::ClientImpl& c, int ms, bool read) {
  const time_t s = ms / 1000;
  const time_t us = (ms % 1000) * 1000;
  if (read) {
    c.set_read_timeout(s, us);
  } else {
    c.set_connection_timeout(s, us);
  }
}

}  // namespace

std::string Response::status_reason() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.value("kind", "") == "Status" && j.contains("reason") &&
      j["reason"].is_string())
    return j["reason"].get<std::string>();
  return "";
}

std::string Response::status_message() const {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string())
    return j["message"].get<std::string>();
  return "";
}

std::string Response::describe() const {
  if (status == 0) return "transport: " + error;
  std::string out = std::to_string(status);
  const std::string reason = status_reason();
  if (!reason.empty()) out += " " + reason;
  const std::string msg = status_message();
  if (!msg.empty()) {
    out += ": " + msg;
  } else if (!body.empty() && body.size() < 200 && reason.empty()) {
    out += ": " + body;
  }
  return out;
}

ApiClient::ApiClient(ClusterConfig config, ClientOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  // Fail early on unusable credentials: a bad PEM is a configuration error, not a retry.
  if (!config_.client_cert_pem.empty()) {
    X509* c = cert_from_pem(config_.client_cert_pem);
    EVP_PKEY* k = key_from_pem(config_.client_key_pem);
    const bool good = c && k;
    if (c) X509_free(c);
    if (k) EVP_PKEY_free(k);
    if (!good) throw InputError(config_.source + ": client certificate or key is not valid PEM");
  }
  if (!config_.ca_pem.empty()) {
    X509_STORE* s = store_from_pem(config_.ca_pem);
    if (!s) throw InputError(config_.source + ": certificate authority is not valid PEM");
    X509_STORE_free(s);
  }
}

ApiClient::~ApiClient() = default;

std::unique_ptr<httplib::ClientImpl> ApiClient::connect(int read_timeout_ms) const {
  std::unique_ptr<httplib::ClientImpl> c;
  if (config_.https) {
    std::unique_ptr<httplib::SSLClient> s;
    if (!config_.client_cert_pem.empty()) {
      X509* cert = cert_from_pem(config_.client_cert_pem);
      EVP_PKEY* key = key_from_pem(config_.client_key_pem);
      s = std::make_unique<httplib::SSLClient>(config_.host, config_.port, cert, key);
      X509_free(cert);  // SSL_CTX keeps its own references
      EVP_PKEY_free(key);
    } else {
      s = std::make_unique<httplib::SSLClient>(config_.host, config_.port);
    }
    if (!config_.ca_pem.empty()) s->set_ca_cert_store(store_from_pem(config_.ca_pem));
    s->enable_server_certificate_verification(!config_.insecure_skip_tls_verify);
    c = std::move(s);
  } else {
    c = std::make_unique<httplib::ClientImpl>(config_.host, config_.port);
  }
  const std::string token = current_token(config_);
  if (!token.empty()) {
    c->set_bearer_token_auth(token);
  } else if (!config_.username.empty() || !config_.password.empty()) {
    c->set_basic_auth(config_.username, config_.password);
  }
  c->set_keep_alive(true);
  c->set_tcp_nodelay(true);
  c->set_default_headers({{"User-Agent", options_.user_agent}, {"Accept", "application/json"}});
  set_ms(*c, options_.connect_timeout_ms, false);
  set_ms(*c, read_timeout_ms, true);
  c->set_write_timeout(options_.request_timeout_ms / 1000, 0);
  return c;
}

std::unique_ptr<httplib::ClientImpl> ApiClient::acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!pool_.empty()) {
      auto c = std::move(pool_.back());
      pool_.pop_back();
      return c;
    }
  }
  return connect(options_.request_timeout_ms);
}

void ApiClient::release(std::unique_ptr<httplib::ClientImpl> c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pool_.size() < 8 && !interrupted_) pool_.push_back(std::move(c));
}

Response ApiClient::request(ApiCall call, const char* method, const std::string& path,
                            const std::string* body, const std::string& content_type) {
  const bool gated = api_call_info(call).acts && action_gate_;
  Response out;
  if (interrupted_) {
    out.error = "interrupted";
    return out;
  }
  // Asked first before a connection is taken (a replica that may not act sends nothing at all),
  // then again as the body is written (below), which is the moment that counts.
  if (gated && !action_gate_()) {
    out.error = kNotTheLeader;
    return out;
  }
  auto c = acquire();
  bool refused = false;
  httplib::Result r = send(*c, method, config_.base_path + path, body, content_type,
                           gated && body && !body->empty() ? &refused : nullptr);
  if (refused) {
    out.error = kNotTheLeader;
    return out;  // the half-sent request's connection is dropped, not pooled
  }
  if (!r) {
    out.error = httplib::to_string(r.error());
    return out;  // the connection is dropped, not pooled
  }
  out.status = r->status;
  out.body = std::move(r->body);
  release(std::move(c));
  return out;
}

httplib::Result ApiClient::send(httplib::ClientImpl& c, const std::string& m,
                                const std::string& full, const std::string* body,
                                const std::string& type, bool* refused) const {
  if (m == "GET") return c.Get(full);
  if (m == "DELETE") return c.Delete(full);
  if (!refused) {
    if (m == "POST") return c.Post(full, *body, type);
    if (m == "PUT") return c.Put(full, *body, type);
    return c.Patch(full, *body, type);
  }
  // Called by httplib after the request line and headers are on the wire, right before the body.
  httplib::ContentProvider provider = [this, body, refused](size_t offset, size_t length,
                                                            httplib::DataSink& sink) {
    if (!action_gate_()) {
      *refused = true;
      return false;  // httplib abandons the request
    }
    return sink.write(body->data() + offset, length);
  };
  if (m == "POST") return c.Post(full, {}, body->size(), provider, type);
  if (m == "PUT") return c.Put(full, {}, body->size(), provider, type);
  return c.Patch(full, {}, body->size(), provider, type);
}

Response ApiClient::get(ApiCall call, const std::string& path) {
  return request(call, "GET", path, nullptr, "");
}
Response ApiClient::post(ApiCall call, const std::string& path, const std::string& body) {
  return request(call, "POST", path, &body, "application/json");
}
Response ApiClient::put(ApiCall call, const std::string& path, const std::string& body) {
  return request(call, "PUT", path, &body, "application/json");
}
Response ApiClient::patch(ApiCall call, const std::string& path, const std::string& body,
                          const std::string& content_type) {
  return request(call, "PATCH", path, &body, content_type);
}
Response ApiClient::del(ApiCall call, const std::string& path) {
  return request(call, "DELETE", path, nullptr, "");
}

Response ApiClient::stream(ApiCall call, const std::string& path,
                           const std::function<bool(std::string_view line)>& on_line) {
  (void)api_call_info(call);
  Response out;
  auto c = connect(options_.stream_idle_timeout_ms);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (interrupted_) {
      out.error = "interrupted";
      return out;
    }
    streams_.push_back(c.get());
  }
  LineSplitter lines;
  bool stopped_by_caller = false;
  auto r = c->Get(
      config_.base_path + path,
      [&](const httplib::Response& resp) {
        out.status = resp.status;
        return true;
      },
      [&](const char* data, size_t len) {
        if (out.status != 200) {  // an error status: keep its body
          out.body.append(data, len);
          return out.body.size() < (1u << 20);
        }
        if (!lines.feed(std::string_view(data, len), on_line)) {
          stopped_by_caller = true;
          return false;
        }
        return true;
      });
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase(streams_, c.get());
  }
  if (!r && !stopped_by_caller) {
    out.error = interrupted_ ? "interrupted" : httplib::to_string(r.error());
  }
  if (!lines.rest().empty() && !stopped_by_caller && out.status == 200) on_line(lines.rest());
  return out;
}

void ApiClient::interrupt() {
  std::lock_guard<std::mutex> lock(mu_);
  interrupted_ = true;
  for (httplib::ClientImpl* c : streams_) c->stop();
  pool_.clear();
}

}  // namespace orrery::k8s
