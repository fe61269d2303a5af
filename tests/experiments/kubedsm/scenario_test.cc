// The paper's qualitative results on small seeded simulations of its evaluation (§6): each run
// is the full 12 × 90 s scenario (a few milliseconds of CPU), averaged over a few seeds.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <sstream>

#include "core/error.h"
#include "experiments/kubedsm/authors_data.h"
#include "experiments/kubedsm/evaluation.h"
#include "experiments/kubedsm/repro.h"
#include "sim/demand.h"
#include "sim/scenario.h"
#include "sim/simulation.h"

namespace orrery::kubedsm {
namespace {

constexpr int kSeeds = 8;

// Runs of `spec` with seeds 1..seeds.
std::vector<RunResult> runs(RunSpec spec, int seeds = kSeeds) {
  std::vector<RunSpec> specs;
  for (int s = 1; s <= seeds; ++s) {
    spec.seed = static_cast<uint64_t>(s);
    specs.push_back(spec);
  }
  return run_all(specs, 2);
}

// Mean edge ratio (or one deployment's) of `spec` over seeds 1..seeds.
double mean_edge(RunSpec spec, const std::string& deployment = "", int seeds = kSeeds) {
  double sum = 0;
  for (const RunResult& r : runs(spec, seeds))
    sum += deployment.empty() ? r.edge_ratio : r.deployments.at(deployment);
  return sum / seeds;
}

// Mean std-dev of the edge ratio across deployments (Figs 8–9).
double mean_sd(RunSpec spec, int seeds) {
  double sum = 0;
  for (const RunResult& r : runs(spec, seeds)) sum += r.edge_ratio_sd;
  return sum / seeds;
}

// Issue acceptance: KubeDSM's edge ratio beats every baseline on 1.5_0.4. With the default
// workload reading (whole pods on the scarcer resource) every service is worth the same per unit
// of edge memory, so near saturation KubeDSM's lead comes only from its migrations and is small
// (about 1 to 2 points over K8S, docs/repro/kubedsm.md); it takes the report's 20 seeds to resolve.
// Under the other reading ("max") the lead is about 8 points.
TEST(KubeDsmScenario, KubeDsmBeatsEveryBaselineOn1_5_0_4) {
  for (const char* reading : {"min", "max"}) {
    SCOPED_TRACE(reading);
    RunSpec k;  // 1.5_0.4, KubeDSM with the paper's defaults
    k.demand_count = reading;
    k.demand_round = k.demand_count == "min";
    const int seeds = k.demand_count == "min" ? 20 : kSeeds;
    const double kubedsm = mean_edge(k, "", seeds);
    for (const char* baseline : {"k8s", "random", "bef", "sef", "cf"}) {
      RunSpec b = k;
      b.policy = baseline;
      EXPECT_GT(kubedsm, mean_edge(b, "", seeds)) << baseline;
    }
  }
}

// Figs 8–9 at moderate load: KubeDSM treats the deployments most evenly (the lowest std-dev of
// the edge ratio across deployments) under the default workload reading, and the least evenly
// under "max", where a pod of the memory-heavy B is worth half as much per unit of edge memory.
TEST(KubeDsmScenario, BalanceAcrossDeploymentsDependsOnTheWorkloadReading) {
  RunSpec k = RunSpec::paper_description();  // the shared-fraction workload readings
  k.mean = 1.1;
  const double kubedsm = mean_sd(k, 20);
  RunSpec kmax = k;
  kmax.demand_count = "max";
  kmax.demand_round = false;
  const double kubedsm_max = mean_sd(kmax, kSeeds);
  for (const char* baseline : {"k8s", "random", "bef", "sef", "cf"}) {
    RunSpec b = k;
    b.policy = baseline;
    EXPECT_LT(kubedsm, mean_sd(b, 20)) << baseline;
    RunSpec bmax = kmax;
    bmax.policy = baseline;
    EXPECT_GT(kubedsm_max, mean_sd(bmax, kSeeds)) << baseline;
  }
  EXPECT_LT(mean_edge(kmax, "B"), mean_edge(kmax, "A"));
}

// Issue acceptance (issue 7, on the paper's description): MidMig (M_C2E 2, M_ER 1) >= NoEdgeMig
// (5, 0). Under the authors' setup the two are within noise (docs/repro/kubedsm.md).
TEST(KubeDsmScenario, MidMigIsAtLeastNoEdgeMig) {
  RunSpec mid = RunSpec::paper_description(), noedge = RunSpec::paper_description();
  mid.m_c2e = 2;
  mid.m_er = 1;
  noedge.m_c2e = 5;
  noedge.m_er = 0;
  EXPECT_GE(mean_edge(mid), mean_edge(noedge));
}

// Issue acceptance: RespectD (D 0.5, others 0.1) raises D's edge ratio over AllHalf (all 0.5).
TEST(KubeDsmScenario, RespectDRaisesDsEdgeRatioOverAllHalf) {
  RunSpec all_half, respect_d;
  all_half.qos = {{"A", 0.5}, {"B", 0.5}, {"C", 0.5}, {"D", 0.5}};
  respect_d.qos = {{"A", 0.1}, {"B", 0.1}, {"C", 0.1}, {"D", 0.5}};
  EXPECT_GT(mean_edge(respect_d, "D"), mean_edge(all_half, "D"));
}

// C>A gives C (target 1) the highest edge ratio of the four deployments.
TEST(KubeDsmScenario, CGreaterThanAFavoursC) {
  RunSpec c_gt_a;
  c_gt_a.qos = {{"A", 0.5}, {"B", 0.1}, {"C", 1.0}, {"D", 0.1}};
  const double c = mean_edge(c_gt_a, "C");
  for (const char* d : {"A", "B", "D"}) EXPECT_GT(c, mean_edge(c_gt_a, d)) << d;
}

// Cloud First puts pods on the cloud while it has room: the lowest edge ratio of all.
TEST(KubeDsmScenario, CloudFirstHasTheLowestEdgeRatioAtModerateLoad) {
  auto at = [](const char* policy) {
    RunSpec r;
    r.mean = 1.1;
    r.policy = policy;
    return mean_edge(r);
  };
  const double cf = at("cf");
  for (const char* p : {"kubedsm", "k8s", "random", "bef", "sef"}) EXPECT_LT(cf, at(p)) << p;
}

TEST(KubeDsmScenario, RunsAreDeterministicAndMigrate) {
  RunSpec r;
  r.seed = 3;
  const RunResult a = run_once(r), b = run_once(r);
  EXPECT_EQ(a.edge_ratio, b.edge_ratio);
  EXPECT_EQ(a.deployments, b.deployments);
  EXPECT_EQ(a.migrations, b.migrations);
  EXPECT_EQ(a.fractions.size(), 12u);
  EXPECT_GT(a.migrations, 0);
  RunSpec k8s = r;
  k8s.policy = "k8s";
  EXPECT_EQ(run_once(k8s).migrations, 0);
}

// ecmus drops a running migration plan when the HPA deletes or adds a pod meanwhile
// (abandonMigrations, the authors' setup); without it no plan is abandoned.
TEST(KubeDsmScenario, HpaActivityAbandonsRunningMigrationsAsEcmus) {
  // Abandoned plans are rare with the default HPA (a plan lasts seconds, the HPA moves at cycle
  // boundaries and in the stalls: none over seeds 1-10); with the rate-driven HPA, whose counts
  // move between the boundaries as the authors' do, some with the option, never without it.
  RunSpec r;
  r.hpa_metric = "podRate";
  ASSERT_TRUE(r.abandon_migrations);
  int abandoned = 0, migrations = 0, without = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    r.seed = seed;
    r.abandon_migrations = true;
    const RunResult on = run_once(r);
    abandoned += on.plans_abandoned;
    migrations += on.migrations;
    r.abandon_migrations = false;
    without += run_once(r).plans_abandoned;
  }
  EXPECT_GT(abandoned, 0);
  EXPECT_GT(migrations, 0);  // plans still complete between the HPA's moves
  EXPECT_EQ(without, 0);
}

// One definition of a migration everywhere (docs/simulator.md): the pods deleted to be moved are
// outcome Migrated, bounded by what the scheduler planned and completed, and none is a restart.
TEST(KubeDsmScenario, MigrationsAgreeAcrossSummaryAndPodsCsvAndAreNotRestarts) {
  const sim::Scenario sc = sim::load_scenario(std::string(ORRERY_SOURCE_DIR) +
                                              "/scenarios/kubedsm/1.5_0.4-kubedsm.yaml");
  const fw::PolicyRegistry reg = evaluation_policies();
  sim::RunOptions opt;
  opt.wall_clock = false;
  sim::Simulation s(sc, reg, opt);
  s.run();
  const Json sum = s.summary();
  const int64_t migrations = sum["scheduler"]["migrations"].get<int64_t>();
  ASSERT_GT(migrations, 0);
  // Every pod deleted to be moved is Migrated; scheduler.migrations counts the completed plans.
  const int64_t migrated = sum["pods"]["outcomes"]["Migrated"].get<int64_t>();
  EXPECT_GE(migrated, migrations);
  EXPECT_LE(migrated, sum["scheduler"]["kubedsm"]["migrations_planned"].get<int64_t>());
  const std::string csv = s.recorder().pods_csv();
  EXPECT_EQ(csv.find(",Deleted\n"), std::string::npos) << "a migration is not a plain deletion";
  int migrated_rows = 0, restarted_rows = 0;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header: ...,restarts,migrations,outcome
  while (std::getline(in, line)) {
    const size_t outcome = line.rfind(',');
    const size_t mig = line.rfind(',', outcome - 1);
    const size_t rst = line.rfind(',', mig - 1);
    restarted_rows += line.substr(rst + 1, mig - rst - 1) != "0";
    migrated_rows += line.substr(mig + 1, outcome - mig - 1) != "0";
  }
  EXPECT_EQ(restarted_rows, 0);
  EXPECT_GT(migrated_rows, 0) << "replacements carry their replica's migrations";
}

TEST(KubeDsmScenario, GeneratedScenariosAreValidScenarioFiles) {
  for (const char* p : {"kubedsm", "k8s", "random", "bef", "sef", "cf"}) {
    RunSpec r;
    r.policy = p;
    r.qos = {{"D", 0.5}};
    const sim::Scenario sc = sim::parse_scenario(scenario_yaml(r), "gen.yaml", ".");
    EXPECT_EQ(sc.deployments.size(), 4u) << p;
    EXPECT_EQ(sc.demand_cycles.size(), 1u) << p;
  }
  // The workload reading and the scheduler's options reach the scenario file.
  RunSpec r;
  r.demand_count = "max";
  r.demand_round = false;
  r.fit_check = "exact";
  r.bounded_cloud = false;
  r.edge = "single";
  const std::string y = scenario_yaml(r);
  EXPECT_NE(y.find("count: max, round: false"), std::string::npos) << y;
  EXPECT_NE(y.find("fitCheck: exact, boundedCloud: false"), std::string::npos) << y;
  const sim::Scenario sc = sim::parse_scenario(y, "gen.yaml", ".");
  EXPECT_EQ(sc.demand_cycles[0].spec.count, sim::DemandCycleSpec::Count::kMax);
  EXPECT_FALSE(sc.demand_cycles[0].spec.round);
  EXPECT_EQ(sc.node_groups.size(), 2u);
  EXPECT_EQ(sim::parse_scenario(scenario_yaml(RunSpec::paper_description()), "gen.yaml", ".")
                .demand_cycles[0]
                .spec.count,
            sim::DemandCycleSpec::Count::kMin);
  // The default (the authors' setup): genny's per-service draws, their nodes less 1 core / 1 GiB.
  const sim::Scenario authors = sim::parse_scenario(scenario_yaml(RunSpec{}), "gen.yaml", ".");
  EXPECT_EQ(authors.demand_cycles[0].spec.draw, sim::DemandCycleSpec::Draw::kPerService);
  EXPECT_TRUE(authors.demand_cycles[0].spec.stop);
  EXPECT_EQ(authors.demand_cycles[0].spec.start, 60 * kSecond);
  EXPECT_EQ(authors.duration, (60 + 12 * 90 + 240) * kSecond);
  const std::string ay = scenario_yaml(RunSpec{});
  EXPECT_NE(
      ay.find("{name: N4, cpu: 5, memory: 7Gi, tier: edge, allocatable: {cpu: 4, memory: 6Gi}}"),
      std::string::npos)
      << ay;
  // N2 with the core measured as taken in the authors' runs, D counted as in genny's config,
  // and the load stalls of the last four cycles.
  EXPECT_NE(
      ay.find("{name: N2, cpu: 5, memory: 5Gi, tier: edge, allocatable: {cpu: 3, memory: 4Gi}}"),
      std::string::npos)
      << ay;
  EXPECT_NE(ay.find("D: {cpu: 3, memory: 3Gi}"), std::string::npos) << ay;
  const sim::DemandCycleSpec::Stalls& st = authors.demand_cycles[0].spec.stalls;
  EXPECT_EQ(st.after, 8 * 90 * kSecond);
  EXPECT_EQ(st.every, 200 * kSecond);
  EXPECT_EQ(st.min_length, 30 * kSecond);
  EXPECT_EQ(st.max_length, 100 * kSecond);
  EXPECT_DOUBLE_EQ(st.depth, 0.3);
  RunSpec variants;
  variants.d_size = "minedraft";
  variants.load_stalls = false;
  variants.n2_taken_cpu = 0;
  const std::string vy = scenario_yaml(variants);
  EXPECT_NE(vy.find("D: {cpu: 2, memory: 2Gi}"), std::string::npos) << vy;
  EXPECT_EQ(vy.find("stalls"), std::string::npos) << vy;
  EXPECT_NE(vy.find("{name: N2, cpu: 5, memory: 5Gi, tier: edge, allocatable: {cpu: 4, memory: "
                    "4Gi}}"),
            std::string::npos)
      << vy;
  EXPECT_EQ(variants.setup_label(), "dSize=minedraft n2Taken=0 stalls=off");
  EXPECT_EQ(sim::parse_scenario(scenario_yaml(RunSpec::paper_description()), "gen.yaml", ".")
                .demand_cycles[0]
                .spec.stalls.every,
            0);
  EXPECT_NE(ay.find("qosFunction: sqrt, fragmentation: minedraft, podSize: ecmus, lastPod: true, "
                    "suggestPeriod: 1s, maxBatch: 10"),
            std::string::npos)
      << ay;
  EXPECT_NE(ay.find("abandonMigrations: true"), std::string::npos) << ay;
  EXPECT_NE(ay.find("reorderWithoutCandidates: false"), std::string::npos) << ay;
  EXPECT_EQ(scenario_yaml(RunSpec::paper_description()).find("reorderWithoutCandidates"),
            std::string::npos);
  EXPECT_NE(ay.find("scaleDownOrder: logarithmic"), std::string::npos) << ay;
  // The HPA reads the drawn count unless hpa_metric says podRate.
  EXPECT_EQ(authors.deployments.at(0).hpa->metric, sim::HpaSpec::Metric::kDemand);
  RunSpec rate;
  rate.hpa_metric = "podRate";
  const sim::Scenario rs = sim::parse_scenario(scenario_yaml(rate), "r.yaml", ".");
  EXPECT_EQ(rs.deployments.at(0).hpa->metric, sim::HpaSpec::Metric::kPodRate);
  EXPECT_DOUBLE_EQ(rs.deployments.at(0).hpa->metric_noise, 0.075);
  EXPECT_EQ(rate.setup_label(), "hpa=podRate(noise 0.075)");
  EXPECT_EQ(authors.deployments.at(0).scale_down_order, sim::ScaleDownOrder::kLogarithmic);
  EXPECT_EQ(scenario_name(1.5, 0.4), "1.5_0.4");
  EXPECT_EQ(scenario_name(1, 0.5), "1_0.5");
}

// The authors' per-run Fig. 10 values (the Welch comparisons of the report) average to their
// pooled figures of the same runs (authors_data.h, both from minedraft_edge_ratio.py).
TEST(AuthorsData, Fig10RunsAverageToThePooledFigures) {
  size_t n = 0;
  for (const AuthorsRuns& r : kAuthorsFig10Runs) {
    const AuthorsPoint* p = authors_point(r.series, r.scenario);
    ASSERT_NE(p, nullptr) << r.series << " " << r.scenario;
    double sum = 0;
    for (double v : r.pooled) sum += v;
    EXPECT_NEAR(sum / 10, p->pooled, 1e-4) << r.series << " " << r.scenario;
    EXPECT_EQ(p->runs, 10);
    ++n;
  }
  EXPECT_EQ(n, 10u);  // five variants, 1.3_0.4 and 1.4_0.4
  EXPECT_EQ(authors_runs("MidMig 2/1", "1.5_0.4"), nullptr);
}

// The rows of runs_csv(runs, equal results): only the runs' parameters can tell them apart.
std::vector<std::string> csv_rows(const std::vector<RunSpec>& runs) {
  std::stringstream csv(runs_csv(runs, std::vector<RunResult>(runs.size())));
  std::vector<std::string> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(line);
  rows.erase(rows.begin());  // the header
  return rows;
}

// The "fit" experiment's two runs per scenario differ only in fitCheck: distinct runs (distinct
// scenario files), so runs.csv must tell them apart.
TEST(KubeDsmRunsCsv, RunsDifferingOnlyInFitCheckGetDifferentRows) {
  RunSpec approximate, exact;
  exact.fit_check = "exact";
  ASSERT_NE(scenario_yaml(approximate), scenario_yaml(exact));
  const std::vector<std::string> rows = csv_rows({approximate, exact});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0], rows[1]);
  EXPECT_NE(runs_csv({}, {}).find(",fit_check,"), std::string::npos) << runs_csv({}, {});
  EXPECT_NE(rows[0].find(",approximate,"), std::string::npos) << rows[0];
  EXPECT_NE(rows[1].find(",exact,"), std::string::npos) << rows[1];
}

