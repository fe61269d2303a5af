// deploy/: the manifests parse, use known apiVersions and kinds, and the RBAC rules grant every
// API call the client makes (k8s::all_api_calls) and nothing else; the Deployment runs two
// replicas with leader election, non-root, read-only root filesystem. Every container of every
// workload in deploy/ and deploy/carico/ is hardened (non-root, read-only root filesystem, no
// privilege escalation, all capabilities dropped, seccomp RuntimeDefault), and the servers that
// take network traffic (extender, aggregator) and the agents run TLS from Secrets mounted
// read-only, readable by the container's user, never --insecure.
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
    {"v1", {"ServiceAccount", "ConfigMap", "Pod", "Service"}},
    {"apps/v1", {"Deployment"}},
    {"rbac.authorization.k8s.io/v1", {"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}},
};

TEST(Manifests, ParseWithKnownApiVersionsAndKinds) {
  for (const char* f : {"rbac.yaml", "deployment.yaml", "example-pods.yaml", "extender.yaml"}) {
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

// Every workload (Deployment, DaemonSet) in deploy/ and deploy/carico/, with its file.
std::vector<std::pair<std::string, YAML::Node>> workloads() {
  std::vector<std::pair<std::string, YAML::Node>> out;
  for (const char* f :
       {"deployment.yaml", "extender.yaml", "carico/aggregator.yaml", "carico/agent.yaml"})
    for (const auto& d : load(f)) {
      const std::string kind = d["kind"].as<std::string>();
      if (kind == "Deployment" || kind == "DaemonSet") out.push_back({f, d});
    }
  return out;
}

// A container setting, else the pod's.
YAML::Node effective(const YAML::Node& pod, const YAML::Node& c, const std::string& key) {
  if (c["securityContext"] && c["securityContext"][key]) return c["securityContext"][key];
  if (pod["securityContext"] && pod["securityContext"][key]) return pod["securityContext"][key];
  return YAML::Node();
}

TEST(Manifests, EveryContainerIsNonRootReadOnlyWithoutCapabilitiesUnderSeccomp) {
  const auto all = workloads();
  ASSERT_EQ(all.size(), 4u);
  for (const auto& [file, w] : all) {
    const YAML::Node pod = w["spec"]["template"]["spec"];
    for (const auto& c : pod["containers"]) {
      const std::string where = file + ": container " + c["name"].as<std::string>();
      const YAML::Node sc = c["securityContext"];
      ASSERT_TRUE(sc.IsDefined()) << where;
      EXPECT_TRUE(sc["readOnlyRootFilesystem"] && sc["readOnlyRootFilesystem"].as<bool>()) << where;
      EXPECT_TRUE(sc["allowPrivilegeEscalation"] && !sc["allowPrivilegeEscalation"].as<bool>())
          << where;
      EXPECT_FALSE(sc["privileged"] && sc["privileged"].as<bool>()) << where;
      bool drops_all = false;
      if (sc["capabilities"] && sc["capabilities"]["drop"])
        for (const auto& d : sc["capabilities"]["drop"])
          drops_all = drops_all || d.as<std::string>() == "ALL";
      EXPECT_TRUE(drops_all) << where << ": capabilities.drop must hold ALL";
      EXPECT_FALSE(sc["capabilities"] && sc["capabilities"]["add"])
          << where << ": no capabilities added";
      const YAML::Node non_root = effective(pod, c, "runAsNonRoot");
      EXPECT_TRUE(non_root && non_root.as<bool>()) << where;
      const YAML::Node uid = effective(pod, c, "runAsUser");
      EXPECT_TRUE(uid && uid.as<int>() != 0) << where;
      const YAML::Node seccomp = effective(pod, c, "seccompProfile");
      EXPECT_TRUE(seccomp && seccomp["type"].as<std::string>() == "RuntimeDefault") << where;
    }
  }
}

// The flag's value in `args`, or "".
std::string flag(const YAML::Node& args, const std::string& name) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i].as<std::string>() == name) return args[i + 1].as<std::string>();
  return "";
}

