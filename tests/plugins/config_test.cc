// KubeSchedulerConfiguration parsing and profile building: upstream's default plugin set, merge
// semantics (multiPoint expansion, overrides, "*", weights) and errors naming file, line, field.
#include <gtest/gtest.h>

#include "core/error.h"
#include "framework/config.h"
#include "harness.h"
#include "plugins/register.h"

namespace orrery::plugins {
namespace {

using testing::profiles_from;

const fw::PluginRegistry& registry() {
  static const fw::PluginRegistry r = [] {
    fw::PluginRegistry reg;
    register_default_plugins(reg);
    return reg;
  }();
  return r;
}

std::vector<std::string> names(const std::vector<fw::Plugin*>& list) {
  std::vector<std::string> out;
  for (fw::Plugin* p : list) out.emplace_back(p->name());
  return out;
}

std::vector<std::pair<std::string, int64_t>> weights(const fw::Profile& p) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& wp : p.score) out.emplace_back(std::string(wp.plugin->name()), wp.weight);
  return out;
}

std::string profile(const std::string& body) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles:\n- schedulerName: default-scheduler\n" +
         body;
}

// The message of the InputError thrown while building profiles from `yaml`.
std::string error_of(const std::string& yaml) {
  try {
    profiles_from(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Config, DefaultProfileIsUpstreamDefault) {
  auto profiles = default_profiles();
  ASSERT_EQ(profiles.size(), 1u);
  const fw::Profile& p = *profiles[0];
  EXPECT_EQ(p.scheduler_name, "default-scheduler");
  EXPECT_EQ(p.queue_sort->name(), "PrioritySort");
  EXPECT_EQ(names(p.pre_filter),
            (std::vector<std::string>{"NodeAffinity", "NodePorts", "NodeResourcesFit",
                                      "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                                      "VolumeZone", "PodTopologySpread", "InterPodAffinity"}));
  EXPECT_EQ(names(p.filter),
            (std::vector<std::string>{"NodeUnschedulable", "NodeName", "TaintToleration",
                                      "NodeAffinity", "NodePorts", "NodeResourcesFit",
                                      "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                                      "VolumeZone", "PodTopologySpread", "InterPodAffinity"}));
  // VolumeBinding's Reserve (its choices assumed for later pods).
  EXPECT_EQ(names(p.reserve), std::vector<std::string>{"VolumeBinding"});
  EXPECT_EQ(names(p.post_filter), std::vector<std::string>{"DefaultPreemption"});
  EXPECT_EQ(names(p.pre_score),
            (std::vector<std::string>{"TaintToleration", "NodeAffinity", "NodeResourcesFit",
                                      "PodTopologySpread", "InterPodAffinity",
                                      "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(weights(p),
            (std::vector<std::pair<std::string, int64_t>>{{"TaintToleration", 3},
                                                          {"NodeAffinity", 2},
                                                          {"NodeResourcesFit", 1},
                                                          {"PodTopologySpread", 2},
                                                          {"InterPodAffinity", 2},
                                                          {"NodeResourcesBalancedAllocation", 1},
                                                          {"ImageLocality", 1}}));
  EXPECT_EQ(names(p.bind), std::vector<std::string>{"DefaultBinder"});
  EXPECT_EQ(p.percentage_of_nodes_to_score, 0);
  EXPECT_FALSE(p.deterministic_ties);
}

TEST(Config, EmptyProfilesListGivesDefaultProfile) {
  auto cfg = fw::parse_scheduler_config(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", "c.yaml");
  ASSERT_EQ(cfg.profiles.size(), 1u);
  EXPECT_EQ(cfg.profiles[0].scheduler_name, "default-scheduler");
}

TEST(Config, MultiPointEntryReplacesDefaultInPlaceAndResetsWeight) {
  // Re-listing a default plugin without a weight replaces the default entry: weight 1.
  auto p =
      profiles_from(profile("  plugins:\n    multiPoint:\n      enabled:\n"
                            "      - name: TaintToleration\n"
                            "      - {name: NodeAffinity, weight: 7}\n"));
  EXPECT_EQ(weights(*p[0]),
            (std::vector<std::pair<std::string, int64_t>>{{"TaintToleration", 1},
                                                          {"NodeAffinity", 7},
                                                          {"NodeResourcesFit", 1},
                                                          {"PodTopologySpread", 2},
                                                          {"InterPodAffinity", 2},
                                                          {"NodeResourcesBalancedAllocation", 1},
                                                          {"ImageLocality", 1}}));
}

TEST(Config, PointEnabledOverridesMultiPointAndComesFirst) {
  auto p =
      profiles_from(profile("  plugins:\n    score:\n      enabled:\n"
                            "      - {name: PodTopologySpread, weight: 5}\n"));
  EXPECT_EQ(weights(*p[0]),
            (std::vector<std::pair<std::string, int64_t>>{{"PodTopologySpread", 5},
                                                          {"TaintToleration", 3},
                                                          {"NodeAffinity", 2},
                                                          {"NodeResourcesFit", 1},
                                                          {"InterPodAffinity", 2},
                                                          {"NodeResourcesBalancedAllocation", 1},
                                                          {"ImageLocality", 1}}));
  // Filter is untouched.
  EXPECT_EQ(p[0]->filter.size(), 12u);
}

TEST(Config, DisableAllAtOnePoint) {
  auto p =
      profiles_from(profile("  plugins:\n    score:\n      disabled: [{name: \"*\"}]\n"
                            "      enabled: [{name: NodeResourcesFit, weight: 2}]\n"));
  EXPECT_EQ(weights(*p[0]),
            (std::vector<std::pair<std::string, int64_t>>{{"NodeResourcesFit", 2}}));
  EXPECT_EQ(p[0]->filter.size(), 12u);
  // PreScore is its own point: still every default PreScore plugin.
  EXPECT_EQ(p[0]->pre_score.size(), 6u);
}

TEST(Config, MultiPointDisabledRemovesEverywhere) {
  auto p =
      profiles_from(profile("  plugins:\n    multiPoint:\n"
                            "      disabled: [{name: TaintToleration}]\n"));
  for (auto* list : {&p[0]->filter, &p[0]->pre_score})
    for (fw::Plugin* pl : *list) EXPECT_NE(pl->name(), "TaintToleration");
  EXPECT_EQ(p[0]->score.size(), 6u);
}

TEST(Config, DisabledAtOnePointKeepsOtherPoints) {
  auto p =
      profiles_from(profile("  plugins:\n    score:\n"
                            "      disabled: [{name: NodeResourcesBalancedAllocation}]\n"));
  EXPECT_EQ(p[0]->score.size(), 6u);
  EXPECT_EQ(names(p[0]->pre_score).back(), "NodeResourcesBalancedAllocation");
}

TEST(Config, PercentageOfNodesToScoreInheritance) {
  auto p = profiles_from(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "percentageOfNodesToScore: 30\nprofiles:\n- schedulerName: a\n"
      "- schedulerName: b\n  percentageOfNodesToScore: 0\n"
      "- schedulerName: c\n  percentageOfNodesToScore: 100\n  deterministic: true\n");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0]->percentage_of_nodes_to_score, 30);
  EXPECT_EQ(p[1]->percentage_of_nodes_to_score, 0);  // explicit 0: adaptive, not the global 30
  EXPECT_EQ(p[2]->percentage_of_nodes_to_score, 100);
  EXPECT_TRUE(p[2]->deterministic_ties);
}

TEST(Config, BackoffSettings) {
  auto cfg = fw::parse_scheduler_config(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "podInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 20\n",
      "c.yaml");
  EXPECT_EQ(fw::queue_options(cfg).initial_backoff_us, 2'000'000);
  EXPECT_EQ(fw::queue_options(cfg).max_backoff_us, 20'000'000);
}

// Found by fuzz/scheduler_config.cc (fuzz/corpus/scheduler_config/regress-backoff-*): a huge
// backoff overflowed the conversion to microseconds (signed overflow), and an initial backoff
// above the default maximum was accepted although upstream validates after defaulting.
TEST(Config, BackoffLimits) {
  const std::string head =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
  auto error = [&](const std::string& body) {
    try {
      fw::parse_scheduler_config(head + body, "c.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("podInitialBackoffSeconds: 9223372036854775807\n"),
            "c.yaml:3: podInitialBackoffSeconds: must be at most 9223372036854 seconds");
  EXPECT_EQ(error("podInitialBackoffSeconds: 1\npodMaxBackoffSeconds: 9223372036855\n"),
            "c.yaml:4: podMaxBackoffSeconds: must be at most 9223372036854 seconds");
  EXPECT_EQ(error("podInitialBackoffSeconds: 20\n"),
            "c.yaml:3: podInitialBackoffSeconds: podMaxBackoffSeconds (10) must be greater than "
            "or equal to podInitialBackoffSeconds (20)");
  EXPECT_EQ(error("podMaxBackoffSeconds: 5\npodInitialBackoffSeconds: 6\n"),
            "c.yaml:3: podMaxBackoffSeconds: podMaxBackoffSeconds (5) must be greater than or "
            "equal to podInitialBackoffSeconds (6)");
  const auto cfg = fw::parse_scheduler_config(
      head + "podInitialBackoffSeconds: 9223372036854\npodMaxBackoffSeconds: 9223372036854\n",
      "c.yaml");
  EXPECT_EQ(fw::queue_options(cfg).max_backoff_us, 9223372036854 * int64_t{1'000'000});
}

TEST(Config, NotModelledPluginsAreAcceptedWithWarning) {
  std::vector<std::string> warnings;
  auto cfg = fw::parse_scheduler_config(
      profile(
          "  plugins:\n    multiPoint:\n      enabled: [{name: DynamicResources, weight: 4}]\n"
          "  pluginConfig:\n  - name: DynamicResources\n    args: {foo: 2}\n"),
      "c.yaml");
  auto p = build_profiles(cfg, registry(), &warnings);
  ASSERT_EQ(warnings.size(), 1u);  // one warning per plugin, its args included
  EXPECT_NE(warnings[0].find("DynamicResources is accepted but not modelled"),
            std::string::npos);
  EXPECT_EQ(p[0]->score.size(), 7u);  // DynamicResources is not instantiated
  // The default profile names them only implicitly: no warning.
  warnings.clear();
  build_profiles(fw::default_scheduler_config(), registry(), &warnings);
  EXPECT_TRUE(warnings.empty());
}

TEST(Config, Errors) {
  EXPECT_EQ(error_of(profile("  plugins:\n    multiPoint:\n      enabled: [{name: Foo}]\n")),
            "test-config.yaml:7: profiles[0].plugins.multiPoint.enabled[0].name: unknown plugin "
            "\"Foo\" (known: DefaultBinder, DefaultPreemption, DynamicResources, ImageLocality, "
            "InterPodAffinity, MachineConstraints, NodeAffinity, NodeName, NodePorts, "
            "NodeResourcesBalancedAllocation, "
            "NodeResourcesFit, NodeUnschedulable, NodeVolumeLimits, PodTopologySpread, "
            "PrioritySort, SchedulingGates, TaintToleration, VolumeBinding, VolumeRestrictions, "
            "VolumeZone)");
  EXPECT_NE(error_of(profile("  plugins:\n    score:\n      disabled: [{name: Bar}]\n"))
                .find("score.disabled[0].name: unknown plugin \"Bar\""),
            std::string::npos);
  EXPECT_NE(error_of(profile("  pluginConfig:\n  - name: Baz\n    args: {}\n"))
                .find("pluginConfig[0].name: unknown plugin \"Baz\""),
            std::string::npos);
  EXPECT_NE(error_of(profile("  plugins:\n    scor:\n      enabled: []\n"))
                .find("profiles[0].plugins.scor: unknown extension point"),
            std::string::npos);
  EXPECT_NE(error_of(profile("  plugin: {}\n")).find("profiles[0].plugin: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of(profile("  percentageOfNodesToScore: 101\n"))
                .find("percentageOfNodesToScore: not in valid range [0-100]"),
            std::string::npos);
  EXPECT_NE(error_of(profile("  plugins:\n    filter:\n"
                             "      enabled: [{name: NodeResourcesBalancedAllocation}]\n"))
                .find("does not extend filter plugin"),
            std::string::npos);
  EXPECT_NE(error_of(profile("  plugins:\n    multiPoint:\n"
                             "      enabled: [{name: TaintToleration}, {name: TaintToleration}]\n"))
                .find("already registered"),
            std::string::npos);
  EXPECT_NE(error_of(profile("  plugins:\n    queueSort:\n      disabled: [{name: \"*\"}]\n"))
                .find("only one queue sort plugin required"),
            std::string::npos);
  EXPECT_NE(
      error_of(profile("  plugins:\n    multiPoint:\n      disabled: [{name: DefaultBinder}]\n"))
          .find("at least one bind plugin is needed"),
      std::string::npos);
  EXPECT_NE(error_of(profile("  pluginConfig:\n  - name: NodeResourcesFit\n    args: {}\n"
                             "  - name: NodeResourcesFit\n    args: {}\n"))
                .find("repeated config for plugin NodeResourcesFit"),
            std::string::npos);
  EXPECT_NE(error_of(profile("  pluginConfig:\n  - name: NodeResourcesFit\n"
                             "    args: {scoringStrategy: {type: Fancy}}\n"))
                .find("pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"Fancy\""),
            std::string::npos);
  EXPECT_NE(error_of(profile("  pluginConfig:\n  - name: NodeResourcesFit\n"
                             "    args: {scoringStrategy: {type: LeastAllocated, resources: "
                             "[{name: cpu, weight: 101}]}}\n"))
                .find("resources[0].weight: resource weight of cpu not in valid range (0, 100]"),
            std::string::npos);
  // Args are validated even when the plugin is not enabled.
  EXPECT_NE(
      error_of(profile("  plugins:\n    multiPoint:\n      disabled: [{name: DefaultPreemption}]\n"
                       "  pluginConfig:\n  - name: DefaultPreemption\n"
                       "    args: {minCandidateNodesPercentage: 120}\n"))
          .find("minCandidateNodesPercentage: not in valid range [0, 100]"),
      std::string::npos);
  EXPECT_NE(error_of(profile("  pluginConfig:\n  - name: PodTopologySpread\n"
                             "    args: {defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                             "whenUnsatisfiable: DoNotSchedule}]}\n"))
                .find("when .defaultingType is \"System\", .defaultConstraints must be empty"),
            std::string::npos);
  EXPECT_NE(
      error_of(
          profile("  pluginConfig:\n  - name: NodeAffinity\n    args:\n"
                  "      addedAffinity:\n        requiredDuringSchedulingIgnoredDuringExecution:\n"
                  "          nodeSelectorTerms:\n          - matchExpressions:\n"
                  "            - {key: zone, operator: Near, values: [a]}\n"))
          .find("operator: expected In, NotIn, Exists, DoesNotExist, Gt or Lt"),
      std::string::npos);
  EXPECT_NE(error_of("apiVersion: kubescheduler.config.k8s.io/v1beta3\n")
                .find("apiVersion: expected kubescheduler.config.k8s.io/v1"),
            std::string::npos);
  EXPECT_NE(error_of("profiles: [{schedulerName: a}, {schedulerName: a}]\n")
                .find("duplicate schedulerName \"a\""),
            std::string::npos);
  EXPECT_EQ(error_of("profiles: [{schedulerName: a}, {schedulerName: b, plugins: {multiPoint: "
                     "{disabled: [{name: PrioritySort}]}, queueSort: {enabled: [{name: "
                     "PrioritySort}]}}}]\n"),
            "(no error)");  // same queue sort either way
  EXPECT_NE(error_of("profiles: [{\n").find("test-config.yaml:"), std::string::npos);
}

}  // namespace
}  // namespace orrery::plugins
