// net/http_server.h and net/transport_security.h with real sockets: the bounded connection
// queue, the body limit (413), the read and idle timeouts (a stalled or silent connection is
// closed), HTTPS with a CA generated at test time, mutual TLS, clear errors for bad TLS files
// that never quote a key, and the plaintext rule.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <future>
#include <thread>

#include "core/error.h"
#include "k8s/test_pki.h"
#include "net/http_server.h"
#include "net/socket_probe.h"
#include "net/transport_security.h"
#include "obs/log.h"
#include "scratch_dir.h"

namespace orrery::net {
namespace {

using orrery::testing::RawConnection;
using orrery::testing::ScratchDir;
namespace pki = orrery::k8s::testing;

// A server on an ephemeral loopback port, stopped on destruction.
struct Running {
  std::unique_ptr<httplib::Server> server;
  int port = 0;
  std::thread thread;
  explicit Running(std::unique_ptr<httplib::Server> s) : server(std::move(s)) {
    server->Get("/ok", [](const httplib::Request&, httplib::Response& r) {
      r.set_content("ok", "text/plain");
    });
    server->Post("/echo", [](const httplib::Request& q, httplib::Response& r) {
      r.set_content(std::to_string(q.body.size()), "text/plain");
    });
    port = server->bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server->listen_after_bind(); });
    // bind_to_any_port already listens: connections wait in the backlog until accept runs.
  }
  ~Running() {
    server->stop();
    thread.join();
  }
};

TEST(BoundedPool, EnqueueBlocksWhileTheQueueIsFullAndEveryTaskRuns) {
  BoundedPool pool(1, 1);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> ran{0};
  std::promise<void> first_started;
  pool.enqueue([&] {
    first_started.set_value();
    gate.wait();
    ++ran;
  });
  first_started.get_future().wait();  // the only thread is busy
  pool.enqueue([&] { ++ran; });       // queued (1 of 1)
  std::atomic<bool> third_enqueued{false};
  std::thread t([&] {
    pool.enqueue([&] { ++ran; });  // must wait for room
    third_enqueued = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(third_enqueued.load()) << "the queue bound was not enforced";
  EXPECT_EQ(pool.queued(), 1u);
  release.set_value();
  t.join();
  EXPECT_TRUE(third_enqueued.load());
  pool.shutdown();  // drains what is queued
  EXPECT_EQ(ran.load(), 3);
}

TEST(HttpLimits, OversizedBodyIs413AndSmallOnesAreServed) {
  HttpLimits l;
  l.max_body_bytes = 4096;
  Running s(make_http_server({}, l));
  httplib::Client c("127.0.0.1", s.port);
  auto small = c.Post("/echo", std::string(1000, 'x'), "text/plain");
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 200);
  EXPECT_EQ(small->body, "1000");
  auto big = c.Post("/echo", std::string(10000, 'x'), "text/plain");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  // Unrouted paths are refused the same way: the limit applies before routing.
  auto other = c.Post("/nowhere", std::string(10000, 'x'), "text/plain");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 413);
}

