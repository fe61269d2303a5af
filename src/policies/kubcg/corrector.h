// The estimated-pod (EP) table and the estimator corrector (§5.3.2 step 3, Algorithm 2).
//
// Every pod KubCG placed has an estimated duration ED and completion time ET = start + ED·stretch
// (stretch: the slowdown Θ expected when it was placed, 1 on an idle node or a GPU). ED starts
// at the minimum of the history (MIN_ED). When the current time CT passes ET the corrector moves
// ED to AVG_ED, then to MAX_ED, then adds MIN_ED each time it is exceeded again. Pods without
// history are estimated to run as long again as they have run so far.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "policies/kubcg/history.h"

namespace orrery::kubcg {

enum class Technique : uint8_t { kMin, kAvg, kMax, kAddMin, kUnknown };
const char* to_string(Technique t);

struct Estimate {
  Technique technique = Technique::kMin;
  double ed_s = 0;  // estimated duration (solo)
};

// Algorithm 2, one step: the estimate after CT exceeded the previous one.
Estimate correct_once(const Estimate& previous, const StatsCache::Entry& stats);
// The first estimate (MIN_ED), or kUnknown without history.
Estimate initial_estimate(const StatsCache::Entry* stats);

struct EpEntry {
  std::string image;
  std::string node;
  Resource resource = Resource::kCpu;
  double start_s = 0;  // when it was placed (or started running, once known)
  double stretch = 1;  // expected slowdown from sharing (Θ at placement)
  Estimate estimate;
  StatsCache::Entry stats;  // the history it was estimated from (count 0: none)
  double et_s = 0;          // ET: estimated completion
  int corrections = 0;
};

class EpTable {
 public:
  // Adds (or replaces) the entry of pod `serial`.
  void add(uint64_t serial, EpEntry e);
  void started(uint64_t serial, double now_s);  // the pod started running: ET from now
  void remove(uint64_t serial) { entries_.erase(serial); }
  const EpEntry* find(uint64_t serial) const;
  // The estimator corrector: every entry whose ET is past `now_s` is corrected (Algorithm 2,
  // repeated until ET > now). Returns the number of corrections made.
  int correct(double now_s);
  size_t size() const { return entries_.size(); }

 private:
  static void refresh_et(EpEntry& e, double now_s);
  std::unordered_map<uint64_t, EpEntry> entries_;
};

}  // namespace orrery::kubcg
