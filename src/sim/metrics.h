// Shared run metrics: distributions with numpy-compatible percentiles, per-job records (the
// Megha/PigeonC delay metric), and their summary.json / CSV forms. Every simulation mode
// (scenarios, trace replay, federated architectures) reports through these so summaries agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/json.h"
#include "sim/event_loop.h"
#include "util/stats.h"

namespace orrery::sim {

using orrery::Json;  // io/json.h
using orrery::number_or_null;

// util/stats.h: numpy's default (linear) percentiles, summaries and number formatting.
using orrery::append_double;
using orrery::append_seconds;
using orrery::fmt_double;
using orrery::fmt_seconds;
using orrery::percentile_sorted;
using orrery::Stats;
using orrery::summarize;

// One job: ideal JRT is its longest task; delay = actual JRT - ideal.
struct JobRecord {
  uint64_t id = 0;
  Time arrival = 0;
  Time ideal = 0;
  Time finish = 0;
  uint32_t tasks = 0;
  bool short_job = false;  // PigeonC's class (mean task duration < cutoff); false when unused

  double jrt_s() const { return to_seconds(finish - arrival); }
  double delay_s() const { return to_seconds(finish - arrival - ideal); }
};

// {"count","delay_p50_s","delay_p90_s","delay_p99_s","delay_mean_s"} over the given jobs; the
// statistics are null when there are no jobs.
Json jobs_summary(const std::vector<JobRecord>& jobs);
// jobs.csv: job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short
std::string jobs_csv(const std::vector<JobRecord>& jobs);

}  // namespace orrery::sim
