// Internal to the run report (run_report.cc): the sections that read the runs as a whole — the
// verdict table and the setup generated from each run's setup.json (verdict.cc).
#pragma once

#include <vector>

#include "report/document.h"
#include "report/run_report.h"

namespace orrery::report {

// "Verdict": the key metrics (report/metrics.h) as rows and the runs as columns, the best value
// of each ranked metric marked, each value's difference against runs[baseline], and one line
// reading each metric. Nothing when no run has a summary.json.
void verdict_section(Document& doc, const std::vector<RunData>& runs, size_t baseline);

// "Setup": per distinct scenario its description, nodes by tier and size and workloads, and
// every policy with its one-line description. Nothing when no run has a setup.json.
void setup_section(Document& doc, const std::vector<RunData>& runs);

// "Plans": every plan in summary.json's scheduler.<part>.plan_history (the packer's), one row each
// with time, status and reason and its steps spelled out (plans.cc). Nothing when no run has one.
void plans_section(Document& doc, const std::vector<RunData>& runs);

}  // namespace orrery::report
