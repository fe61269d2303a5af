// Megha/PigeonC cluster configurations (policies/federated/cluster_config.h) and the task
// constraint model (task_model.h), as `orrery repro megha|pigeonc --config/--constraints` read
// them. The same text goes to both parsers (each rejects the other's shape quickly). Invariants:
// the worker groups hold workers() workers; replicate(c, 2) doubles them; the model draws masks
// within its constraint count.
#include "core/rng.h"
#include "fuzz_common.h"
#include "policies/federated/cluster_config.h"
#include "policies/federated/task_model.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  fuzz::accepts([&] {
    const federated::ClusterConfig c = federated::parse_cluster_config(text, "fuzz_C.json");
    FUZZ_CHECK(c.workers() > 0, "");
    if (c.workers() < 100000) {
      const federated::ClusterConfig twice = federated::replicate(c, 2);
      FUZZ_CHECK(twice.workers() == 2 * c.workers(), std::to_string(twice.workers()));
    }
  });
  fuzz::accepts([&] {
    const federated::TaskConstraintModel m = federated::parse_task_model(text, "fuzz_model.json");
    Rng rng(1);
    for (int i = 0; i < 4; ++i) (void)m.draw(rng);
  });
  return 0;
}
