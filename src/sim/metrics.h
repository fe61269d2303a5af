// Shared run metrics: distributions with numpy-compatible percentiles, per-job records (the
// Megha/PigeonC delay metric), and their summary.json / CSV forms. Every simulation mode
// (scenarios, trace replay, federated architectures) reports through these so summaries agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "sim/event_loop.h"

namespace orrery::sim {

using Json = nlohmann::ordered_json;  // keeps key order: byte-stable output

using orrery::percentile_sorted;  // core/stats.h: numpy's default (linear) percentiles

struct Stats {
  size_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
Stats summarize(std::vector<double> values);

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

// {"count","delay_p50_s","delay_p90_s","delay_p99_s","delay_mean_s"} over the given jobs.
Json jobs_summary(const std::vector<JobRecord>& jobs);
// jobs.csv: job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short
std::string jobs_csv(const std::vector<JobRecord>& jobs);

// Formats a double for CSV with up to 9 significant digits (printf's %.9g), deterministic across
// platforms.
std::string fmt_double(double v);
void append_double(std::string& out, double v);
// Formats a time exactly as decimal seconds: 1500000 µs → "1.5", -250 µs → "-0.00025".
std::string fmt_seconds(Time t);
void append_seconds(std::string& out, Time t);

}  // namespace orrery::sim
