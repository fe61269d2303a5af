// Kubernetes name rules (io/k8s_names.h), duplicate YAML keys (yaml::check_unique_keys) and the
// resource-name checks of the object loader.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "io/k8s_names.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"

namespace orrery {
namespace {

// Translated from kubernetes pkg/apis/core/validation/validation_test.go TestValidateResourceNames
// (which tests validateResourceName). Container names are stricter than that function: a name
// without '/' must be a standard *container* resource, so the quota names it accepts ("storage",
// "requests.cpu", "limits.memory") are rejected here, as validateContainerResourceName rejects
// them.
TEST(K8sNames, ContainerResourceNamesAsTheApiServerValidatesThem) {
  struct Case {
    std::string input;
    bool success;
  };
  const Case cases[] = {
      {"memory", true},
      {"cpu", true},
      {"storage", false},
      {"requests.cpu", false},
      {"limits.memory", false},
      {"network", false},
      {"disk", false},
      {"", false},
      {".", false},
      {"..", false},
      {"my.favorite.app.co/12345", true},
      {"my.favorite.app.co/_12345", false},
      {"my.favorite.app.co/12345_", false},
      {"kubernetes.io/..", false},
      {"kubernetes.io/" + std::string(63, 'a'), true},
      {"kubernetes.io/" + std::string(64, 'a'), false},
      {"kubernetes.io//", false},
      {"kubernetes.io", false},
      {"kubernetes.io/will/not/work/", false},
      // Beyond the upstream table: the container-specific rules.
      {"ephemeral-storage", true},
      {"hugepages-2Mi", true},
      {"nvidia.com/gpu", true},
      {"example.com/foo", true},
      {"pods", false},
      {"memroy", false},
      {"requests.example.com/foo", false},  // IsExtendedResourceName: no "requests." prefix
      {"Example.com/foo", false},           // the prefix is a lowercase DNS subdomain
  };
  for (const Case& c : cases) {
    EXPECT_EQ(container_resource_name_error(c.input).empty(), c.success) << "\"" << c.input << "\"";
  }
  EXPECT_NE(container_resource_name_error("memroy").find("must be a standard resource for "
                                                         "containers"),
            std::string::npos);
  EXPECT_NE(container_resource_name_error("requests.example.com/foo")
                .find("doesn't follow extended resource name standard"),
            std::string::npos);
  EXPECT_EQ(node_resource_name_error("pods"), "");
  EXPECT_NE(node_resource_name_error("gpus"), "");
}

TEST(YamlStrict, DuplicateKeysAreErrorsNamingBothLines) {
  auto error_of = [](const std::string& text) {
    try {
      yaml::check_unique_keys(yaml::Ctx{"f.yaml", yaml::parse_document(text, "f.yaml"), ""});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("a: 1\nb: 2\na: 3\n"),
            "f.yaml:3: a: duplicate key \"a\" (first given at line 1)");
  EXPECT_EQ(error_of("l:\n- {x: 1, y: 2}\n- {x: 1, x: 2}\n"),
            "f.yaml:3: l[1].x: duplicate key \"x\" (first given at line 3)");
  EXPECT_EQ(error_of("a: {x: 1}\nb: {x: 1}\n"), "");
}

// A pod asking for "memroy" could not have been created through the API server, so a snapshot
// holding one is an error; node capacity names are not validated upstream, so a warning.
TEST(K8sObjects, ResourceNamesInSnapshots) {
  try {
    parse_k8s_objects(
        "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n"
        "      requests: {memroy: 1Gi}\n",
        "pod.yaml");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("pod.yaml:7: spec.containers[0].resources.requests.memroy: "
                                    "invalid resource name \"memroy\"",
                                    0),
        0u)
        << e.what();
  }
  const K8sObjects objs = parse_k8s_objects(
      "kind: Node\nmetadata: {name: n}\nstatus:\n  capacity: {cpu: 4, gpus: 2}\n", "node.yaml");
  const std::vector<std::string> w = k8s_warnings(objs);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("node.yaml:4: status.capacity.gpus: invalid resource name \"gpus\"", 0), 0u)
      << w[0];
}

}  // namespace
}  // namespace orrery
