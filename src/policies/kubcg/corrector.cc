#include "policies/kubcg/corrector.h"

#include <algorithm>

namespace orrery::kubcg {

const char* to_string(Technique t) {
  switch (t) {
    case Technique::kMin: return "MIN";
    case Technique::kAvg: return "AVG";
    case Technique::kMax: return "MAX";
    case Technique::kAddMin: return "+MIN";
    case Technique::kUnknown: return "unknown";
  }
  return "?";
}

Estimate correct_once(const Estimate& previous, const StatsCache::Entry& stats) {
  switch (previous.technique) {
    case Technique::kMin: return {Technique::kAvg, stats.avg_s()};
    case Technique::kAvg: return {Technique::kMax, stats.max_s};
    default: return {Technique::kAddMin, previous.ed_s + stats.min_s};
  }
}

Estimate initial_estimate(const StatsCache::Entry* stats) {
  if (!stats || stats->count == 0) return {Technique::kUnknown, 0};
  return {Technique::kMin, stats->min_s};
}

void EpTable::refresh_et(EpEntry& e, double now_s) {
  if (e.estimate.technique == Technique::kUnknown) {
    e.et_s = now_s + std::max(1.0, now_s - e.start_s);  // as long again as so far
  } else {
    e.et_s = e.start_s + e.estimate.ed_s * e.stretch;
  }
}

void EpTable::add(uint64_t serial, EpEntry e) {
  refresh_et(e, e.start_s);
  entries_[serial] = std::move(e);
}

void EpTable::started(uint64_t serial, double now_s) {
  auto it = entries_.find(serial);
  if (it == entries_.end()) return;
  it->second.start_s = now_s;
  refresh_et(it->second, now_s);
}

const EpEntry* EpTable::find(uint64_t serial) const {
  auto it = entries_.find(serial);
  return it == entries_.end() ? nullptr : &it->second;
}

int EpTable::correct(double now_s) {
  int n = 0;
  for (auto& [serial, e] : entries_) {
    if (e.estimate.technique == Technique::kUnknown) {
      if (now_s >= e.et_s) refresh_et(e, now_s), ++n;
      continue;
    }
    // MIN_ED may be 0 in a degenerate history; the loop must still end.
    const double step = std::max(e.stats.min_s, 1e-3);
    while (now_s >= e.et_s) {
      if (e.estimate.technique == Technique::kAddMin || e.estimate.technique == Technique::kMax) {
        // +MIN as many times as it takes, at once (a long-overdue pod costs no loop).
        const double per = step * e.stretch;
        const int k = static_cast<int>((now_s - e.et_s) / per) + 1;
        e.estimate = {Technique::kAddMin, e.estimate.ed_s + k * step};
        refresh_et(e, now_s);
        e.corrections += k;
        n += k;
        continue;
      }
      e.estimate = correct_once(e.estimate, e.stats);
      if (e.estimate.technique == Technique::kAddMin && e.stats.min_s < step)
        e.estimate.ed_s += step - e.stats.min_s;
      refresh_et(e, now_s);
      ++e.corrections;
      ++n;
    }
  }
  return n;
}

}  // namespace orrery::kubcg
