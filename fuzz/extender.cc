// The scheduler extender's request decoding and evaluation (k8s/extender.h), without the HTTP
// server: the body goes to Extender::filter / prioritize / preempt / bind exactly as the server's
// handlers pass it. The first input byte picks the verb, the rest is the body. The extender's
// cluster view (for NodeNames requests and preemption) is a small fixed snapshot.
// Invariants: every reply is a JSON document with status 200 or 400 (500 is kept for the
// extender's own failures, which a request cannot cause); no verb changes the
// cluster view (preempt lifts the victims and must put them back; probes must not stay).
#include <nlohmann/json.hpp>

#include "cluster_check.h"
#include "io/k8s_objects.h"
#include "k8s/extender.h"
#include "plugins/register.h"

using namespace orrery;

namespace {

constexpr const char* kView = R"(
apiVersion: v1
kind: List
items:
- kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a, zone: z1}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- kind: Node
  metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b, zone: z2}}
  spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
  status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
- kind: Pod
  metadata: {name: low, namespace: default, uid: uid-low, labels: {app: web}}
  spec:
    nodeName: node-a
    priority: 0
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "3", memory: 1Gi}}}]
  status: {phase: Running}
- kind: Pod
  metadata: {name: other, namespace: default, uid: uid-other, labels: {app: db}}
  spec:
    nodeName: node-b
    containers: [{name: c, image: redis, resources: {requests: {cpu: 500m}}}]
  status: {phase: Running}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  if (size < 1) return 0;
  static const ClusterState kInitial = build_cluster(parse_k8s_objects(kView, "view.yaml"));
  static const std::string kFingerprint = fuzz::fingerprint(kInitial);
  fw::SnapshotBackend view{ClusterState(kInitial)};
  const fw::SchedulerConfig config = fw::default_scheduler_config();
  static const fw::PluginRegistry kPlugins = [] {
    fw::PluginRegistry r;
    plugins::register_default_plugins(r);
    return r;
  }();
  k8s::Extender ext(
      config, kPlugins, "", &view, [](const std::function<void()>& fn) { fn(); }, nullptr);
  const std::string body(fuzz::as_text(data + 1, size - 1));
  k8s::ExtenderReply r;
  switch (data[0] % 4) {
    case 0: r = ext.filter(body); break;
    case 1: r = ext.prioritize(body); break;
    case 2: r = ext.preempt(body); break;
    default: r = ext.bind(body); break;
  }
  // 500 is for the extender's own failures; a malformed request must be a 400 (or an Error).
  FUZZ_CHECK(r.status == 200 || r.status == 400, std::to_string(r.status) + " " + r.body);
  FUZZ_CHECK(!nlohmann::json::parse(r.body, nullptr, false).is_discarded(), r.body);
  fuzz::check_indexes(view.state());
  FUZZ_CHECK(fuzz::fingerprint(view.state()) == kFingerprint, fuzz::fingerprint(view.state()));
  return 0;
}
