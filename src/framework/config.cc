#include "framework/config.h"

#include <algorithm>
#include <limits>
#include <set>

#include "core/error.h"
#include "io/k8s_objects.h"

namespace orrery::fw {

using yaml::Ctx;

namespace {

constexpr const char* kApiVersion = "kubescheduler.config.k8s.io/v1";
constexpr const char* kMultiPoint = "multiPoint";

// Upstream decodes the configuration strictly: a misspelt field silently ignored would be worse
// than an error.
using yaml::check_keys;

int percentage(const Ctx& c) {
  const int64_t v = c.i64();
  if (v < 0 || v > 100) c.fail("not in valid range [0-100]");
  return static_cast<int>(v);
}

PluginSetting read_setting(const Ctx& c, bool with_weight) {
  c.expect_map();
  check_keys(c, {"name", "weight"});
  PluginSetting s;
  Ctx name = c.child("name");
  if (!name.defined()) c.fail("plugin entry without a name");
  s.name = name.str();
  if (s.name.empty()) name.fail("empty plugin name");
  s.where = name.where();
  if (c.has("weight")) {
    Ctx w = c.child("weight");
    if (!with_weight) w.fail("a disabled plugin takes no weight");
    s.weight = w.i64();
    if (s.weight < 0 || s.weight > INT32_MAX) w.fail("weight must be in [0, 2147483647]");
  }
  return s;
}

PluginSet read_plugin_set(const Ctx& c) {
  PluginSet ps;
  if (!c.defined()) return ps;
  c.expect_map();
  check_keys(c, {"enabled", "disabled"});
  for (const char* key : {"enabled", "disabled"}) {
    Ctx list = c.child(key);
    if (!list.defined()) continue;
    list.expect_seq();
    const bool enabled = std::string(key) == "enabled";
    for (size_t i = 0; i < list.size(); ++i) {
      PluginSetting s = read_setting(list.item(i), enabled);
      if (enabled && s.name == "*") list.item(i).child("name").fail("\"*\" may only be disabled");
      (enabled ? ps.enabled : ps.disabled).push_back(std::move(s));
    }
  }
  return ps;
}

ProfileConfig read_profile(const Ctx& c) {
  c.expect_map();
  check_keys(
      c, {"schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig", "deterministic"});
  ProfileConfig p;
  p.where = c.where();
  if (c.has("schedulerName")) {
    p.scheduler_name = c.child("schedulerName").str();
    if (p.scheduler_name.empty()) c.child("schedulerName").fail("required: must not be empty");
  }
  if (c.has("percentageOfNodesToScore")) {
    p.percentage_of_nodes_to_score = percentage(c.child("percentageOfNodesToScore"));
  }
  if (c.has("deterministic")) p.deterministic_ties = c.child("deterministic").boolean();
  Ctx plugins = c.child("plugins");
  if (plugins.defined()) {
    plugins.expect_map();
    for (const std::string& point : plugins.keys()) {
      const auto& names = extension_point_names();
      if (point != kMultiPoint && std::find(names.begin(), names.end(), point) == names.end()) {
        std::string list = kMultiPoint;
        for (const auto& n : names) list += ", " + n;
        plugins.child(point).fail("unknown extension point (expected one of: " + list + ")");
      }
      p.plugins[point] = read_plugin_set(plugins.child(point));
    }
  }
  Ctx pc = c.child("pluginConfig");
  if (pc.defined()) {
    pc.expect_seq();
    for (size_t i = 0; i < pc.size(); ++i) {
      Ctx item = pc.item(i);
      item.expect_map();
      check_keys(item, {"name", "args"});
      Ctx name = item.child("name");
      if (!name.defined()) item.fail("pluginConfig entry without a name");
      const std::string n = name.str();
      if (p.plugin_args.count(n)) name.fail("repeated config for plugin " + n);
      p.plugin_args.emplace(n, item.child("args"));
      p.plugin_args_where.emplace(n, name.where());
    }
  }
  return p;
}

uint32_t point_bit(const std::string& point) {
  if (point == "queueSort") return kQueueSort;
  if (point == "preFilter") return kPreFilter;
  if (point == "filter") return kFilter;
  if (point == "postFilter") return kPostFilter;
  if (point == "preScore") return kPreScore;
  if (point == "score") return kScore;
  if (point == "reserve") return kReserve;
  if (point == "permit") return kPermit;
  if (point == "preBind") return kPreBind;
  if (point == "bind") return kBind;
  if (point == "postBind") return kPostBind;
  if (point == "preEnqueue") return kPreEnqueue;
  if (point == "mutate") return kMutate;
  return 0;
}

// Upstream mergePluginSet for multiPoint: the defaults minus the disabled ones, custom entries
// replacing defaults of the same name in place, other custom entries appended.
std::vector<PluginSetting> merge_multipoint(const PluginSet* custom) {
  std::set<std::string> disabled;
  std::map<std::string, size_t> custom_index;
  if (custom) {
    for (const auto& d : custom->disabled) disabled.insert(d.name);
    for (size_t i = 0; i < custom->enabled.size(); ++i) custom_index[custom->enabled[i].name] = i;
  }
  std::vector<PluginSetting> out;
  std::set<size_t> replaced;
  if (!disabled.count("*")) {
    for (const DefaultPlugin& d : default_multipoint_plugins()) {
      if (disabled.count(d.name)) continue;
      auto it = custom_index.find(d.name);
      if (it != custom_index.end()) {
        out.push_back(custom->enabled[it->second]);
        replaced.insert(it->second);
      } else {
        out.push_back({d.name, d.weight, "default plugin"});
      }
    }
  }
  if (custom) {
    for (size_t i = 0; i < custom->enabled.size(); ++i)
      if (!replaced.count(i)) out.push_back(custom->enabled[i]);
  }
  return out;
}

std::vector<Plugin*>* point_list(Profile& p, uint32_t bit) {
  switch (bit) {
    case kPreEnqueue: return &p.pre_enqueue;
    case kPreFilter: return &p.pre_filter;
    case kFilter: return &p.filter;
    case kPostFilter: return &p.post_filter;
    case kPreScore: return &p.pre_score;
    case kReserve: return &p.reserve;
    case kPermit: return &p.permit;
    case kMutate: return &p.mutate;
    case kPreBind: return &p.pre_bind;
    case kBind: return &p.bind;
    case kPostBind: return &p.post_bind;
    default: return nullptr;
  }
}

// An insertion-ordered set of names.
struct OrderedNames {
  std::vector<std::string> list;
  bool has(const std::string& s) const {
    return std::find(list.begin(), list.end(), s) != list.end();
  }
  void insert(const std::string& s) {
    if (!has(s)) list.push_back(s);
  }
};

}  // namespace

const std::vector<std::string>& extension_point_names() {
  static const std::vector<std::string> kNames = {
      "preEnqueue", "queueSort", "preFilter", "filter",  "postFilter", "preScore", "score",
      "reserve",    "permit",    "mutate",    "preBind", "bind",       "postBind"};
  return kNames;
}

const std::vector<DefaultPlugin>& default_multipoint_plugins() {
  // pkg/scheduler/apis/config/v1/default_plugins.go (v1.34), with DynamicResources inserted before
  // DefaultPreemption because the DynamicResourceAllocation gate is on by default (GA).
  static const std::vector<DefaultPlugin> kDefaults = {
      {"SchedulingGates", 0},
      {"PrioritySort", 0},
      {"NodeUnschedulable", 0},
      {"NodeName", 0},
      {"TaintToleration", 3},
      {"NodeAffinity", 2},
      {"NodePorts", 0},
      {"NodeResourcesFit", 1},
      {"VolumeRestrictions", 0},
      {"NodeVolumeLimits", 0},
      {"VolumeBinding", 0},
      {"VolumeZone", 0},
      {"PodTopologySpread", 2},
      {"InterPodAffinity", 2},
      {"DynamicResources", 0},
      {"DefaultPreemption", 0},
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"DefaultBinder", 0},
  };
  return kDefaults;
}

