// The report over simulator run directories (`orrery report DIR... --out report.html`, and the
// report written by `orrery compare` / `orrery demo`). A run directory holds any of:
//   summary.json    {"scenario","profile","seed",...,"jobs":{...},"pods":{...},...}
//   setup.json      nodes by tier and size, workloads, policies (sim/setup.h)
//   jobs.csv        job,arrival_s,tasks,ideal_s,jrt_s,delay_s,short
//   pods.csv        pod,owner,node,tier,created_s,bound_s,running_s,finished_s,pending_s,pct_s,
//                   restarts,migrations,outcome
//   timeseries.csv  time_s,<numeric columns...>  (e.g. cpu_util,mem_util,slot_util,pending,running)
//   edge_ratio.csv  time_s,deployment,edge_ratio
// The report shows what is present: a verdict table (key metrics × runs, best marked, differences
// against a baseline run), the setup, CDFs of job delay, JRT, pod pending and running time with
// the items that never got a value (censored) shown, time series as small multiples, per-deployment
// edge ratios, and every summary value. Runs are labelled by policy, plus scenario and seed when
// those differ between the runs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/document.h"

namespace orrery::report {

struct RunData {
  std::string dir;                 // as given
  std::string label;               // legend / column name; unique among the runs of one report
  nlohmann::ordered_json summary;  // null when summary.json is absent
  nlohmann::ordered_json setup;    // null when setup.json is absent
  std::vector<std::string> files;  // which of the known files were found
  // From summary.json ("" when absent): what the label is made of.
  std::string scenario, policy, seed;

  // Samples below are sorted ascending with missing (empty/NaN) values left out, so each is
  // sorted once however many tables and charts use it.

  // jobs.csv
  bool has_jobs = false;
  std::vector<double> job_delay_s, job_jrt_s;
  size_t jobs_censored = 0;  // unfinished + failed (summary.json): no delay, not in jobs.csv
  std::vector<double> short_delay_s, long_delay_s;  // by the "short" column (0/1), if present

  // pods.csv
  bool has_pods = false;
  size_t pods = 0, pods_unbound = 0;  // rows; rows without a pending time (never bound)
  size_t pods_unfinished = 0;         // started (running_s) but not finished: no running time yet
  std::vector<double> pod_pending_s, pod_pct_s;
  std::vector<double> pod_restarts, pod_migrations;  // file order
  std::vector<std::string> pod_outcome, pod_tier;

  // timeseries.csv: time and every numeric column, in file order
  std::vector<double> ts_time_s;
  std::vector<std::pair<std::string, std::vector<double>>> ts_columns;

  // edge_ratio.csv, one series per deployment in order of first appearance
  struct EdgeSeries {
    std::string deployment;
    std::vector<double> time_s, ratio;
  };
  std::vector<EdgeSeries> edge;
};

// Reads one run directory. Throws InputError ("FILE:LINE: ...") on malformed files, or if the
// directory holds none of the known files. Labels are set by label_runs().
RunData load_run(const std::string& dir);
// Sets each run's label: its policy ("profile"), preceded by the scenario and followed by
// "seed N" when those differ between the runs ("oom · kube-default · seed 2"); a run without
// summary.json is its directory name; labels still shared get " [dirname]", then " #k".
void label_runs(std::vector<RunData>& runs);
// The baseline run of a verdict: the one whose label or policy is `baseline` (InputError naming
// the labels when none is), else the first kube-default run, else the first run.
size_t baseline_run(const std::vector<RunData>& runs, const std::string& baseline);
// Appends the run sections to a document; `baseline` as in baseline_run.
void add_run_report(Document& doc, const std::vector<RunData>& runs,
                    const std::string& baseline = "");
// Loads the directories, builds the report and writes it atomically to out_path (nothing is
// written if any input is bad). An empty title gives "orrery run report".
void write_run_report(const std::vector<std::string>& dirs, const std::string& out_path,
                      const std::string& title = "", const std::string& baseline = "");

// Time-weighted mean of a sampled step signal: each value holds until the next sample time, the
// last one for one more interval like the one before it (so regularly sampled signals give their
// plain mean, as the simulator's summary computes it). NaN samples carry no weight; the plain
// mean when all samples share one time; NaN if there are no samples.
double time_weighted_mean(const std::vector<double>& t, const std::vector<double>& v);

}  // namespace orrery::report
