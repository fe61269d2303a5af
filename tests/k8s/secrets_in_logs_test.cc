// No secret reaches a log: the real `orrery serve` and `orrery snapshot` processes at debug
// level, against the fake API server, with a bearer token, basic-auth credentials and a client
// certificate's private key in the kubeconfig — accepted, refused (401) and malformed — and the
// whole of their output searched for the secret text.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <fstream>
#include <thread>

#include "k8s/fake_apiserver.h"
#include "k8s/k8s_test_util.h"
#include "k8s/process.h"
#include "k8s/test_pki.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

using testing::FakeApiServer;
using testing::FakeApiServerOptions;
using testing::Process;

const char* const kToken = "tok-7f3a9c1e5b2d4f60a8";
const char* const kWrongToken = "tok-wrong-0d9e8c7b6a5f";
const char* const kPassword = "pw-Zq81xWv3Lm";
const char* const kWrongPassword = "pw-wrong-Yt55Hh2k";

std::string base64(const std::string& s) {
  std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string kubeconfig(const std::string& url, const std::string& user_yaml) {
  return testing::kubeconfig_yaml(url, user_yaml);
}

class SecretsInLogs : public ::testing::Test {
 protected:
  // Runs `orrery serve` at debug level for a while (long enough to list, watch and bind, or to
  // be refused and retry), then SIGTERM; returns everything it printed.
  std::string serve_output(const std::string& kc) {
    Process p({ORRERY_BIN, "serve", "--kubeconfig", kc, "--log-level", "debug", "--metrics-listen",
               "127.0.0.1:0", "--backoff-initial-ms", "50", "--backoff-max-ms", "200"},
              dir.path("serve.log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    p.signal(SIGTERM);
    p.wait();
    return p.output();
  }
  std::string snapshot_output(const std::string& kc) {
    Process p({ORRERY_BIN, "snapshot", "--kubeconfig", kc, "--out", dir.path("snap.json")},
              dir.path("snap.log"));
    p.wait();
    return p.output();
  }
  void expect_absent(const std::string& out, const std::vector<std::string>& secrets) {
    for (const auto& s : secrets)
      EXPECT_EQ(out.find(s), std::string::npos) << "leaked " << s << ":\n" << out;
  }
  orrery::testing::ScratchDir dir{"k8s_secrets"};
};

TEST_F(SecretsInLogs, BearerTokenNeitherAcceptedNorRefused) {
  FakeApiServerOptions o;
  o.token = kToken;
  FakeApiServer server(o);
  server.add("nodes", testing::make_node("n1", "4", "8Gi"));
  server.add("pods", testing::make_pod("default", "p1", "1", "1Gi", "orrery"));
  const std::string good =
      dir.write("good.yaml", kubeconfig(server.url(), std::string("    token: ") + kToken + "\n"));
  const std::string out = serve_output(good);
  EXPECT_NE(out.find("bound pod"), std::string::npos) << out;  // it did talk to the server
  expect_absent(out, {kToken});
  const std::string bad = dir.write(
      "bad.yaml", kubeconfig(server.url(), std::string("    token: ") + kWrongToken + "\n"));
  const std::string refused = serve_output(bad);
  EXPECT_NE(refused.find("401"), std::string::npos) << refused;  // the refusal is logged...
  expect_absent(refused, {kWrongToken, kToken});                 // ...without the token
  const std::string snap = snapshot_output(bad);
  EXPECT_NE(snap.find("401"), std::string::npos) << snap;
  expect_absent(snap, {kWrongToken});
  // A token file that rotates is read, never printed.
  const std::string tf = dir.write("token", std::string(kWrongToken) + "\n");
  const std::string with_file =
      dir.write("file.yaml", kubeconfig(server.url(), "    tokenFile: " + tf + "\n"));
  expect_absent(serve_output(with_file), {kWrongToken});
}

TEST_F(SecretsInLogs, BasicAuthPasswordNeitherAcceptedNorRefused) {
  FakeApiServerOptions o;
  o.username = "admin";
  o.password = kPassword;
  FakeApiServer server(o);
  server.add("nodes", testing::make_node("n1", "4", "8Gi"));
  const std::string good = dir.write(
      "good.yaml", kubeconfig(server.url(), std::string("    username: admin\n    password: ") +
                                                kPassword + "\n"));
  expect_absent(serve_output(good), {kPassword});
  const std::string bad = dir.write(
      "bad.yaml", kubeconfig(server.url(), std::string("    username: admin\n    password: ") +
                                               kWrongPassword + "\n"));
  const std::string refused = serve_output(bad);
  EXPECT_NE(refused.find("401"), std::string::npos) << refused;
  expect_absent(refused,
                {kWrongPassword, kPassword, base64(std::string("admin:") + kWrongPassword)});
}

TEST_F(SecretsInLogs, ClientKeyOfAKubeconfigNeverPrinted) {
  const auto ca = testing::make_ca("ca");
  const auto cli = testing::make_cert(ca, "user", {}, {}, true);
  const auto other = testing::make_cert(ca, "other", {}, {}, true);
  // The key's PEM body (a line of it) and its base64 as it sits in the kubeconfig.
  const std::string key_line = cli.key_pem.substr(cli.key_pem.find('\n') + 1, 40);
  const std::string key_b64 = base64(cli.key_pem);
  // Mismatched certificate and key, against a server that is not there: errors only.
  const std::string url = "https://127.0.0.1:" + std::to_string(testing::free_port());
  const std::string kc = dir.write(
      "kc.yaml", kubeconfig(url, "    client-certificate-data: " + base64(other.cert_pem) +
                                     "\n    client-key-data: " + key_b64 + "\n"));
  const std::string served = serve_output(kc);
  EXPECT_NE(served.find("error"), std::string::npos) << served;  // it failed, and said so
  expect_absent(served, {key_line, key_b64.substr(40, 40), "PRIVATE KEY-----"});
  expect_absent(snapshot_output(kc), {key_line, key_b64.substr(40, 40), "PRIVATE KEY-----"});
  // A malformed key (valid base64 of garbage that embeds a marker) is an error naming the field.
  const std::string marker = "secret-marker-4c2f";
  const std::string bad =
      dir.write("bad.yaml", kubeconfig(url, "    client-certificate-data: " + base64(cli.cert_pem) +
                                                "\n    client-key-data: " +
                                                base64("-----BEGIN PRIVATE KEY-----\n" + marker +
                                                       "\n-----END PRIVATE KEY-----\n") +
                                                "\n"));
  const std::string out = snapshot_output(bad);
  EXPECT_NE(out.find("client certificate or key is not valid PEM"), std::string::npos) << out;
  expect_absent(out, {marker});
}

}  // namespace
}  // namespace orrery::k8s
