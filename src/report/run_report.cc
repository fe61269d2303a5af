#include "report/run_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "report/csv.h"
#include "report/metrics.h"
#include "report/run_sections.h"
#include "report/sampling.h"

namespace orrery::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

using run_detail::describe;
using run_detail::Dist;
using run_detail::finite;
using run_detail::format_for_key;
using run_detail::kNaN;
using run_detail::missing_note;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

Json read_summary(const std::string& path) {
  const std::string text = read_text(path);
  try {
    Json j = Json::parse(text);
    if (!j.is_object())
      throw InputError(error_location(path, 1, "") + ": expected a JSON object at the top level");
    return j;
  } catch (const Json::parse_error& e) {
    // Turn the byte offset into a line number.
    const size_t upto = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const int line = 1 + static_cast<int>(std::count(
                             text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upto), '\n'));
    std::string what = e.what();
    const size_t colon = what.find("syntax error");
    if (colon != std::string::npos) what = what.substr(colon);
    throw InputError(error_location(path, line, "") + ": invalid JSON: " + what);
  }
}

std::string base_name(const std::string& dir) {
  fs::path p(dir);
  if (!p.has_filename()) p = p.parent_path();  // "runs/a/" -> "a"
  const std::string name = p.filename().string();
  return name.empty() || name == "." ? fs::absolute(p).filename().string() : name;
}

// Finite values, sorted ascending.
std::vector<double> sorted_sample(const std::vector<double>& v) {
  std::vector<double> out = finite(v);
  std::sort(out.begin(), out.end());
  return out;
}

// Log scale when the positive values span at least two decades and most values are positive.
bool wants_log(const std::vector<const std::vector<double>*>& samples) {
  double lo = kNaN, hi = kNaN;
  size_t pos = 0, all = 0;
  for (const auto* s : samples) {
    for (double v : *s) {
      if (!std::isfinite(v)) continue;
      ++all;
      if (v <= 0) continue;
      ++pos;
      if (!(v >= lo)) lo = v;
      if (!(v <= hi)) hi = v;
    }
  }
  return all > 0 && pos * 2 >= all && hi / lo >= 100;
}

void flatten(const Json& j, const std::string& prefix,
             std::vector<std::pair<std::string, Json>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) {
      flatten(*it, key, out);
    } else {
      out.emplace_back(key, *it);
    }
  }
}

// A JSON value as short text: numbers in the key's format, arrays (possibly nested) inline.
std::string compact_json(const std::string& key, const Json& v) {
  if (v.is_number()) return format_value(v.get<double>(), format_for_key(key));
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + compact_json(key, v[i]);
    return s + "]";
  }
  return v.dump();
}

// Scalars in a (possibly nested) JSON array.
size_t leaf_count(const Json& v) {
  if (!v.is_array()) return 1;
  size_t n = 0;
  for (const Json& e : v) n += leaf_count(e);
  return n;
}

Cell json_cell(const std::string& key, const Json& v) {
  if (v.is_null()) return Cell(kNaN);
  if (v.is_boolean()) return Cell(v.get<bool>() ? "true" : "false");
  if (v.is_number()) return Cell(v.get<double>(), format_for_key(key));
  if (v.is_string()) return Cell(v.get<std::string>());
  if (v.is_array()) {
    // Long arrays (e.g. the demand of every cycle) would stretch the table, one column per run:
    // keep a short prefix and say how many elements there are.
    constexpr size_t kMaxChars = 28;
    std::string s = compact_json(key, v);
    if (s.size() > kMaxChars) {
      size_t cut = s.rfind(", ", kMaxChars);
      s = s.substr(0, cut == std::string::npos ? kMaxChars : cut) + ", …] (" +
          std::to_string(leaf_count(v)) + " values)";
    }
    return Cell(s);
  }
  return Cell(v.dump());
}

