// Internal to `orrery repro kubedsm`: what repro.cc (the sweeps, outputs and report) and
// repro_claims.cc (the paper's claims and the paired tests) share.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "experiments/kubedsm/evaluation.h"
#include "io/json.h"
#include "report/table.h"

namespace orrery::kubedsm::repro_detail {

// Fig. 10's migration variants (M_C2E/M_ER).
struct Variant {
  const char* label;
  int m_c2e, m_er;
};
inline constexpr Variant kVariants[] = {{"Original", 5, 3},
                                        {"MidMig", 2, 1},
                                        {"NoCloudOffload", 0, 3},
                                        {"NoEdgeMig", 5, 0},
                                        {"NoMigration", 0, 0}};

// One bar of one figure: the runs of `spec` with seeds 1..n.
struct Point {
  std::string figure;
  std::string group;   // e.g. the scenario "1.5_0.4"
  std::string series;  // e.g. "KubeDSM"
  RunSpec spec;        // seed unset
};

// Per-point values over seeds, in seed order (so two points' vectors pair up by seed).
struct Samples {
  std::vector<double> edge, edge_sd, migrations;
  std::vector<double> pooled, pooled_busy;  // the authors' metric, with and without idle samples
  std::map<std::string, std::vector<double>> deployment;
};

// Groups and series of one figure, in plan order.
struct FigureLayout {
  std::vector<std::string> groups, series;
};
inline FigureLayout layout(const std::vector<Point>& pts, const std::string& figure) {
  FigureLayout l;
  for (const Point& p : pts) {
    if (p.figure != figure) continue;
    if (std::find(l.groups.begin(), l.groups.end(), p.group) == l.groups.end())
      l.groups.push_back(p.group);
    if (std::find(l.series.begin(), l.series.end(), p.series) == l.series.end())
      l.series.push_back(p.series);
  }
  return l;
}

// The samples of every point, by (figure, group, series).
using SampleMap = std::map<std::tuple<std::string, std::string, std::string>, Samples>;

// The samples of one point, or null.
inline const Samples* find(const SampleMap& m, const std::string& f, const std::string& g,
                           const std::string& s) {
  auto it = m.find({f, g, s});
  return it == m.end() ? nullptr : &it->second;
}

// The mean of `v` (NaN when empty).
inline double mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double a = 0;
  for (double x : v) a += x;
  return a / static_cast<double>(v.size());
}

// The paper's quantitative statements and ours (same definitions, the pooled metric).
struct Claims {
  report::Table table;
  Json json = Json::object();
};

// The claims table and summary.json's "claims" (repro_claims.cc).
Claims claims(const SampleMap& m, const std::vector<Point>& pts);

// Per scenario of Fig. 4 or 5: ours beside the authors' raw data and the paired differences;
// `json` gets each scenario's paired tests.
report::Table scenario_table(const SampleMap& m, const std::vector<Point>& pts,
                             const std::string& fig, Json* json);

// Fig. 10's pairs of variants, ours and the authors', per scenario; `json` gets each pair.
report::Table fig10_pairs_table(const SampleMap& m, const std::vector<Point>& pts, Json* json);

}  // namespace orrery::kubedsm::repro_detail
