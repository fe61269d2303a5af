// Small plugins for exercising the framework without the kube-default ones.
#pragma once

#include "framework/plugin.h"

namespace orrery::fw::testing {

// Filter: the pod's cpu request must fit. Score: free cpu after placement, normalized by max.
class CpuFit : public Plugin {
 public:
  std::string_view name() const override { return "CpuFit"; }
  uint32_t extension_points() const override { return kFilter | kScore; }
  size_t filter(const CycleContext& c, NodeId* nodes, size_t n, Rejections& rej) override {
    const int64_t* alloc = c.state.allocatable(kCpu);
    const int64_t* req = c.state.requested(kCpu);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      NodeId id = nodes[i];
      if (req[id] + c.spec.request[kCpu] <= alloc[id]) {
        nodes[k++] = id;
      } else {
        rej.add(id, 0, 0, false);
      }
    }
    return k;
  }
  void describe(const ClusterState&, const Rejection&, std::vector<std::string>* r) const override {
    r->push_back("Insufficient cpu");
  }
  void score(const CycleContext& c, std::span<const NodeId> nodes, int64_t* s) override {
    for (size_t i = 0; i < nodes.size(); ++i) {
      NodeId id = nodes[i];
      const int64_t alloc = c.state.allocatable(kCpu)[id];
      s[i] = (alloc - c.state.requested(kCpu)[id] - c.spec.request[kCpu]) * 100 / alloc;
    }
  }
};

// Filter: rejects nodes whose name is in a list (unresolvable).
class Blocklist : public Plugin {
 public:
  explicit Blocklist(std::vector<std::string> names) : names_(std::move(names)) {}
  std::string_view name() const override { return "Blocklist"; }
  uint32_t extension_points() const override { return kFilter; }
  size_t filter(const CycleContext& c, NodeId* nodes, size_t n, Rejections& rej) override {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      const std::string& nm = c.state.node(nodes[i]).name;
      if (std::find(names_.begin(), names_.end(), nm) == names_.end()) {
        nodes[k++] = nodes[i];
      } else {
        rej.add(nodes[i], 0, 0, true);
      }
    }
    return k;
  }
  void describe(const ClusterState&, const Rejection&, std::vector<std::string>* r) const override {
    r->push_back("node(s) were blocked");
  }

 private:
  std::vector<std::string> names_;
};

// Score: every node the same (ties).
class Flat : public Plugin {
 public:
  std::string_view name() const override { return "Flat"; }
  uint32_t extension_points() const override { return kScore; }
  void score(const CycleContext&, std::span<const NodeId> nodes, int64_t* s) override {
    for (size_t i = 0; i < nodes.size(); ++i) s[i] = 50;
  }
};

}  // namespace orrery::fw::testing
