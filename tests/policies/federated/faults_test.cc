// Fault injection in the Megha and PigeonC simulations (faults.h): every task of the trace runs
// exactly once and every job completes under message loss, delay, partitions and crashes; the
// job metrics stay consistent; same seed, same bytes; more loss, longer jobs.
#include "policies/federated/faults.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "core/error.h"
#include "fixtures.h"
#include "policies/federated/run.h"

namespace orrery::federated {
namespace {

using testing::head_of;
using testing::megha_data;

struct Data {
  ClusterConfig megha = load_cluster_config(megha_data("megha_config_G5L5S10000_C.json"));
  ClusterConfig pigeon = load_cluster_config(megha_data("pigeon_config_D10M100S10000_C.json"));
  TaskConstraintModel model = load_task_model(megha_data("task_constraint_model.json"));
  std::shared_ptr<const sim::Trace> trace = head_of("syn_500.0.tr", 60);
};

const Data& data() {
  static const Data d;
  return d;
}

RunOutput run(const ClusterConfig& c, const std::string& faults, uint64_t seed = 3) {
  RunOptions o;
  o.seed = seed;
  o.wall_clock = false;
  if (!faults.empty())
    o.faults = std::make_shared<const FaultPlan>(parse_fault_plan(faults, "f.yaml", c));
  return run_federated(make_workload(data().trace, data().model, seed, c), c, o);
}

// Every runnable task launched once, completed once, reported to its job; every job with a
// runnable task finished; the job records agree with the summary.
void expect_exactly_once(const RunOutput& r, const ClusterConfig& c) {
  const Workload w = make_workload(data().trace, data().model, 3, c);
  const Json& f = r.summary["faults"];
  ASSERT_TRUE(f.is_object());
  EXPECT_EQ(f["incomplete"], false);
  const size_t runnable = f["tasks_runnable"].get<size_t>();
  EXPECT_GT(runnable, 0u);
  EXPECT_EQ(f["task_launches"].get<size_t>(), runnable) << "a task launched twice or never";
  EXPECT_EQ(f["task_completions"].get<size_t>(), runnable);
  EXPECT_EQ(r.summary["pods"]["count"].get<size_t>(), runnable);
  size_t started = 0;
  for (size_t t = 0; t < w.tasks(); ++t) {
    if (!w.runnable[t]) continue;
    EXPECT_GE(r.task_start[t], 0) << "task " << t << " never started";
    started += r.task_start[t] >= 0;
  }
  EXPECT_EQ(started, runnable);
  size_t jobs_with_tasks = 0;
  for (uint32_t n : w.job_runnable) jobs_with_tasks += n > 0;
  EXPECT_EQ(r.jobs.size(), jobs_with_tasks);
  EXPECT_EQ(r.summary["jobs"]["count"].get<size_t>(), jobs_with_tasks);
  std::set<uint64_t> ids;
  for (const sim::JobRecord& j : r.jobs) {
    EXPECT_TRUE(ids.insert(j.id).second) << "job " << j.id << " recorded twice";
    EXPECT_GE(j.finish, j.arrival + j.ideal) << "job " << j.id << " finished too early";
  }
}

const char* kMeghaFaults = R"(
network: {drop: 0.05, delay: {dist: exponential, mean: 2ms}}
partitions:
- {from: 20s, to: 40s, between: [gm0, [lm1, lm2]]}
crashes:
- {component: gm1, at: 15s, restart: 35s}
- {component: lm3, at: 25s, restart: 32s}
random_crashes:
- {components: [gm, lm], mtbf: 2m, mttr: 5s}
)";

const char* kPigeonFaults = R"(
network: {drop: 0.05, delay: {dist: exponential, mean: 2ms}}
partitions:
- {from: 20s, to: 40s, between: [distributor0, [master1, master2, master3]]}
crashes:
- {component: distributor1, at: 15s, restart: 35s}
- {component: master4, at: 25s, restart: 32s}
random_crashes:
- {components: [master, distributor], mtbf: 10m, mttr: 5s}
)";

