// The experiments harness (experiments/harness.h): --shard parsing, the partition of runs, exact
// numbers through shard files, and the merge's checks.
#include "experiments/harness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "core/error.h"
#include "scratch_dir.h"

namespace orrery::experiments {
namespace {

namespace fs = std::filesystem;

TEST(Shard, ParsesIOfN) {
  const Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_TRUE(s.given);
  EXPECT_EQ(s.text(), "2/5");
  EXPECT_TRUE(s.owns(7));
  EXPECT_FALSE(s.owns(8));
  EXPECT_EQ(parse_shard("0/1").count, 1u);
}

TEST(Shard, RejectsAnythingButIOfNWithIBelowN) {
  for (const char* bad : {"", "4/4", "5/4", "0/0", "1", "/4", "1/", "a/b", "-1/4", "1/4/2", " 1/4",
                          "1/4 ", "0/10001", "123456/999999"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--shard: expected I/N"), std::string::npos) << e.what();
    }
  }
}

TEST(Shard, TheShardsPartitionTheRuns) {
  for (size_t n : {1u, 3u, 4u, 7u}) {
    std::multiset<size_t> all;
    for (size_t i = 0; i < n; ++i)
      for (size_t r : shard_runs(Shard{i, n, true}, 23)) all.insert(r);
    ASSERT_EQ(all.size(), 23u) << n << " shards";
    for (size_t r = 0; r < 23; ++r) EXPECT_EQ(all.count(r), 1u) << "run " << r;
  }
  EXPECT_TRUE(shard_runs(Shard{5, 8, true}, 4).empty());  // more shards than runs: empty ones
}

TEST(Reals, RoundTripExactlyThroughTheShardFileText) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v = {
      0.1, 1.0 / 3, -0.0, 1e-300, 5e-324, 1.7976931348623157e308, 123456789.123456789, inf, -inf};
  const std::vector<double> back = reals_of(Json::parse(reals(v).dump()));
  ASSERT_EQ(back.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(back[i], v[i]) << i;
    EXPECT_EQ(std::signbit(back[i]), std::signbit(v[i])) << i;
  }
  EXPECT_TRUE(std::isnan(real_of(Json::parse(real(std::nan("")).dump()))));
}

// A toy sweep: run i's result is a number that needs all 17 digits, and it writes a file.
struct Toy {
  std::string out;
  double run(size_t i) const {
    std::ofstream(out + "/run-" + std::to_string(i) + ".txt") << i << "\n";
    return std::sqrt(static_cast<double>(i) + 0.1);
  }
};

Codec<double> codec() {
  return {[](const double& d) { return real(d); }, real_of};
}

Distribution dist(const std::string& shard, std::vector<std::string> merge = {},
                  std::vector<std::string> command = {"repro", "toy", "--seeds", "3"}) {
  Distribution d;
  if (!shard.empty()) d.shard = parse_shard(shard);
  d.merge = std::move(merge);
  d.command = std::move(command);
  return d;
}

std::optional<std::vector<double>> toy_sweep(const Distribution& d, const std::string& out) {
  fs::create_directories(out);
  const Toy t{out};
  return sweep<double>(
      d, out, 10, 2, [&](size_t i) { return t.run(i); }, codec());
}

TEST(Sweep, ShardsWriteOnlyTheirRunsAndMergeToTheWholeSweep) {
  const orrery::testing::ScratchDir tmp("harness");
  const std::optional<std::vector<double>> whole = toy_sweep(dist(""), tmp.path("whole"));
  ASSERT_TRUE(whole);
  std::vector<std::string> dirs;
  for (int i = 0; i < 3; ++i) {
    dirs.push_back(tmp.path("s" + std::to_string(i)));
    EXPECT_FALSE(toy_sweep(dist(std::to_string(i) + "/3"), dirs.back()));
    EXPECT_TRUE(fs::exists(dirs.back() + "/shard.json"));
    EXPECT_EQ(fs::exists(dirs.back() + "/run-4.txt"), i == 1);  // 4 mod 3 = 1
  }
  const std::optional<std::vector<double>> merged =
      toy_sweep(dist("", {dirs[2], dirs[0], dirs[1]}), tmp.path("merged"));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, *whole);      // exactly, every digit
  for (size_t i = 0; i < 10; ++i)  // the runs' own files, copied from their shards
    EXPECT_TRUE(fs::exists(tmp.path("merged/run-" + std::to_string(i) + ".txt"))) << i;
}

std::string merge_error(const Distribution& d, const std::string& out) {
  try {
    toy_sweep(d, out);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(Sweep, MergeRefusesMissingDuplicateAndForeignShards) {
  const orrery::testing::ScratchDir tmp("harness-bad");
  std::vector<std::string> dirs;
  for (int i = 0; i < 3; ++i) {
    dirs.push_back(tmp.path("s" + std::to_string(i)));
    toy_sweep(dist(std::to_string(i) + "/3"), dirs.back());
  }
  const std::string out = tmp.path("out");
  EXPECT_NE(merge_error(dist("", {dirs[0], dirs[2]}), out).find("missing shard(s) 1/3"),
            std::string::npos);
  EXPECT_NE(merge_error(dist("", {dirs[0], dirs[1], dirs[1], dirs[2]}), out)
                .find("shard 1/3 given twice"),
            std::string::npos);
  // The same shards read by a command with other options.
  const Distribution other = dist("", dirs, {"repro", "toy", "--seeds", "4"});
  EXPECT_NE(merge_error(other, out).find("a shard of a different command or options"),
            std::string::npos);
  // A shard of another split of the runs.
  const std::string two = tmp.path("two");
  toy_sweep(dist("1/2"), two);
  EXPECT_NE(merge_error(dist("", {dirs[0], two, dirs[2]}), out).find("is not one of 3 shards"),
            std::string::npos);
  // Not a shard at all.
  EXPECT_NE(merge_error(dist("", {tmp.path("nothing")}), out).find("no shard.json"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(out + "/run-0.txt"));  // nothing was merged
}

}  // namespace
}  // namespace orrery::experiments
