#include "policies/kubedsm/options.h"

#include <cmath>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "core/error.h"

namespace orrery::kubedsm {

void Options::validate() const {
  core.validate();
  if (batch_window_us < 0) throw InputError("kubedsm: batchWindow must not be negative");
  if (max_batch < 1 || max_batch > 64)
    throw InputError(fmt::format("kubedsm: maxBatch must be in [1, 64]; got {}", max_batch));
  if (suggest_period_us <= 0 || resync_period_us <= 0)
    throw InputError("kubedsm: suggestPeriod and resyncPeriod must be positive");
  if (step_timeout_us < 0) throw InputError("kubedsm: stepTimeout must not be negative");
  if (!(default_qos >= 0 && default_qos <= 1))
    throw InputError(fmt::format("kubedsm: defaultQosTarget {} is outside [0, 1]", default_qos));
  for (const auto& [name, q] : qos_targets)
    if (!(q >= 0 && q <= 1))
      throw InputError(fmt::format("kubedsm: qosTargets.{}: {} is outside [0, 1]", name, q));
}

int64_t parse_duration_us(const yaml::Ctx& c) {
  const std::string text = c.str();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str())
    c.fail(fmt::format("expected a duration (e.g. 1.5s, 500ms, 2m), got \"{}\"", text));
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1e6;
  else if (unit == "ms")
    scale = 1e3;
  else if (unit == "m")
    scale = 60e6;
  else
    c.fail(fmt::format("unknown duration unit \"{}\" (use ms, s or m)", unit));
  if (!(v >= 0) || !std::isfinite(v))
    c.fail(fmt::format("expected a non-negative duration, got \"{}\"", text));
  return static_cast<int64_t>(std::llround(v * scale));
}

