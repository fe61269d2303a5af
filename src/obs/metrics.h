// Prometheus metrics for orrery's long-running processes (`orrery serve`, the CARICO aggregator
// and agents): counters, gauges and histograms with labels, rendered in the Prometheus text
// exposition format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// A Registry owns metric families; a family's `with(label values)` returns the child for those
// values, created on first use and stable for the registry's lifetime (hold the reference on hot
// paths). Every operation is thread-safe: children update with atomics, and lookups and
// exposition take the family's mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace orrery::obs {

class Counter {
 public:
  void inc(double by = 1.0);  // by must be >= 0 (a counter never goes down)
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Histogram {
 public:
  explicit Histogram(const std::vector<double>* upper_bounds);
  void observe(double v);
  // Cumulative count per bound (the last is +Inf), sum and count, read consistently enough for
  // exposition (each field is atomic; a concurrent observe may be half-visible).
  std::vector<uint64_t> cumulative_counts() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double>* bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bound, plus one for +Inf
  std::atomic<double> sum_{0.0};
  std::atomic<uint64_t> count_{0};
};

enum class MetricType { kCounter, kGauge, kHistogram };

// One metric family: a name, help text, label names and a child per distinct label values.
template <typename Child>
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> buckets = {});
  // The child for these label values (as many as label names; checked, throws on mismatch).
  Child& with(const std::vector<std::string>& label_values = {});

  const std::string& name() const { return name_; }
  void render(std::string& out, MetricType type) const;

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::vector<double> buckets_;  // histograms only; sorted, finite
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Child>> children_;
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

// Exponential bucket bounds, as client_golang's ExponentialBuckets(start, factor, count).
std::vector<double> exponential_buckets(double start, double factor, int count);

class Registry {
 public:
  // Registering a name twice, or a name or label name that Prometheus does not accept
  // ([a-zA-Z_:][a-zA-Z0-9_:]*, labels without ':' and not starting with "__"), throws
  // std::invalid_argument: metric names are chosen by code, not by users.
  CounterFamily& counter(const std::string& name, const std::string& help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> label_names = {});
  HistogramFamily& histogram(const std::string& name, const std::string& help,
                             std::vector<double> buckets,
                             std::vector<std::string> label_names = {});

  // Every family in registration order, in the text exposition format (ends with a newline).
  std::string exposition() const;

 private:
  struct Entry {
    MetricType type;
    void* family;
  };
  void claim(const std::string& name, const std::vector<std::string>& label_names);
  mutable std::mutex mu_;
  std::deque<CounterFamily> counters_;
  std::deque<GaugeFamily> gauges_;
  std::deque<HistogramFamily> histograms_;
  std::vector<Entry> order_;
};

// The content type to serve exposition() with.
inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace orrery::obs
