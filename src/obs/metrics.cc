#include "obs/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace orrery::obs {
namespace {

bool valid_name(const std::string& s, bool allow_colon) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool ok = alpha || (allow_colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

// Go's strconv.FormatFloat(v, 'g', -1, 64) spelling for the special values; shortest
// round-trip digits otherwise.
std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// Label values escape backslash, double quote and newline; HELP escapes backslash and newline.
void append_escaped(std::string& out, const std::string& s, bool quote) {
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (quote && c == '"')
      out += "\\\"";
    else
      out += c;
  }
}

void append_labels(std::string& out, const std::vector<std::string>& names,
                   const std::vector<std::string>& values, const std::string& extra_name = {},
                   const std::string& extra_value = {}) {
  if (names.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  auto one = [&](const std::string& n, const std::string& v) {
    if (!first) out += ',';
    first = false;
    out += n;
    out += "=\"";
    append_escaped(out, v, true);
    out += '"';
  };
  for (size_t i = 0; i < names.size(); ++i) one(names[i], values[i]);
  if (!extra_name.empty()) one(extra_name, extra_value);
  out += '}';
}

const char* type_name(MetricType t) {
  switch (t) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

template <typename Child>
std::unique_ptr<Child> make_child(const std::vector<double>*) {
  return std::make_unique<Child>();
}
template <>
std::unique_ptr<Histogram> make_child<Histogram>(const std::vector<double>* bounds) {
  return std::make_unique<Histogram>(bounds);
}

void render_sample(std::string& out, const std::string& name,
                   const std::vector<std::string>& label_names,
                   const std::vector<std::string>& values, const Counter& c) {
  out += name;
  append_labels(out, label_names, values);
  out += ' ' + format_value(c.value()) + '\n';
}
void render_sample(std::string& out, const std::string& name,
                   const std::vector<std::string>& label_names,
                   const std::vector<std::string>& values, const Gauge& g) {
  out += name;
  append_labels(out, label_names, values);
  out += ' ' + format_value(g.value()) + '\n';
}

}  // namespace

void Counter::inc(double by) {
  if (!(by >= 0)) throw std::invalid_argument("a counter cannot decrease");
  value_.fetch_add(by, std::memory_order_relaxed);
}

Histogram::Histogram(const std::vector<double>* upper_bounds)
    : bounds_(upper_bounds),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(upper_bounds->size() + 1)) {}

void Histogram::observe(double v) {
  const auto it = std::lower_bound(bounds_->begin(), bounds_->end(), v);  // first bound >= v
  buckets_[static_cast<size_t>(it - bounds_->begin())].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::cumulative_counts() const {
  std::vector<uint64_t> out(bounds_->size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    out[i] = running;
  }
  return out;
}

template <typename Child>
Family<Child>::Family(std::string name, std::string help, std::vector<std::string> label_names,
                      std::vector<double> buckets)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {}

template <typename Child>
Child& Family<Child>::with(const std::vector<std::string>& label_values) {
  if (label_values.size() != label_names_.size())
    throw std::invalid_argument(name_ + ": expected " + std::to_string(label_names_.size()) +
                                " label values, got " + std::to_string(label_values.size()));
  std::lock_guard lock(mu_);
  auto& slot = children_[label_values];
  if (!slot) slot = make_child<Child>(&buckets_);
  return *slot;
}

template <typename Child>
void Family<Child>::render(std::string& out, MetricType type) const {
  out += "# HELP " + name_ + ' ';
  append_escaped(out, help_, false);
  out += "\n# TYPE " + name_ + ' ' + type_name(type) + '\n';
  std::lock_guard lock(mu_);
  for (const auto& [values, child] : children_) {
    if constexpr (std::is_same_v<Child, Histogram>) {
      const std::vector<uint64_t> counts = child->cumulative_counts();
      for (size_t i = 0; i < counts.size(); ++i) {
        out += name_ + "_bucket";
        append_labels(out, label_names_, values, "le",
                      i < buckets_.size() ? format_value(buckets_[i]) : "+Inf");
        out += ' ' + std::to_string(counts[i]) + '\n';
      }
      out += name_ + "_sum";
      append_labels(out, label_names_, values);
      out += ' ' + format_value(child->sum()) + '\n';
      out += name_ + "_count";
      append_labels(out, label_names_, values);
      out += ' ' + std::to_string(counts.back()) + '\n';
    } else {
      render_sample(out, name_, label_names_, values, *child);
    }
  }
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

std::vector<double> exponential_buckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1)
    throw std::invalid_argument("exponential_buckets: start > 0, factor > 1, count >= 1");
  std::vector<double> out;
  out.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

void Registry::claim(const std::string& name, const std::vector<std::string>& label_names) {
  if (!valid_name(name, true)) throw std::invalid_argument("invalid metric name \"" + name + "\"");
  for (const std::string& l : label_names)
    if (!valid_name(l, false) || l.rfind("__", 0) == 0 || l == "le")
      throw std::invalid_argument(name + ": invalid label name \"" + l + "\"");
  auto taken = [&](const auto& families) {
    return std::any_of(families.begin(), families.end(),
                       [&](const auto& f) { return f.name() == name; });
  };
  if (taken(counters_) || taken(gauges_) || taken(histograms_))
    throw std::invalid_argument("metric \"" + name + "\" registered twice");
}

CounterFamily& Registry::counter(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  claim(name, label_names);
  CounterFamily& f = counters_.emplace_back(name, help, std::move(label_names));
  order_.push_back({MetricType::kCounter, &f});
  return f;
}

GaugeFamily& Registry::gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names) {
  std::lock_guard lock(mu_);
  claim(name, label_names);
  GaugeFamily& f = gauges_.emplace_back(name, help, std::move(label_names));
  order_.push_back({MetricType::kGauge, &f});
  return f;
}

HistogramFamily& Registry::histogram(const std::string& name, const std::string& help,
                                     std::vector<double> buckets,
                                     std::vector<std::string> label_names) {
  if (buckets.empty() || !std::is_sorted(buckets.begin(), buckets.end()) ||
      std::adjacent_find(buckets.begin(), buckets.end()) != buckets.end() ||
      !std::all_of(buckets.begin(), buckets.end(), [](double b) { return std::isfinite(b); }))
    throw std::invalid_argument(name + ": buckets must be finite and strictly increasing");
  std::lock_guard lock(mu_);
  claim(name, label_names);
  HistogramFamily& f =
      histograms_.emplace_back(name, help, std::move(label_names), std::move(buckets));
  order_.push_back({MetricType::kHistogram, &f});
  return f;
}

std::string Registry::exposition() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const Entry& e : order_) {
    switch (e.type) {
      case MetricType::kCounter:
        static_cast<const CounterFamily*>(e.family)->render(out, e.type);
        break;
      case MetricType::kGauge:
        static_cast<const GaugeFamily*>(e.family)->render(out, e.type);
        break;
      case MetricType::kHistogram:
        static_cast<const HistogramFamily*>(e.family)->render(out, e.type);
        break;
    }
  }
  return out;
}

}  // namespace orrery::obs
