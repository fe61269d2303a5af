#include "core/pod.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

Container container(int64_t cpu_m, int64_t mem, bool restartable = false) {
  Container c;
  c.requests[kCpu] = cpu_m;
  c.requests[kMemory] = mem;
  c.requests_set = (1u << kCpu) | (1u << kMemory);
  c.restartable = restartable;
  return c;
}

TEST(EffectiveRequest, SumOfAppContainers) {
  PodSpec s;
  s.containers = {container(100, 1000), container(200, 3000)};
  s.finalize();
  EXPECT_EQ(s.request[kCpu], 300);
  EXPECT_EQ(s.request[kMemory], 4000);
  EXPECT_EQ(s.request[kPods], 1);
}

TEST(EffectiveRequest, InitContainerMaxPerResource) {
  // Upstream example: init containers run one at a time, so the pod needs the max per resource.
  PodSpec s;
  s.containers = {container(100, 1000), container(200, 3000)};
  s.init_containers = {container(500, 500), container(50, 6000)};
  s.finalize();
  EXPECT_EQ(s.request[kCpu], 500);
  EXPECT_EQ(s.request[kMemory], 6000);
}

TEST(EffectiveRequest, OverheadAddedAfterMax) {
  PodSpec s;
  s.containers = {container(100, 1000)};
  s.init_containers = {container(500, 500)};
  s.overhead[kCpu] = 250;
  s.overhead[kMemory] = 10;
  s.finalize();
  EXPECT_EQ(s.request[kCpu], 750);
  EXPECT_EQ(s.request[kMemory], 1010);
}

TEST(EffectiveRequest, SidecarsAddToAppsAndToLaterInitContainers) {
  // k8s resource helper: sidecar 1 (restartable) 100m, init 200m, sidecar 2 50m; apps 300m.
  //   apps + sidecars = 300 + 100 + 50 = 450
  //   init phase: sidecar1 → 100; init → 200 + 100 = 300; sidecar2 → 100 + 50 = 150
  PodSpec s;
  s.containers = {container(300, 0)};
  s.init_containers = {container(100, 0, true), container(200, 0), container(50, 0, true)};
  s.finalize();
  EXPECT_EQ(s.request[kCpu], 450);

  // A big regular init container after a sidecar needs room for both.
  PodSpec t;
  t.containers = {container(100, 0)};
  t.init_containers = {container(100, 0, true), container(1000, 0)};
  t.finalize();
  EXPECT_EQ(t.request[kCpu], 1100);
}

TEST(EffectiveRequest, NonZeroDefaultsOnlyForMissingRequests) {
  PodSpec s;
  Container missing;  // no requests at all
  Container zero;     // explicit 0 cpu, memory missing
  zero.requests_set = 1u << kCpu;
  s.containers = {missing, zero};
  s.finalize();
  EXPECT_EQ(s.request[kCpu], 0);
  EXPECT_EQ(s.request[kMemory], 0);
  EXPECT_EQ(s.nonzero_request[kCpu], kDefaultMilliCpuRequest);  // only the missing one
  EXPECT_EQ(s.nonzero_request[kMemory], 2 * kDefaultMemoryRequest);
}

// ---- Pod-level resources (spec.resources; PodLevelResources, beta and on by default in 1.34) ----

constexpr int64_t kMi = 1024 * 1024;

Container requests(std::initializer_list<std::pair<ResourceId, int64_t>> rs,
                   bool restartable = false) {
  Container c;
  for (auto [r, v] : rs) {
    c.requests[r] = v;
    c.requests_set |= 1u << r;
  }
  c.restartable = restartable;
  return c;
}

void pod_level(PodSpec& s, std::initializer_list<std::pair<ResourceId, int64_t>> rs) {
  for (auto [r, v] : rs) {
    s.pod_requests.emplace_back(r, v);
  }
}

