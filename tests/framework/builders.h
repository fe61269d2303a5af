// Small cluster builders shared by framework tests: a node with a hostname label and cpu/memory/
// pods allocatable, and a pod requesting cpu.
#pragma once

#include <string>

#include "core/node.h"
#include "core/pod.h"

namespace orrery::fw::testing {

inline Node node(const std::string& name, int64_t cpu_m, int64_t memory = 4LL << 30) {
  Node n;
  n.name = name;
  n.labels.set("kubernetes.io/hostname", name);
  n.allocatable[kCpu] = cpu_m;
  n.allocatable[kMemory] = memory;
  n.allocatable[kPods] = 110;
  return n;
}

inline Pod pod(const std::string& name, int64_t cpu_m) {
  Resources r;
  r[kCpu] = cpu_m;
  Pod p;
  p.name = name;
  p.spec = make_simple_spec(r);
  return p;
}

}  // namespace orrery::fw::testing
