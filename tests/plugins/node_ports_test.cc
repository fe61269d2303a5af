// NodePorts: node_ports_test.go TestNodePorts (v1.34) case by case, host ports of init containers
// (schedutil.GetHostPorts), PreFilter Skip, incremental used ports, and the plugin in the default
// profile (message, preemption).
#include <gtest/gtest.h>

#include <set>

#include "harness.h"
#include "plugins/nodeports/node_ports.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::node_doc;
using testing::pod_doc;

const char* kReason = "node(s) didn't have free ports for the requested pod ports";
const std::string kDefault =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// A pod with one container taking "PROTO/IP/PORT" host ports (upstream's newPod helper).
std::string port_pod(const std::string& name, const std::vector<std::string>& ports,
                     const std::string& node = "", const std::string& extra = "") {
  std::string out = "---\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n";
  if (!node.empty()) out += "  nodeName: " + node + "\n";
  out += extra;
  out += "  containers:\n  - name: c\n    ports:\n";
  for (const std::string& p : ports) {
    const size_t a = p.find('/'), b = p.rfind('/');
    out += "    - {containerPort: 80, protocol: " + p.substr(0, a) + ", hostIP: \"" +
           p.substr(a + 1, b - a - 1) + "\", hostPort: " + p.substr(b + 1) + "}\n";
  }
  if (ports.empty()) out += "    []\n";
  return out;
}

// Whether `pod_ports` fits on a node running a pod with `node_ports` (TestNodePorts' shape).
bool fits(const std::vector<std::string>& pod_ports, const std::vector<std::string>& node_ports) {
  Harness h(node_doc("n", "{cpu: 1}") + port_pod("existing", node_ports, "n") +
                port_pod("m1", pod_ports),
            config_with({"NodePorts"}));
  auto e = h.evaluate("m1")["n"];
  if (!e.feasible) {
    EXPECT_EQ(e.reasons, std::vector<std::string>{kReason});
  }
  return e.feasible;
}

TEST(NodePorts, TestNodePorts) {
  EXPECT_TRUE(fits({"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/9090"})) << "other port";
  EXPECT_FALSE(fits({"UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"})) << "same udp port";
  EXPECT_FALSE(fits({"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"})) << "same tcp port";
  EXPECT_TRUE(fits({"TCP/127.0.0.1/8080"}, {"TCP/127.0.0.2/8080"})) << "different host ip";
  EXPECT_TRUE(fits({"UDP/127.0.0.1/8080"}, {"TCP/127.0.0.1/8080"})) << "different protocol";
  EXPECT_FALSE(fits({"UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"}, {"UDP/127.0.0.1/8080"}))
      << "second udp port conflict";
  EXPECT_FALSE(fits({"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"},
                    {"TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"}))
      << "first tcp port conflict";
  EXPECT_FALSE(fits({"TCP/0.0.0.0/8001"}, {"TCP/127.0.0.1/8001"}))
      << "first tcp port conflict due to 0.0.0.0 hostIP";
  EXPECT_FALSE(fits({"TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"}, {"TCP/127.0.0.1/8001"}))
      << "TCP hostPort conflict due to 0.0.0.0 hostIP";
  EXPECT_FALSE(fits({"TCP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"}))
      << "second tcp port conflict to 0.0.0.0 hostIP";
  EXPECT_TRUE(fits({"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001"})) << "second different protocol";
  EXPECT_FALSE(fits({"UDP/127.0.0.1/8001"}, {"TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"}))
      << "UDP hostPort conflict due to 0.0.0.0 hostIP";
}

TEST(NodePorts, EmptyHostIpAndProtocolAreSanitised) {
  // HostPortInfo.sanitize: "" → 0.0.0.0 and TCP.
  Harness h(node_doc("n", "{cpu: 1}") +
                "---\nkind: Pod\nmetadata: {name: a}\nspec:\n  nodeName: n\n  containers:\n"
                "  - name: c\n    ports: [{containerPort: 80, hostPort: 8080}]\n" +
                port_pod("p", {"TCP/127.0.0.1/8080"}) + port_pod("q", {"UDP/127.0.0.1/8080"}),
            config_with({"NodePorts"}));
  EXPECT_FALSE(h.evaluate("p")["n"].feasible);
  EXPECT_TRUE(h.evaluate("q")["n"].feasible);
}

