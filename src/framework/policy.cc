#include "framework/policy.h"

#include <algorithm>

#include "core/error.h"
#include "util/stats.h"
#include "util/suggest.h"

namespace orrery::fw {

SchedulerConfig policy_config(const PolicyContext& ctx,
                              const std::function<SchedulerConfig()>& builtin) {
  return config_or_builtin(ctx.scheduler_config, ctx.scheduler_name, builtin);
}

void PolicyStats::decision(bool scheduled, int64_t wall_ns, int pods) {
  ++decisions_;
  if (scheduled) {
    scheduled_ += static_cast<uint64_t>(pods);
  } else {
    failed_ += static_cast<uint64_t>(pods);
  }
  wall_ns_.push_back(wall_ns);
}

Json PolicyStats::summary(bool wall_clock) const {
  Json out;
  out["decisions"] = decisions_;
  out["scheduled"] = scheduled_;
  out["failed_attempts"] = failed_;
  std::vector<double> us;
  double total = 0;
  if (wall_clock) {
    us.reserve(wall_ns_.size());
    for (int64_t ns : wall_ns_) {
      us.push_back(static_cast<double>(ns) * 1e-3);
      total += static_cast<double>(ns) * 1e-9;
    }
  }
  Stats s = summarize(std::move(us));
  // Per-decision statistics of no decision are null; measured-away wall time is 0.
  auto per_decision = [&](double v) {
    if (wall_ns_.empty()) return Json(nullptr);
    return wall_clock ? number_or_null(v) : Json(0.0);
  };
  out["wall_total_s"] = total;
  out["wall_per_decision_mean_us"] = per_decision(s.mean);
  out["wall_per_decision_p50_us"] = per_decision(s.p50);
  out["wall_per_decision_p99_us"] = per_decision(s.p99);
  for (const auto& [k, v] : counters_) out[k] = v;
  return out;
}

void PolicyRegistry::add(const std::string& name, const std::string& description,
                         PolicyFactory factory) {
  entries_[name] = {description, std::move(factory)};
}

std::vector<std::string> PolicyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries_) out.push_back(k);
  return out;
}

const std::string& PolicyRegistry::description(const std::string& name) const {
  return entries_.at(name).description;
}

std::string PolicyRegistry::unknown(const std::string& name) const {
  std::string known;
  for (const auto& [k, v] : entries_) known += (known.empty() ? "" : ", ") + k;
  return "unknown scheduling policy \"" + name + "\"" + did_you_mean(name, names()) +
         " (known: " + (known.empty() ? "none" : known) + ")";
}

std::unique_ptr<Component> PolicyRegistry::create(const std::string& name,
                                                  PolicyContext& ctx) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw InputError(unknown(name));
  return it->second.factory(ctx);
}

}  // namespace orrery::fw
