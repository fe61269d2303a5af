// Kubeconfig parsing (contexts, credentials, CA, http/https) and its errors; in-cluster config.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.h"
#include "k8s/kubeconfig.h"
#include "scratch_dir.h"

namespace orrery::k8s {
namespace {

const char* kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: a
clusters:
- name: ca
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: aGVsbG8=
- name: cb
  cluster:
    server: http://127.0.0.1:8080/prefix/
    insecure-skip-tls-verify: false
contexts:
- name: a
  context: {cluster: ca, user: ua}
- name: b
  context: {cluster: cb, user: ub}
users:
- name: ua
  user:
    token: abc
    someFutureField: ignored
- name: ub
  user:
    username: admin
    password: pw
)";

TEST(Kubeconfig, CurrentContextAndNamedContext) {
  ClusterConfig a = parse_kubeconfig(kTwoContexts, "kc.yaml");
  EXPECT_TRUE(a.https);
  EXPECT_EQ(a.host, "10.0.0.1");
  EXPECT_EQ(a.port, 6443);
  EXPECT_EQ(a.ca_pem, "hello");
  EXPECT_EQ(a.token, "abc");
  EXPECT_FALSE(a.insecure_skip_tls_verify);
  ClusterConfig b = parse_kubeconfig(kTwoContexts, "kc.yaml", "b");
  EXPECT_FALSE(b.https);
  EXPECT_EQ(b.port, 8080);
  EXPECT_EQ(b.base_path, "/prefix");
  EXPECT_EQ(b.username, "admin");
  EXPECT_EQ(b.password, "pw");
}

TEST(Kubeconfig, FilesAreResolvedNextToTheKubeconfigAndTokenFilesReread) {
  orrery::testing::ScratchDir dir("kubeconfig");
  dir.write("tok", "t1\n");
  dir.write("ca.crt", "CA");
  const std::string kc = dir.write(
      "kc.yaml",
      "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n"
      "- name: k\n  cluster: {server: 'https://h', certificate-authority: ca.crt}\nusers:\n- name: u\n"
      "  user: {tokenFile: tok}\n");
  ClusterConfig c = load_kubeconfig(kc);
  EXPECT_EQ(c.ca_pem, "CA");
  EXPECT_EQ(c.port, 443);
  EXPECT_EQ(current_token(c), "t1");
  dir.write("tok", "t2");
  EXPECT_EQ(current_token(c), "t2") << "rotated tokens are picked up";
}

void expect_error(const std::string& text, const std::string& context, const std::string& want) {
  try {
    parse_kubeconfig(text, "kc.yaml", context);
    ADD_FAILURE() << "no error; wanted " << want;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what() << " / wanted: " << want;
  }
}

TEST(Kubeconfig, ErrorsNameTheFileAndField) {
  expect_error(kTwoContexts, "zzz", "kc.yaml");
  expect_error(kTwoContexts, "zzz", "no context named \"zzz\"");
  expect_error("current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n"
               "- name: k\n  cluster: {server: 'https://h', certificate-authority-data: '!!!'}\n",
               "", "kc.yaml:7: clusters[0].cluster.certificate-authority-data: expected base64");
  expect_error("current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n"
               "clusters:\n- name: k\n  cluster: {server: 'https://h'}\nusers:\n- name: u\n"
               "  user: {client-certificate-data: aGVsbG8=}\n",
               "", "users[0].user: a client certificate needs a client key");
  expect_error("clusters: []\n", "", "current-context");
  expect_error("current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n"
               "- name: k\n  cluster: {server: 'https://h:99999'}\n",
               "", "bad port");
}

TEST(Kubeconfig, InClusterReadsTheServiceAccount) {
  orrery::testing::ScratchDir dir("incluster");
  dir.write("token", "sa-token\n");
  dir.write("ca.crt", "PEM");
  setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  ClusterConfig c = in_cluster_config(dir.root().string());
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(current_token(c), "sa-token");
  EXPECT_EQ(c.ca_pem, "PEM");
  unsetenv("KUBERNETES_SERVICE_HOST");
  EXPECT_THROW(in_cluster_config(dir.root().string()), InputError);
}

}  // namespace
}  // namespace orrery::k8s