// What a CDF shows of a run: its values and the items that never got one.
struct CdfSample {
  const std::vector<double>& (*values)(const RunData&);
  size_t (*censored)(const RunData&);
  const char* censored_what;  // "unfinished", "never bound"
};

// One CDF chart over the runs that have the sample (empty ones are left out). Censored items
// keep the curve below 1 and are counted in the legend.
void cdf_chart(Document& doc, const std::vector<RunData>& runs, const std::string& title,
               const std::string& axis_label, const CdfSample& sample, bool (*has)(const RunData&),
               const std::string& caption) {
  CdfChart c;
  c.title = title;
  std::vector<const std::vector<double>*> all;
  for (const RunData& r : runs)
    if (has(r)) all.push_back(&sample.values(r));
  c.x = Axis{axis_label, Format::kSeconds, wants_log(all)};
  for (const RunData& r : runs)
    if (has(r))
      c.series.push_back({r.label, sample.values(r), sample.censored(r), sample.censored_what});
  doc.chart(c, caption);
}

std::vector<std::string> dist_columns(const std::string& first) {
  return {first, "count", "mean", "p50", "p90", "p99", "p99.9", "max"};
}

std::vector<Cell> dist_row(const std::string& label, const Dist& d) {
  const Format s = Format::kSeconds;
  return {label,           d.n,
          Cell(d.mean, s), Cell(d.p50, s),
          Cell(d.p90, s),  Cell(d.p99, s),
          Cell(d.p999, s), Cell(d.max, s)};
}

// The files a run directory may hold, in the order load_run() reads them.
const char* const kRunFiles[] = {"summary.json", "setup.json",     "jobs.csv",
                                 "pods.csv",     "timeseries.csv", "edge_ratio.csv"};

bool has_file(const RunData& r, const std::string& file) {
  return std::find(r.files.begin(), r.files.end(), file) != r.files.end();
}

// "a, b" — the runs without `file` when at least one other run has it; "" otherwise.
std::string runs_without(const std::vector<RunData>& runs, const std::string& file) {
  std::string out;
  bool any = false;
  for (const RunData& r : runs) {
    if (has_file(r, file)) {
      any = true;
    } else {
      out += (out.empty() ? "" : ", ") + r.label;
    }
  }
  return any ? out : "";
}

}  // namespace

// ---------------------------------------------------------------- shared (run_sections.h)

namespace run_detail {

std::vector<double> finite(const std::vector<double>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v)
    if (std::isfinite(x)) out.push_back(x);
  return out;
}

Dist describe(const std::vector<double>& values) {
  std::vector<double> v = finite(values);
  Dist d;
  d.n = v.size();
  if (v.empty()) return d;
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;  // sorted order: stable across platforms
  d.mean = sum / static_cast<double>(v.size());
  d.p50 = percentile_sorted(v, 50);
  d.p90 = percentile_sorted(v, 90);
  d.p99 = percentile_sorted(v, 99);
  d.p999 = percentile_sorted(v, 99.9);
  d.max = v.back();
  return d;
}

Format format_for_key(const std::string& key) {
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t i = 0; i <= key.size(); ++i) {
    if (i == key.size() || key[i] == '.' || key[i] == '_') {
      words.push_back(key.substr(start, i - start));
      start = i + 1;
    }
  }
  const std::string& last = words.back();
  if (last == "s") return Format::kSeconds;
  if (last == "samples" || last == "count") return Format::kNumber;
  for (const std::string& w : words) {
    if (w.starts_with("util") || w == "ratio" || w == "fraction" || w == "requested")
      return Format::kPercent;
  }
  return Format::kNumber;
}

void missing_note(Document& doc, const std::vector<RunData>& runs, const std::string& file) {
  const std::string missing = runs_without(runs, file);
  if (!missing.empty()) doc.paragraph("Not shown here (no " + file + "): " + missing + ".");
}

}  // namespace run_detail

