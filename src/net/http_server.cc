#include "net/http_server.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <csignal>

#include "core/error.h"
#include "net/transport_security.h"

namespace orrery::net {

BoundedPool::BoundedPool(size_t threads, size_t max_queued)
    : max_queued_(std::max<size_t>(1, max_queued)) {
  for (size_t i = 0; i < std::max<size_t>(1, threads); ++i)
    threads_.emplace_back([this] { work(); });
}

BoundedPool::~BoundedPool() {
  shutdown();
}

void BoundedPool::enqueue(std::function<void()> fn) {
  std::unique_lock<std::mutex> lock(mu_);
  has_room_.wait(lock, [&] { return stop_ || queue_.size() < max_queued_; });
  if (stop_) {
    lock.unlock();
    fn();  // still run it: the task owns a socket it must close
    return;
  }
  queue_.push_back(std::move(fn));
  has_work_.notify_one();
}

void BoundedPool::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ && threads_.empty()) return;
    stop_ = true;
  }
  has_work_.notify_all();
  has_room_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

size_t BoundedPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void BoundedPool::work() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      has_work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
      has_room_.notify_one();
    }
    fn();
  }
}

void apply_limits(httplib::Server& server, const HttpLimits& l) {
  server.set_payload_max_length(l.max_body_bytes);
  server.set_read_timeout(l.read_timeout_s, 0);
  server.set_write_timeout(l.write_timeout_s, 0);
  server.set_keep_alive_timeout(l.idle_timeout_s);
  server.set_keep_alive_max_count(static_cast<size_t>(std::max(1, l.keep_alive_max)));
  const size_t threads = static_cast<size_t>(std::max(1, l.threads));
  const size_t queued = static_cast<size_t>(std::max(1, l.max_queued));
  server.new_task_queue = [threads, queued] { return new BoundedPool(threads, queued); };
}

namespace {

std::string openssl_errors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

}  // namespace

std::unique_ptr<httplib::Server> make_http_server(const ServerTls& tls, const HttpLimits& limits,
                                                  const std::array<std::string, 3>& flags) {
  // OpenSSL writes with write(2): a client that hangs up mid-reply would raise SIGPIPE and kill
  // the whole server. A process that serves ignores it (the write then fails with EPIPE).
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<httplib::Server> server;
  if (!tls.enabled()) {
    server = std::make_unique<httplib::Server>();
  } else {
    if (tls.key_file.empty()) throw InputError(flags[0] + " needs " + flags[1]);
    // Readable PEM first: clear messages naming the flag and file.
    validate_key_pair(tls.cert_file, tls.key_file, flags[0], flags[1]);
    if (!tls.client_ca_file.empty()) read_pem_file(tls.client_ca_file, flags[2]);
    std::string error;
    ERR_clear_error();
    auto ssl = std::make_unique<httplib::SSLServer>([&](SSL_CTX& ctx) {
      SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
      SSL_CTX_set_options(
          &ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
      if (SSL_CTX_use_certificate_chain_file(&ctx, tls.cert_file.c_str()) != 1) {
        error =
            flags[0] + ": cannot load the certificate " + tls.cert_file + ": " + openssl_errors();
        return false;
      }
      if (SSL_CTX_use_PrivateKey_file(&ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
        error =
            flags[1] + ": cannot load the private key " + tls.key_file + ": " + openssl_errors();
        return false;
      }
      if (SSL_CTX_check_private_key(&ctx) != 1) {
        error = flags[1] + ": the private key " + tls.key_file +
                " does not match the certificate " + tls.cert_file;
        ERR_clear_error();
        return false;
      }
      if (!tls.client_ca_file.empty()) {
        if (SSL_CTX_load_verify_locations(&ctx, tls.client_ca_file.c_str(), nullptr) != 1) {
          error = flags[2] + ": cannot load " + tls.client_ca_file + ": " + openssl_errors();
          return false;
        }
        SSL_CTX_set_client_CA_list(&ctx, SSL_load_client_CA_file(tls.client_ca_file.c_str()));
        SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      }
      return true;
    });
    if (!ssl->is_valid())
      throw InputError(error.empty() ? "TLS setup failed: " + openssl_errors() : error);
    server = std::move(ssl);
  }
  apply_limits(*server, limits);
  return server;
}

}  // namespace orrery::net
