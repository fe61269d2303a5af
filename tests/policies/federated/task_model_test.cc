#include "policies/federated/task_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixtures.h"
#include "policies/federated/workload.h"

namespace orrery::federated {
namespace {

// Each constraint's drawn frequency matches the model's marginal probability
//   P(j) = mean over types t of sum_c w[t][c] / sum(w[t]) * percent[c][j] / 100
// within 5 standard deviations for the sample size.
TEST(TaskModel, DrawsFollowThePublishedModel) {
  TaskConstraintModel m = load_task_model(testing::megha_data("task_constraint_model.json"));
  ASSERT_EQ(m.constraints(), 21u);
  ASSERT_EQ(m.types(), 4u);
  ASSERT_EQ(m.clusters(), 10u);
  // The published weights, for the expected marginals (read independently of the model class).
  const double w[4][10] = {
      {0.039628712871287115, 0.1404950495049505, 0.05905940594059404, 0.12032178217821782,
       0.08987623762376236, 0.11004950495049505, 0.08987623762376236, 0.1404950495049505,
       0.12032178217821782, 0.08987623762376236},
      {0.12043316831683168, 0.07971534653465345, 0.11016089108910891, 0.12043316831683168,
       0.09976485148514852, 0.09976485148514852, 0.059294554455445535, 0.13033415841584156,
       0.09011138613861384, 0.08998762376237622},
      {0.13037128712871288, 0.16081683168316832, 0.1506683168316832, 0.049306930693069295,
       0.16081683168316832, 0.12047029702970297, 0.028886138613861374, 0.049306930693069295,
       0.12047029702970297, 0.028886138613861374},
      {0.11675742574257425, 0.12047029702970297, 0.13383663366336634, 0.09658415841584157,
       0.11675742574257425, 0.1101980198019802, 0.049306930693069295, 0.10388613861386138,
       0.09980198019801981, 0.052400990099009885}};
  std::vector<double> expect(21, 0.0);
  double expect_none = 0;  // P(no constraint) = E over (type, cluster) of prod_j (1 - p_j)
  for (int t = 0; t < 4; ++t) {
    double s = 0;
    for (double x : w[t]) s += x;
    for (uint32_t c = 0; c < 10; ++c) {
      double none = 1;
      for (uint32_t j = 0; j < 21; ++j) {
        expect[j] += 0.25 * w[t][c] / s * m.percent(c, j) / 100;
        none *= 1 - m.percent(c, j) / 100;
      }
      expect_none += 0.25 * w[t][c] / s * none;
    }
  }
  Rng rng(42);
  const int n = 200'000;
  std::vector<int> hits(21);
  size_t none = 0;
  for (int i = 0; i < n; ++i) {
    const ConstraintMask c = m.draw(rng);
    none += c == 0;
    for_each_constraint(c, [&](uint32_t j) { ++hits[j]; });
  }
  for (uint32_t j = 0; j < 21; ++j) {
    const double sd = std::sqrt(n * expect[j] * (1 - expect[j]));
    EXPECT_NEAR(hits[j], n * expect[j], 5 * sd + 1) << "constraint " << j;
  }
  const double sd = std::sqrt(n * expect_none * (1 - expect_none));
  EXPECT_NEAR(static_cast<double>(none), n * expect_none, 5 * sd);
  EXPECT_LT(expect_none, 0.5);  // most tasks have constraints (Sharma et al.: over 50%)
}

TEST(TaskModel, SameSeedSameConstraintsForBothArchitectures) {
  TaskConstraintModel m = load_task_model(testing::megha_data("task_constraint_model.json"));
  ClusterConfig megha = load_cluster_config(testing::megha_data("megha_config_G5L5S10000_C.json"));
  ClusterConfig pigeon =
      load_cluster_config(testing::megha_data("pigeon_config_D10M100S10000_C.json"));
  auto t = testing::trace("0 3 1 1 1 1\n1 2 1 1 1\n");
  Workload a = make_workload(t, m, 9, megha);
  Workload b = make_workload(t, m, 9, pigeon);
  Workload c = make_workload(t, m, 10, megha);
  EXPECT_EQ(a.task_constraints, b.task_constraints);
  EXPECT_NE(a.task_constraints, c.task_constraints);
}

}  // namespace
}  // namespace orrery::federated