namespace {

void runs_section(Document& doc, const std::vector<RunData>& runs) {
  doc.section("Runs");
  Table t;
  // Labels leave out what all runs share; the table says it in full.
  t.columns = {"run", "scenario", "policy", "seed", "directory", "files"};
  t.row_headers = true;
  for (const RunData& r : runs) {
    std::string files;
    for (const std::string& f : r.files) files += (files.empty() ? "" : ", ") + f;
    t.add_row({r.label, r.scenario, r.policy, r.seed, r.dir, files});
  }
  doc.table(t);
  std::string missing;
  for (const char* file : kRunFiles) {
    const std::string without = runs_without(runs, file);
    if (!without.empty()) missing += (missing.empty() ? "" : "; ") + without + " without " + file;
  }
  if (!missing.empty()) {
    doc.paragraph("Not every run wrote the same files: " + missing +
                  ". Sections that need a file leave those runs out and say so.");
  }
}

void summary_section(Document& doc, const std::vector<RunData>& runs) {
  std::vector<std::string> keys;
  std::map<std::string, size_t> key_index;
  std::vector<std::map<std::string, Json>> values(runs.size());
  bool any = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].summary.is_null()) continue;
    any = true;
    std::vector<std::pair<std::string, Json>> flat;
    flatten(runs[i].summary, "", flat);
    for (auto& [k, v] : flat) {
      if (key_index.emplace(k, keys.size()).second) keys.push_back(k);
      values[i][k] = v;
    }
  }
  if (!any) return;
  doc.section("All summary values");
  doc.paragraph(
      "Every value of each run's summary.json, side by side (durations in adaptive "
      "units, fractions as percentages, long lists cut; hover a number for its exact value).");
  missing_note(doc, runs, "summary.json");
  Table t;
  t.columns.push_back("summary.json key");
  for (const RunData& r : runs) t.columns.push_back(r.label);
  t.row_headers = true;
  for (const std::string& k : keys) {
    std::vector<Cell> row{k};
    for (size_t i = 0; i < runs.size(); ++i) {
      const auto it = values[i].find(k);
      row.push_back(it == values[i].end() ? Cell("") : json_cell(k, it->second));
    }
    t.add_row(std::move(row));
  }
  doc.table(t);
}

void jobs_section(Document& doc, const std::vector<RunData>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunData& r) { return r.has_jobs; })) return;
  doc.section("Jobs");
  doc.paragraph(
      "Job delay = job response time (JRT) minus the job's longest task, the "
      "Megha/PigeonC metric: the time a job lost to scheduling and queueing. "
      "Percentiles use numpy's default (linear) interpolation.");
  missing_note(doc, runs, "jobs.csv");
  Table t;
  t.caption = "Job delay";
  t.columns = dist_columns("run");
  t.row_headers = true;
  for (const RunData& r : runs)
    if (r.has_jobs) t.add_row(dist_row(r.label, describe(r.job_delay_s)));
  doc.table(t);
  const auto unfinished_jobs = [](const RunData& r) { return r.jobs_censored; };
  cdf_chart(
      doc, runs, "CDF of job delay", "job delay",
      {[](const RunData& r) -> const std::vector<double>& { return r.job_delay_s; },
       unfinished_jobs, "unfinished"},
      [](const RunData& r) { return r.has_jobs; },
      "Further left and higher is better. Fractions are of all jobs: unfinished or failed jobs "
      "have no delay, so a curve that stops below 1 left work undone.");
  cdf_chart(
      doc, runs, "CDF of job response time", "JRT",
      {[](const RunData& r) -> const std::vector<double>& { return r.job_jrt_s; }, unfinished_jobs,
       "unfinished"},
      [](const RunData& r) { return !r.job_jrt_s.empty(); }, "");

  // Short/long split (PigeonC's classes) when a run has both.
  Table split;
  split.caption = "Job delay by class (short: mean task duration below the cutoff)";
  split.columns = {"run", "class", "count", "mean", "p50", "p90", "p99", "max"};
  split.row_headers = true;
  CdfChart short_cdf;
  short_cdf.title = "CDF of short-job delay";
  for (const RunData& r : runs) {
    if (r.short_delay_s.empty() || r.long_delay_s.empty()) continue;
    for (const auto& [name, sample] :
         {std::pair{"short", &r.short_delay_s}, std::pair{"long", &r.long_delay_s}}) {
      const Dist d = describe(*sample);
      const Format f = Format::kSeconds;
      split.add_row({r.label, name, d.n, Cell(d.mean, f), Cell(d.p50, f), Cell(d.p90, f),
                     Cell(d.p99, f), Cell(d.max, f)});
    }
    short_cdf.series.push_back({r.label, r.short_delay_s});
  }
  if (!short_cdf.series.empty()) {
    doc.heading("Short and long jobs");
    doc.table(split);
    std::vector<const std::vector<double>*> all;
    for (const Distribution& d : short_cdf.series) all.push_back(&d.values);
    short_cdf.x = Axis{"short-job delay", Format::kSeconds, wants_log(all)};
    doc.chart(short_cdf);
  }
}

