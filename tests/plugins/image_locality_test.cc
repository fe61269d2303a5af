// ImageLocality: image_locality_test.go (v1.34) TestImageLocalityPriority and
// TestNormalizedImageName case by case, and the plugin in the default profile.
#include <gtest/gtest.h>

#include <set>

#include "harness.h"
#include "plugins/imagelocality/image_locality.h"

namespace orrery::plugins {
namespace {

using testing::config_with;
using testing::Harness;
using testing::pod_doc;

const char* kImage = "ImageLocality";

// A node whose status.images lists `images` as {"name1,name2", size in MiB}.
std::string image_node(const std::string& name,
                       const std::vector<std::pair<std::string, int64_t>>& images,
                       const std::string& allocatable = "{cpu: 4, memory: 8Gi, pods: 110}") {
  std::string out = "---\nkind: Node\nmetadata: {name: " + name + "}\nstatus:\n  allocatable: " +
                    allocatable + "\n  images:\n";
  for (const auto& [names, mib] : images) {
    out += "  - names: [" + names + "]\n    sizeBytes: " + std::to_string(mib * 1024 * 1024) + "\n";
  }
  if (images.empty()) out += "    []\n";
  return out;
}

// A pod with one container per image (and init containers).
std::string image_pod(const std::string& name, const std::vector<std::string>& images,
                      const std::vector<std::string>& init = {}) {
  std::string out = "---\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n";
  if (!init.empty()) {
    out += "  initContainers:\n";
    for (size_t i = 0; i < init.size(); ++i)
      out += "  - {name: i" + std::to_string(i) + ", image: \"" + init[i] + "\"}\n";
  }
  out += "  containers:\n";
  for (size_t i = 0; i < images.size(); ++i)
    out += "  - {name: c" + std::to_string(i) + ", image: \"" + images[i] + "\"}\n";
  return out;
}

const std::vector<std::pair<std::string, int64_t>> node403002000 = {
    {"gcr.io/40:latest, gcr.io/40:v1, gcr.io/40:v1", 40},
    {"gcr.io/300:latest, gcr.io/300:v1", 300},
    {"gcr.io/2000:latest", 2000}};
const std::vector<std::pair<std::string, int64_t>> node25010 = {
    {"gcr.io/250:latest", 250}, {"gcr.io/10:latest, gcr.io/10:v1", 10}};
const std::vector<std::pair<std::string, int64_t>> node60040900 = {
    {"gcr.io/600:latest", 600}, {"gcr.io/40:latest", 40}, {"gcr.io/900:latest", 900}};
const std::vector<std::pair<std::string, int64_t>> node300600900 = {
    {"gcr.io/300:latest", 300}, {"gcr.io/600:latest", 600}, {"gcr.io/900:latest", 900}};
const std::vector<std::pair<std::string, int64_t>> node400030 = {{"gcr.io/4000:latest", 4000},
                                                                 {"gcr.io/30:latest", 30}};
const std::vector<std::pair<std::string, int64_t>> node203040 = {
    {"gcr.io/20:latest", 20}, {"gcr.io/30:latest", 30}, {"gcr.io/40:latest", 40}};

std::map<std::string, int64_t> scores(const std::string& nodes, const std::string& pod) {
  Harness h(nodes + pod, config_with({kImage}));
  return h.scores("p", kImage);
}

TEST(ImageLocality, TestImageLocalityPriority) {
  {  // "two images spread on two nodes, prefer the larger image one":
     // node2 100·(250M/2 − 23M)/(1000M·2 − 23M) = 5
    auto s = scores(image_node("node1", node403002000) + image_node("node2", node25010),
                    image_pod("p", {"gcr.io/40", "gcr.io/250"}));
    EXPECT_EQ(s["node1"], 0);
    EXPECT_EQ(s["node2"], 5);
  }
  {  // "two images on one node, prefer this node": 100·((40M + 300M)/2 − 23M)/(2000M − 23M) = 7
    auto s = scores(image_node("node1", node403002000) + image_node("node2", node25010),
                    image_pod("p", {"gcr.io/40", "gcr.io/300"}));
    EXPECT_EQ(s["node1"], 7);
    EXPECT_EQ(s["node2"], 0);
  }
  {  // "if exceed limit, use limit": 4000M/2 ≥ 2000M → 100
    auto s = scores(image_node("node1", node400030) + image_node("node2", node25010),
                    image_pod("p", {"gcr.io/10", "gcr.io/4000"}));
    EXPECT_EQ(s["node1"], 100);
    EXPECT_EQ(s["node2"], 0);
  }
  {  // "if exceed limit, use limit (with node which has no images present)":
     // 100·(4000M/3 − 23M)/(2000M − 23M) = 66
    auto s = scores(image_node("node1", node400030) + image_node("node2", node25010) +
                        image_node("node3", {}),
                    image_pod("p", {"gcr.io/10", "gcr.io/4000"}));
    EXPECT_EQ(s["node1"], 66);
    EXPECT_EQ(s["node2"], 0);
    EXPECT_EQ(s["node3"], 0);
  }
  {  // "pod with multiple large images, node2 is preferred": 32, 36, 0
    auto s = scores(image_node("node1", node60040900) + image_node("node2", node300600900) +
                        image_node("node3", {}),
                    image_pod("p", {"gcr.io/300", "gcr.io/600", "gcr.io/900"}));
    EXPECT_EQ(s["node1"], 32);
    EXPECT_EQ(s["node2"], 36);
    EXPECT_EQ(s["node3"], 0);
  }
  {  // "pod with multiple small images": 100·(30M + 40M/2 − 23M)/(2000M − 23M) = 1
    auto s = scores(image_node("node1", node203040) + image_node("node2", node400030),
                    image_pod("p", {"gcr.io/30", "gcr.io/40"}));
    EXPECT_EQ(s["node1"], 1);
    EXPECT_EQ(s["node2"], 0);
  }
  {  // "include InitContainers: two images spread on two nodes, prefer the larger image one":
     // 100·(300M/2 − 23M)/(2000M − 23M) = 6
    auto s = scores(image_node("node1", node403002000) + image_node("node2", node203040),
                    image_pod("p", {"gcr.io/30"}, {"gcr.io/300"}));
    EXPECT_EQ(s["node1"], 6);
    EXPECT_EQ(s["node2"], 0);
  }
}

TEST(ImageLocality, TestNormalizedImageName) {
  EXPECT_EQ(normalized_image_name("root"), "root:latest");                          // postfix 1
  EXPECT_EQ(normalized_image_name("gcr.io:5000/root"), "gcr.io:5000/root:latest");  // postfix 2
  EXPECT_EQ(normalized_image_name("root:tag"), "root:tag");                         // as is 1
  const std::string digest =
      "root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
  EXPECT_EQ(normalized_image_name(digest), digest);  // as is 2
  // No registry mapping (upstream's TODO): "nginx" is "nginx:latest", not docker.io's name.
  EXPECT_EQ(normalized_image_name("nginx"), "nginx:latest");
}

TEST(ImageLocality, NodeWithAnEightGigabyteImageAlwaysWins) {
  // Two equal nodes; a holds the pod's 8 GiB image: ImageLocality gives a 100 (8G/2 > 1000M),
  // b 0, so a wins whatever the seed (before ImageLocality was modelled, ties went either way).
  const std::string objs =
      image_node("a", {{"registry.example.com/model:v3", 8192}}, "{cpu: 8, memory: 32Gi, pods: 110}") +
      image_node("b", {{"registry.example.com/other:v1", 100}}, "{cpu: 8, memory: 32Gi, pods: 110}") +
      "---\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
      "    image: registry.example.com/model:v3\n    resources: {requests: {cpu: 1, memory: 1Gi}}\n";
  const std::string cfg = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  for (uint64_t seed = 0; seed < 20; ++seed) {
    fw::SchedulerOptions options;
    options.seed = seed;
    Harness h(objs, cfg, options);
    EXPECT_EQ(h.schedule_all()["p"], "a") << "seed " << seed;
  }
  Harness h(objs, cfg);
  auto e = h.evaluate("p");
  std::map<std::string, int64_t> a(e["a"].scores.begin(), e["a"].scores.end());
  std::map<std::string, int64_t> b(e["b"].scores.begin(), e["b"].scores.end());
  EXPECT_EQ(a["ImageLocality"], 100);
  EXPECT_EQ(b["ImageLocality"], 0);
}

TEST(ImageLocality, SizeFromTheFirstNodeListingTheImage) {
  // The scheduler cache keeps one ImageStateSummary per name, sized by the first node that
  // reported it. Both nodes list x:v1 (spread 2/2) with different sizes: both score with 1500M.
  // 100·(1500M − 23M)/(1000M − 23M) → clamped at 1000M → 100 on both.
  auto s = scores(image_node("n1", {{"x:v1", 1500}}) + image_node("n2", {{"x:v1", 10}}),
                  image_pod("p", {"x:v1"}));
  EXPECT_EQ(s["n1"], 100);
  EXPECT_EQ(s["n2"], 100);
}

TEST(ImageLocality, UniformZeroWhenNoNodeHasThePodsImages) {
  Harness h(image_node("n1", node25010) + image_node("n2", {}) + image_pod("p", {"nginx:1.25"}),
            config_with({kImage}));
  ImageLocality plugin;
  Rng rng(1);
  const PodId p = h.pod("p");
  fw::CycleContext cycle{h.state(), p, h.state().pod(p), *h.state().pod(p).spec, 0, rng};
  EXPECT_EQ(plugin.uniform_score(cycle, h.state().nodes()), std::optional<int64_t>(0));
  auto s = h.scores("p", kImage);
  EXPECT_EQ(s["n1"], 0);
  EXPECT_EQ(s["n2"], 0);
}

}  // namespace
}  // namespace orrery::plugins