namespace {

// Fails on the first key of `args` that is not a KubeDSM setting.
void check_known_keys(const yaml::Ctx& args) {
  static const std::set<std::string> known = {"mC2E",
                                              "mER",
                                              "alpha",
                                              "beta",
                                              "gamma",
                                              "suggestBudget",
                                              "migration",
                                              "waitForRunning",
                                              "batchWindow",
                                              "maxBatch",
                                              "suggestPeriod",
                                              "resyncPeriod",
                                              "stepTimeout",
                                              "schedulerName",
                                              "defaultQosTarget",
                                              "qosTargets",
                                              "boundedCloud",
                                              "fitCheck",
                                              "qosFunction",
                                              "fragmentation",
                                              "podSize",
                                              "lastPod",
                                              "reorderWithoutCandidates",
                                              "abandonMigrations"};
  for (const std::string& k : args.keys())
    if (!known.count(k))
      args.child(k).fail(
          "unknown KubeDSM setting (known: mC2E, mER, alpha, beta, gamma, "
          "suggestBudget, fitCheck, qosFunction, fragmentation, podSize, lastPod, "
          "reorderWithoutCandidates, abandonMigrations, migration, "
          "waitForRunning, boundedCloud, batchWindow, maxBatch, "
          "suggestPeriod, resyncPeriod, stepTimeout, schedulerName, "
          "defaultQosTarget, qosTargets)");
}

// An integer setting in [lo, hi], `def` when absent.
int int_in(const yaml::Ctx& args, const char* key, int lo, int hi, int def) {
  if (!args.has(key)) return def;
  const yaml::Ctx c = args.child(key);
  const int64_t v = c.i64();
  if (v < lo || v > hi) c.fail(fmt::format("expected an integer in [{}, {}], got {}", lo, hi, v));
  return static_cast<int>(v);
}

// A string setting with a fixed set of values.
std::string choice(const yaml::Ctx& args, const char* key,
                   std::initializer_list<const char*> values) {
  const yaml::Ctx c = args.child(key);
  const std::string v = c.str();
  std::string list;
  for (const char* x : values) {
    if (v == x) return v;
    list += fmt::format("{}\"{}\"", list.empty() ? "" : " or ", x);
  }
  c.fail(fmt::format("expected {}, got \"{}\"", list, v));
  return v;
}

// A QoS target in [0, 1].
double qos_target(const yaml::Ctx& c) {
  const double q = c.f64();
  if (!(q >= 0 && q <= 1)) c.fail(fmt::format("expected a QoS target in [0, 1], got {}", q));
  return q;
}

// Reads the settings of the algorithms (Config), mC2E through reorderWithoutCandidates.
void parse_core(const yaml::Ctx& args, Config& core) {
  core.m_c2e = int_in(args, "mC2E", 0, 20, core.m_c2e);
  core.m_er = int_in(args, "mER", 0, 6, core.m_er);
  core.qos.alpha = args.f64_or("alpha", core.qos.alpha);
  core.qos.beta = args.f64_or("beta", core.qos.beta);
  core.qos.gamma = args.f64_or("gamma", core.qos.gamma);
  if (args.has("suggestBudget")) {
    const yaml::Ctx c = args.child("suggestBudget");
    const std::string v = c.str();
    if (v == "reclaimable")
      core.suggest_budget = SuggestBudget::kReclaimable;
    else if (v == "free")
      core.suggest_budget = SuggestBudget::kFree;
    else
      c.fail(fmt::format("expected \"reclaimable\" or \"free\", got \"{}\"", v));
  }
  if (args.has("fitCheck")) {
    const yaml::Ctx c = args.child("fitCheck");
    const std::string v = c.str();
    if (v == "approximate")
      core.fit_check = FitCheck::kApproximate;
    else if (v == "exact")
      core.fit_check = FitCheck::kExact;
    else
      c.fail(fmt::format("expected \"approximate\" or \"exact\", got \"{}\"", v));
  }
  if (args.has("qosFunction"))
    core.qos.shape = choice(args, "qosFunction", {"linear", "sqrt"}) == "sqrt" ? QosShape::kSqrt
                                                                               : QosShape::kLinear;
  if (args.has("fragmentation"))
    core.frag = choice(args, "fragmentation", {"minedraft", "orrery"}) == "orrery"
                    ? FragFormula::kOrrery
                    : FragFormula::kMineDraft;
  if (args.has("podSize"))
    core.pod_size =
        choice(args, "podSize", {"eq11", "ecmus"}) == "ecmus" ? PodSize::kEcmus : PodSize::kEq11;
  core.last_pod = args.bool_or("lastPod", core.last_pod);
  core.reorder_without_candidates =
      args.bool_or("reorderWithoutCandidates", core.reorder_without_candidates);
}

// Reads the settings of running KubeDSM, abandonMigrations through qosTargets.
void parse_runtime(const yaml::Ctx& args, Options& o) {
  o.abandon_migrations = args.bool_or("abandonMigrations", o.abandon_migrations);
  if (args.has("migration")) {
    const yaml::Ctx c = args.child("migration");
    const std::string v = c.str();
    if (v == "delete-first")
      o.migration = MigrationStyle::kDeleteFirst;
    else if (v == "create-first")
      o.migration = MigrationStyle::kCreateFirst;
    else
      c.fail(fmt::format("expected \"delete-first\" or \"create-first\", got \"{}\"", v));
  }
  o.wait_running = args.bool_or("waitForRunning", o.wait_running);
  o.bounded_cloud = args.bool_or("boundedCloud", o.bounded_cloud);
  if (args.has("batchWindow")) o.batch_window_us = parse_duration_us(args.child("batchWindow"));
  o.max_batch = static_cast<size_t>(int_in(args, "maxBatch", 1, 64, static_cast<int>(o.max_batch)));
  if (args.has("suggestPeriod"))
    o.suggest_period_us = parse_duration_us(args.child("suggestPeriod"));
  if (args.has("resyncPeriod")) o.resync_period_us = parse_duration_us(args.child("resyncPeriod"));
  if (args.has("stepTimeout")) o.step_timeout_us = parse_duration_us(args.child("stepTimeout"));
  o.scheduler_name = args.str_or("schedulerName", o.scheduler_name);
  if (args.has("defaultQosTarget")) o.default_qos = qos_target(args.child("defaultQosTarget"));
  if (args.has("qosTargets")) {
    const yaml::Ctx t = args.child("qosTargets");
    t.expect_map();
    for (const std::string& k : t.keys()) o.qos_targets[k] = qos_target(t.child(k));
  }
}

}  // namespace

Options parse_options(const yaml::Ctx& args) {
  Options o;
  if (!args.defined()) return o;
  args.expect_map();
  check_known_keys(args);
  parse_core(args, o.core);
  parse_runtime(args, o);
  try {
    o.validate();
  } catch (const InputError& e) {
    args.fail(e.what());
  }
  return o;
}

}  // namespace orrery::kubedsm
