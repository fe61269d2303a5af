// The results a user reads first, through the real binary: the terminal summary of a run that
// finished nothing, `orrery compare --seeds` (means with Student-t intervals, paired comparison,
// byte-identical outputs) and the report's --baseline.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "run_orrery.h"
#include "scratch_dir.h"

namespace orrery {
namespace {

using orrery::testing::run_orrery;
using Json = nlohmann::ordered_json;
using Scratch = orrery::testing::ScratchDir;

const std::string kSource = ORRERY_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The finding: a run that finished nothing printed "pending p50 0 s"-style statistics and looked
// perfect; its summary.json said delay_p50_s 0.0.
TEST(ResultsCli, ARunThatFinishedNothingSaysSo) {
  Scratch s("nothing");
  const auto r = run_orrery("sim " + kSource + "/scenarios/oom.yaml --out " + s.path("oom") +
                            " --no-wall-clock");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("finished nothing: no job completed and no pod succeeded"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("pod outcomes: OOMKilled"), std::string::npos) << r.output;
  const Json sum = Json::parse(slurp(s.path("oom/summary.json")));
  EXPECT_TRUE(sum["jobs"]["delay_p50_s"].is_null());
  // A run that did work does not say it.
  const auto ok = run_orrery("demo --out " + s.path("demo") + " --no-wall-clock -j 1");
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_EQ(ok.output.find("finished nothing"), std::string::npos);
}

// The 95% intervals of `compare --seeds` are mean ± t_{0.975, n−1}·sd/√n with the tabled
// t_{0.975,3} = 3.182446305 (4 seeds), recomputed here from the per-seed values it reports; the
// paired differences are those of the same seeds; outputs are byte-identical across runs and
// thread counts.
TEST(ResultsCli, CompareSeedsGivesStudentIntervalsAndPairedDifferences) {
  Scratch s("seeds");
  const std::string args = "compare " + kSource +
                           "/scenarios/demo.yaml --profiles kube-default,bef --seeds 1..4 "
                           "--no-wall-clock --out ";
  const auto a = run_orrery(args + s.path("a") + " -j 2");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_NE(a.output.find("demo: 2 profiles \u00d7 4 seeds (1,2,3,4); means with 95% confidence "
                          "intervals (Student t)"),
            std::string::npos)
      << a.output;
  EXPECT_NE(a.output.find("paired against kube-default"), std::string::npos);
  const Json sum = Json::parse(slurp(s.path("a/summary.json")));
  EXPECT_EQ(sum["seeds"], Json::parse("[1,2,3,4]"));
  EXPECT_EQ(sum["reference"], "kube-default");
  const double t3 = 3.182446305284263;
  int checked = 0;
  for (const auto& [key, m] : sum["metrics"].items()) {
    for (const auto& [profile, st] : m["profiles"].items()) {
      std::vector<double> v;
      for (const Json& x : st["values"])
        if (x.is_number()) v.push_back(x.get<double>());
      ASSERT_EQ(st["n"].get<size_t>(), v.size()) << key;
      if (v.size() < 2) continue;
      double mean = 0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      double ss = 0;
      for (double x : v) ss += (x - mean) * (x - mean);
      const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
      ASSERT_EQ(v.size(), 4u) << key;
      const double half = t3 * sd / 2;  // √4
      EXPECT_NEAR(st["mean"].get<double>(), mean, 1e-9 * std::max(1.0, std::fabs(mean))) << key;
      EXPECT_NEAR(st["ci_lo"].get<double>(), mean - half, 1e-7 * std::max(1.0, half)) << key;
      EXPECT_NEAR(st["ci_hi"].get<double>(), mean + half, 1e-7 * std::max(1.0, half)) << key;
      ++checked;
    }
    // Paired: the mean difference is the difference of the means over the same seeds.
    const Json& ref = m["profiles"]["kube-default"]["values"];
    const Json& bef = m["profiles"]["bef"]["values"];
    double diff = 0;
    size_t n = 0, plus = 0, minus = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (!ref[i].is_number() || !bef[i].is_number()) continue;
      const double d = bef[i].get<double>() - ref[i].get<double>();
      diff += d;
      ++n;
      plus += d > 0;
      minus += d < 0;
    }
    const Json& p = m["paired"]["bef"];
    EXPECT_EQ(p["n"].get<size_t>(), n) << key;
    EXPECT_EQ(p["plus"].get<size_t>(), plus) << key;
    EXPECT_EQ(p["minus"].get<size_t>(), minus) << key;
    if (n > 0) {
      EXPECT_NEAR(p["mean_diff"].get<double>(), diff / static_cast<double>(n),
                  1e-9 * std::max(1.0, std::fabs(diff)))
          << key;
    }
  }
  EXPECT_GE(checked, 10);
  // The per-seed runs are the same as single runs with that seed.
  const auto one = run_orrery("sim " + kSource + "/scenarios/demo.yaml --profile bef --seed 3 " +
                              "--no-wall-clock -q --out " + s.path("one"));
  ASSERT_EQ(one.code, 0) << one.output;
  EXPECT_EQ(slurp(s.path("one/summary.json")), slurp(s.path("a/bef/seed-3/summary.json")));
  // Same seeds, same bytes, whatever the number of threads.
  const auto b = run_orrery(args + s.path("b") + " -j 1");
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_EQ(slurp(s.path("a/summary.json")), slurp(s.path("b/summary.json")));
  EXPECT_EQ(slurp(s.path("a/report.html")), slurp(s.path("b/report.html")));
  std::string out_a = a.output, out_b = b.output;
  out_a.resize(out_a.find("wrote "));
  out_b.resize(out_b.find("wrote "));
  EXPECT_EQ(out_a, out_b);
  const std::string html = slurp(s.path("a/report.html"));
  EXPECT_NE(html.find(">Means over seeds</h2>"), std::string::npos);
  EXPECT_NE(html.find(">Paired against kube-default</h2>"), std::string::npos);
}

TEST(ResultsCli, CompareSeedsAndBaselineInputErrors) {
  Scratch s("bad");
  const std::string demo =
      kSource + "/scenarios/demo.yaml --profiles kube-default,bef --out " + s.path("x");
  for (const auto& [args, message] :
       {std::pair{" --seeds 5..1", "--seeds: the range 5..1 is empty"},
        std::pair{" --seeds 1,x", "--seeds: \"x\" is not a non-negative integer"},
        std::pair{" --seeds 1,1", "--seeds: seed 1 given twice"},
        std::pair{" --seeds 1..5000", "--seeds: more than 1000 seeds"},
        std::pair{" --seeds 1..2 --seed 3", "--seed and --seeds: give one of them"},
        std::pair{" --baseline bfe",
                  "--baseline: \"bfe\" is not one of --profiles (did you "
                  "mean \"bef\"?)"}}) {
    const auto r = run_orrery("compare " + demo + args);
    EXPECT_EQ(r.code, 1) << args << ": " << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(s.path("x/summary.json"))) << args;
  }
}

}  // namespace
}  // namespace orrery