TEST(Manifests, ServersAndAgentsRunTlsFromReadOnlySecretsTheirUserCanRead) {
  int checked = 0;
  for (const auto& [file, w] : workloads()) {
    const YAML::Node pod = w["spec"]["template"]["spec"];
    for (const auto& c : pod["containers"]) {
      const YAML::Node args = c["args"];
      const std::string where = file + ": container " + c["name"].as<std::string>();
      for (const auto& a : args) EXPECT_NE(a.as<std::string>(), "--insecure") << where;
      const std::string cmd = args[0].as<std::string>();
      bool extender = false;
      for (const auto& a : args) extender = extender || a.as<std::string>() == "--extender";
      std::vector<std::string> files;
      if (extender || cmd == "aggregator") {
        files = {flag(args, "--tls-cert-file"), flag(args, "--tls-private-key-file"),
                 flag(args, "--client-ca-file")};
      } else if (cmd == "agent") {
        files = {flag(args, "--ca-file"), flag(args, "--cert-file"), flag(args, "--key-file")};
      } else {
        continue;  // `serve` (no listener but /metrics) and others
      }
      ++checked;
      for (const std::string& path : files) {
        ASSERT_FALSE(path.empty()) << where << ": a TLS flag is missing";
        // The mount that holds it: read-only, from a Secret, group-readable by fsGroup.
        YAML::Node mount;
        for (const auto& m : c["volumeMounts"]) {
          const std::string mp = m["mountPath"].as<std::string>();
          if (path.rfind(mp + "/", 0) == 0) mount.reset(m);
        }
        ASSERT_TRUE(mount.IsDefined()) << where << ": " << path << " is not on a mounted volume";
        EXPECT_TRUE(mount["readOnly"] && mount["readOnly"].as<bool>()) << where << ": " << path;
        YAML::Node vol;
        for (const auto& v : pod["volumes"])
          if (v["name"].as<std::string>() == mount["name"].as<std::string>()) vol.reset(v);
        ASSERT_TRUE(vol.IsDefined() && vol["secret"].IsDefined())
            << where << ": " << path << " not from a Secret";
        const std::string mode =
            vol["secret"]["defaultMode"] ? vol["secret"]["defaultMode"].as<std::string>() : "0644";
        const bool world = mode == "0444" || mode == "0644";
        const bool group = (mode == "0440" || mode == "0640") &&
                           pod["securityContext"]["fsGroup"] &&
                           pod["securityContext"]["fsGroup"].as<int>() ==
                               effective(pod, c, "runAsGroup").as<int>();
        EXPECT_TRUE(world || group) << where << ": " << path << " (mode " << mode
                                    << ") is unreadable for the non-root user";
        if (path.find(".key") != std::string::npos) {
          EXPECT_FALSE(world) << where << ": private key " << path << " world-readable";
        }
      }
    }
  }
  EXPECT_EQ(checked, 3) << "extender, aggregator and agent";
}

// deploy/sweep/: the sharded sweep as an Indexed Job and its merge Job (deploy/README.md
// "Sharded sweeps"). kubectl's client dry run needs a server for discovery, so this is the
// schema check: known apiVersions/kinds, only fields of the Job and Pod schemas, the index
// wired to --shard, N the same everywhere, every shard directory merged, one shared PVC.
namespace sweep {

const std::map<std::string, std::set<std::string>> kSweepKinds = {
    {"v1", {"Namespace", "PersistentVolumeClaim"}}, {"batch/v1", {"Job"}}};

// Fields of batch/v1 JobSpec, PodSpec and Container (the subset a manifest may use here).
const std::set<std::string> kJobSpec = {"completionMode",
                                        "completions",
                                        "parallelism",
                                        "backoffLimit",
                                        "backoffLimitPerIndex",
                                        "ttlSecondsAfterFinished",
                                        "activeDeadlineSeconds",
                                        "template",
                                        "suspend"};
const std::set<std::string> kPodSpec = {"restartPolicy",     "securityContext", "containers",
                                        "volumes",           "nodeSelector",    "tolerations",
                                        "serviceAccountName"};
const std::set<std::string> kContainer = {
    "name", "image", "args", "command", "env", "resources", "securityContext", "volumeMounts"};

void expect_only(const YAML::Node& map, const std::set<std::string>& allowed,
                 const std::string& where) {
  ASSERT_TRUE(map.IsMap()) << where;
  for (const auto& kv : map)
    EXPECT_TRUE(allowed.count(kv.first.as<std::string>()))
        << where << ": unknown field " << kv.first.as<std::string>();
}

std::map<std::string, YAML::Node> docs() {
  std::map<std::string, YAML::Node> out;
  for (const char* f : {"sweep/namespace.yaml", "sweep/pvc.yaml", "sweep/shards-job.yaml",
                        "sweep/merge-job.yaml"}) {
    const auto all = load(f);
    EXPECT_EQ(all.size(), 1u) << f;
    for (const auto& d : all) {
      const std::string av = d["apiVersion"].as<std::string>(), kind = d["kind"].as<std::string>();
      EXPECT_TRUE(kSweepKinds.count(av) && kSweepKinds.at(av).count(kind)) << f << ": " << kind;
      out[f] = d;
    }
  }
  return out;
}

// The Job's one container, checked against the schema subset and hardened like the others.
YAML::Node container_of(const YAML::Node& job, const std::string& where) {
  expect_only(job["spec"], kJobSpec, where + ": spec");
  const YAML::Node pod = job["spec"]["template"]["spec"];
  expect_only(pod, kPodSpec, where + ": pod spec");
  const std::string restart = pod["restartPolicy"].as<std::string>();
  EXPECT_TRUE(restart == "Never" || restart == "OnFailure") << where;
  EXPECT_TRUE(pod["securityContext"]["runAsNonRoot"].as<bool>()) << where;
  EXPECT_NE(pod["securityContext"]["runAsUser"].as<int>(), 0) << where;
  EXPECT_EQ(pod["securityContext"]["seccompProfile"]["type"].as<std::string>(), "RuntimeDefault");
  EXPECT_EQ(pod["containers"].size(), 1u) << where;
  const YAML::Node c = pod["containers"][0];
  expect_only(c, kContainer, where + ": container");
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>()) << where;
  EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].as<bool>()) << where;
  EXPECT_EQ(c["securityContext"]["capabilities"]["drop"][0].as<std::string>(), "ALL") << where;
  return c;
}

