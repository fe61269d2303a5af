#include "report/seed_comparison.h"

#include <charconv>
#include <cmath>
#include <set>

#include "core/error.h"
#include "report/metrics.h"
#include "util/inference.h"

namespace orrery::report {
namespace {

using Json = nlohmann::ordered_json;

Json num(double v) {
  return std::isnan(v) ? Json(nullptr) : Json(v);
}

const char* better_text(int better) {
  return better < 0 ? "lower" : better > 0 ? "higher" : "not ranked";
}

std::vector<double> values_of(const SeedRuns& r, size_t p, const KeyMetric& m) {
  std::vector<double> v;
  for (const Json& s : r.summaries[p]) v.push_back(metric_value(s, m));
  return v;
}

// The metrics some run has.
std::vector<const KeyMetric*> present_metrics(const SeedRuns& r) {
  std::vector<const KeyMetric*> out;
  for (const KeyMetric& m : key_metrics()) {
    bool any = false;
    for (const auto& per_profile : r.summaries)
      for (const Json& s : per_profile) any = any || has_metric(s, m);
    if (any) out.push_back(&m);
  }
  return out;
}

// "12.3 s [10.1, 14.5]"; "12.3 s" with one seed; "—" with none.
std::string with_ci(const MeanCI& c, Format f) {
  std::string s = format_value(c.mean, f);
  if (std::isfinite(c.lo)) s += " [" + format_value(c.lo, f) + ", " + format_value(c.hi, f) + "]";
  return s;
}

// A difference: durations and counts in their unit, fractions in percentage points.
std::string signed_value(double v, Format f) {
  if (!std::isfinite(v)) return format_value(v, f);
  const std::string sign = v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1";
  if (f == Format::kPercent) return sign + format_number(std::fabs(v) * 100, 3) + " pp";
  return sign + format_value(std::fabs(v), f);
}

std::string diff_text(const PairedComparison& c, Format f) {
  if (c.diff.n == 0) return "\u2014";
  std::string s = signed_value(c.diff.mean, f);
  if (std::isfinite(c.diff.lo))
    s += " [" + signed_value(c.diff.lo, f) + ", " + signed_value(c.diff.hi, f) + "]";
  return s;
}

std::string sign_text(const PairedComparison& c) {
  std::string s = std::to_string(c.plus) + "+/" + std::to_string(c.minus) + "\u2212/" +
                  std::to_string(c.ties) + "=";
  if (!std::isnan(c.sign_p)) s += ", p = " + format_number(c.sign_p, 3);
  return s;
}

std::string pad(const std::string& s, size_t width) {
  // Display width: count UTF-8 code points, not bytes.
  size_t cps = 0;
  for (unsigned char ch : s) cps += (ch & 0xC0) != 0x80;
  return s + std::string(cps < width ? width - cps : 1, ' ');
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (size_t i = 0; i < seeds.size(); ++i) s += (i ? "," : "") + std::to_string(seeds[i]);
  return s.size() > 60 ? std::to_string(seeds.front()) + " \u2026 " + std::to_string(seeds.back())
                       : s;
}

}  // namespace

Json seed_comparison_json(const SeedRuns& r) {
  Json out;
  out["scenario"] = r.scenario;
  out["profiles"] = r.profiles;
  out["seeds"] = r.seeds;
  out["confidence"] = r.level;
  out["reference"] = r.profiles.empty() ? Json(nullptr) : Json(r.profiles.front());
  Json metrics = Json::object();
  for (const KeyMetric* m : present_metrics(r)) {
    Json jm;
    jm["label"] = m->label;
    jm["better"] = better_text(m->better);
    Json per = Json::object(), paired = Json::object();
    const std::vector<double> ref = values_of(r, 0, *m);
    for (size_t p = 0; p < r.profiles.size(); ++p) {
      const std::vector<double> v = values_of(r, p, *m);
      const MeanCI c = mean_ci(v, r.level);
      Json values = Json::array();
      for (double x : v) values.push_back(num(x));
      per[r.profiles[p]] = Json{{"n", c.n},           {"mean", num(c.mean)}, {"sd", num(c.sd)},
                                {"ci_lo", num(c.lo)}, {"ci_hi", num(c.hi)},  {"values", values}};
      if (p == 0) continue;
      const PairedComparison d = paired_comparison(ref, v, r.level);
      paired[r.profiles[p]] = Json{{"n", d.diff.n},           {"mean_diff", num(d.diff.mean)},
                                   {"ci_lo", num(d.diff.lo)}, {"ci_hi", num(d.diff.hi)},
                                   {"plus", d.plus},          {"minus", d.minus},
                                   {"ties", d.ties},          {"sign_p", num(d.sign_p)}};
    }
    jm["profiles"] = per;
    jm["paired"] = paired;
    metrics[m->key] = jm;
  }
  out["metrics"] = metrics;
  return out;
}

std::string seed_comparison_text(const SeedRuns& r) {
  const int pct = static_cast<int>(std::lround(r.level * 100));
  std::string out = r.scenario + ": " + std::to_string(r.profiles.size()) + " profiles \u00d7 " +
                    std::to_string(r.seeds.size()) + " seeds (" + seeds_text(r.seeds) +
                    "); means with " + std::to_string(pct) + "% confidence intervals (Student t)\n";
  const size_t w0 = 22, w = 30;
  out += pad("metric", w0);
  for (const std::string& p : r.profiles) out += pad(p, w);
  out += "\n";
  const std::vector<const KeyMetric*> metrics = present_metrics(r);
  for (const KeyMetric* m : metrics) {
    out += pad(m->label, w0);
    for (size_t p = 0; p < r.profiles.size(); ++p)
      out += pad(with_ci(mean_ci(values_of(r, p, *m), r.level), m->format), w);
    out += "\n";
  }
  if (r.profiles.size() < 2) return out;
  out += "paired against " + r.profiles.front() + " on the same seeds: mean difference [" +
         std::to_string(pct) + "% CI]; sign test: seeds higher+/lower\u2212/equal=, two-sided p\n";
  for (const KeyMetric* m : metrics) {
    const std::vector<double> ref = values_of(r, 0, *m);
    out += pad(m->label, w0);
    for (size_t p = 1; p < r.profiles.size(); ++p) {
      const PairedComparison d = paired_comparison(ref, values_of(r, p, *m), r.level);
      out += pad(r.profiles[p] + " " + diff_text(d, m->format) + " (" + sign_text(d) + ")", 2 * w);
    }
    out += "\n";
  }
  return out;
}

void add_seed_comparison(Document& doc, const SeedRuns& r) {
  const int pct = static_cast<int>(std::lround(r.level * 100));
  doc.section("Means over seeds");
  doc.paragraph("Scenario " + r.scenario + ", seeds " + seeds_text(r.seeds) + " (" +
                std::to_string(r.seeds.size()) + " runs per profile). Each cell is the mean over " +
                "the seeds with its " + std::to_string(pct) +
                "% confidence interval (Student t, n \u2212 1 degrees of freedom); a dash when "
                "no run has the value. \u2193 lower is better, \u2191 higher is better.");
  const std::vector<const KeyMetric*> metrics = present_metrics(r);
  Table t;
  t.columns.push_back("metric");
  for (const std::string& p : r.profiles) t.columns.push_back(p);
  t.row_headers = true;
  for (const KeyMetric* m : metrics) {
    std::vector<Cell> row{Cell(m->label + (m->better < 0   ? " \u2193"
                                           : m->better > 0 ? " \u2191"
                                                           : ""))};
    for (size_t p = 0; p < r.profiles.size(); ++p) {
      const MeanCI c = mean_ci(values_of(r, p, *m), r.level);
      Cell cell(c.mean, m->format);
      if (std::isfinite(c.lo))
        cell.note =
            "[" + format_value(c.lo, m->format) + ", " + format_value(c.hi, m->format) + "]";
      row.push_back(std::move(cell));
    }
    t.add_row(std::move(row));
  }
  doc.table(t);
  if (r.profiles.size() >= 2) {
    doc.section("Paired against " + r.profiles.front());
    doc.paragraph(
        "Each profile minus " + r.profiles.front() +
        " on the same seed: the mean difference with its " + std::to_string(pct) +
        "% confidence interval (an interval that excludes 0 is a difference the seeds agree "
        "on), and the exact two-sided sign test: how many seeds were higher (+), lower (\u2212) "
        "or equal (=), and its p-value.");
    Table d;
    d.columns.push_back("metric");
    for (size_t p = 1; p < r.profiles.size(); ++p) d.columns.push_back(r.profiles[p]);
    d.row_headers = true;
    for (const KeyMetric* m : metrics) {
      const std::vector<double> ref = values_of(r, 0, *m);
      std::vector<Cell> row{Cell(m->label)};
      for (size_t p = 1; p < r.profiles.size(); ++p) {
        const PairedComparison c = paired_comparison(ref, values_of(r, p, *m), r.level);
        Cell cell(diff_text(c, m->format));
        cell.numeric = true;
        cell.note = sign_text(c);
        row.push_back(std::move(cell));
      }
      d.add_row(std::move(row));
    }
    doc.table(d);
  }
  // One chart per ranked metric: means with their intervals.
  doc.section("Charts");
  for (const KeyMetric* m : metrics) {
    if (m->better == 0) continue;
    BarChart c;
    c.title = m->label + " (mean, " + std::to_string(pct) + "% CI)";
    c.y = Axis{m->label, m->format};
    c.groups = r.profiles;
    BarSeries s{"mean", {}, {}, {}};
    for (size_t p = 0; p < r.profiles.size(); ++p) {
      const MeanCI ci = mean_ci(values_of(r, p, *m), r.level);
      s.value.push_back(ci.mean);
      s.lo.push_back(ci.lo);
      s.hi.push_back(ci.hi);
    }
    c.series.push_back(std::move(s));
    doc.chart(c);
  }
}

std::vector<uint64_t> parse_seed_list(const std::string& text, size_t max_seeds) {
  auto fail = [&](const std::string& why) {
    throw InputError("--seeds: " + why + " in \"" + text +
                     "\" (expected e.g. 1..20, 1,2,5 or 1..3,10)");
  };
  auto number = [&](std::string_view s) {
    uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
      fail("\"" + std::string(s) + "\" is not a non-negative integer");
    return v;
  };
  std::vector<uint64_t> out;
  std::set<uint64_t> seen;
  auto add = [&](uint64_t v) {
    if (!seen.insert(v).second) fail("seed " + std::to_string(v) + " given twice");
    if (out.size() >= max_seeds) fail("more than " + std::to_string(max_seeds) + " seeds");
    out.push_back(v);
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = std::string_view(text).substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t dots = item.find("..");
    if (dots == std::string_view::npos) {
      add(number(item));
    } else {
      const uint64_t lo = number(item.substr(0, dots)), hi = number(item.substr(dots + 2));
      if (hi < lo) fail("the range " + std::string(item) + " is empty");
      if (hi - lo >= max_seeds) fail("more than " + std::to_string(max_seeds) + " seeds");
      for (uint64_t v = lo; v <= hi; ++v) add(v);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace orrery::report