void pods_section(Document& doc, const std::vector<RunData>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunData& r) { return r.has_pods; })) return;
  doc.section("Pods");
  doc.paragraph(
      "Pending time = creation to binding (queue wait and scheduling); running time "
      "(PCT) = running to finished. Pods never bound have no pending time and are "
      "counted separately. Failures = pods OOM-killed, refused by the kubelet (OutOf…), "
      "preempted, evicted or removed with their node; migrated = pods deleted to be moved "
      "(outcome Migrated, as summary.json's pods.outcomes; KubeDSM's scheduler.migrations "
      "counts only the moves whose plan completed). pods.csv's restarts and migrations columns "
      "count a replica's history (like kubectl's RESTARTS), so the table shows their maximum, "
      "not a sum.");
  missing_note(doc, runs, "pods.csv");
  Table t;
  t.caption = "Pending and running time";
  t.columns = {"run",         "pods",        "never bound", "pending p50",
               "pending p90", "pending p99", "pending max", "PCT mean",
               "PCT p99",     "failures",    "migrated",    "max restarts"};
  t.row_headers = true;
  std::set<std::string> outcomes, tiers;
  for (const RunData& r : runs) {
    if (!r.has_pods) continue;
    const Dist pend = describe(r.pod_pending_s), pct = describe(r.pod_pct_s);
    // Counts of events from the outcomes (the same numbers as summary.json's pods.outcomes);
    // the per-pod restarts column counts a replica's history, so it is not summed.
    size_t failures = 0, migrated = 0;
    for (const std::string& o : r.pod_outcome) {
      failures += is_failure_outcome(o);
      migrated += o == "Migrated";
    }
    double max_restarts = r.pod_restarts.empty() ? kNaN : 0;
    for (double v : r.pod_restarts)
      if (std::isfinite(v)) max_restarts = std::max(max_restarts, v);
    const Format s = Format::kSeconds;
    const bool outcomes_known = !r.pod_outcome.empty();
    t.add_row({r.label, r.pods, r.pods_unbound, Cell(pend.p50, s), Cell(pend.p90, s),
               Cell(pend.p99, s), Cell(pend.max, s), Cell(pct.mean, s), Cell(pct.p99, s),
               outcomes_known ? Cell(failures) : Cell(kNaN),
               outcomes_known ? Cell(migrated) : Cell(kNaN), Cell(max_restarts)});
    outcomes.insert(r.pod_outcome.begin(), r.pod_outcome.end());
    tiers.insert(r.pod_tier.begin(), r.pod_tier.end());
  }
  doc.table(t);
  // Counts by a categorical column; columns sorted by name (deterministic).
  auto counts_table = [&](const std::string& caption, const std::set<std::string>& names,
                          std::vector<std::string> RunData::*column) {
    if (names.empty()) return;
    Table c;
    c.caption = caption;
    c.columns = {"run"};
    for (const std::string& n : names) c.columns.push_back(n.empty() ? "(none)" : n);
    c.row_headers = true;
    for (const RunData& r : runs) {
      if (!r.has_pods || (r.*column).empty()) continue;
      std::map<std::string, size_t> count;
      for (const std::string& v : r.*column) ++count[v];
      std::vector<Cell> row{r.label};
      for (const std::string& n : names) row.push_back(count[n]);
      c.add_row(std::move(row));
    }
    doc.table(c);
  };
  counts_table("Pods by outcome", outcomes, &RunData::pod_outcome);
  counts_table("Pods by node tier", tiers, &RunData::pod_tier);
  cdf_chart(
      doc, runs, "CDF of pod pending time", "pending time",
      {[](const RunData& r) -> const std::vector<double>& { return r.pod_pending_s; },
       [](const RunData& r) { return r.pods_unbound; }, "never bound"},
      [](const RunData& r) { return r.has_pods; },
      "Further left and higher is better. Fractions are of all pods: pods never bound keep the "
      "curve below 1.");
  cdf_chart(
      doc, runs, "CDF of pod running time (PCT)", "running time",
      {[](const RunData& r) -> const std::vector<double>& { return r.pod_pct_s; },
       [](const RunData& r) { return r.pods_unfinished; }, "still running"},
      [](const RunData& r) { return !r.pod_pct_s.empty(); },
      "Pods that started and had not finished when the run ended keep the curve below 1.");
}

