#include "sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace orrery::sim {

double percentile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (sorted.size() == 1) return sorted[0];
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Stats summarize(std::vector<double> values) {
  Stats s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // Pairwise-stable mean: sum in sorted order.
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  s.p50 = percentile_sorted(values, 50);
  s.p90 = percentile_sorted(values, 90);
  s.p99 = percentile_sorted(values, 99);
  s.max = values.back();
  return s;
}

Json jobs_summary(const std::vector<JobRecord>& jobs) {
  std::vector<double> delays;
  delays.reserve(jobs.size());
  for (const JobRecord& j : jobs) delays.push_back(j.delay_s());
  Stats s = summarize(std::move(delays));
  Json out;
  out["count"] = s.count;
  out["delay_p50_s"] = s.p50;
  out["delay_p90_s"] = s.p90;
  out["delay_p99_s"] = s.p99;
  out["delay_mean_s"] = s.mean;
  return out;
}

std::string fmt_double(double v) {
  if (std::isnan(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string jobs_csv(const std::vector<JobRecord>& jobs) {
  std::string out = "job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short\n";
  out.reserve(out.size() + jobs.size() * 48);
  for (const JobRecord& j : jobs) {
    out += std::to_string(j.id);
    out += ',';
    out += fmt_double(to_seconds(j.arrival));
    out += ',';
    out += std::to_string(j.tasks);
    out += ',';
    out += fmt_double(to_seconds(j.ideal));
    out += ',';
    out += fmt_double(j.jrt_s());
    out += ',';
    out += fmt_double(j.delay_s());
    out += ',';
    out += j.short_job ? '1' : '0';
    out += '\n';
  }
  return out;
}

}  // namespace orrery::sim
