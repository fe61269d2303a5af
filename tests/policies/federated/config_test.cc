#include "policies/federated/cluster_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "fixtures.h"
#include "policies/federated/workload.h"

namespace orrery::federated {
namespace {

using ::testing::HasSubstr;
using testing::megha_data;
using testing::megha_json;
using testing::pigeon_json;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ClusterConfig, ReadsThePublishedConfigurations) {
  ClusterConfig m = load_cluster_config(megha_data("megha_config_G5L5S10000_C.json"), Arch::kMegha);
  EXPECT_EQ(m.arch, Arch::kMegha);
  EXPECT_EQ(m.num_gms, 5u);
  EXPECT_EQ(m.num_lms, 5u);
  EXPECT_EQ(m.groups.group_size(), 400u);
  EXPECT_EQ(m.groups.constraints(), 21u);
  EXPECT_EQ(m.workers(), 10'000u);
  ClusterConfig p = load_cluster_config(megha_data("pigeon_config_D10M100S10000_C.json"));
  EXPECT_EQ(p.arch, Arch::kPigeonC);
  EXPECT_EQ(p.num_distributors, 10u);
  EXPECT_EQ(p.num_masters, 100u);
  EXPECT_EQ(p.groups.group_size(), 100u);
  EXPECT_DOUBLE_EQ(p.fqw, 20);
  EXPECT_DOUBLE_EQ(p.cutoff_s, 2);
  // The 9-worker example: worker 0 of LM 1 / partition 1 has bit 0 of every string.
  ClusterConfig small = load_cluster_config(megha_data("megha_config_G1L1S9_C.json"));
  // Strings 0, 1, 3, 4, 8, 10, 14, 16, 17, 18 and 20 start with '1' (see the file).
  ConstraintMask want = 0;
  for (uint32_t k : {0, 1, 3, 4, 8, 10, 14, 16, 17, 18, 20}) want |= ConstraintMask{1} << k;
  EXPECT_EQ(small.groups.worker_mask(0, 0), want);
}

TEST(ClusterConfig, ReplicationScalesWorkersKeepingGms) {
  ClusterConfig m = load_cluster_config(megha_data("megha_config_G5L5S10000_C.json"));
  ClusterConfig r = replicate(m, 2);
  EXPECT_EQ(r.workers(), 20'000u);
  EXPECT_EQ(r.num_gms, 5u);
  EXPECT_EQ(r.num_lms, 10u);
  EXPECT_EQ(r.groups.worker_mask(r.groups.groups() - 1, 7),
            m.groups.worker_mask(m.groups.groups() - 1, 7));
}

TEST(ClusterConfig, BitStringsOfUnequalLength) {
  const std::string j = megha_json({{{"101", "011"}, {"10", "01"}}});
  const std::string e = error_of([&] { parse_cluster_config(j, "c.json"); });
  EXPECT_THAT(e, HasSubstr("c.json:1: LMs.1.partitions.2[0]: bit string has 2 bits, expected 3"));
  EXPECT_THAT(e, HasSubstr("same number of workers"));
}

TEST(ClusterConfig, WrongNumberOfBitStrings) {
  const std::string j = megha_json({{{"101", "011"}, {"101"}}});
  EXPECT_THAT(error_of([&] { parse_cluster_config(j, "c.json"); }),
              HasSubstr("LMs.1.partitions.2: expected 2 constraint bit strings (one per "
                        "constraint id, as in LMs.1.partitions.1), got 1"));
}

TEST(ClusterConfig, NotABitString) {
  const std::string j = megha_json({{{"1x1"}}});
  EXPECT_THAT(error_of([&] { parse_cluster_config(j, "c.json"); }),
              HasSubstr("LMs.1.partitions.1[0]: expected a bit string of 0s and 1s"));
}

// Found by fuzz/federated_config.cc (fuzz/corpus/federated_config/regress-huge-count): a count of
// 1e25 was converted to int64 (undefined behaviour) and 2^32 masters became 0 (then a division
// by zero).
TEST(ClusterConfig, CountsBeyond32BitsAreErrors) {
  for (const char* n : {"1e25", "4294967296"}) {
    const std::string j = std::string("{\"num_distributors\": 1, \"num_masters\": ") + n +
                          ", \"num_workers\": 9, \"cutoff\": 1, \"workers\": {}}";
    EXPECT_THAT(error_of([&] { parse_cluster_config(j, "c.json"); }),
                HasSubstr("c.json:1: num_masters: expected a positive integer of at most "
                          "4294967295, got " +
                          std::string(n)))
        << n;
  }
}

TEST(ClusterConfig, LmsWithDifferentGms) {
  const std::string j = R"({"LMs": {"1": {"partitions": {"1": ["0b1"], "2": ["0b1"]}},
                                     "2": {"partitions": {"1": ["0b1"], "3": ["0b1"]}}}})";
  EXPECT_THAT(error_of([&] { parse_cluster_config(j, "c.json"); }),
              HasSubstr("c.json:2: LMs.2.partitions: expected one partition per GM with the same "
                        "GM ids as LM 1 (1,2), got 1,3"));
}