TEST(FederatedFaults, MeghaRunsEveryTaskExactlyOnceUnderLossPartitionsAndCrashes) {
  const RunOutput r = run(data().megha, kMeghaFaults);
  expect_exactly_once(r, data().megha);
  const Json& f = r.summary["faults"];
  EXPECT_GE(f["crashes"].get<int>(), 2);
  EXPECT_GE(f["restarts"].get<int>(), 2);
  EXPECT_GT(f["retransmissions"].get<int>(), 0);
  EXPECT_GT(f["held_messages"].get<int>(), 0);
}

TEST(FederatedFaults, PigeonCRunsEveryTaskExactlyOnceUnderLossPartitionsAndCrashes) {
  const RunOutput r = run(data().pigeon, kPigeonFaults);
  expect_exactly_once(r, data().pigeon);
  const Json& f = r.summary["faults"];
  // Crashed Masters lost their queues: the Distributors sent those tasks again.
  EXPECT_GT(f["tasks_resent"].get<int>(), 0);
  EXPECT_GE(f["crashes"].get<int>(), 2);
  EXPECT_GE(f["restarts"].get<int>(), 2);
  EXPECT_GT(f["held_messages"].get<int>(), 0);
}

// A restarted GM knows nothing of the workers until the LMs answer its registration with full
// snapshots: jobs it got while down still all finish, none before its restart.
TEST(FederatedFaults, MeghaGmRestartRebuildsItsViewFromTheLms) {
  const RunOutput r = run(data().megha, "crashes: [{component: gm2, at: 5s, restart: 30s}]\n");
  expect_exactly_once(r, data().megha);
  const Workload w = make_workload(data().trace, data().model, 3, data().megha);
  int during = 0;
  for (const sim::JobRecord& j : r.jobs) {
    if (j.id % 5 != 2 || j.arrival < 5 * sim::kSecond || j.arrival >= 30 * sim::kSecond) continue;
    ++during;
    EXPECT_GE(j.finish, 30 * sim::kSecond) << "job " << j.id << " ran while its GM was down";
  }
  EXPECT_GT(during, 3);
}

// One GM, one LM, three workers; the GM is down from 2 s to 5 s while its 10-s task runs. It
// loses its view (two free workers); only the LM's answer to its registration can tell it they are
// free (with one GM, status updates carry nothing: every change is its own). The 20-s job's three
// 1-s tasks then run side by side: finished at 20 s + verify, launch, 1 s, report.
TEST(FederatedFaults, MeghaRestartedGmLearnsTheFreeWorkersFromItsRegistration) {
  ClusterConfig c = parse_cluster_config(testing::megha_json({{{"111"}}}), "one.json");
  Workload w =
      make_workload(testing::trace("0 1 10 10\n20 3 1 1 1 1\n"), testing::no_constraints(1), 1, c);
  RunOptions o;
  o.wall_clock = false;
  o.faults = std::make_shared<const FaultPlan>(
      parse_fault_plan("crashes: [{component: gm0, at: 2s, restart: 5s}]\n", "f.yaml", c));
  const RunOutput r = run_federated(w, c, o);
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(r.jobs[1].finish, 21'001'500);
  EXPECT_EQ(r.summary["faults"]["task_launches"], 4);
  // An LM that restarts sends full snapshots too: an LM crash over the same window changes
  // nothing here (no message reached it while down).
  o.faults = std::make_shared<const FaultPlan>(
      parse_fault_plan("crashes: [{component: lm0, at: 2s, restart: 5s}]\n", "f.yaml", c));
  EXPECT_EQ(run_federated(w, c, o).jobs[1].finish, 21'001'500);
}

