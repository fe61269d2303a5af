#include "policies/federated/task_model.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "core/error.h"
#include "io/k8s_objects.h"
#include "io/yaml_util.h"
#include "sim/metrics.h"

namespace orrery::federated {

TaskConstraintModel::TaskConstraintModel(std::vector<std::vector<double>> percent,
                                         std::vector<std::vector<double>> weights,
                                         std::string source)
    : source_(std::move(source)), percent_(std::move(percent)) {
  if (percent_.empty() || weights.empty()) throw std::invalid_argument("empty task model");
  k_ = static_cast<uint32_t>(percent_[0].size());
  for (const auto& row : percent_) {
    if (row.size() != k_) throw std::invalid_argument("ragged constraint_percent_by_cluster");
    std::vector<uint64_t> thr(k_);
    uint64_t always = 0;
    for (uint32_t j = 0; j < k_; ++j) {
      const double p = row[j];
      if (p >= 100) {
        always |= ConstraintMask{1} << j;
      } else if (p > 0) {
        thr[j] = static_cast<uint64_t>(std::ldexp(p / 100.0, 64));
      }
    }
    threshold_.push_back(std::move(thr));
    always_.push_back(always);
  }
  for (const auto& row : weights) {
    if (row.size() != percent_.size()) throw std::invalid_argument("weights per cluster");
    std::vector<double> cum(row.size());
    double s = 0;
    for (size_t c = 0; c < row.size(); ++c) cum[c] = (s += row[c]);
    if (!(s > 0)) throw std::invalid_argument("zero weights");
    cum_weight_.push_back(std::move(cum));
  }
}

ConstraintMask TaskConstraintModel::draw(Rng& rng) const {
  const auto& cum = cum_weight_[rng.below(cum_weight_.size())];
  const double u = rng.uniform() * cum.back();
  size_t c = 0;
  while (c + 1 < cum.size() && !(u < cum[c])) ++c;
  ConstraintMask m = always_[c];
  const uint64_t* thr = threshold_[c].data();
  for (uint32_t j = 0; j < k_; ++j)
    if (rng.next() < thr[j]) m |= ConstraintMask{1} << j;
  return m;
}

namespace {

// Keys "1".."n" of a mapping in numeric order (the model's ids are 1-based).
std::vector<std::string> numbered_keys(const yaml::Ctx& m, const std::string& what) {
  std::vector<std::string> keys = m.keys();
  std::vector<std::string> out(keys.size());
  for (const std::string& k : keys) {
    size_t v = 0;
    auto [p, ec] = std::from_chars(k.data(), k.data() + k.size(), v);
    if (ec != std::errc() || p != k.data() + k.size() || v < 1 || v > keys.size() ||
        !out[v - 1].empty()) {
      m.child(k).fail("expected " + what + " ids 1.." + std::to_string(keys.size()) + ", got \"" +
                      k + "\"");
    }
    out[v - 1] = k;
  }
  if (out.empty()) m.fail("expected at least one " + what);
  return out;
}

std::vector<double> numbers(const yaml::Ctx& list, size_t expect, const std::string& what,
                            double lo, double hi) {
  list.expect_seq();
  if (list.size() != expect) {
    list.fail("expected " + std::to_string(expect) + " " + what + ", got " +
              std::to_string(list.size()));
  }
  std::vector<double> out;
  for (size_t i = 0; i < expect; ++i) {
    yaml::Ctx it = list.item(i);
    const double v = it.f64();
    if (v < lo || v > hi) {
      it.fail("expected a value in [" + sim::fmt_double(lo) + ", " + sim::fmt_double(hi) +
              "], got " + it.str());
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

TaskConstraintModel parse_task_model(const std::string& text, const std::string& source) {
  yaml::Ctx root{source, yaml::parse_document(text, source), "", 1};
  root.expect_map();
  yaml::Ctx pct = root.child("constraint_percent_by_cluster");
  if (!pct.defined()) pct.fail("missing: expected {\"1\": [percent per constraint id], ...}");
  pct.expect_map();
  const std::vector<std::string> clusters = numbered_keys(pct, "statistical cluster");
  std::vector<std::vector<double>> percent;
  size_t k = 0;
  for (const std::string& c : clusters) {
    yaml::Ctx row = pct.child(c);
    row.expect_seq();
    if (k == 0) {
      k = row.size();
      if (k == 0 || k > kMaxConstraints) {
        row.fail("expected 1.." + std::to_string(kMaxConstraints) +
                 " percentages (one per constraint id), got " + std::to_string(k));
      }
    }
    percent.push_back(numbers(row, k, "percentages (one per constraint id)", 0, 100));
  }
  yaml::Ctx w = root.child("cluster_weight_by_type");
  if (!w.defined()) w.fail("missing: expected {\"1\": [weight per statistical cluster], ...}");
  w.expect_map();
  std::vector<std::vector<double>> weights;
  for (const std::string& t : numbered_keys(w, "task type")) {
    yaml::Ctx row = w.child(t);
    weights.push_back(
        numbers(row, clusters.size(), "weights (one per statistical cluster)", 0, 1e300));
    double s = 0;
    for (double x : weights.back()) s += x;
    if (!(s > 0)) row.fail("expected at least one positive weight");
  }
  return TaskConstraintModel(std::move(percent), std::move(weights), source);
}

TaskConstraintModel load_task_model(const std::string& path) {
  return parse_task_model(read_text_file(path), path);
}

}  // namespace orrery::federated
