// ApiClient over TLS with a CA generated at test time: verification on by default, a wrong CA
// refused, insecure-skip-tls-verify, bearer tokens, basic auth and client certificates; kubectl
// as an independent client of the fake server's wire format.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "k8s/client.h"
#include "k8s/fake_apiserver.h"
#include "k8s/test_pki.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

using testing::FakeApiServer;
using testing::FakeApiServerOptions;

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ca = new testing::KeyPair(testing::make_ca("orrery test CA"));
    server_cert = new testing::KeyPair(
        testing::make_cert(*ca, "fake-apiserver", {"localhost"}, {"127.0.0.1"}, false));
  }
  ClusterConfig config(const FakeApiServer& s) {
    ClusterConfig c;
    parse_server_url(s.url(), "test", &c);
    return c;
  }
  static testing::KeyPair* ca;
  static testing::KeyPair* server_cert;
};
testing::KeyPair* TlsTest::ca = nullptr;
testing::KeyPair* TlsTest::server_cert = nullptr;

TEST_F(TlsTest, VerifiesTheServerWithTheConfiguredCaAndSendsTheToken) {
  FakeApiServerOptions o;
  o.cert_pem = server_cert->cert_pem;
  o.key_pem = server_cert->key_pem;
  o.token = "tok";
  FakeApiServer s(o);
  s.add("nodes", testing::make_node("n1"));
  ClusterConfig c = config(s);
  c.ca_pem = ca->cert_pem;
  c.token = "tok";
  Response r = ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes");
  ASSERT_EQ(r.status, 200) << r.describe();
  EXPECT_EQ(nlohmann::json::parse(r.body)["items"].size(), 1u);
  c.token = "wrong";
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 401);
}

TEST_F(TlsTest, AnUnknownCaIsRefusedUnlessVerificationIsSkipped) {
  FakeApiServerOptions o;
  o.cert_pem = server_cert->cert_pem;
  o.key_pem = server_cert->key_pem;
  FakeApiServer s(o);
  ClusterConfig c = config(s);
  c.ca_pem = testing::make_ca("another CA").cert_pem;
  Response r = ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes");
  EXPECT_EQ(r.status, 0) << "TLS verification is on by default";
  c.ca_pem.clear();
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 0) << "system store";
  c.insecure_skip_tls_verify = true;
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 200);
}

TEST_F(TlsTest, ClientCertificatesAuthenticate) {
  FakeApiServerOptions o;
  o.cert_pem = server_cert->cert_pem;
  o.key_pem = server_cert->key_pem;
  o.client_ca_pem = ca->cert_pem;
  FakeApiServer s(o);
  ClusterConfig c = config(s);
  c.ca_pem = ca->cert_pem;
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 0) << "no client cert";
  testing::KeyPair client = testing::make_cert(*ca, "orrery", {}, {}, true);
  c.client_cert_pem = client.cert_pem;
  c.client_key_pem = client.key_pem;
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 200);
}

TEST(Client, BasicAuth) {
  FakeApiServerOptions o;
  o.username = "admin";
  o.password = "pw";
  FakeApiServer s(o);
  ClusterConfig c;
  parse_server_url(s.url(), "test", &c);
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 401);
  c.username = "admin";
  c.password = "pw";
  EXPECT_EQ(ApiClient(c).get(ApiCall::kListNodes, "/api/v1/nodes").status, 200);
}

// Leader election's last line of defence (client.h, set_action_gate): an acting request leaves
// only while the gate holds, asked before a connection is taken and again as the body is written;
// reads and the election's own Lease calls never ask it.
TEST(ClientActionGate, ActingRequestsAreSentOnlyWhileTheGateHolds) {
  FakeApiServer s;
  s.add("nodes", testing::make_node("n1"));
  for (const char* p : {"p1", "p2", "p3"})
    s.add("pods", testing::make_pod("default", p, "100m", "64Mi"));
  ClusterConfig c;
  parse_server_url(s.url(), "test", &c);
  ApiClient client(c);
  std::atomic<bool> may_act{true};
  std::atomic<int> asked{0};
  client.set_action_gate([&] {
    ++asked;
    return may_act.load();
  });
  auto bind = [&](const std::string& pod) {
    const std::string body = nlohmann::json{{"apiVersion", "v1"},
                                            {"kind", "Binding"},
                                            {"metadata", {{"name", pod}, {"namespace", "default"}}},
                                            {"target", {{"kind", "Node"}, {"name", "n1"}}}}
                                 .dump();
    return client.post(ApiCall::kBindPod, "/api/v1/namespaces/default/pods/" + pod + "/binding",
                       body);
  };
  Response ok = bind("p1");
  EXPECT_EQ(ok.status, 201) << ok.describe();
  EXPECT_EQ(asked.load(), 2) << "asked before connecting and as the body is written";

  may_act = false;
  Response refused = bind("p2");
  EXPECT_EQ(refused.status, 0);
  EXPECT_EQ(refused.error, kNotTheLeader);
  // Reads and the Lease are not acting calls.
  const int before = asked.load();
  EXPECT_EQ(client.get(ApiCall::kListPods, "/api/v1/pods").status, 200);
  const std::string lease =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l",)"
      R"("namespace":"kube-system"},"spec":{"holderIdentity":"x"}})";
  EXPECT_EQ(client
                .post(ApiCall::kCreateLease,
                      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", lease)
                .status,
            201);
  EXPECT_EQ(asked.load(), before);

  // Decided while leading, paused, resumed past the renew deadline: the gate holds when the
  // request starts and no longer when its body is due. The request is abandoned mid-way and the
  // server acts on nothing.
  asked = 0;
  client.set_action_gate([&] { return asked++ == 0; });
  Response abandoned = bind("p3");
  EXPECT_EQ(abandoned.error, kNotTheLeader);
  EXPECT_EQ(asked.load(), 2);
  int binds_ok = 0;
  for (const auto& b : s.binds()) binds_ok += b.status == 201;
  EXPECT_EQ(binds_ok, 1) << "only p1 was bound";
  EXPECT_EQ(s.binds().size(), 1u) << "the server never saw a whole Binding for p2 or p3";
  EXPECT_TRUE(s.get("pods", "default/p3")->at("spec").value("nodeName", "").empty());
  for (const auto& r : s.responses())
    if (r.path.find("/p3/binding") != std::string::npos) EXPECT_FALSE(r.complete);
  // The client still works after an abandoned request (its connection was dropped, not pooled).
  client.set_action_gate([] { return true; });
  EXPECT_EQ(bind("p3").status, 201);
}

TEST(Kubectl, ReadsTheFakeServersListsAsAnIndependentClient) {
  FakeApiServer s;
  s.add("nodes", testing::make_node("n1"));
  s.add("pods", testing::make_pod("default", "web", "100m", "64Mi"));
  orrery::testing::ScratchDir dir("kubectl");
  const std::string kc = dir.write(
      "kc",
      "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: "
      "{cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: '" +
          s.url() + "'}\nusers:\n- name: u\n  user: {token: x}\n");
  const std::string cmd = "/usr/bin/kubectl --kubeconfig " + kc +
                          " get nodes,pods -A -o json --request-timeout=10s 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  ASSERT_EQ(j["items"].size(), 2u) << out;
  EXPECT_EQ(j["items"][0]["kind"], "Node");
  EXPECT_EQ(j["items"][1]["metadata"]["name"], "web");
}

}  // namespace
}  // namespace orrery::k8s