TEST(HttpLimits, StalledAndSilentConnectionsAreClosed) {
  HttpLimits l;
  l.read_timeout_s = 1;
  l.idle_timeout_s = 1;
  l.threads = 2;
  Running s(make_http_server({}, l));
  RawConnection silent(s.port);
  RawConnection stalled(s.port);
  ASSERT_TRUE(silent.connected() && stalled.connected());
  ASSERT_TRUE(stalled.send_text("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Le"));
  // Generous bounds (the timeouts are 1 s): only "never closed" fails.
  EXPECT_TRUE(silent.closed_by_server_within(15000));
  EXPECT_TRUE(stalled.closed_by_server_within(15000));
  // Both threads are free again: a normal request is served.
  httplib::Client c("127.0.0.1", s.port);
  auto r = c.Get("/ok");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(HttpLimits, MoreClientsThanThreadsAreAllServedInTurn) {
  HttpLimits l;
  l.threads = 2;
  l.max_queued = 2;
  l.idle_timeout_s = 1;
  Running s(make_http_server({}, l));
  std::vector<std::future<int>> results;
  for (int i = 0; i < 12; ++i)
    results.push_back(std::async(std::launch::async, [&] {
      httplib::Client c("127.0.0.1", s.port);
      c.set_read_timeout(30, 0);
      auto r = c.Get("/ok");
      return r ? r->status : -1;
    }));
  for (auto& f : results) EXPECT_EQ(f.get(), 200);
}

class TlsFiles : public ::testing::Test, protected pki::TlsMaterial {
 protected:
  void SetUp() override {
    static_cast<pki::TlsMaterial&>(*this) = pki::write_tls_files(dir, "localhost", "agent");
  }
  ScratchDir dir{"net-tls"};
};

TEST_F(TlsFiles, HttpsWithTheCaSucceedsAndWithoutItFails) {
  Running s(make_http_server({cert, key, ""}, HttpLimits{}));
  httplib::SSLClient good("127.0.0.1", s.port);
  good.set_ca_cert_path(ca_file.c_str());
  good.enable_server_certificate_verification(true);
  auto r = good.Get("/ok");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  httplib::SSLClient unknown_ca("127.0.0.1", s.port);
  unknown_ca.enable_server_certificate_verification(true);  // the system CAs only
  EXPECT_FALSE(unknown_ca.Get("/ok"));
  httplib::Client plain("127.0.0.1", s.port);
  auto p = plain.Get("/ok");
  EXPECT_TRUE(!p || p->status != 200);
}

TEST_F(TlsFiles, MutualTlsRejectsAClientWithoutACertificate) {
  Running s(make_http_server({cert, key, ca_file}, HttpLimits{}));
  httplib::SSLClient anonymous("127.0.0.1", s.port);
  anonymous.set_ca_cert_path(ca_file.c_str());
  EXPECT_FALSE(anonymous.Get("/ok"));
  httplib::SSLClient with_cert("127.0.0.1", s.port, client_cert, client_key);
  with_cert.set_ca_cert_path(ca_file.c_str());
  auto r = with_cert.Get("/ok");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
}

TEST_F(TlsFiles, BadFilesAreClearErrorsThatNeverQuoteTheKey) {
  auto message = [&](const ServerTls& t) -> std::string {
    try {
      make_http_server(t, HttpLimits{});
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  const std::string mismatch = message({cert, other_key, ""});
  EXPECT_NE(mismatch.find("--tls-private-key-file"), std::string::npos) << mismatch;
  EXPECT_NE(mismatch.find("does not match"), std::string::npos) << mismatch;
  const std::string missing = message({dir.path("nope.crt"), key, ""});
  EXPECT_NE(missing.find("--tls-cert-file: cannot read " + dir.path("nope.crt")), std::string::npos)
      << missing;
  const std::string not_pem = message({cert, dir.write("junk.key", "not a key"), ""});
  EXPECT_NE(not_pem.find("not a PEM file"), std::string::npos) << not_pem;
  // The key's base64 body never appears in any message.
  const std::string body = other_key_pem.substr(other_key_pem.find('\n') + 1, 40);
  for (const std::string& m : {mismatch, missing, not_pem})
    EXPECT_EQ(m.find(body), std::string::npos);
  try {
    validate_key_pair(cert, other_key, "--cert-file", "--key-file");
    FAIL() << "a mismatched pair was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--key-file: the private key " + other_key),
              std::string::npos);
    EXPECT_EQ(std::string(e.what()).find(body), std::string::npos);
  }
}

TEST(TransportSecurity, PlaintextOnlyOnLoopbackOrWithInsecure) {
  for (const char* h : {"127.0.0.1", "127.3.4.5", "::1", "[::1]", "localhost"})
    EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"0.0.0.0", "", "10.0.0.1", "::", "example.com", "128.0.0.1"})
    EXPECT_FALSE(is_loopback_host(h)) << h;
  std::vector<std::string> lines;
  obs::set_log_sink([&](const std::string& l) { lines.push_back(l); });
  EXPECT_NO_THROW(check_server_plaintext("extender", "--listen", "127.0.0.1", false, false));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("level=warn"), std::string::npos) << lines[0];
  try {
    check_server_plaintext("extender", "--listen", "0.0.0.0", false, false);
    FAIL() << "plaintext on 0.0.0.0 was allowed without --insecure";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--listen: refusing plaintext extender on 0.0.0.0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_server_plaintext("extender", "--listen", "0.0.0.0", false, true));
  EXPECT_NO_THROW(check_server_plaintext("extender", "--listen", "0.0.0.0", true, false));
  EXPECT_THROW(check_client_plaintext("agent", "--aggregator", "carico.svc", false, false),
               InputError);
  obs::set_log_sink(nullptr);
}

}  // namespace
}  // namespace orrery::net
