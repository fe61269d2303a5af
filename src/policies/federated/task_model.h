// Task placement constraints (paper §2.3, after Sharma et al. [11]), as described in
// data/megha/task_constraint_model.json: to draw one task's constraints, pick a task
// type uniformly; pick a statistical cluster c with weight cluster_weight_by_type[type][c-1];
// include each constraint id j independently with probability
// constraint_percent_by_cluster[c][j] / 100.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "policies/federated/bits.h"

namespace orrery::federated {

class TaskConstraintModel {
 public:
  // percent[c][j] in [0, 100]; weights[t][c] >= 0 with a positive sum for every type.
  TaskConstraintModel(std::vector<std::vector<double>> percent,
                      std::vector<std::vector<double>> weights, std::string source = "");

  uint32_t constraints() const { return k_; }
  uint32_t types() const { return static_cast<uint32_t>(cum_weight_.size()); }
  uint32_t clusters() const { return static_cast<uint32_t>(percent_.size()); }
  double percent(uint32_t cluster, uint32_t j) const { return percent_[cluster][j]; }
  const std::string& source() const { return source_; }

  // One task's placement constraints. Draws 2 + constraints() numbers from rng.
  ConstraintMask draw(Rng& rng) const;

 private:
  std::string source_;
  uint32_t k_ = 0;
  std::vector<std::vector<double>> percent_;
  std::vector<std::vector<uint64_t>> threshold_;  // [cluster][j]: include when next() < it
  std::vector<uint64_t> always_;                  // [cluster]: constraints with 100 %
  std::vector<std::vector<double>> cum_weight_;   // [type][cluster] cumulative
};

TaskConstraintModel load_task_model(const std::string& path);
TaskConstraintModel parse_task_model(const std::string& text, const std::string& source);

}  // namespace orrery::federated
