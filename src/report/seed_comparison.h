// `orrery compare SCENARIO --profiles a,b --seeds 1..20`: every key metric (report/metrics.h) of
// every profile over the seeds, as a mean with its 95% Student-t confidence interval, and a
// paired comparison of each profile against the first one on the same seeds (mean difference
// with its interval, and the exact sign test). The same runs give the same bytes: nothing here
// depends on wall-clock time or on the order runs finished in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/document.h"

namespace orrery::report {

struct SeedRuns {
  std::string scenario;
  std::vector<std::string> profiles;  // the first is the reference of the paired comparison
  std::vector<uint64_t> seeds;
  std::vector<std::vector<nlohmann::ordered_json>> summaries;  // [profile][seed]: summary.json
  double level = 0.95;
};

// DIR/summary.json of the comparison:
//   {"scenario", "profiles", "seeds", "confidence": 0.95, "reference": "<first profile>",
//    "metrics": {"<key>": {"label", "better": "lower"|"higher"|"not ranked",
//       "profiles": {"<p>": {"n", "mean", "sd", "ci_lo", "ci_hi", "values": [per seed]}},
//       "paired": {"<p>": {"n", "mean_diff", "ci_lo", "ci_hi", "plus", "minus", "ties",
//                          "sign_p"}}}}}
// Statistics that do not exist (no value, or one value for an interval) are null.
nlohmann::ordered_json seed_comparison_json(const SeedRuns& runs);
// The terminal summary: a table of means [CI] and the paired differences.
std::string seed_comparison_text(const SeedRuns& runs);
// The report's sections: the same tables, and one chart of means with CI error bars per metric.
void add_seed_comparison(Document& doc, const SeedRuns& runs);

// "1..20", "1,2,5", "1..3,10": the seeds in the order given; InputError naming --seeds on
// anything else, on repeated seeds and on more than `max_seeds`.
std::vector<uint64_t> parse_seed_list(const std::string& text, size_t max_seeds = 1000);

}  // namespace orrery::report