// Every setting the sweep varies (repro.cc's plan) changes a run's scenario file and its runs.csv
// row. (cycles, period_s and extra_args are the same in every run, so runs.csv has no column for
// them; tests/cli checks that the sweep's rows are all distinct.)
TEST(KubeDsmRunsCsv, EverySettingTheSweepVariesMakesADifferentRow) {
  const RunSpec base;
  std::vector<RunSpec> runs = {base};
  auto vary = [&](const std::function<void(RunSpec&)>& change) {
    RunSpec r = base;
    change(r);
    EXPECT_NE(scenario_yaml(r), scenario_yaml(base)) << "not a different run";
    runs.push_back(r);
  };
  vary([](RunSpec& r) { r.mean = 1.1; });
  vary([](RunSpec& r) { r.sd = 0.1; });
  vary([](RunSpec& r) { r.policy = "bef"; });
  vary([](RunSpec& r) { r.m_c2e = 2; });
  vary([](RunSpec& r) { r.m_er = 1; });
  vary([](RunSpec& r) { r.suggest_budget = "reclaimable"; });
  vary([](RunSpec& r) { r.qos_function = "linear"; });
  vary([](RunSpec& r) { r.fragmentation = "orrery"; });
  vary([](RunSpec& r) { r.pod_size = "eq11"; });
  vary([](RunSpec& r) { r.last_pod = false; });
  vary([](RunSpec& r) { r.suggest_period_s = 10; });
  vary([](RunSpec& r) { r.max_batch = 20; });
  vary([](RunSpec& r) { r.idle_tail_s = 0; });
  vary([](RunSpec& r) { r.system_reserved = false; });
  vary([](RunSpec& r) { r.scale_down = "exact"; });
  vary([](RunSpec& r) { r.abandon_migrations = false; });
  vary([](RunSpec& r) { r.reorder_without_candidates = true; });
  vary([](RunSpec& r) { r.hpa_metric = "podRate"; });
  vary([](RunSpec& r) {
    r.hpa_metric = "podRate";
    r.hpa_noise = 0.2;
  });
  vary([](RunSpec& r) {
    r.hpa_metric = "podRate";
    r.hpa_window_s = 60;
  });
  vary([](RunSpec& r) { r.d_size = "minedraft"; });
  vary([](RunSpec& r) { r.n2_taken_cpu = 0; });
  vary([](RunSpec& r) { r.load_stalls = false; });
  vary([](RunSpec& r) { r.edge = "table4"; });
  vary([](RunSpec& r) { r.fit_check = "exact"; });
  vary([](RunSpec& r) { r.bounded_cloud = false; });
  vary([](RunSpec& r) { r.qos = {{"D", 0.5}}; });
  vary([](RunSpec& r) { r.demand_count = "max"; });
  vary([](RunSpec& r) {
    r.demand_count = "min";
    r.demand_round = false;
  });
  vary([](RunSpec& r) { r.edge = "single"; });
  vary([](RunSpec& r) { r.seed = 2; });
  const std::vector<std::string> rows = csv_rows(runs);
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()).size(), runs.size());
}

