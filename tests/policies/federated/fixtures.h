// Small hand-made data centres, traces and workloads for the federated tests.
#pragma once

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "policies/federated/cluster_config.h"
#include "policies/federated/task_model.h"
#include "policies/federated/workload.h"
#include "sim/trace.h"

namespace orrery::federated::testing {

inline std::string megha_data(const std::string& rel) {
  return std::string(ORRERY_DATA_DIR) + "/megha/" + rel;
}

// The first `jobs` jobs of a published trace (data/megha).
inline std::shared_ptr<const sim::Trace> head_of(const std::string& name, int jobs) {
  std::ifstream in(megha_data(name));
  std::string line, text;
  for (int i = 0; i < jobs && std::getline(in, line); ++i) text += line + "\n";
  return std::make_shared<const sim::Trace>(sim::parse_trace(text, name));
}

// A model that never draws constraints (K ids); tests then set constraints explicitly.
inline TaskConstraintModel no_constraints(uint32_t k) {
  return TaskConstraintModel({std::vector<double>(k, 0.0)}, {{1.0}}, "none");
}

inline std::shared_ptr<const sim::Trace> trace(const std::string& text) {
  return std::make_shared<const sim::Trace>(sim::parse_trace(text, "test.tr"));
}

// Megha JSON: lms x gms partitions, each given as K bit strings.
inline std::string megha_json(const std::vector<std::vector<std::vector<std::string>>>& lms) {
  std::string s = "{\"LMs\": {";
  for (size_t l = 0; l < lms.size(); ++l) {
    s += (l ? ", " : "") + ("\"" + std::to_string(l + 1) + "\": {\"partitions\": {");
    for (size_t g = 0; g < lms[l].size(); ++g) {
      s += (g ? ", " : "") + ("\"" + std::to_string(g + 1) + "\": [");
      for (size_t k = 0; k < lms[l][g].size(); ++k)
        s += (k ? ", " : "") + ("\"0b" + lms[l][g][k] + "\"");
      s += "]";
    }
    s += "}}";
  }
  return s + "}}";
}

inline std::string pigeon_json(const std::vector<std::vector<std::string>>& masters,
                               int distributors = 1, double fqw = 20, double cutoff = 2) {
  const size_t per = masters.at(0).at(0).size();
  std::string s = "{\"num_distributors\": " + std::to_string(distributors) +
                  ", \"num_masters\": " + std::to_string(masters.size()) +
                  ", \"num_workers\": " + std::to_string(per * masters.size()) +
                  ", \"FQW\": " + std::to_string(fqw) + ", \"cutoff\": " + std::to_string(cutoff) +
                  ", \"reserve\": 0.0, \"workers\": {";
  for (size_t m = 0; m < masters.size(); ++m) {
    s += (m ? ", " : "") + ("\"" + std::to_string(m + 1) + "\": [");
    for (size_t k = 0; k < masters[m].size(); ++k)
      s += (k ? ", " : "") + ("\"0b" + masters[m][k] + "\"");
    s += "]";
  }
  return s + "}}";
}

}  // namespace orrery::federated::testing
