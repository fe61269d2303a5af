// `orrery serve --extender` hardened, by real requests to the real process: HTTPS with a CA
// generated at test time (fails without the CA), mutual TLS (a client without a certificate is
// refused), the body limit (413) and the read/idle timeouts (a stalled or silent connection is
// closed), plaintext refused on a non-loopback address without --insecure, and bad TLS files
// failing at start with exit 1 and a message that names the file but never quotes the key.
#include <gtest/gtest.h>
#include <httplib.h>

#include <csignal>
#include <nlohmann/json.hpp>

#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/process.h"
#include "k8s/test_pki.h"
#include "net/socket_probe.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

using nlohmann::json;

class ExtenderSecurity : public ::testing::Test, protected testing::TlsMaterial {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);  // a refused TLS client writes into a closed socket
    json items = json::array();
    items.push_back(testing::make_node("small", "1", "8Gi"));
    items.push_back(testing::make_node("big", "8", "8Gi"));
    snap = dir.write("snap.json",
                     json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
    static_cast<testing::TlsMaterial&>(*this) =
        testing::write_tls_files(dir, "orrery-extender", "kube-scheduler");
    body = json{{"Pod", testing::make_pod("default", "web", "2", "1Gi", "default-scheduler")},
                {"Nodes", {{"items", items}}}}
               .dump();
  }
  void TearDown() override {
    if (proc) {
      proc->signal(SIGTERM);
      EXPECT_EQ(proc->wait(), 0) << proc->output();
    }
  }
  // Starts the extender with `extra` flags and waits until /healthz answers over `probe`.
  void start(const std::vector<std::string>& extra, const std::function<bool()>& probe = nullptr) {
    port = testing::free_port();
    std::vector<std::string> args{
        ORRERY_BIN,  "serve", "--extender", "--listen", "127.0.0.1:" + std::to_string(port),
        "--cluster", snap};
    args.insert(args.end(), extra.begin(), extra.end());
    proc = std::make_unique<testing::Process>(args, dir.path("ext.log"));
    ASSERT_TRUE(testing::wait_for(probe ? probe : [&] {
      httplib::Client c("127.0.0.1", port);
      auto r = c.Get("/healthz");
      return r && r->status == 200;
    })) << proc->output();
  }
  // Runs the extender with `args` to completion; returns (exit code, output).
  std::pair<int, std::string> run(const std::vector<std::string>& extra) {
    std::vector<std::string> args{ORRERY_BIN, "serve", "--extender", "--cluster", snap};
    args.insert(args.end(), extra.begin(), extra.end());
    testing::Process p(args, dir.path("run.log"));
    const int code = p.wait();
    return {code, p.output()};
  }
  std::unique_ptr<httplib::SSLClient> tls_client(bool with_ca, bool with_cert) {
    auto c = with_cert
                 ? std::make_unique<httplib::SSLClient>("127.0.0.1", port, client_cert, client_key)
                 : std::make_unique<httplib::SSLClient>("127.0.0.1", port);
    if (with_ca) c->set_ca_cert_path(ca_file.c_str());
    c->enable_server_certificate_verification(true);
    return c;
  }

  orrery::testing::ScratchDir dir{"k8s_server_security"};
  std::string snap, body;
  int port = 0;
  std::unique_ptr<testing::Process> proc;
};

TEST_F(ExtenderSecurity, HttpsFilterSucceedsWithTheCaAndFailsWithoutIt) {
  start({"--tls-cert-file", cert, "--tls-private-key-file", key}, [&] {
    auto r = tls_client(true, false)->Get("/healthz");
    return r && r->status == 200;
  });
  auto r = tls_client(true, false)->Post("/filter", body, "application/json");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["Nodes"]["items"].size(), 1u) << r->body;  // "big" only
  EXPECT_FALSE(tls_client(false, false)->Post("/filter", body, "application/json"))
      << "a client without the CA trusted the server";
  httplib::Client plain("127.0.0.1", port);
  auto p = plain.Post("/filter", body, "application/json");
  EXPECT_TRUE(!p || p->status != 200) << "plain HTTP was served on the TLS port";
  EXPECT_NE(proc->output().find("tls=on"), std::string::npos) << proc->output();
}