// summary.json's scenario, profile and seed as text, and its unfinished and failed jobs.
void read_summary_fields(RunData& r) {
  auto text = [&](const char* key) -> std::string {
    if (!r.summary.contains(key)) return "";
    const Json& v = r.summary[key];
    return v.is_string() ? v.get<std::string>() : v.is_null() ? "" : v.dump();
  };
  r.scenario = text("scenario");
  r.policy = text("profile");
  r.seed = text("seed");
  if (r.summary.contains("jobs") && r.summary["jobs"].is_object()) {
    for (const char* k : {"unfinished", "failed"}) {
      const Json& v = r.summary["jobs"].contains(k) ? r.summary["jobs"][k] : Json();
      if (v.is_number_unsigned()) r.jobs_censored += v.get<size_t>();
    }
  }
}

// jobs.csv: each job's delay (and JRT), sorted; the short and long jobs' delays when it has them.
void read_jobs_csv(const std::string& file, RunData& r) {
  const CsvFile f = CsvFile::read(file);
  f.require({"delay_s"});
  r.has_jobs = true;
  const std::vector<double> delay = f.numbers("delay_s");
  if (f.has("short")) {
    const std::vector<std::string> cls = f.strings("short");
    for (size_t i = 0; i < cls.size(); ++i) {
      const std::string& c = cls[i];
      int is_short = -1;
      if (c == "1" || c == "true" || c == "True" || c == "yes") is_short = 1;
      if (c == "0" || c == "false" || c == "False" || c == "no") is_short = 0;
      if (is_short < 0 && !c.empty())
        throw InputError(error_location(f.source(), f.line(i), "") +
                         ": column 'short': expected 0 or 1, got \"" + c + "\"");
      if (is_short < 0 || !std::isfinite(delay[i])) continue;
      (is_short ? r.short_delay_s : r.long_delay_s).push_back(delay[i]);
    }
    std::sort(r.short_delay_s.begin(), r.short_delay_s.end());
    std::sort(r.long_delay_s.begin(), r.long_delay_s.end());
  }
  r.job_delay_s = sorted_sample(delay);
  if (f.has("jrt_s")) r.job_jrt_s = sorted_sample(f.numbers("jrt_s"));
}

