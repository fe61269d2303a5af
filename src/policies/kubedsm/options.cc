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

Options parse_options(const yaml::Ctx& args) {
  Options o;
  if (!args.defined()) return o;
  args.expect_map();
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
  auto int_in = [&](const char* key, int lo, int hi, int def) {
    if (!args.has(key)) return def;
    const yaml::Ctx c = args.child(key);
    const int64_t v = c.i64();
    if (v < lo || v > hi) c.fail(fmt::format("expected an integer in [{}, {}], got {}", lo, hi, v));
    return static_cast<int>(v);
  };
  o.core.m_c2e = int_in("mC2E", 0, 20, o.core.m_c2e);
  o.core.m_er = int_in("mER", 0, 6, o.core.m_er);
  o.core.qos.alpha = args.f64_or("alpha", o.core.qos.alpha);
  o.core.qos.beta = args.f64_or("beta", o.core.qos.beta);
  o.core.qos.gamma = args.f64_or("gamma", o.core.qos.gamma);
  if (args.has("suggestBudget")) {
    const yaml::Ctx c = args.child("suggestBudget");
    const std::string v = c.str();
    if (v == "reclaimable")
      o.core.suggest_budget = SuggestBudget::kReclaimable;
    else if (v == "free")
      o.core.suggest_budget = SuggestBudget::kFree;
    else
      c.fail(fmt::format("expected \"reclaimable\" or \"free\", got \"{}\"", v));
  }
  if (args.has("fitCheck")) {
    const yaml::Ctx c = args.child("fitCheck");
    const std::string v = c.str();
    if (v == "approximate")
      o.core.fit_check = FitCheck::kApproximate;
    else if (v == "exact")
      o.core.fit_check = FitCheck::kExact;
    else
      c.fail(fmt::format("expected \"approximate\" or \"exact\", got \"{}\"", v));
  }
  // A string setting with a fixed set of values.
  auto choice = [&](const char* key, std::initializer_list<const char*> values) -> std::string {
    const yaml::Ctx c = args.child(key);
    const std::string v = c.str();
    std::string list;
    for (const char* x : values) {
      if (v == x) return v;
      list += fmt::format("{}\"{}\"", list.empty() ? "" : " or ", x);
    }
    c.fail(fmt::format("expected {}, got \"{}\"", list, v));
    return v;
  };
  if (args.has("qosFunction"))
    o.core.qos.shape =
        choice("qosFunction", {"linear", "sqrt"}) == "sqrt" ? QosShape::kSqrt : QosShape::kLinear;
  if (args.has("fragmentation"))
    o.core.frag = choice("fragmentation", {"minedraft", "orrery"}) == "orrery"
                      ? FragFormula::kOrrery
                      : FragFormula::kMineDraft;
  if (args.has("podSize"))
    o.core.pod_size =
        choice("podSize", {"eq11", "ecmus"}) == "ecmus" ? PodSize::kEcmus : PodSize::kEq11;
  o.core.last_pod = args.bool_or("lastPod", o.core.last_pod);
  o.core.reorder_without_candidates =
      args.bool_or("reorderWithoutCandidates", o.core.reorder_without_candidates);
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
  o.max_batch = static_cast<size_t>(int_in("maxBatch", 1, 64, static_cast<int>(o.max_batch)));
  if (args.has("suggestPeriod"))
    o.suggest_period_us = parse_duration_us(args.child("suggestPeriod"));
  if (args.has("resyncPeriod")) o.resync_period_us = parse_duration_us(args.child("resyncPeriod"));
  if (args.has("stepTimeout")) o.step_timeout_us = parse_duration_us(args.child("stepTimeout"));
  o.scheduler_name = args.str_or("schedulerName", o.scheduler_name);
  auto target = [](const yaml::Ctx& c) {
    const double q = c.f64();
    if (!(q >= 0 && q <= 1)) c.fail(fmt::format("expected a QoS target in [0, 1], got {}", q));
    return q;
  };
  if (args.has("defaultQosTarget")) o.default_qos = target(args.child("defaultQosTarget"));
  if (args.has("qosTargets")) {
    const yaml::Ctx t = args.child("qosTargets");
    t.expect_map();
    for (const std::string& k : t.keys()) o.qos_targets[k] = target(t.child(k));
  }
  try {
    o.validate();
  } catch (const InputError& e) {
    args.fail(e.what());
  }
  return o;
}

}  // namespace orrery::kubedsm
