// `orrery repro kubedsm` (repro.cc): the paper's claims beside the authors' raw data and ours,
// and the paired tests per scenario of Figs 4, 5 and 10.
#include "experiments/kubedsm/repro_internal.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "experiments/kubedsm/authors_data.h"
#include "util/paired_stats.h"

namespace orrery::kubedsm::repro_detail {
namespace {

// The authors' raw series (authors_data.h) of each Fig. 10 variant.
const char* authors_series(const std::string& variant) {
  if (variant == "Original") return "KubeDSM";
  if (variant == "MidMig") return "MidMig 2/1";
  if (variant == "NoCloudOffload") return "NoCloudOffload 0/3";
  if (variant == "NoEdgeMig") return "NoEdgeMig 5/0";
  if (variant == "NoMigration") return "NoMigration 0/0";
  return "";
}

std::string pct(double v) {
  return std::isfinite(v) ? fmt::format("{:.1f}", 100 * v) : "—";
}

// "+3.2 [1.1, 5.3] pp, 18–2, p = 0.0004": a paired difference in percentage points.
std::string paired_text(const PairedTest& t) {
  return fmt::format("{:+.1f} [{:+.1f}, {:+.1f}] pp, {}–{}{}, p = {:.2g}", 100 * t.diff.mean,
                     100 * (t.diff.mean - t.diff.half), 100 * (t.diff.mean + t.diff.half), t.wins,
                     t.losses, t.ties ? fmt::format(" ({} ties)", t.ties) : "", t.sign_p);
}

Json paired_json(const PairedTest& t) {
  Json j;
  j["mean_diff"] = t.diff.mean;
  j["ci95_half"] = t.diff.half;
  j["wins"] = t.wins;
  j["losses"] = t.losses;
  j["ties"] = t.ties;
  j["sign_test_p"] = t.sign_p;
  return j;
}

void add_claim(Claims& c, const std::string& key, const std::string& what, const std::string& paper,
               double raw, double ours, report::Format f) {
  c.table.add_row({what, paper, std::isfinite(raw) ? report::Cell(raw, f) : report::Cell("—"),
                   report::Cell(ours, f)});
  c.json[key] = ours;
  if (std::isfinite(raw)) c.json[key + "_authors"] = raw;
}

double pooled_mean(const SampleMap& m, const std::string& f, const std::string& g,
                   const std::string& s) {
  const Samples* p = find(m, f, g, s);
  return p ? mean_of(p->pooled) : std::nan("");
}

double raw_pooled(const std::string& series, const std::string& g) {
  const AuthorsPoint* a = authors_point(series, g);
  return a ? a->pooled : std::nan("");
}

// Figs 4 and 5: KubeDSM's average, its gain over the best baseline, agreement with the authors'
// raw data, significance against K8S, and the lowest spread across deployments.
void claims_fig45(Claims& c, const SampleMap& m, const std::vector<Point>& pts) {
  auto add = [&](const std::string& key, const std::string& what, const std::string& paper,
                 double raw, double ours,
                 report::Format f) { add_claim(c, key, what, paper, raw, ours, f); };
  auto pooled = [&](const std::string& f, const std::string& g, const std::string& s) {
    return pooled_mean(m, f, g, s);
  };
  auto raw = raw_pooled;
  for (const auto& [fig, paper_avg, paper_gain] :
       {std::tuple<const char*, const char*, const char*>{"fig4", "80%", "13.4%"},
        {"fig5", "78%", "18.9%"}}) {
    const FigureLayout l = layout(pts, fig);
    double k = 0, gain = 0, k_raw = 0, gain_raw = 0;
    int lowest_sd = 0, ordered = 0, within = 0, within_k8s = 0;
    size_t raw_n = 0;
    for (const std::string& g : l.groups) {
      const double kd = pooled(fig, g, "KubeDSM");
      double best = -1, best_raw = -1;
      for (const std::string& s : l.series)
        if (s != "KubeDSM") {
          best = std::max(best, pooled(fig, g, s));
          if (std::isfinite(raw(s, g))) best_raw = std::max(best_raw, raw(s, g));
        }
      k += kd;
      gain += (kd - best) / best;
      if (std::isfinite(raw("KubeDSM", g)) && best_raw > 0) {
        k_raw += raw("KubeDSM", g);
        gain_raw += (raw("KubeDSM", g) - best_raw) / best_raw;
        ++raw_n;
      }
      within += std::abs(kd - raw("KubeDSM", g)) <= 0.05 ? 1 : 0;
      within_k8s += std::abs(pooled(fig, g, "K8S") - raw("K8S", g)) <= 0.05 ? 1 : 0;
      const Samples* ks = find(m, fig, g, "KubeDSM");
      const Samples* k8 = find(m, fig, g, "K8S");
      if (ks && k8) {
        const PairedTest t = paired_test(ks->pooled, k8->pooled);
        ordered += t.diff.mean > 0 && t.sign_p < 0.05 ? 1 : 0;
      }
      bool lowest = ks != nullptr;
      for (const std::string& s : l.series) {
        const Samples* o = find(m, fig, g, s);
        if (s != "KubeDSM" && o && ks && mean_of(o->edge_sd) < mean_of(ks->edge_sd)) lowest = false;
      }
      lowest_sd += lowest ? 1 : 0;
    }
    const double n = static_cast<double>(l.groups.size());
    const double rn = raw_n ? static_cast<double>(raw_n) : std::nan("");
    const std::string F = fig == std::string("fig4") ? "Fig. 4" : "Fig. 5";
    add(std::string(fig) + "_kubedsm_edge_ratio", F + ": KubeDSM's average edge ratio", paper_avg,
        k_raw / rn, k / n, report::Format::kPercent);
    add(std::string(fig) + "_gain_relative",
        F + ": KubeDSM over the best baseline (relative, averaged over scenarios)", paper_gain,
        gain_raw / rn, gain / n, report::Format::kPercent);
    c.table.add_row({F + ": scenarios where KubeDSM's pooled edge ratio is within ±5 points of "
                         "the authors' raw figure (KubeDSM / K8S)",
                     "—", "—", fmt::format("{} / {} of {}", within, within_k8s, l.groups.size())});
    c.table.add_row({F + ": scenarios where KubeDSM > K8S with a paired sign test at p < 0.05",
                     "all (no test)", "—", fmt::format("{} of {}", ordered, l.groups.size())});
    c.table.add_row({F + ": scenarios where KubeDSM has the lowest std-dev across deployments "
                         "(Figs 8–9)",
                     "9 of 11 (both figures)", "—",
                     fmt::format("{} of {}", lowest_sd, l.groups.size())});
    c.json[std::string(fig) + "_within_5pp_kubedsm"] = within;
    c.json[std::string(fig) + "_within_5pp_k8s"] = within_k8s;
    c.json[std::string(fig) + "_kubedsm_over_k8s_significant"] = ordered;
    c.json[std::string(fig) + "_lowest_sd"] = lowest_sd;
  }
}

// Fig. 10: the migration variants against each other and K8S, and their order.
void claims_fig10(Claims& c, const SampleMap& m, const std::vector<Point>& pts) {
  auto add = [&](const std::string& key, const std::string& what, const std::string& paper,
                 double raw, double ours,
                 report::Format f) { add_claim(c, key, what, paper, raw, ours, f); };
  auto pooled = [&](const std::string& f, const std::string& g, const std::string& s) {
    return pooled_mean(m, f, g, s);
  };
  auto raw = raw_pooled;
  const FigureLayout l10 = layout(pts, "fig10");
  auto avg10 = [&](const std::string& s, bool authors) {
    double a = 0;
    size_t k = 0;
    for (const std::string& g : l10.groups) {
      // Only the scenarios the authors ran the variants on (1.3_0.4, 1.4_0.4) when comparing.
      if (!std::isfinite(raw("NoMigration 0/0", g))) continue;
      a += authors ? raw(s == "K8S" ? "K8S" : authors_series(s), g) : pooled("fig10", g, s);
      ++k;
    }
    return k ? a / static_cast<double>(k) : std::nan("");
  };
  auto both = [&](const std::string& s) { return std::pair{avg10(s, true), avg10(s, false)}; };
  const auto [k8s_r, k8s] = both("K8S");
  const auto [orig_r, orig] = both("Original");
  const auto [mid_r, mid] = both("MidMig");
  const auto [nco_r, nco] = both("NoCloudOffload");
  const auto [nem_r, nem] = both("NoEdgeMig");
  const auto [nom_r, nom] = both("NoMigration");
  const report::Format P = report::Format::kPercent;
  add("fig10_nomigration_over_k8s",
      "Fig. 10 (1.3_0.4, 1.4_0.4): NoMigration 0/0 over K8S (the paper's \"NoEdgeMig\" bars)",
      "+8%", (nom_r - k8s_r) / k8s_r, (nom - k8s) / k8s, P);
  add("fig10_noedgemig_over_k8s", "Fig. 10: NoEdgeMig 5/0 over K8S", "—", (nem_r - k8s_r) / k8s_r,
      (nem - k8s) / k8s, P);
  add("fig10_original_over_nomigration", "Fig. 10: Original over NoMigration 0/0", "+14.9%",
      (orig_r - nom_r) / nom_r, (orig - nom) / nom, P);
  add("fig10_original_over_noedgemig", "Fig. 10: Original over NoEdgeMig 5/0", "—",
      (orig_r - nem_r) / nem_r, (orig - nem) / nem, P);
  add("fig10_midmig_over_original", "Fig. 10: MidMig over Original", "+5.1%",
      (mid_r - orig_r) / orig_r, (mid - orig) / orig, P);
  add("fig10_nocloudoffload_over_nomigration", "Fig. 10: NoCloudOffload over NoMigration 0/0",
      "> 0", (nco_r - nom_r) / nom_r, (nco - nom) / nom, P);
  // The order of the five variants, best first, here and in the authors' runs.
  auto order = [&](bool authors) {
    std::vector<std::pair<double, std::string>> v;
    for (const Variant& x : kVariants) v.push_back({avg10(x.label, authors), x.label});
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)  // "=": equal means (identical runs)
      s += (i == 0                                           ? ""
            : std::abs(v[i].first - v[i - 1].first) <= 1e-12 ? " = "
                                                             : " > ") +
           v[i].second;
    return s;
  };
  c.table.add_row({"Fig. 10 (1.3_0.4, 1.4_0.4): variants by pooled edge ratio",
                   "MidMig > Original > \"NoEdgeMig\" (0/0) > NoCloudOffload", order(true),
                   order(false)});
  c.json["fig10_order"] = order(false);
  c.json["fig10_order_authors"] = order(true);
}

// Fig. 11: what the QoS scenarios do to each deployment.
void claims_fig11(Claims& c, const SampleMap& m) {
  auto add = [&](const std::string& key, const std::string& what, const std::string& paper,
                 double raw, double ours,
                 report::Format f) { add_claim(c, key, what, paper, raw, ours, f); };
  const report::Format P = report::Format::kPercent;
  auto dep = [&](const std::string& s, const char* d) {
    const Samples* p = find(m, "fig11", scenario_name(1.5, 0.4), s);
    if (!p) return std::nan("");
    auto it = p->deployment.find(d);
    return it == p->deployment.end() ? std::nan("") : mean_of(it->second);
  };
  const double nan = std::nan("");
  add("fig11_allhalf_d_change", "Fig. 11: AllHalf vs Original, deployment D", "decreases", nan,
      dep("AllHalf", "D") - dep("Original", "D"), P);
  add("fig11_allhalf_c_change", "Fig. 11: AllHalf vs Original, deployment C", "increases", nan,
      dep("AllHalf", "C") - dep("Original", "C"), P);
  add("fig11_cgta_c_minus_best_other", "Fig. 11: C>A, C minus the best other deployment",
      "> 0 (C highest)", nan,
      dep("C>A", "C") - std::max({dep("C>A", "A"), dep("C>A", "B"), dep("C>A", "D")}), P);
  add("fig11_respectd_d_vs_allhalf", "Fig. 11: RespectD vs AllHalf, deployment D",
      "slight improvement", nan, dep("RespectD", "D") - dep("AllHalf", "D"), P);
  add("fig11_respectd_d_vs_original", "Fig. 11: RespectD vs Original, deployment D", "—", nan,
      dep("RespectD", "D") - dep("Original", "D"), P);
}

}  // namespace