// Many seeds on small, crowded data centres (3 GMs x 3 LMs or 1 GM x 2 LMs, 3 Masters) with heavy
// loss, delay, partitions and crashes of everything: always every task exactly once. (With one
// GM nothing but its own messages tells it of a worker: a completion overtaking its LM's copy
// lost a worker for good before the LM reported such releases, megha.cc kVerify.)
TEST(FederatedFaults, ExactlyOnceOverManySeedsOnCrowdedSmallDataCentres) {
  std::vector<std::vector<std::vector<std::string>>> lms(
      3, std::vector<std::vector<std::string>>(3, std::vector<std::string>{"1011"}));
  const ClusterConfig megha = parse_cluster_config(testing::megha_json(lms), "m.json");
  const ClusterConfig megha1 =
      parse_cluster_config(testing::megha_json({{{"1011"}}, {{"1111"}}}), "m1.json");
  const ClusterConfig pigeon = parse_cluster_config(
      testing::pigeon_json({{"101111111111"}, {"111111110111"}, {"111111111111"}}, 2), "p.json");
  constexpr int kJobs = 60;
  std::string text;
  for (int j = 0; j < kJobs; ++j) {
    text += std::to_string(j / 2) + " 12 2.5";
    for (int t = 0; t < 12; ++t) text += " " + std::to_string(1 + (j * 7 + t) % 4);
    text += "\n";
  }
  auto trace = testing::trace(text);
  const std::string common = "network: {drop: 0.3, delay: {dist: exponential, mean: 30ms}}\n";
  const std::string megha_faults =
      "partitions: [{from: 3s, to: 9s, between: [[gm0, gm1], [lm2]]}]\n"
      "random_crashes: [{components: [gm, lm], mtbf: 8s, mttr: 2s}]\n";
  const std::string megha1_faults =
      "partitions: [{from: 3s, to: 9s, between: [gm0, lm1]}]\n"
      "random_crashes: [{components: [gm, lm], mtbf: 8s, mttr: 2s}]\n";
  const std::string pigeon_faults =
      "partitions: [{from: 3s, to: 9s, between: [distributor0, [master0, master2]]}]\n"
      "random_crashes: [{components: [master, distributor], mtbf: 8s, mttr: 2s}]\n";
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    // (Crashes resend full snapshots, which hide lost workers: one run with loss alone.)
    for (const auto& [c, extra] :
         {std::pair{&megha, megha_faults}, std::pair{&megha1, megha1_faults},
          std::pair{&megha1, std::string()}, std::pair{&pigeon, pigeon_faults}}) {
      // Constraint 0 on a few workers only: tasks that need it compete for them.
      std::vector<ConstraintOverride> need;
      for (uint32_t j = 0; j < kJobs; j += 3) need.push_back({j, 0, 1});
      const Workload w = make_workload(trace, testing::no_constraints(1), seed, *c, need);
      RunOptions o;
      o.seed = seed;
      o.wall_clock = false;
      o.faults = std::make_shared<const FaultPlan>(parse_fault_plan(common + extra, "f.yaml", *c));
      const RunOutput r = run_federated(w, *c, o);
      const Json& f = r.summary["faults"];
      SCOPED_TRACE("seed " + std::to_string(seed) + " " + std::string(arch_name(c->arch)));
      EXPECT_EQ(f["incomplete"], false);
      EXPECT_EQ(f["task_launches"], 12 * kJobs);
      EXPECT_EQ(f["task_completions"], 12 * kJobs);
      EXPECT_EQ(r.jobs.size(), static_cast<size_t>(kJobs));
      EXPECT_GT(f[extra.empty() ? "retransmissions" : "crashes"].get<int>(), 0);
    }
  }
}

// An empty plan goes through the fault layer (split completion messages, held checks) without
// changing any job's timing.
TEST(FederatedFaults, AnEmptyPlanChangesNoJob) {
  for (const ClusterConfig* c : {&data().megha, &data().pigeon}) {
    const RunOutput plain = run(*c, "");
    const RunOutput empty = run(*c, "network: {drop: 0}\n");
    EXPECT_FALSE(plain.summary.contains("faults"));
    EXPECT_EQ(sim::jobs_csv(plain.jobs), sim::jobs_csv(empty.jobs));
    EXPECT_EQ(plain.task_start, empty.task_start);
    expect_exactly_once(empty, *c);
  }
}

