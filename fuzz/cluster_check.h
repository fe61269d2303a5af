// Checks and fingerprints of a ClusterState for the fuzz targets: consistency of the pod/node
// indexes, and a text of everything the scheduler reads, so two loads can be compared.
#pragma once

#include <string>

#include "core/cluster_state.h"
#include "fuzz_common.h"

namespace orrery::fuzz {

inline void append_labels(std::string& out, const LabelSet& l) {
  for (const auto& [k, v] : l.items()) {
    out += interned(k);
    out += '=';
    out += interned(v);
    out += ',';
  }
  out += ';';
}

// Every bound pod is on a live node and listed there; every pod listed on a node is bound to it.
inline void check_indexes(const ClusterState& st) {
  size_t pods = 0;
  for (PodId p : st.pods()) {
    ++pods;
    const NodeId n = st.pod_node(p);
    if (n == kNoNode) continue;
    FUZZ_CHECK(st.node_alive(n), st.pod(p).key());
    (void)n;
  }
  FUZZ_CHECK(pods == st.pod_count(), std::to_string(pods));
  for (NodeId n : st.nodes()) {
    FUZZ_CHECK(st.find_node(st.node(n).name) == n, st.node(n).name);
    for (PodId p : st.pods_on(n))
      FUZZ_CHECK(st.pod_alive(p) && st.pod_node(p) == n, st.node(n).name);
  }
}

// What the scheduler reads of the nodes and pods, in id order.
inline std::string fingerprint(const ClusterState& st) {
  std::string out;
  for (NodeId n : st.nodes()) {
    const Node& node = st.node(n);
    out += "node " + node.name + " alloc " + node.allocatable.to_string() + " cap " +
           node.capacity.to_string() + (node.unschedulable ? " unschedulable" : "") + " labels ";
    append_labels(out, node.labels);
    out += " taints " + std::to_string(node.taints.size()) + " images " +
           std::to_string(node.images.size()) + "\n";
  }
  for (PodId p : st.pods()) {
    const Pod& pod = st.pod(p);
    const PodSpec& s = *pod.spec;
    out += "pod " + pod.key() + " uid " + pod.uid + " node " +
           (st.pod_node(p) == kNoNode ? std::string("-") : st.node(st.pod_node(p)).name) +
           " phase " + std::string(to_string(pod.phase)) + " req " + s.request.to_string() +
           " nz " + s.nonzero_request.to_string() + " prio " + std::to_string(s.priority) +
           " sched " + std::string(interned(s.scheduler_name)) + " labels ";
    append_labels(out, s.labels);
    out += " sel ";
    append_labels(out, s.node_selector);
    out += " tol " + std::to_string(s.tolerations.size()) + " spread " +
           std::to_string(s.topology_spread.size()) + " aff " +
           std::to_string(s.pod_affinity.required.size()) + "/" +
           std::to_string(s.pod_affinity.preferred.size()) + " anti " +
           std::to_string(s.pod_anti_affinity.required.size()) + "/" +
           std::to_string(s.pod_anti_affinity.preferred.size()) + " ports " +
           std::to_string(s.host_ports.size()) + " vols " + std::to_string(s.volumes.size()) +
           " gates " + std::to_string(pod.scheduling_gates.size()) + "\n";
  }
  return out;
}

}  // namespace orrery::fuzz