Claims claims(const SampleMap& m, const std::vector<Point>& pts) {
  Claims c;
  c.table.caption =
      "The paper's statements (§6.3), the same quantities in the authors' raw data (MineDraft, "
      "pooled metric computed by orrery) and here (pooled metric, idle samples included)";
  c.table.columns = {"statement", "paper", "authors' raw data", "orrery"};
  claims_fig45(c, m, pts);
  claims_fig10(c, m, pts);
  claims_fig11(c, m);
  return c;
}

// Per scenario of Fig. 4 or 5: ours (95 % CI over seeds) beside the authors' raw data, and the
// paired difference KubeDSM − K8S and KubeDSM − best other baseline with its sign test.
report::Table scenario_table(const SampleMap& m, const std::vector<Point>& pts,
                             const std::string& fig, Json* json) {
  const FigureLayout l = layout(pts, fig);
  report::Table t;
  t.caption =
      "Pooled edge ratio (%, idle samples included): mean over seeds [95 % CI, Student t], "
      "the authors' raw figure (MineDraft, mean over their 10 runs), and paired "
      "differences over the same seeds (mean [95 % CI], wins–losses, two-sided sign test)";
  t.columns = {"scenario",
               "KubeDSM",
               "authors",
               "K8S",
               "authors",
               "KubeDSM − K8S",
               "best other baseline",
               "KubeDSM − best other"};
  for (const std::string& g : l.groups) {
    const Samples* k = find(m, fig, g, "KubeDSM");
    const Samples* k8 = find(m, fig, g, "K8S");
    if (!k || !k8) continue;
    auto ci = [](const std::vector<double>& v) {
      const MeanCi c = mean_ci95(v);
      return fmt::format("{} [{}, {}]", pct(c.mean), pct(c.mean - c.half), pct(c.mean + c.half));
    };
    auto raw = [&](const char* s) {
      const AuthorsPoint* a = authors_point(s, g);
      return a ? pct(a->pooled) : std::string("—");
    };
    std::string best;
    double best_v = -1;
    for (const std::string& s : l.series)
      if (s != "KubeDSM")
        if (const Samples* o = find(m, fig, g, s); o && mean_of(o->pooled) > best_v) {
          best_v = mean_of(o->pooled);
          best = s;
        }
    const PairedTest vs_k8s = paired_test(k->pooled, k8->pooled);
    const PairedTest vs_best = paired_test(k->pooled, find(m, fig, g, best)->pooled);
    t.add_row({g, ci(k->pooled), raw("KubeDSM"), ci(k8->pooled), raw("K8S"), paired_text(vs_k8s),
               best, paired_text(vs_best)});
    Json& j = (*json)[g];
    j["kubedsm_minus_k8s"] = paired_json(vs_k8s);
    j["best_other"] = best;
    j["kubedsm_minus_best_other"] = paired_json(vs_best);
  }
  return t;
}

