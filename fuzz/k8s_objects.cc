// The Kubernetes object loader (io/k8s_objects.h) as `orrery schedule --cluster FILE` and
// `orrery serve --extender --cluster FILE` use it: parse_k8s_objects (YAML, multi-document YAML,
// JSON lists through the item scanner), then build_cluster and k8s_warnings. Only InputError may
// escape; the built cluster's indexes must be consistent and hold every node read.
#include "io/k8s_objects.h"
#include "cluster_check.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  K8sObjects objects;
  if (!fuzz::accepts([&] { objects = parse_k8s_objects(fuzz::as_text(data, size), "fuzz.yaml"); }))
    return 0;
  fuzz::accepts([&] {
    std::vector<std::string> warnings;
    const ClusterState st = build_cluster(objects, &warnings);
    FUZZ_CHECK(st.node_count() == objects.nodes.size(), std::to_string(st.node_count()));
    FUZZ_CHECK(st.pod_count() <= objects.pods.size(), std::to_string(st.pod_count()));
    fuzz::check_indexes(st);
    (void)k8s_warnings(objects);
  });
  return 0;
}
