#include "sim/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace orrery::sim {

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

void append_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  char buf[32];
  // Same text as printf("%.9g"), without printf's cost.
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
  out.append(buf, r.ptr);
}

std::string fmt_double(double v) {
  std::string out;
  append_double(out, v);
  return out;
}

void append_seconds(std::string& out, Time t) {
  if (t < 0) {
    out += '-';
    t = -t;
  }
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, t / kSecond);
  out.append(buf, r.ptr);
  int64_t frac = t % kSecond;
  if (frac == 0) return;
  char digits[7] = {'.', '0', '0', '0', '0', '0', '0'};
  int len = 7;
  for (int i = 6; i >= 1; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  while (digits[len - 1] == '0') --len;
  out.append(digits, static_cast<size_t>(len));
}

std::string fmt_seconds(Time t) {
  std::string out;
  append_seconds(out, t);
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