TEST(FederatedFaults, SameSeedSameBytesOtherFaultSeedOtherRun) {
  for (const auto& [c, faults] :
       {std::pair{&data().megha, kMeghaFaults}, std::pair{&data().pigeon, kPigeonFaults}}) {
    const RunOutput a = run(*c, faults), b = run(*c, faults);
    EXPECT_EQ(a.summary.dump(), b.summary.dump());
    EXPECT_EQ(sim::jobs_csv(a.jobs), sim::jobs_csv(b.jobs));
    EXPECT_EQ(a.timeseries_csv, b.timeseries_csv);
    const RunOutput d = run(*c, std::string("seed: 99\n") + faults);
    EXPECT_NE(sim::jobs_csv(a.jobs), sim::jobs_csv(d.jobs));
    EXPECT_EQ(d.summary["faults"]["seed"], 99);
  }
}

TEST(FederatedFaults, MoreLossLongerJobs) {
  for (const ClusterConfig* c : {&data().megha, &data().pigeon}) {
    double last = -1;
    for (const char* drop : {"0", "0.1", "0.3"}) {
      const RunOutput r = run(*c, std::string("network: {drop: ") + drop + "}\n");
      expect_exactly_once(r, *c);
      const double mean = r.summary["jobs"]["delay_mean_s"].get<double>();
      EXPECT_GT(mean, last) << "drop " << drop;
      last = mean;
    }
  }
}

TEST(FederatedFaults, BadPlansAreErrorsNamingTheLine) {
  const ClusterConfig& c = data().megha;
  auto error = [&](const std::string& text) {
    try {
      parse_fault_plan(text, "f.yaml", c);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error("network: {drop: 1.5}\n"),
              ::testing::HasSubstr("f.yaml:1: network.drop: expected a probability in [0, 0.9]"));
  EXPECT_THAT(error("crashes: [{component: gm9, at: 1s, restart: 2s}]\n"),
              ::testing::HasSubstr("unknown component \"gm9\""));
  EXPECT_THAT(error("crashes: [{component: master0, at: 1s, restart: 2s}]\n"),
              ::testing::HasSubstr("this configuration has gm0..gm4, lm0..lm4"));
  EXPECT_THAT(error("crashes:\n- {component: gm0, at: 5s, restart: 2s}\n"),
              ::testing::HasSubstr("f.yaml:2: crashes[0].restart: expected a time after at"));
  EXPECT_THAT(error("crashes:\n- {component: gm0, at: 1s, restart: 9s}\n"
                    "- {component: gm0, at: 5s, restart: 12s}\n"),
              ::testing::HasSubstr("gm0 is already down then"));
  EXPECT_THAT(error("partitions: [{from: 1s, to: 2s, between: [gm0, [lm0, gm0]]}]\n"),
              ::testing::HasSubstr("component gm0 is on both sides"));
  EXPECT_THAT(error("partitions: [{from: 1s, to: 2s, between: [gm0]}]\n"),
              ::testing::HasSubstr("expected two sides"));
  EXPECT_THAT(error("random_crashes: [{components: [lm], mtbf: 0s, mttr: 1s}]\n"),
              ::testing::HasSubstr("random_crashes[0].mtbf: expected a duration > 0"));
  EXPECT_THAT(error("netwrok: {}\n"), ::testing::HasSubstr("(did you mean \"network\"?)"));
  EXPECT_THAT(error("network: {drop: 0.1}\nnetwork: {drop: 0.2}\n"),
              ::testing::HasSubstr("duplicate key"));
  EXPECT_THAT(error("- 1\n"), ::testing::HasSubstr("f.yaml:1"));
  // Kinds stand for every component of that kind.
  const FaultPlan p = parse_fault_plan(
      "random_crashes: [{components: [lm, gm0], mtbf: 1m, mttr: 1s}]\n", "f.yaml", c);
  EXPECT_EQ(p.random_crashes.at(0).components.size(), 6u);
}

// The example fault files in scenarios/faults are valid for the published configurations.
TEST(FederatedFaults, ExampleFaultFilesLoad) {
  const std::string dir = std::string(ORRERY_SOURCE_DIR) + "/scenarios/faults/";
  EXPECT_EQ(load_fault_plan(dir + "megha.yaml", data().megha).crashes.size(), 2u);
  EXPECT_EQ(load_fault_plan(dir + "pigeonc.yaml", data().pigeon).partitions.size(), 1u);
}

}  // namespace
}  // namespace orrery::federated
