// Cluster configurations of the Megha/PigeonC evaluation (data/megha/*_C.json):
//   Megha:   {"LMs": {<lm>: {"partitions": {<gm>: [K bit strings]}}}}
//            one partition per GM in every LM's cluster; bit string k says which workers of the
//            partition satisfy machine constraint k ("0b…", leftmost bit = worker 0).
//   PigeonC: {"num_distributors", "num_masters", "num_workers", "FQW", "cutoff", "reserve",
//             "workers": {<master>: [K bit strings]}}
// Every partition/cluster must have the same number of workers and the same number K of
// constraint bit strings (paper §4.3: "all partitions and clusters are of the same size").
// Errors name the file, line and field: "megha_C.json:812: LMs.2.partitions.3[7]: ...".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policies/federated/worker_groups.h"

namespace orrery::federated {

enum class Arch : uint8_t { kMegha, kPigeonC };
std::string_view arch_name(Arch a);  // "megha" / "pigeonc"

struct ClusterConfig {
  std::string source;
  Arch arch = Arch::kMegha;
  // Megha: group lm * num_gms + p is partition p of LM lm (the internal partition of GM p).
  // PigeonC: group m is Master m's cluster.
  WorkerGroups groups;
  std::vector<std::string> group_names;            // ids as written in the file, for messages
  uint32_t num_gms = 0, num_lms = 0;               // Megha
  uint32_t num_distributors = 0, num_masters = 0;  // PigeonC
  double fqw = 20;      // PigeonC fair-queue weight: one long task per FQW short tasks
  double cutoff_s = 0;  // PigeonC: jobs with mean task duration < cutoff are short
  uint32_t replicas = 1;

  size_t workers() const { return groups.workers(); }
};

// Reads a Megha or PigeonC configuration (detected from its keys). When `expect` is given, a
// configuration of the other kind is an error naming both.
ClusterConfig load_cluster_config(const std::string& path, std::optional<Arch> expect = {});
ClusterConfig parse_cluster_config(const std::string& text, const std::string& source,
                                   std::optional<Arch> expect = {});

// Scales a data centre out by `copies`: every LM (Megha) or Master (PigeonC) is repeated with its
// machine constraints, keeping the GM and Distributor counts. 10,000 workers x 2 = the paper's
// 20,000-worker Google setup; x 10 = 100,000 workers.
ClusterConfig replicate(const ClusterConfig& c, uint32_t copies);

}  // namespace orrery::federated
