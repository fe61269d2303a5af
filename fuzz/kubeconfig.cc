// kubeconfig files (k8s/kubeconfig.h) as `orrery serve --kubeconfig FILE [--context C]` reads
// them: current-context, or the context named on the first line of the input when that line is
// "#context NAME" (so the fuzzer reaches --context too). Embedded certificates are base64-decoded;
// file references resolve relative to fuzz/data/. (The token file is read only when connecting.)
#include "k8s/kubeconfig.h"
#include "fuzz_common.h"

using namespace orrery;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  std::string context;
  if (text.rfind("#context ", 0) == 0) context = text.substr(9, text.find('\n') - 9);
  fuzz::accepts([&] {
    const k8s::ClusterConfig c =
        k8s::parse_kubeconfig(text, std::string(ORRERY_FUZZ_DATA_DIR) + "/kubeconfig", context);
    FUZZ_CHECK(!c.host.empty(), c.server);
  });
  return 0;
}
