// KubeDSM's compact view of a cloud-assisted edge cluster (paper §4.1): edge nodes with a
// two-dimensional capacity (cores, memory), services S_i whose pods all request R_Si and carry a
// QoS target Q_i, and the managed pods, each on an edge node or on the cloud. The cloud is one
// node of unbounded capacity (§4.1.1), so a pod's location is an edge-node index or kCloud.
//
// The algorithms (algorithms.h) work on this description only, so they are pure, fast and
// testable without a cluster; policy.h builds it from a ClusterState.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::kubedsm {

// R_Ei / R_Si: cpu in millicores, memory in bytes.
struct Vec2 {
  int64_t cpu = 0;
  int64_t mem = 0;

  Vec2& operator+=(const Vec2& o) {
    cpu += o.cpu;
    mem += o.mem;
    return *this;
  }
  Vec2& operator-=(const Vec2& o) {
    cpu -= o.cpu;
    mem -= o.mem;
    return *this;
  }
  friend Vec2 operator+(Vec2 a, const Vec2& b) { return a += b; }
  friend Vec2 operator-(Vec2 a, const Vec2& b) { return a -= b; }
  friend Vec2 operator*(Vec2 a, int64_t k) { return {a.cpu * k, a.mem * k}; }
  bool operator==(const Vec2&) const = default;
  // Component-wise <= (the paper's "resources <= free resources").
  bool fits_in(const Vec2& cap) const { return cpu <= cap.cpu && mem <= cap.mem; }
};

inline constexpr int32_t kCloud = -1;

struct Service {
  std::string name;
  Vec2 request;             // R_Si, identical for every pod of the service (§4.1.2)
  double qos_target = 1.0;  // Q_i: at least this fraction of the pods should run on the edge
};

struct ModelPod {
  uint32_t service = 0;
  int32_t node = kCloud;  // edge node index, or kCloud (a pending new pod also counts as cloud)
  // False for pods the algorithms must not migrate (part of a plan in flight, pending, ...).
  bool movable = true;
  uint64_t id = 0;  // the caller's handle (e.g. pod serial); not interpreted
};

struct EdgeModel {
  std::vector<Service> services;
  std::vector<std::string> node_names;  // for messages; may be empty
  std::vector<Vec2> capacity;           // R_Ek per edge node
  // Requests already counted on each edge node: every managed pod placed there plus anything the
  // scheduler does not manage (other pods, reservations of plans in flight).
  std::vector<Vec2> used;
  std::vector<ModelPod> pods;
  // Room left on each cloud node pods can be offloaded to. The paper assumes one cloud node of
  // unbounded capacity (§4.1.1); its evaluation's cloud node (N5, Table 4) is finite and fills up
  // at high load, and an offload with nowhere to go cannot run. Unbounded unless cloud_bounded.
  bool cloud_bounded = false;
  std::vector<Vec2> cloud_free;

  size_t node_count() const { return capacity.size(); }
  Vec2 free(size_t node) const { return capacity[node] - used[node]; }
  // (M_CPU, M_MEM): the total edge capacity.
  Vec2 total_capacity() const;
  Vec2 total_free() const;
  const Vec2& request_of(uint32_t pod) const { return services[pods[pod].service].request; }

  // Helpers for building models: adds a node / service / pod (counting a pod on its node).
  size_t add_node(Vec2 capacity, std::string name = "");
  uint32_t add_service(std::string name, Vec2 request, double qos_target);
  uint32_t add_pod(uint32_t service, int32_t node, bool movable = true, uint64_t id = 0);
  // Moves a pod, updating `used`.
  void move_pod(uint32_t pod, int32_t node);

  // Throws InputError when the model breaks the paper's assumptions: a QoS target outside [0, 1],
  // a service without a positive cpu and memory request (eq. 11 divides by the pod's size), a pod
  // of an unknown service or node. (A node may be over-committed, e.g. while a migration holds
  // both copies of a pod; its free resources are then negative and nothing fits there.)
  void validate() const;
};

}  // namespace orrery::kubedsm