SchedulerConfig parse_scheduler_config(const std::string& text, const std::string& source) {
  Ctx root{source, yaml::parse_document(text, source), "", 1};
  if (!root.defined()) root.fail("empty configuration: expected a KubeSchedulerConfiguration");
  root.expect_map();
  check_keys(root,
             {"apiVersion", "kind", "percentageOfNodesToScore", "podInitialBackoffSeconds",
              "podMaxBackoffSeconds", "profiles", "parallelism", "leaderElection",
              "clientConnection", "healthzBindAddress", "metricsBindAddress", "enableProfiling",
              "enableContentionProfiling", "extenders", "delayCacheUntilActive"});
  SchedulerConfig cfg;
  cfg.source = source;
  if (root.has("apiVersion") && root.child("apiVersion").str() != kApiVersion) {
    root.child("apiVersion").fail(std::string("expected ") + kApiVersion);
  }
  if (root.has("kind") && root.child("kind").str() != "KubeSchedulerConfiguration") {
    root.child("kind").fail("expected KubeSchedulerConfiguration");
  }
  if (root.has("percentageOfNodesToScore")) {
    cfg.percentage_of_nodes_to_score = percentage(root.child("percentageOfNodesToScore"));
  }
  // Backoffs become microseconds (queue_options): larger values would overflow int64.
  constexpr int64_t kMaxBackoffSeconds = std::numeric_limits<int64_t>::max() / 1'000'000;
  auto backoff = [&](const char* key) {
    Ctx c = root.child(key);
    const int64_t v = c.i64();
    if (v > kMaxBackoffSeconds)
      c.fail("must be at most " + std::to_string(kMaxBackoffSeconds) + " seconds");
    return v;
  };
  if (root.has("podInitialBackoffSeconds")) {
    cfg.pod_initial_backoff_seconds = backoff("podInitialBackoffSeconds");
    if (cfg.pod_initial_backoff_seconds <= 0)
      root.child("podInitialBackoffSeconds").fail("must be greater than 0");
  }
  if (root.has("podMaxBackoffSeconds")) {
    cfg.pod_max_backoff_seconds = backoff("podMaxBackoffSeconds");
  }
  // Upstream validates after defaulting: an initial backoff above the default maximum (10 s)
  // without a maximum is an error too.
  if (cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds) {
    (root.has("podMaxBackoffSeconds") ? root.child("podMaxBackoffSeconds")
                                      : root.child("podInitialBackoffSeconds"))
        .fail("podMaxBackoffSeconds (" + std::to_string(cfg.pod_max_backoff_seconds) +
              ") must be greater than or equal to podInitialBackoffSeconds (" +
              std::to_string(cfg.pod_initial_backoff_seconds) + ")");
  }
  if (root.has("extenders")) {
    Ctx e = root.child("extenders");
    e.expect_seq();
    if (e.size() > 0) e.fail("scheduler extenders are not supported by orrery");
  }
  Ctx profiles = root.child("profiles");
  if (profiles.defined()) {
    profiles.expect_seq();
    std::set<std::string> names;
    for (size_t i = 0; i < profiles.size(); ++i) {
      ProfileConfig p = read_profile(profiles.item(i));
      if (!names.insert(p.scheduler_name).second) {
        profiles.item(i).fail("duplicate schedulerName \"" + p.scheduler_name + "\"");
      }
      cfg.profiles.push_back(std::move(p));
    }
  }
  if (cfg.profiles.empty()) cfg.profiles.emplace_back();
  return cfg;
}

