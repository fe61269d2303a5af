// deploy/: the manifests parse, use known apiVersions and kinds, and the RBAC rules grant every
// API call the client makes (k8s::all_api_calls) and nothing else; the Deployment runs two
// replicas with leader election, non-root, read-only root filesystem.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "k8s/api_calls.h"

namespace orrery::k8s {
namespace {

std::vector<YAML::Node> load(const std::string& file) {
  return YAML::LoadAllFromFile(std::string(ORRERY_SOURCE_DIR) + "/deploy/" + file);
}

const std::map<std::string, std::set<std::string>> kKnown = {
    {"v1", {"ServiceAccount", "ConfigMap", "Pod"}},
    {"apps/v1", {"Deployment"}},
    {"rbac.authorization.k8s.io/v1", {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}},
};

TEST(Manifests, ParseWithKnownApiVersionsAndKinds) {
  for (const char* f : {"rbac.yaml", "deployment.yaml", "example-pods.yaml"}) {
    auto docs = load(f);
    ASSERT_FALSE(docs.empty()) << f;
    for (const auto& d : docs) {
      const std::string av = d["apiVersion"].as<std::string>(), kind = d["kind"].as<std::string>();
      ASSERT_TRUE(kKnown.count(av)) << f << ": apiVersion " << av;
      EXPECT_TRUE(kKnown.at(av).count(kind)) << f << ": kind " << kind << " in " << av;
      EXPECT_TRUE(d["metadata"]["name"].IsDefined()) << f;
    }
  }
}

TEST(Manifests, RbacGrantsExactlyTheClientsApiCalls) {
  using Grant = std::tuple<std::string, std::string, std::string>;  // group, resource, verb
  std::set<Grant> granted;
  for (const auto& d : load("rbac.yaml")) {
    const std::string kind = d["kind"].as<std::string>();
    if (kind != "ClusterRole" && kind != "Role") continue;
    for (const auto& rule : d["rules"])
      for (const auto& g : rule["apiGroups"])
        for (const auto& r : rule["resources"])
          for (const auto& v : rule["verbs"]) {
            EXPECT_NE(v.as<std::string>(), "*") << "no wildcard verbs";
            EXPECT_NE(r.as<std::string>(), "*") << "no wildcard resources";
            granted.insert({g.as<std::string>(), r.as<std::string>(), v.as<std::string>()});
          }
  }
  std::set<Grant> needed;
  for (const ApiCallInfo& c : all_api_calls())
    needed.insert({std::string(c.group), std::string(c.resource), std::string(c.verb)});
  for (const Grant& g : needed)
    EXPECT_TRUE(granted.count(g)) << "not granted: " << std::get<0>(g) << "/" << std::get<1>(g)
                                  << " " << std::get<2>(g);
  for (const Grant& g : granted)
    EXPECT_TRUE(needed.count(g)) << "granted but never used: " << std::get<0>(g) << "/"
                                 << std::get<1>(g) << " " << std::get<2>(g);
}

TEST(Manifests, DeploymentRunsTwoLeaderElectedNonRootReplicas) {
  YAML::Node dep;
  for (const auto& d : load("deployment.yaml"))
    if (d["kind"].as<std::string>() == "Deployment") dep = d;
  ASSERT_TRUE(dep.IsDefined());
  EXPECT_EQ(dep["spec"]["replicas"].as<int>(), 2);
  const YAML::Node pod = dep["spec"]["template"]["spec"];
  EXPECT_TRUE(pod["securityContext"]["runAsNonRoot"].as<bool>());
  const YAML::Node c = pod["containers"][0];
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
  std::string args;
  for (const auto& a : c["args"]) args += a.as<std::string>() + " ";
  EXPECT_NE(args.find("--leader-elect"), std::string::npos);
  EXPECT_NE(args.find("--config /etc/orrery/scheduler.yaml"), std::string::npos);
  for (const auto& d : load("example-pods.yaml"))
    EXPECT_EQ(d["spec"]["schedulerName"].as<std::string>(), "orrery");
  std::ifstream in(std::string(ORRERY_SOURCE_DIR) + "/deploy/Dockerfile");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string df = ss.str();
  size_t froms = 0;
  for (size_t p = 0; (p = df.find("\nFROM debian", p)) != std::string::npos; ++p) ++froms;
  EXPECT_EQ(froms + (df.rfind("FROM debian", 0) == 0 ? 1 : 0), 2u) << "multi-stage, Debian";
  EXPECT_NE(df.find("USER 65532"), std::string::npos) << "non-root";
}

}  // namespace
}  // namespace orrery::k8s