// The demand generator's readings (sim/demand.h), on the paper's services A (1 core, 950Mi) and
// B (1 core, 1900Mi) with an edge of 16 cores and 14Gi split over four services: 4 cores and
// 3.5Gi each.
TEST(DemandReading, MinCountsPodsOnTheScarcerResourceAndRoundsToWholePods) {
  sim::DemandCycleSpec spec;
  spec.cycles = 1;
  spec.period = 90 * sim::kSecond;
  spec.mean = 1.0;
  spec.basis[kCpu] = 16000;
  spec.basis[kMemory] = int64_t{14} << 30;
  Resources a, b, pad;
  a[kCpu] = 1000, a[kMemory] = int64_t{950} << 20;
  b[kCpu] = 1000, b[kMemory] = int64_t{1900} << 20;
  pad[kCpu] = 1000, pad[kMemory] = int64_t{950} << 20;
  auto loads = [&](sim::DemandCycleSpec s) {
    sim::Demand da, db, d3, d4;
    Rng rng(1);
    sim::generate_demand_cycles(s, {a, b, pad, pad}, rng, {&da, &db, &d3, &d4});
    return std::pair{da.at(0), db.at(0)};
  };
  // max (the simulator's default): the most pods either resource pays for: 4 pods each, so B
  // uses 7600Mi of its 3584Mi share.
  EXPECT_EQ(loads(spec), (std::pair{4.0, 4.0}));
  spec.count = sim::DemandCycleSpec::Count::kMin;
  const auto [fa, fb] = loads(spec);
  EXPECT_NEAR(fa, 3584.0 / 950, 1e-9);
  EXPECT_NEAR(fb, 3584.0 / 1900, 1e-9);
  spec.round = true;
  EXPECT_EQ(loads(spec), (std::pair{4.0, 2.0}));  // 3.77 → 4, 1.89 → 2
}

TEST(DemandReading, BadCountNamesTheField) {
  const std::string y =
      "name: x\ncluster:\n  nodes:\n  - {name: e, cpu: 4, memory: 4Gi, tier: edge}\n"
      "workloads:\n- deployment: {name: A, requests: {cpu: 1, memory: 1Gi}, hpa: {maxReplicas: "
      "4}}\n"
      "- demand_cycles: {deployments: [A], cycles: 2, period: 10s, mean: 1, count: mid}\n";
  try {
    sim::parse_scenario(y, "bad.yaml", ".");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("count: expected max or min"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace orrery::kubedsm