TEST(NodePorts, PreFilterSkipsPodsWithoutHostPorts) {
  // "skip filter": a pod without host ports is never rejected, even on a node full of ports.
  Harness h(node_doc("n", "{cpu: 1}") + port_pod("existing", {"TCP/0.0.0.0/80"}, "n") +
                pod_doc("plain", {""}) + port_pod("container-port-only", {}),
            config_with({"NodePorts"}));
  EXPECT_TRUE(h.evaluate("plain")["n"].feasible);
  EXPECT_TRUE(h.evaluate("container-port-only")["n"].feasible);
  NodePorts plugin;
  Rng rng(1);
  const PodId p = h.pod("plain");
  fw::CycleContext cycle{h.state(), p, h.state().pod(p), *h.state().pod(p).spec, 0, rng};
  std::optional<std::vector<NodeId>> only;
  EXPECT_TRUE(plugin.pre_filter(cycle, &only).is_skip());
}

TEST(NodePorts, GetHostPortsCountsSidecarsButNotInitContainers) {
  // schedutil.GetHostPorts: restartable init containers' ports are used for the pod's lifetime;
  // plain init containers' are not. With hostNetwork, hostPort defaults to containerPort.
  const std::string pod =
      "---\nkind: Pod\nmetadata: {name: a}\nspec:\n  nodeName: n\n  initContainers:\n"
      "  - {name: init, ports: [{containerPort: 1, hostPort: 9001}]}\n"
      "  - {name: side, restartPolicy: Always, ports: [{containerPort: 1, hostPort: 9002}]}\n"
      "  containers:\n  - {name: c, ports: [{containerPort: 1, hostPort: 9003}]}\n"
      "---\nkind: Pod\nmetadata: {name: hn}\nspec:\n  nodeName: m\n  hostNetwork: true\n"
      "  containers:\n  - {name: c, ports: [{containerPort: 9004}]}\n";
  Harness h(node_doc("n", "{cpu: 1}") + node_doc("m", "{cpu: 1}") + pod +
                port_pod("p1", {"TCP/0.0.0.0/9001"}) + port_pod("p2", {"TCP/0.0.0.0/9002"}) +
                port_pod("p3", {"TCP/0.0.0.0/9003"}) + port_pod("p4", {"TCP/0.0.0.0/9004"}),
            config_with({"NodePorts"}));
  EXPECT_EQ(h.feasible("p1"), (std::set<std::string>{"n", "m"}));
  EXPECT_EQ(h.feasible("p2"), (std::set<std::string>{"m"}));
  EXPECT_EQ(h.feasible("p3"), (std::set<std::string>{"m"}));
  EXPECT_EQ(h.feasible("p4"), (std::set<std::string>{"n"}));
}

TEST(NodePorts, UsedPortsFollowPodsIncrementally) {
  Harness h(node_doc("n", "{cpu: 1}") + port_pod("a", {"TCP/0.0.0.0/80"}, "n") +
                port_pod("b", {"TCP/0.0.0.0/80"}, "n"),
            config_with({"NodePorts"}));
  ClusterState& st = h.state();
  ASSERT_EQ(st.used_ports(0).size(), 1u);
  EXPECT_EQ(st.used_ports(0)[0].users, 2);
  st.remove_pod(h.pod("a"));
  ASSERT_EQ(st.used_ports(0).size(), 1u);
  st.set_phase(h.pod("b"), PodPhase::kSucceeded);  // terminal pods free their ports
  EXPECT_TRUE(st.used_ports(0).empty());
}

TEST(NodePorts, DefaultProfileMessageAndPreemption) {
  // Two nodes, both with a low-priority pod on port 80: the pod is unschedulable with the
  // upstream reason, and preemption (the port conflict is Unschedulable, not Unresolvable) frees
  // one of them for a higher-priority pod.
  std::string objs = node_doc("n1", "{cpu: 4, memory: 4Gi}") +
                     node_doc("n2", "{cpu: 4, memory: 4Gi}") +
                     port_pod("low-1", {"TCP/0.0.0.0/80"}, "n1") +
                     port_pod("low-2", {"TCP/0.0.0.0/80"}, "n2");
  Harness h(objs + port_pod("web", {"TCP/0.0.0.0/80"}), kDefault);
  std::vector<fw::ScheduleOutcome> outs;
  h.schedule_all(&outs);
  ASSERT_FALSE(outs.empty());
  EXPECT_EQ(outs[0].message,
            "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod "
            "ports. preemption: 0/2 nodes are available: 2 No preemption victims found for "
            "incoming pod.");
  Harness hp(objs + port_pod("web", {"TCP/0.0.0.0/80"}, "", "  priority: 100\n"), kDefault);
  auto placed = hp.schedule_all();
  EXPECT_TRUE(placed["web"] == "n1" || placed["web"] == "n2");
  EXPECT_EQ(hp.backend.deletions().size(), 1u);
}

}  // namespace
}  // namespace orrery::plugins
