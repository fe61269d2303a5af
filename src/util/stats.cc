#include "util/stats.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace orrery {

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

}  // namespace orrery