TEST_F(ExtenderSecurity, MutualTlsRejectsAClientWithoutACertificate) {
  start({"--tls-cert-file", cert, "--tls-private-key-file", key, "--client-ca-file", ca_file}, [&] {
    auto r = tls_client(true, true)->Get("/healthz");
    return r && r->status == 200;
  });
  EXPECT_FALSE(tls_client(true, false)->Post("/filter", body, "application/json"));
  auto r = tls_client(true, true)->Post("/filter", body, "application/json");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(proc->output().find("tls=mutual"), std::string::npos);
}

TEST_F(ExtenderSecurity, OversizedBodyIs413AndStalledOrSilentConnectionsAreClosed) {
  start({"--max-request-bytes", "4096", "--request-timeout", "1", "--idle-timeout", "1"});
  httplib::Client c("127.0.0.1", port);
  auto big = c.Post("/filter", body + std::string(8192, ' '), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto ok = c.Post("/filter", body, "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  orrery::testing::RawConnection silent(port), stalled(port);
  ASSERT_TRUE(silent.connected() && stalled.connected());
  ASSERT_TRUE(
      stalled.send_text("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"Po"));
  EXPECT_TRUE(silent.closed_by_server_within(15000));
  EXPECT_TRUE(stalled.closed_by_server_within(15000));
}

TEST_F(ExtenderSecurity, PlaintextOffLoopbackNeedsInsecureAndBadTlsFilesExitOne) {
  auto [code, out] = run({"--listen", "0.0.0.0:0"});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("--listen: refusing plaintext extender on 0.0.0.0"), std::string::npos) << out;
  EXPECT_NE(out.find("--insecure"), std::string::npos) << out;
  std::tie(code, out) = run(
      {"--listen", "127.0.0.1:0", "--tls-cert-file", cert, "--tls-private-key-file", other_key});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("does not match the certificate " + cert), std::string::npos) << out;
  std::tie(code, out) = run({"--listen", "127.0.0.1:0", "--tls-cert-file", cert});
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find("--tls-cert-file and --tls-private-key-file go together"), std::string::npos)
      << out;
  std::tie(code, out) =
      run({"--listen", "127.0.0.1:0", "--tls-cert-file", key, "--tls-private-key-file", cert});
  EXPECT_EQ(code, 1);
  // No run prints key material, whatever went wrong.
  const std::string key_body = key_pem.substr(key_pem.find('\n') + 1, 40);
  EXPECT_EQ(out.find(key_body), std::string::npos) << out;
  EXPECT_EQ(out.find("PRIVATE KEY-----"), std::string::npos) << out;
}

// `orrery serve`'s /healthz, /readyz and /metrics endpoint: GET only, small bodies (413 beyond
// 64 KiB), a silent connection closed after the 5 s idle timeout.
TEST(ServeMetricsLimits, OversizedBodyIs413AndASilentConnectionIsClosed) {
  std::signal(SIGPIPE, SIG_IGN);
  orrery::testing::ScratchDir dir("k8s_metrics_limits");
  testing::FakeApiServer server;
  const std::string kc =
      dir.write("kc.yaml",
                "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n"
                "  cluster:\n    server: " +
                    server.url() +
                    "\ncontexts:\n- name: fake\n  context: {cluster: fake, user: u}\n"
                    "users:\n- name: u\n  user: {}\n");
  const int port = testing::free_port();
  testing::Process serve({ORRERY_BIN, "serve", "--kubeconfig", kc, "--metrics-listen",
                          "127.0.0.1:" + std::to_string(port)},
                         dir.path("serve.log"));
  ASSERT_TRUE(testing::wait_for([&] {
    httplib::Client c("127.0.0.1", port);
    auto r = c.Get("/healthz");
    return r && r->status == 200;
  })) << serve.output();
  httplib::Client c("127.0.0.1", port);
  auto big = c.Post("/metrics", std::string(100 * 1024, 'x'), "text/plain");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto ok = c.Get("/metrics");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  orrery::testing::RawConnection silent(port);
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(silent.closed_by_server_within(20000));
  serve.signal(SIGTERM);
  EXPECT_EQ(serve.wait(), 0) << serve.output();
}

}  // namespace
}  // namespace orrery::k8s