// component-helpers/resource/helpers_test.go TestPodLevelResourceRequests (SkipPodLevelResources
// false, which is what the scheduler uses with the feature on).
TEST(PodLevelResources, TestPodLevelResourceRequests) {
  {  // "nil"
    PodSpec s;
    s.finalize();
    EXPECT_EQ(s.request[kCpu], 0);
    EXPECT_EQ(s.request[kMemory], 0);
  }
  {  // "pod level memory resource with SkipPodLevelResources false"
    PodSpec s;
    pod_level(s, {{kMemory, 2 * kMi}});
    s.finalize();
    EXPECT_EQ(s.request[kMemory], 2 * kMi);
    EXPECT_EQ(s.request[kCpu], 0);
  }
  {  // "pod level memory and container level cpu resources with SkipPodLevelResources false"
    PodSpec s;
    pod_level(s, {{kMemory, 2 * kMi}});
    s.containers = {requests({{kCpu, 2}})};
    s.finalize();
    EXPECT_EQ(s.request[kMemory], 2 * kMi);
    EXPECT_EQ(s.request[kCpu], 2);
  }
  {  // "pod level unsupported resources set at both pod-level and container-level ..." (the
     // loader rejects such pods, as the API server does; finalize ignores them, as upstream)
    PodSpec s;
    pod_level(s, {{kEphemeralStorage, 2 * kMi}});
    s.containers = {requests({{kEphemeralStorage, 3 * kMi}})};
    s.finalize();
    EXPECT_EQ(s.request[kEphemeralStorage], 3 * kMi);
  }
  {  // "pod level unsupported resources set at pod-level with SkipPodLevelResources false"
    PodSpec s;
    pod_level(s, {{kEphemeralStorage, 2 * kMi}});
    s.containers = {requests({{kMemory, 3 * kMi}})};
    s.finalize();
    EXPECT_EQ(s.request[kMemory], 3 * kMi);
    EXPECT_EQ(s.request[kEphemeralStorage], 0);
  }
  {  // "both container-level and pod-level resources set with SkipPodLevelResources false"
    PodSpec s;
    pod_level(s, {{kMemory, 6 * kMi}, {kCpu, 8}});
    s.containers = {requests({{kMemory, 3 * kMi}, {kCpu, 2}})};
    s.finalize();
    EXPECT_EQ(s.request[kMemory], 6 * kMi);
    EXPECT_EQ(s.request[kCpu], 8);
  }
  {  // "container-level resources, init and sidecar container set with SkipPodLevelResources false"
    PodSpec s;
    s.containers = {requests({{kMemory, 3 * kMi}, {kCpu, 2}})};
    s.init_containers = {requests({{kMemory, 5 * kMi}, {kCpu, 4}}, true),
                         requests({{kMemory, 6 * kMi}, {kCpu, 8}})};
    s.finalize();
    EXPECT_EQ(s.request[kMemory], 11 * kMi);
    EXPECT_EQ(s.request[kCpu], 12);
  }
  {  // "pod-level resources, container-level resources, init and sidecar container set ..."
    PodSpec s;
    pod_level(s, {{kMemory, 15 * kMi}, {kCpu, 18}});
    s.containers = {requests({{kMemory, 3 * kMi}, {kCpu, 2}})};
    s.init_containers = {requests({{kMemory, 5 * kMi}, {kCpu, 4}}, true),
                         requests({{kMemory, 6 * kMi}, {kCpu, 8}})};
    s.finalize();
    EXPECT_EQ(s.request[kMemory], 15 * kMi);
    EXPECT_EQ(s.request[kCpu], 18);
  }
}

TEST(PodLevelResources, OverheadIsAddedToPodLevelRequests) {
  // PodRequests: pod-level requests replace the aggregate, then overhead is added.
  PodSpec s;
  pod_level(s, {{kCpu, 1000}});
  s.containers = {requests({{kCpu, 300}})};
  s.overhead[kCpu] = 250;
  s.overhead_set = 1u << kCpu;
  s.finalize();
  EXPECT_EQ(s.request[kCpu], 1250);
}

TEST(PodLevelResources, HugepagesAreSupportedAtPodLevel) {
  const ResourceId huge = resource_id("hugepages-2Mi");
  EXPECT_TRUE(is_supported_pod_level_resource(huge));
  EXPECT_FALSE(is_supported_pod_level_resource(kEphemeralStorage));
  EXPECT_FALSE(is_supported_pod_level_resource(kGpu));
  PodSpec s;
  pod_level(s, {{huge, 4 * kMi}});
  s.containers = {requests({{huge, 2 * kMi}})};
  s.finalize();
  EXPECT_EQ(s.request[huge], 4 * kMi);
}