SchedulerConfig load_scheduler_config(const std::string& path) {
  return parse_scheduler_config(read_text_file(path), path);
}

SchedulerConfig default_scheduler_config() {
  SchedulerConfig cfg;
  cfg.source = "(default configuration)";
  cfg.profiles.emplace_back();
  return cfg;
}

SchedulerConfig config_or_builtin(const std::string& path, const std::string& scheduler_name,
                                  const std::function<SchedulerConfig()>& builtin) {
  if (!path.empty()) return load_scheduler_config(path);
  SchedulerConfig c = builtin();
  if (!scheduler_name.empty())
    for (ProfileConfig& p : c.profiles) p.scheduler_name = scheduler_name;
  return c;
}

QueueOptions queue_options(const SchedulerConfig& config) {
  QueueOptions q;
  q.initial_backoff_us = config.pod_initial_backoff_seconds * 1'000'000;
  q.max_backoff_us = config.pod_max_backoff_seconds * 1'000'000;
  return q;
}

namespace {

// The plugin set a profile configures for an extension point (or multiPoint), or nullptr.
const PluginSet* find_set(const ProfileConfig& config, const std::string& point) {
  auto it = config.plugins.find(point);
  return it == config.plugins.end() ? nullptr : &it->second;
}

// A plugin name the registry does not know: an error that lists the known ones.
[[noreturn]] void unknown_plugin(const PluginRegistry& registry, const std::string& where,
                                 const std::string& name) {
  std::string known;
  for (const auto& n : registry.names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(where + ": unknown plugin \"" + name + "\" (known: " + known + ")");
}

// The plugins of one profile, each instantiated once (into the profile) in first-mention order.
// Plugins the registry accepts but orrery does not model get no instance, and a warning when the
// user names them.
class PluginInstances {
 public:
  PluginInstances(const ProfileConfig& config, const PluginRegistry& registry, Profile& prof,
                  std::vector<std::string>* warnings)
      : config_(config),
        registry_(registry),
        prof_(prof),
        warnings_(warnings),
        who_("profile \"" + config.scheduler_name + "\"") {}

  // Instantiates a plugin the profile names (`explicit_`: by the user, not as a default) unless
  // it already was.
  void instantiate(const std::string& name, const std::string& where, bool explicit_) {
    if (!registry_.has(name)) unknown_plugin(registry_, where, name);
    if (instances_.count(name) || not_modelled_.count(name)) {
      if (explicit_ && not_modelled_.count(name) && warned_.insert(name).second && warnings_) {
        warnings_->push_back(who_ + ": plugin " + name +
                             " is accepted but not modelled by orrery; it has no effect");
      }
      return;
    }
    PluginArgs args;
    args.profile = config_.scheduler_name;
    args.deterministic = config_.deterministic_ties;
    args.handle = prof_.handle.get();
    auto a = config_.plugin_args.find(name);
    if (a != config_.plugin_args.end()) {
      args.args = a->second;
    } else {
      args.args = Ctx{where, YAML::Node(), "pluginConfig[" + name + "].args", 0};
    }
    std::unique_ptr<Plugin> p = registry_.create(name, args);
    if (!p) {
      not_modelled_.insert(name);
      if (explicit_ && warned_.insert(name).second && warnings_) {
        warnings_->push_back(who_ + ": plugin " + name +
                             " is accepted but not modelled by orrery; it has no effect");
      }
      return;
    }
    instances_[name] = p.get();
    prof_.plugins.push_back(std::move(p));
  }

  // pluginConfig: unknown names are errors; arguments of known plugins that are not enabled are
  // still validated (as upstream validates every in-tree plugin's args).
  void check_plugin_config() {
    for (const auto& [name, where] : config_.plugin_args_where) {
      if (!registry_.has(name)) unknown_plugin(registry_, where, name);
      if (!instances_.count(name) && !not_modelled_.count(name)) {
        PluginArgs args{config_.plugin_args.at(name), config_.scheduler_name,
                        config_.deterministic_ties, prof_.handle.get()};
        registry_.create(name, args);
      } else if (not_modelled_.count(name) && warned_.insert(name).second && warnings_) {
        warnings_->push_back(who_ + ": pluginConfig for " + name +
                             " is accepted but not modelled by orrery; it has no effect");
      }
    }
  }

  bool has(const std::string& name) const { return instances_.count(name) != 0; }
  Plugin* at(const std::string& name) const { return instances_.at(name); }
  bool implements(const std::string& name, uint32_t bit) const {
    return (instances_.at(name)->extension_points() & bit) != 0;
  }

 private:
  const ProfileConfig& config_;
  const PluginRegistry& registry_;
  Profile& prof_;
  std::vector<std::string>* warnings_;
  const std::string who_;
  std::map<std::string, Plugin*> instances_;
  std::set<std::string> not_modelled_;
  std::set<std::string> warned_;
};

// Instantiates every plugin the profile names: the multiPoint expansion, then each extension
// point's enabled plugins (disabled ones must be known too), then checks pluginConfig.
void instantiate_plugins(PluginInstances& instances, const ProfileConfig& config,
                         const PluginRegistry& registry,
                         const std::vector<PluginSetting>& multipoint) {
  const PluginSet* custom_mp = find_set(config, kMultiPoint);
  auto is_custom_mp = [&](const std::string& name) {
    if (!custom_mp) return false;
    for (const auto& e : custom_mp->enabled)
      if (e.name == name) return true;
    return false;
  };
  for (const PluginSetting& s : multipoint) {
    instances.instantiate(s.name, s.where, is_custom_mp(s.name));
  }
  for (const std::string& point : extension_point_names()) {
    if (const PluginSet* ps = find_set(config, point)) {
      for (const PluginSetting& s : ps->enabled) instances.instantiate(s.name, s.where, true);
      for (const PluginSetting& s : ps->disabled)
        if (s.name != "*" && !registry.has(s.name)) unknown_plugin(registry, s.where, s.name);
    }
  }
  if (custom_mp) {
    for (const PluginSetting& s : custom_mp->disabled)
      if (s.name != "*" && !registry.has(s.name)) unknown_plugin(registry, s.where, s.name);
  }
  instances.check_plugin_config();
}

// The plugins of one extension point (`bit`): its own enabled list plus the multiPoint expansion,
// minus its disabled ones; enabled plugins that multiPoint also names take multiPoint's place.
OrderedNames point_plugins(const PluginInstances& instances, const PluginSet* ps,
                           const std::vector<PluginSetting>& multipoint, const std::string& point,
                           uint32_t bit) {
  OrderedNames enabled;
  std::set<std::string> disabled;
  if (ps) {
    for (const PluginSetting& s : ps->enabled) {
      if (!instances.has(s.name)) continue;  // accepted but not modelled
      if (!instances.implements(s.name, bit)) {
        throw InputError(s.where + ": plugin \"" + s.name + "\" does not extend " + point +
                         " plugin");
      }
      if (enabled.has(s.name)) {
        throw InputError(s.where + ": plugin \"" + s.name + "\" already registered as " + point +
                         " plugin");
      }
      enabled.insert(s.name);
    }
    for (const PluginSetting& s : ps->disabled) disabled.insert(s.name);
  }
  if (disabled.count("*")) return enabled;
  OrderedNames from_mp, overrides;
  for (const PluginSetting& s : multipoint) {
    if (!instances.has(s.name) || !instances.implements(s.name, bit) || disabled.count(s.name)) {
      continue;
    }
    if (enabled.has(s.name)) {
      overrides.insert(s.name);
      continue;
    }
    if (from_mp.has(s.name)) {
      throw InputError(s.where + ": plugin \"" + s.name + "\" already registered as " + point +
                       " plugin");
    }
    from_mp.insert(s.name);
  }
  OrderedNames final_list;
  for (const auto& n : enabled.list)
    if (overrides.has(n)) final_list.insert(n);
  for (const auto& n : from_mp.list) final_list.insert(n);
  for (const auto& n : enabled.list) final_list.insert(n);
  return final_list;
}

// Fills each extension point of the profile from the instances (point_plugins). Returns the names
// of the score plugins, parallel to prof.score.
std::vector<std::string> assemble_points(Profile& prof, const PluginInstances& instances,
                                         const ProfileConfig& config,
                                         const std::vector<PluginSetting>& multipoint) {
  std::vector<std::string> score_names;
  for (const std::string& point : extension_point_names()) {
    const uint32_t bit = point_bit(point);
    if (bit == 0) continue;
    const OrderedNames final_list =
        point_plugins(instances, find_set(config, point), multipoint, point, bit);
    if (bit == kQueueSort) {
      if (final_list.list.size() != 1) {
        throw InputError(config.where +
                         ": only one queue sort plugin required for profile with "
                         "scheduler name \"" +
                         config.scheduler_name + "\", but got " +
                         std::to_string(final_list.list.size()));
      }
      prof.queue_sort = instances.at(final_list.list[0]);
    } else if (bit == kScore) {
      for (const auto& n : final_list.list) {
        prof.score.push_back({instances.at(n), 0});
        score_names.push_back(n);
      }
    } else {
      std::vector<Plugin*>* list = point_list(prof, bit);
      for (const auto& n : final_list.list) list->push_back(instances.at(n));
    }
  }
  if (prof.bind.empty()) {
    throw InputError(config.where +
                     ": at least one bind plugin is needed for profile with "
                     "scheduler name \"" +
                     config.scheduler_name + "\"");
  }
  return score_names;
}

// Score weights (upstream getScoreWeights): score.enabled first, then multiPoint; 0 means 1.
void set_score_weights(Profile& prof, const ProfileConfig& config,
                       const std::vector<PluginSetting>& multipoint,
                       const std::vector<std::string>& score_names) {
  std::map<std::string, int64_t> weights;
  auto take_weights = [&](const std::vector<PluginSetting>& list) {
    for (const PluginSetting& s : list)
      if (!weights.count(s.name)) weights[s.name] = s.weight == 0 ? 1 : s.weight;
  };
  if (const PluginSet* ps = find_set(config, "score")) take_weights(ps->enabled);
  take_weights(multipoint);
  for (size_t i = 0; i < prof.score.size(); ++i) prof.score[i].weight = weights.at(score_names[i]);
}

}  // namespace

std::unique_ptr<Profile> build_profile(const ProfileConfig& config, int global_percentage,
                                       const PluginRegistry& registry,
                                       std::vector<std::string>* warnings, Runtime* runtime) {
  auto prof = std::make_unique<Profile>();
  prof->handle = std::make_unique<FrameworkRunner>(runtime, prof.get());
  prof->scheduler_name = config.scheduler_name;
  prof->percentage_of_nodes_to_score = config.percentage_of_nodes_to_score >= 0
                                           ? config.percentage_of_nodes_to_score
                                           : global_percentage;
  prof->deterministic_ties = config.deterministic_ties;
  const std::vector<PluginSetting> multipoint = merge_multipoint(find_set(config, kMultiPoint));
  // Instantiate every plugin the profile names, in first-mention order.
  PluginInstances instances(config, registry, *prof, warnings);
  instantiate_plugins(instances, config, registry, multipoint);
  // Each extension point: its own enabled list plus the multiPoint expansion.
  const std::vector<std::string> score_names =
      assemble_points(*prof, instances, config, multipoint);
  set_score_weights(*prof, config, multipoint, score_names);
  return prof;
}

}  // namespace orrery::fw
