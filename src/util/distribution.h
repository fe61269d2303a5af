// Seeded random durations and amounts for scenario parameters (lifecycle delays, task work,
// inter-arrival times, usage). A Dist is a small value type; sampling draws from a caller-owned
// Rng so each component keeps its own stream (Rng::derive) and adding one does not perturb others.
//
// Scenario syntax (docs/scenarios.md):
//   2s | 500ms | 1.5            constant (a bare number is seconds for durations)
//   {dist: constant, value: 2s}
//   {dist: uniform, min: 1s, max: 3s}
//   {dist: normal, mean: 2s, sd: 500ms}            truncated at 0 (negative draws become 0)
//   {dist: lognormal, median: 1s, sigma: 0.5}      (mu = ln(median))
//   {dist: exponential, mean: 10s}
#pragma once

#include <cstdint>
#include <string>

#include "core/rng.h"
#include "core/time.h"

namespace orrery {

struct Dist {
  enum class Kind : uint8_t { kConstant, kUniform, kNormal, kLognormal, kExponential };
  Kind kind = Kind::kConstant;
  // kConstant: a = value; kUniform: [a, b]; kNormal: mean a, sd b; kLognormal: median a (=e^mu),
  // sigma b; kExponential: mean a. Units are the caller's (µs for durations).
  double a = 0, b = 0;

  static Dist constant(double v) { return {Kind::kConstant, v, 0}; }
  static Dist uniform(double lo, double hi) { return {Kind::kUniform, lo, hi}; }
  static Dist normal(double mean, double sd) { return {Kind::kNormal, mean, sd}; }
  static Dist lognormal(double median, double sigma) { return {Kind::kLognormal, median, sigma}; }
  static Dist exponential(double mean) { return {Kind::kExponential, mean, 0}; }

  bool is_constant() const { return kind == Kind::kConstant; }
  bool is_zero() const { return kind == Kind::kConstant && a == 0; }
  double mean() const;
  // A draw, never negative. Constant distributions consume no random numbers.
  double sample(Rng& rng) const;
  // A draw rounded to whole microseconds (for durations), at most kTimeCap.
  Time sample_time(Rng& rng) const { return saturating_time(sample(rng) + 0.5); }
  std::string to_string() const;
};

// "90s", "500ms", "2m", "1h", "250us", or a bare number of seconds; errors are InputErrors
// prefixed with `where`. The YAML readers of durations and distributions (scenario syntax above)
// are in io/distribution_reader.h.
Time parse_duration_text(const std::string& text, const std::string& where);

}  // namespace orrery
