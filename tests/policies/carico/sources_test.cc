// Telemetry sources and the agent's handling of bad input: /proc parsers on good, garbage and
// truncated text; ProcSource on a fake /proc (deltas, PSI fallback reported once, garbage skipped
// and the last good signal kept); the real /proc of this machine; replay files and their
// FILE:LINE errors; NaN/inf samples.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "obs/log.h"
#include "policies/carico/agent.h"
#include "policies/carico/proc_source.h"
#include "policies/carico/replay_source.h"
#include "scratch_dir.h"

namespace orrery::carico {
namespace {

using orrery::testing::ScratchDir;

const char* kMeminfo =
    "MemTotal:        8000000 kB\nMemFree:         2000000 kB\nMemAvailable: 5000000 kB\n"
    "Buffers:          500000 kB\nCached:          1500000 kB\n";

std::string stat_line(uint64_t user, uint64_t idle, uint64_t iowait) {
  return "cpu  " + std::to_string(user) + " 0 0 " + std::to_string(idle) + " " +
         std::to_string(iowait) + " 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n";
}

TEST(CaricoProc, ParsesStatMeminfoAndPressure) {
  std::string why;
  const auto t = parse_proc_stat(stat_line(300, 600, 100), &why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->busy, 300u);
  EXPECT_EQ(t->idle, 700u);
  const auto m = parse_meminfo(kMeminfo, &why);
  ASSERT_TRUE(m) << why;
  EXPECT_NEAR(*m, 1 - (2000000.0 + 500000 + 1500000) / 8000000, 1e-12);
  const auto p = parse_pressure_some_total(
      "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\nfull avg10=0 avg60=0 avg300=0 total=7\n",
      &why);
  ASSERT_TRUE(p) << why;
  EXPECT_EQ(*p, 123456u);
}

TEST(CaricoProc, RejectsGarbageAndTruncatedLines) {
  std::string why;
  EXPECT_FALSE(parse_proc_stat("cpu  12 34\n", &why));
  EXPECT_NE(why.find("truncated"), std::string::npos) << why;
  EXPECT_FALSE(parse_proc_stat("cpu  12 x 3 4 5 6 7 8\n", &why));
  EXPECT_NE(why.find("\"x\""), std::string::npos) << why;
  EXPECT_FALSE(parse_proc_stat("garbage\n", &why));
  EXPECT_FALSE(parse_meminfo("MemTotal: lots kB\n", &why));
  EXPECT_FALSE(parse_meminfo("MemTotal: 100 kB\n", &why));  // MemFree etc. missing
  EXPECT_FALSE(parse_pressure_some_total("some avg10=1.0 total=\n", &why));
  EXPECT_FALSE(parse_pressure_some_total("", &why));
}

// Found by fuzz/carico_proc.cc (fuzz/corpus/carico_proc/regress-meminfo-sum-overflow): MemFree +
// Buffers + Cached was summed in int64 and overflowed (undefined behaviour) on huge counters.
TEST(CaricoProc, HugeMeminfoCountersDoNotOverflow) {
  std::string why;
  const auto m = parse_meminfo(
      "MemTotal: 100 kB\nMemFree: 9223372036854775807 kB\nBuffers: 9223372036854775807 kB\n"
      "Cached: 512312 kB\n",
      &why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(*m, 0.0);  // more free than total: clamped, as before
}

TEST(CaricoProc, DeltasFromAFakeProcAndThePsiFallbackReportedOnce) {
  ScratchDir d("carico-proc");
  d.write("proc/stat", stat_line(1000, 3000, 0));
  d.write("proc/meminfo", kMeminfo);
  d.write("proc/pressure/cpu", "some avg10=0 avg60=0 avg300=0 total=1000000\n");
  ProcSource src(d.path("proc"), d.path("cgroup"));
  std::string problem;
  EXPECT_FALSE(src.read(0.0, &problem));  // priming
  d.write("proc/stat", stat_line(1300, 3100, 0));  // 300 busy of 400 → 0.75
  d.write("proc/pressure/cpu", "some avg10=0 avg60=0 avg300=0 total=1050000\n");  // 50 ms in 0.1 s
  auto s = src.read(0.1, &problem);
  ASSERT_TRUE(s) << problem;
  EXPECT_NEAR(s->cpu_util, 0.75, 1e-12);
  ASSERT_TRUE(s->cpu_pressure);
  EXPECT_NEAR(*s->cpu_pressure, 0.5, 1e-9);
  EXPECT_NEAR(combine(*s)(0), (0.75 + 0.5) / 2, 1e-9);
  EXPECT_EQ(s->pods, 0);  // no kubepods cgroup

  // Garbage: skipped with a reason.
  d.write("proc/stat", "cpu  1 2 zz\n");
  EXPECT_FALSE(src.read(0.2, &problem));
  EXPECT_NE(problem.find("/proc/stat"), std::string::npos);

  // PSI disappears: one warning, then utilisation alone.
  std::vector<std::string> lines;
  obs::set_log_sink([&](const std::string& l) { lines.push_back(l); });
  std::filesystem::remove(d.path("proc/pressure/cpu"));
  d.write("proc/stat", stat_line(1500, 3200, 0));
  src.read(0.3, &problem);
  d.write("proc/stat", stat_line(1600, 3300, 0));
  s = src.read(0.4, &problem);
  obs::set_log_sink(nullptr);
  ASSERT_TRUE(s) << problem;
  EXPECT_FALSE(s->cpu_pressure);
  EXPECT_FALSE(src.has_psi());
  EXPECT_NEAR(combine(*s)(0), 0.5, 1e-12);  // utilisation alone
  int warnings = 0;
  for (const auto& l : lines) warnings += l.find("no CPU pressure") != std::string::npos;
  EXPECT_EQ(warnings, 1);
}

TEST(CaricoProc, CountsPodCgroupsOfBothDrivers) {
  ScratchDir d("carico-cg");
  d.write("systemd/kubepods.slice/kubepods-podaaa.slice/cgroup.procs", "");
  d.write("systemd/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podbbb.slice/x", "");
  d.write("systemd/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podccc.slice/x", "");
  d.write("cgroupfs/kubepods/besteffort/pod123/x", "");
  d.write("cgroupfs/kubepods/pod456/x", "");
  EXPECT_EQ(count_pod_cgroups(d.path("systemd")), 3);
  EXPECT_EQ(count_pod_cgroups(d.path("cgroupfs")), 2);
  EXPECT_EQ(count_pod_cgroups(d.path("none")), -1);
}

TEST(CaricoProc, ReadsThisMachinesRealProc) {
  ProcSource src;
  std::string problem;
  src.read(0, &problem);
  usleep(50'000);
  const auto s = src.read(0.05, &problem);
  ASSERT_TRUE(s) << problem;
  std::string why;
  EXPECT_TRUE(plausible(*s, &why)) << why;
  EXPECT_GT(s->mem_util, 0.0);
  EXPECT_FALSE(src.describe().empty());
}

TEST(CaricoReplay, LoadsAndReplaysInTime) {
  const auto rows = parse_replay(
      "# a node\nt_s,cpu_util,mem_util,cpu_pressure,pods\n0,0.1,0.5,0.0,1\n0.5,0.2,0.5,,2\n"
      "1.0,0.3,0.6,0.2,3\n",
      "r.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows[1].sample.cpu_pressure);
  ReplaySource src(rows, "r.csv");
  std::string p;
  EXPECT_EQ(src.read(100.0, &p)->pods, 1);   // start
  EXPECT_EQ(src.read(100.7, &p)->pods, 2);   // the last sample at or before 0.7
  EXPECT_EQ(src.read(101.2, &p)->pods, 3);
  EXPECT_EQ(src.read(101.5, &p)->pods, 1);   // looped (period 1.5 s)
}

TEST(CaricoReplay, ErrorsNameFileLineAndColumn) {
  auto err = [](const std::string& text) {
    try {
      parse_replay(text, "node.csv");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("t_s,cpu_util,mem_util\n0,0.1,0.2\n0.1,abc,0.2\n"),
            "node.csv:3: cpu_util: expected a finite number, got \"abc\"");
  EXPECT_EQ(err("t_s,cpu_util,mem_util\n0,1.5,0.2\n"),
            "node.csv:2: cpu_util: 1.5 is out of range, expected [0, 1]");
  EXPECT_EQ(err("t_s,cpu_util,mem_util\n0,nan,0.2\n"),
            "node.csv:2: cpu_util: expected a finite number, got \"nan\"");
  EXPECT_EQ(err("t_s,cpu_util,mem_util\n1,0.1,0.2\n1,0.1,0.2\n"),
            "node.csv:3: t_s: 1 is not after the previous sample's 1.000000");
  EXPECT_EQ(err("t_s,cpu_util,mem_util\n0,0.1\n"), "node.csv:2: expected 3 columns, got 2");
  EXPECT_EQ(err("t_s,cpu,mem_util\n"),
            "node.csv:1: header: unknown column \"cpu\" (expected t_s,cpu_util,mem_util[,cpu_pressure][,pods])");
  EXPECT_EQ(err(""), "node.csv: empty replay file (expected a header line)");
  EXPECT_THROW(load_replay("/nonexistent/replay.csv"), InputError);
}

TEST(CaricoAgent, BadSamplesAreSkippedAndTheLastGoodSignalKept) {
  AgentOptions o;
  NodeAgent agent(o);
  RawSample good;
  good.cpu_util = 0.3;
  good.mem_util = 0.4;
  good.cpu_pressure = 0.0;
  double t = 0;
  for (int i = 0; i < 30; ++i, t += 0.1) agent.poll(t, good, 0);
  ASSERT_TRUE(agent.last_report());
  const double pc = agent.last_report()->pod_capacity;
  const Eigen::VectorXd y = agent.last_report()->y;
  RawSample nan = good;
  nan.cpu_util = std::nan("");
  RawSample inf = good;
  inf.mem_util = INFINITY;
  std::string why;
  int reports = 0;
  for (int i = 0; i < 30; ++i, t += 0.1) {
    const std::optional<RawSample> s = i % 3 == 0 ? std::optional<RawSample>(nan)
                                       : i % 3 == 1 ? std::optional<RawSample>(inf)
                                                    : std::nullopt;
    if (agent.poll(t, s, 0, &why)) ++reports;
  }
  EXPECT_EQ(reports, 3);  // still one report per batch
  EXPECT_EQ(agent.skipped_samples(), 30u);
  EXPECT_TRUE((agent.last_report()->y - y).cwiseAbs().maxCoeff() < 1e-12);
  EXPECT_NEAR(agent.last_report()->pod_capacity, pc, 0.05 * pc + 1e-9);
}

}  // namespace
}  // namespace orrery::carico