TEST(PodLevelResources, ScoringNonZeroRequestsDefaultPerContainerThenPodLevelOverrides) {
  // resourceAllocationScorer.calculatePodResourceRequest: NonMissingContainerRequests (100m /
  // 200Mi per container without the request), then pod-level requests replace the aggregate.
  PodSpec s;
  pod_level(s, {{kMemory, 1024 * kMi}});
  s.containers = {requests({{kCpu, 500}}), Container{}};
  s.finalize();
  EXPECT_EQ(s.nonzero_request[kCpu], 500 + kDefaultMilliCpuRequest);
  EXPECT_EQ(s.nonzero_request[kMemory], 1024 * kMi);  // pod level, no defaults
  EXPECT_EQ(s.request[kCpu], 500);
}

TEST(PodLevelResources, NodeNonZeroDefaultsOnlyForResourcesTheWholePodLeavesOut) {
  // PodInfo.CalculateResource / getNonMissingContainerRequests (pkg/scheduler/framework/types.go):
  // with pod-level requests, a pod counted on a node gets 100m / 200Mi only for cpu/memory its
  // requests (containers, pod level, overhead) do not name at all.
  {
    PodSpec s;  // cpu named by one container: no cpu default, memory at pod level
    pod_level(s, {{kMemory, 1024 * kMi}});
    s.containers = {requests({{kCpu, 500}}), Container{}};
    s.finalize();
    EXPECT_EQ(s.node_nonzero_cpu, 500);
    EXPECT_EQ(s.node_nonzero_memory, 1024 * kMi);
    EXPECT_EQ(s.nonzero_request[kCpu], 600);  // the scorer's figure for the incoming pod differs
  }
  {
    PodSpec s;  // cpu named nowhere: per-container defaults (two containers)
    pod_level(s, {{kMemory, 1024 * kMi}});
    s.containers = {Container{}, Container{}};
    s.finalize();
    EXPECT_EQ(s.node_nonzero_cpu, 2 * kDefaultMilliCpuRequest);
    EXPECT_EQ(s.node_nonzero_memory, 1024 * kMi);
  }
  {
    PodSpec s;  // overhead names cpu: no default
    pod_level(s, {{kMemory, 1024 * kMi}});
    s.containers = {Container{}};
    s.overhead[kCpu] = 50;
    s.overhead_set = 1u << kCpu;
    s.finalize();
    EXPECT_EQ(s.node_nonzero_cpu, 50);
  }
  {
    PodSpec s;  // without pod-level requests both figures are the scorer's
    s.containers = {requests({{kCpu, 500}}), Container{}};
    s.finalize();
    EXPECT_EQ(s.node_nonzero_cpu, 600);
    EXPECT_EQ(s.node_nonzero_memory, 2 * kDefaultMemoryRequest);
  }
}

TEST(PodLevelResources, DefaultingFromPodLevelLimits) {
  // pkg/apis/core/v1 defaultPodRequests: with pod-level limits, missing pod-level requests come
  // from the containers' aggregate requests (cpu, memory), else from the pod-level limits.
  PodSpec s;
  s.containers = {requests({{kCpu, 300}}), requests({{kCpu, 200}})};
  Resources limits;
  limits[kCpu] = 2000;
  limits[kMemory] = 512 * kMi;
  s.default_pod_level_requests(limits, (1u << kCpu) | (1u << kMemory));
  s.finalize();
  EXPECT_EQ(s.pod_request(kCpu), 500);          // containers' aggregate
  EXPECT_EQ(s.pod_request(kMemory), 512 * kMi);  // no container requests memory: the limit
  EXPECT_EQ(s.request[kCpu], 500);
  EXPECT_EQ(s.request[kMemory], 512 * kMi);
  PodSpec none;  // no pod-level limits: nothing is defaulted
  none.containers = {requests({{kCpu, 300}})};
  none.default_pod_level_requests(Resources{}, 0);
  EXPECT_TRUE(none.pod_requests.empty());
}

TEST(PodKey, Split) {
  EXPECT_EQ(split_pod_key("ns/a"), (std::pair<std::string, std::string>{"ns", "a"}));
  EXPECT_EQ(split_pod_key("a"), (std::pair<std::string, std::string>{"default", "a"}));
}

}  // namespace
}  // namespace orrery