// pods.csv: pending and running times (sorted), unbound and unfinished pods, the other columns.
void read_pods_csv(const std::string& file, RunData& r) {
  const CsvFile f = CsvFile::read(file);
  f.require({"pending_s"});
  r.has_pods = true;
  r.pods = f.rows();
  r.pod_pending_s = sorted_sample(f.numbers("pending_s"));
  r.pods_unbound = r.pods - r.pod_pending_s.size();
  if (f.has("pct_s")) {
    const std::vector<double> pct = f.numbers("pct_s");
    r.pod_pct_s = sorted_sample(pct);
    if (f.has("running_s")) {
      const std::vector<double> started = f.numbers("running_s");
      for (size_t i = 0; i < pct.size(); ++i)
        r.pods_unfinished += std::isfinite(started[i]) && !std::isfinite(pct[i]);
    }
  }
  if (f.has("restarts")) r.pod_restarts = f.numbers("restarts");
  if (f.has("migrations")) r.pod_migrations = f.numbers("migrations");
  if (f.has("outcome")) r.pod_outcome = f.strings("outcome");
  if (f.has("tier")) r.pod_tier = f.strings("tier");
}

// timeseries.csv: the sample times and every numeric column (the documented ones must be).
void read_timeseries_csv(const std::string& file, RunData& r) {
  const CsvFile f = CsvFile::read(file);
  f.require({"time_s"});
  r.ts_time_s = f.numbers("time_s");
  // The documented columns must be numbers; other columns are plotted when numeric.
  static const std::set<std::string> kKnown = {"cpu_util", "mem_util", "slot_util", "pending",
                                               "running"};
  for (const std::string& c : f.columns()) {
    if (c == "time_s") continue;
    if (kKnown.count(c)) {
      r.ts_columns.emplace_back(c, f.numbers(c));
    } else if (auto v = f.try_numbers(c)) {
      r.ts_columns.emplace_back(c, std::move(*v));
    }
  }
}

// edge_ratio.csv: each deployment's samples, deployments in order of first appearance.
void read_edge_csv(const std::string& file, RunData& r) {
  const CsvFile f = CsvFile::read(file);
  f.require({"time_s", "deployment", "edge_ratio"});
  const std::vector<double> t = f.numbers("time_s"), ratio = f.numbers("edge_ratio");
  const std::vector<std::string> dep = f.strings("deployment");
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < t.size(); ++i) {
    const auto [it, added] = index.emplace(dep[i], r.edge.size());
    if (added) r.edge.push_back({dep[i], {}, {}});
    r.edge[it->second].time_s.push_back(t[i]);
    r.edge[it->second].ratio.push_back(ratio[i]);
  }
}

}  // namespace

double time_weighted_mean(const std::vector<double>& t, const std::vector<double>& v) {
  const size_t n = std::min(t.size(), v.size());
  double area = 0, span = 0, plain = 0;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i]) || !std::isfinite(t[i])) continue;
    plain += v[i];
    ++count;
    // A sample holds until the next sample time (whatever that sample's value); the last one
    // for one more interval like the one before it, so regular sampling gives the plain mean.
    double dt = 0;
    if (i + 1 < n) {
      dt = t[i + 1] - t[i];
    } else if (i > 0) {
      dt = t[i] - t[i - 1];
    }
    if (std::isfinite(dt) && dt > 0) {
      area += v[i] * dt;
      span += dt;
    }
  }
  if (count == 0) return kNaN;
  return span > 0 ? area / span : plain / static_cast<double>(count);
}

