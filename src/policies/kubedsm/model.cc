#include "policies/kubedsm/model.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"

namespace orrery::kubedsm {

Vec2 EdgeModel::total_capacity() const {
  Vec2 t;
  for (const Vec2& c : capacity) t += c;
  return t;
}

Vec2 EdgeModel::total_free() const {
  Vec2 t;
  for (size_t n = 0; n < capacity.size(); ++n) t += free(n);
  return t;
}

size_t EdgeModel::add_node(Vec2 cap, std::string name) {
  capacity.push_back(cap);
  used.push_back({});
  node_names.push_back(std::move(name));
  return capacity.size() - 1;
}

uint32_t EdgeModel::add_service(std::string name, Vec2 request, double qos_target) {
  services.push_back({std::move(name), request, qos_target});
  return static_cast<uint32_t>(services.size() - 1);
}

uint32_t EdgeModel::add_pod(uint32_t service, int32_t node, bool movable, uint64_t id) {
  pods.push_back({service, node, movable, id});
  if (node != kCloud) used[node] += services[service].request;
  return static_cast<uint32_t>(pods.size() - 1);
}

void EdgeModel::move_pod(uint32_t pod, int32_t node) {
  ModelPod& p = pods[pod];
  const Vec2& r = services[p.service].request;
  if (p.node != kCloud) used[p.node] -= r;
  p.node = node;
  if (node != kCloud) used[node] += r;
}

void EdgeModel::validate() const {
  for (const Service& s : services) {
    if (!(s.qos_target >= 0.0 && s.qos_target <= 1.0))
      throw InputError(fmt::format("kubedsm: service {}: QoS target {} is outside [0, 1]", s.name,
                                   s.qos_target));
    if (s.request.cpu <= 0 || s.request.mem <= 0)
      throw InputError(fmt::format(
          "kubedsm: service {}: pods must request cpu and memory (got cpu={}m, memory={}); "
          "KubeDSM sizes pods by both (eq. 11)",
          s.name, s.request.cpu, s.request.mem));
  }
  if (used.size() != capacity.size())
    throw InputError("kubedsm: edge model: used and capacity have different lengths");
  for (size_t i = 0; i < pods.size(); ++i) {
    const ModelPod& p = pods[i];
    if (p.service >= services.size())
      throw InputError(fmt::format("kubedsm: pod #{}: unknown service {}", i, p.service));
    if (p.node != kCloud && (p.node < 0 || static_cast<size_t>(p.node) >= capacity.size()))
      throw InputError(fmt::format("kubedsm: pod #{}: unknown edge node {}", i, p.node));
  }
}

}  // namespace orrery::kubedsm