TEST(ClusterConfig, PigeonSizesMustAgree) {
  std::string j = pigeon_json({{"1010"}, {"0101"}});
  EXPECT_NO_THROW(parse_cluster_config(j, "p.json", Arch::kPigeonC));
  j = R"({"num_distributors": 1, "num_masters": 2, "num_workers": 6, "FQW": 20, "cutoff": 2,
          "workers": {"1": ["0b1010"], "2": ["0b0101"]}})";
  EXPECT_THAT(error_of([&] { parse_cluster_config(j, "p.json"); }),
              HasSubstr("bit string has 4 bits, expected 3 (num_workers / num_masters = 6 / 2)"));
  j = R"({"num_distributors": 1, "num_masters": 3, "num_workers": 6, "FQW": 20, "cutoff": 2,
          "workers": {"1": ["0b10"], "2": ["0b01"]}})";
  EXPECT_THAT(error_of([&] { parse_cluster_config(j, "p.json"); }),
              HasSubstr("workers: expected one entry per Master (num_masters = 3), got 2"));
  j = R"({"num_distributors": 1, "num_masters": 2, "num_workers": 4, "FQW": 20, "cutoff": 2,
          "reserve": 0.2, "workers": {"1": ["0b10"], "2": ["0b01"]}})";
  EXPECT_THAT(error_of([&] { parse_cluster_config(j, "p.json"); }),
              HasSubstr("reserve: PigeonC does not reserve workers"));
}

TEST(ClusterConfig, WrongArchitectureIsNamed) {
  EXPECT_THAT(error_of([&] {
                load_cluster_config(megha_data("pigeon_config_D1M1S9_C.json"), Arch::kMegha);
              }),
              HasSubstr("this is a PigeonC configuration but --arch megha needs a Megha"));
  EXPECT_THAT(error_of([&] { parse_cluster_config("{\"x\": 1}", "c.json"); }),
              HasSubstr("expected a Megha configuration"));
  EXPECT_THAT(error_of([&] { parse_cluster_config("{\"LMs\": [1,", "c.json"); }),
              HasSubstr("c.json:1: malformed YAML/JSON"));
}

TEST(TaskModel, ErrorsNameTheField) {
  EXPECT_THAT(error_of([&] {
                parse_task_model(R"({"constraint_percent_by_cluster": {"1": [10, 200]},
                                    "cluster_weight_by_type": {"1": [1]}})",
                                 "m.json");
              }),
              HasSubstr("m.json:1: constraint_percent_by_cluster.1[1]: expected a value in "
                        "[0, 100], got 200"));
  EXPECT_THAT(error_of([&] {
                parse_task_model(R"({"constraint_percent_by_cluster": {"1": [10], "2": [5]},
                                    "cluster_weight_by_type": {"1": [1]}})",
                                 "m.json");
              }),
              HasSubstr("cluster_weight_by_type.1: expected 2 weights"));
  EXPECT_THAT(error_of([&] {
                parse_task_model(R"({"constraint_percent_by_cluster": {"1": [10], "3": [5]},
                                    "cluster_weight_by_type": {"1": [1, 1]}})",
                                 "m.json");
              }),
              HasSubstr("expected statistical cluster ids 1..2, got \"3\""));
}

TEST(Workload, ModelAndConfigMustAgreeOnConstraintIds) {
  ClusterConfig c = parse_cluster_config(megha_json({{{"1", "1"}}}), "c.json");
  TaskConstraintModel model = testing::no_constraints(3);
  EXPECT_THAT(error_of([&] { make_workload(testing::trace("0 1 1 1\n"), model, 1, c); }),
              HasSubstr("none: the task model has 3 constraint ids (0..2) but c.json defines 2 "
                        "machine constraints"));
}

TEST(Workload, ExplicitConstraintsRejectUnknownIds) {
  auto t = testing::trace("0 2 1 1 1\n1 1 1 1\n");
  auto o = parse_task_constraints("# job task ids\n0 1 0 2\n1 0\n", "tc.txt", *t, 3);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].constraints, 0b101u);
  EXPECT_EQ(o[1].constraints, 0u);
  EXPECT_THAT(error_of([&] { parse_task_constraints("0 0 3\n", "tc.txt", *t, 3); }),
              HasSubstr("tc.txt:1: unknown constraint id 3 (the cluster configuration defines "
                        "ids 0..2)"));
  EXPECT_THAT(error_of([&] { parse_task_constraints("\n5 0 1\n", "tc.txt", *t, 3); }),
              HasSubstr("tc.txt:2: job 5 is not in the trace (it has 2 jobs"));
  EXPECT_THAT(error_of([&] { parse_task_constraints("1 1 1\n", "tc.txt", *t, 3); }),
              HasSubstr("task 1 is not in job 1 (it has 1 tasks)"));
  EXPECT_THAT(error_of([&] { parse_task_constraints("0 x\n", "tc.txt", *t, 3); }),
              HasSubstr("expected a task index within the job (0-based), got \"x\""));
}

TEST(Workload, UnsatisfiableTasksAreReportedAndDropped) {
  // Two workers: {c0} and {c1}. Nobody has both.
  ClusterConfig c = parse_cluster_config(megha_json({{{"10", "01"}}}), "c.json");
  auto t = testing::trace("0 2 1 1 3\n1 1 1 2\n");
  const std::vector<ConstraintOverride> o = {{0, 1, 0b11}, {1, 0, 0b11}, {0, 0, 0b01}};
  Workload w = make_workload(t, testing::no_constraints(2), 1, c, o);
  EXPECT_EQ(w.unsatisfiable_tasks, 2u);
  EXPECT_EQ(w.unsatisfiable_jobs, 2u);
  EXPECT_EQ(w.dropped_jobs, 1u);
  EXPECT_EQ(w.runnable, (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ(w.job_ideal[0], sim::kSecond);  // the 3 s task was dropped
  const sim::Json j = w.unsatisfiable_json();
  EXPECT_EQ(j["examples"][0]["line"], 1);
  EXPECT_EQ(j["examples"][0]["constraints"], sim::Json::parse("[0, 1]"));
}

}  // namespace
}  // namespace orrery::federated
