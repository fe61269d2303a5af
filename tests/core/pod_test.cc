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

TEST(PodKey, Split) {
  EXPECT_EQ(split_pod_key("ns/a"), (std::pair<std::string, std::string>{"ns", "a"}));
  EXPECT_EQ(split_pod_key("a"), (std::pair<std::string, std::string>{"default", "a"}));
}

}  // namespace
}  // namespace orrery