namespace {

std::string p_text(double p) {
  return p < 0.001 ? std::string("p < 0.001") : fmt::format("p = {:.2g}", p);
}

// One pair of Fig. 10's variants in one scenario: ours paired over seeds, the authors' runs
// compared unpaired (Welch), each with its Holm-adjusted p (set by fig10_pairs).
struct Fig10Pair {
  std::string name;  // "MidMig − Original", the better in the authors' means first
  PairedTest ours;
  WelchTest theirs;
  double ours_p = 1, theirs_p = 1;
};

// Every pair of variants in scenario `g`, when the authors ran all five there (else none). The
// pairs of a scenario are a family: each side's p-values (paired t, Welch t) are Holm-adjusted.
std::vector<Fig10Pair> fig10_pairs(const SampleMap& m, const std::string& g) {
  std::vector<std::pair<double, std::string>> order;  // the authors' means, best first
  for (const Variant& v : kVariants)
    if (const AuthorsRuns* r = authors_runs(authors_series(v.label), g))
      order.push_back({mean_ci95({std::begin(r->pooled), std::end(r->pooled)}).mean, v.label});
  std::vector<Fig10Pair> pairs;
  if (order.size() != std::size(kVariants)) return pairs;
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a > b; });
  auto runs = [&](const std::string& v) {
    const AuthorsRuns* r = authors_runs(authors_series(v), g);
    return std::vector<double>(std::begin(r->pooled), std::end(r->pooled));
  };
  for (size_t i = 0; i + 1 < order.size(); ++i)
    for (size_t k = i + 1; k < order.size(); ++k) {
      const Samples* a = find(m, "fig10", g, order[i].second);
      const Samples* b = find(m, "fig10", g, order[k].second);
      if (!a || !b) continue;
      pairs.push_back({order[i].second + " − " + order[k].second, paired_test(a->pooled, b->pooled),
                       welch_test(runs(order[i].second), runs(order[k].second))});
    }
  std::vector<double> p_ours, p_theirs;
  for (const Fig10Pair& x : pairs) {
    p_ours.push_back(paired_t_p(x.ours));
    p_theirs.push_back(x.theirs.p);
  }
  p_ours = holm_adjust(p_ours);
  p_theirs = holm_adjust(p_theirs);
  for (size_t i = 0; i < pairs.size(); ++i) {
    pairs[i].ours_p = p_ours[i];
    pairs[i].theirs_p = p_theirs[i];
  }
  return pairs;
}