RunData load_run(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir + ": not a directory");
  RunData r;
  r.dir = dir;
  const auto path = [&](const char* name) { return (fs::path(dir) / name).string(); };
  const auto present = [&](const char* name) {
    std::error_code e;
    return fs::is_regular_file(path(name), e);
  };

  if (present("summary.json")) {
    r.summary = read_summary(path("summary.json"));
    r.files.push_back("summary.json");
    read_summary_fields(r);
  }
  if (present("setup.json")) {
    r.setup = read_summary(path("setup.json"));
    r.files.push_back("setup.json");
  }
  if (present("jobs.csv")) {
    read_jobs_csv(path("jobs.csv"), r);
    r.files.push_back("jobs.csv");
  }
  if (present("pods.csv")) {
    read_pods_csv(path("pods.csv"), r);
    r.files.push_back("pods.csv");
  }
  if (present("timeseries.csv")) {
    read_timeseries_csv(path("timeseries.csv"), r);
    r.files.push_back("timeseries.csv");
  }
  if (present("edge_ratio.csv")) {
    read_edge_csv(path("edge_ratio.csv"), r);
    r.files.push_back("edge_ratio.csv");
  }
  if (r.files.empty())
    throw InputError(dir +
                     ": not a run directory: expected summary.json, setup.json, jobs.csv, "
                     "pods.csv, timeseries.csv or edge_ratio.csv");
  r.label = base_name(dir);
  return r;
}

void label_runs(std::vector<RunData>& runs) {
  // Which parts tell the runs apart: the scenario and the seed only when they differ.
  std::set<std::string> scenarios, seeds;
  for (const RunData& r : runs) {
    if (r.summary.is_null()) continue;
    scenarios.insert(r.scenario);
    seeds.insert(r.seed);
  }
  const bool by_scenario = scenarios.size() > 1, by_seed = seeds.size() > 1;
  for (RunData& r : runs) {
    if (r.summary.is_null() || r.policy.empty()) {
      r.label = base_name(r.dir);
      continue;
    }
    r.label = r.policy;
    if (by_scenario && !r.scenario.empty()) r.label = r.scenario + " \u00b7 " + r.label;
    if (by_seed && !r.seed.empty()) r.label += " \u00b7 seed " + r.seed;
  }
  // Runs alike in all three: by directory name.
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < runs.size(); ++i) groups[runs[i].label].push_back(i);
  for (const auto& [label, members] : groups) {
    if (members.size() < 2) continue;
    for (size_t i : members) {
      const std::string base = base_name(runs[i].dir);
      if (base != label) runs[i].label = label + " [" + base + "]";
    }
  }
  // Last resort for identical labels: a running number.
  std::map<std::string, int> seen;
  for (RunData& r : runs)
    if (seen[r.label]++ > 0) r.label += " #" + std::to_string(seen[r.label]);
}

size_t baseline_run(const std::vector<RunData>& runs, const std::string& baseline) {
  if (!baseline.empty()) {
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].label == baseline) return i;
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].policy == baseline) return i;
    std::string known;
    for (const RunData& r : runs) known += (known.empty() ? "" : ", ") + r.label;
    throw InputError("--baseline: no run is \"" + baseline + "\" (runs: " + known + ")");
  }
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].policy == "kube-default") return i;
  return 0;
}

void add_run_report(Document& doc, const std::vector<RunData>& runs, const std::string& baseline) {
  // The verdict first, then what was run; plots next; the full summary.json table, a reference
  // rather than a reading, goes last.
  verdict_section(doc, runs, baseline_run(runs, baseline));
  setup_section(doc, runs);
  runs_section(doc, runs);
  jobs_section(doc, runs);
  pods_section(doc, runs);
  timeseries_section(doc, runs);
  edge_section(doc, runs);
  plans_section(doc, runs);
  summary_section(doc, runs);
}

void write_run_report(const std::vector<std::string>& dirs, const std::string& out_path,
                      const std::string& title, const std::string& baseline) {
  if (dirs.empty()) throw InputError("no run directories given");
  std::vector<RunData> runs;
  runs.reserve(dirs.size());
  for (const std::string& d : dirs) runs.push_back(load_run(d));
  label_runs(runs);
  Document doc(title.empty() ? "orrery run report" : title);
  add_run_report(doc, runs, baseline);
  doc.write(out_path);
}

}  // namespace orrery::report
