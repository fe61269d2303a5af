#include "sim/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace orrery::sim {

Json jobs_summary(const std::vector<JobRecord>& jobs) {
  std::vector<double> delays;
  delays.reserve(jobs.size());
  for (const JobRecord& j : jobs) delays.push_back(j.delay_s());
  Stats s = summarize(std::move(delays));
  Json out;
  out["count"] = s.count;
  out["delay_p50_s"] = number_or_null(s.p50);
  out["delay_p90_s"] = number_or_null(s.p90);
  out["delay_p99_s"] = number_or_null(s.p99);
  out["delay_mean_s"] = number_or_null(s.mean);
  return out;
}

std::string jobs_csv(const std::vector<JobRecord>& jobs) {
  std::string out = "job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short\n";
  out.reserve(out.size() + jobs.size() * 48);
  for (const JobRecord& j : jobs) {
    out += std::to_string(j.id);
    out += ',';
    append_seconds(out, j.arrival);
    out += ',';
    out += std::to_string(j.tasks);
    out += ',';
    append_seconds(out, j.ideal);
    out += ',';
    append_seconds(out, j.finish - j.arrival);
    out += ',';
    append_seconds(out, j.finish - j.arrival - j.ideal);
    out += ',';
    out += j.short_job ? '1' : '0';
    out += '\n';
  }
  return out;
}

}  // namespace orrery::sim