// Whether the two sides agree on a pair: a side resolves it at adjusted p < 0.05.
std::string fig10_verdict(const Fig10Pair& x) {
  auto side = [](double mean, double p) { return p >= 0.05 ? 0 : mean > 0 ? 1 : -1; };
  const int so = side(x.ours.diff.mean, x.ours_p);
  const int st = side(x.theirs.diff.mean, x.theirs_p);
  if (so == st) return st == 0 ? "neither resolves it" : "same order";
  if (st == 0) return "theirs does not resolve it; ours does";
  return so == 0 ? "ours does not resolve it" : "opposite order";
}

}  // namespace

// Fig. 10, per scenario the authors ran every variant on: each pair of variants (fig10_pairs)
// with both sides' differences and the verdict.
report::Table fig10_pairs_table(const SampleMap& m, const std::vector<Point>& pts, Json* json) {
  report::Table t;
  t.caption =
      "Fig. 10 pairs, the better in the authors' means first: pooled edge ratio difference in "
      "points; ours paired over the same seeds (mean [95 % CI], wins–losses, Holm-adjusted p of "
      "the paired t test over the scenario's 10 pairs), theirs over independent runs (Welch mean "
      "[95 % CI], Holm-adjusted p; MineDraft, 10 runs each); a side resolves a pair at adjusted "
      "p < 0.05";
  t.columns = {"scenario", "pair", "orrery", "authors' runs", "verdict"};
  for (const std::string& g : layout(pts, "fig10").groups)
    for (const Fig10Pair& x : fig10_pairs(m, g)) {
      const MeanCi& o = x.ours.diff;
      const MeanCi& d = x.theirs.diff;
      const std::string verdict = fig10_verdict(x);
      t.add_row({g, x.name,
                 x.ours.ties == x.ours.n
                     ? std::string("identical runs")
                     : fmt::format("{:+.1f} [{:+.1f}, {:+.1f}] pp, {}–{}, {}", 100 * o.mean,
                                   100 * (o.mean - o.half), 100 * (o.mean + o.half), x.ours.wins,
                                   x.ours.losses, p_text(x.ours_p)),
                 fmt::format("{:+.1f} [{:+.1f}, {:+.1f}] pp, {}", 100 * d.mean,
                             100 * (d.mean - d.half), 100 * (d.mean + d.half), p_text(x.theirs_p)),
                 verdict});
      Json& j = (*json)[g][x.name];
      j = paired_json(x.ours);
      j["holm_p"] = x.ours_p;
      j["authors_mean_diff"] = d.mean;
      j["authors_ci95_half"] = d.half;
      j["authors_holm_p"] = x.theirs_p;
      j["verdict"] = verdict;
    }
  return t;
}

}  // namespace orrery::kubedsm::repro_detail