// The PVC claim mounted at `path` by the Job's pod ("" when none).
std::string claim_at(const YAML::Node& job, const std::string& path) {
  const YAML::Node pod = job["spec"]["template"]["spec"];
  for (const auto& m : pod["containers"][0]["volumeMounts"])
    if (path.rfind(m["mountPath"].as<std::string>() + "/", 0) == 0)
      for (const auto& v : pod["volumes"])
        if (v["name"].as<std::string>() == m["name"].as<std::string>() &&
            v["persistentVolumeClaim"])
          return v["persistentVolumeClaim"]["claimName"].as<std::string>();
  return "";
}

TEST(Manifests, SweepIsAnIndexedJobOfShardsOnOnePvcAndAMergeOfEveryShard) {
  auto d = docs();
  const YAML::Node shards = d["sweep/shards-job.yaml"], merge = d["sweep/merge-job.yaml"];
  const std::string ns = d["sweep/namespace.yaml"]["metadata"]["name"].as<std::string>();
  const std::string pvc = d["sweep/pvc.yaml"]["metadata"]["name"].as<std::string>();
  for (const auto& [f, doc] : d)
    if (f != "sweep/namespace.yaml")
      EXPECT_EQ(doc["metadata"]["namespace"].as<std::string>(), ns) << f;

  EXPECT_EQ(shards["spec"]["completionMode"].as<std::string>(), "Indexed");
  const int n = shards["spec"]["completions"].as<int>();
  ASSERT_GE(n, 1);
  EXPECT_LE(shards["spec"]["parallelism"].as<int>(), n);
  const YAML::Node args = container_of(shards, "shards-job.yaml")["args"];
  EXPECT_EQ(flag(args, "--shard"), "$(JOB_COMPLETION_INDEX)/" + std::to_string(n));
  const std::string out = flag(args, "--out");
  const size_t at = out.find("$(JOB_COMPLETION_INDEX)");
  ASSERT_NE(at, std::string::npos) << "each shard writes its own directory: " << out;
  EXPECT_EQ(claim_at(shards, out), pvc);

  EXPECT_EQ(merge["spec"]["completions"].as<int>(), 1);
  EXPECT_FALSE(merge["spec"]["completionMode"]) << "the merge is one pod";
  const YAML::Node margs = container_of(merge, "merge-job.yaml")["args"];
  ASSERT_EQ(margs[0].as<std::string>(), "merge");
  std::vector<std::string> dirs;
  for (size_t i = 1; i < margs.size() && margs[i].as<std::string>().rfind("--", 0) != 0; ++i)
    dirs.push_back(margs[i].as<std::string>());
  std::vector<std::string> expected;
  for (int i = 0; i < n; ++i)
    expected.push_back(out.substr(0, at) + std::to_string(i) +
                       out.substr(at + std::string("$(JOB_COMPLETION_INDEX)").size()));
  EXPECT_EQ(dirs, expected) << "the merge lists every shard directory once";
  EXPECT_EQ(claim_at(merge, flag(margs, "--out")), pvc);
  for (const std::string& dir : dirs) EXPECT_EQ(claim_at(merge, dir), pvc) << dir;
}

}  // namespace sweep

}  // namespace
}  // namespace orrery::k8s
