#!/usr/bin/env bash
# The two worlds' layering, checked on the sources (docs/ARCHITECTURE.md): scheduling code —
# src/framework, src/plugins and every policy's core library — includes no simulator header
# (sim/...), so it runs unchanged on a real cluster. Simulator adapters and reproductions live in
# src/experiments (the experiments layer); src/policies/federated is still exempt (its actors run
# on the simulator's event loop until it is split).
set -euo pipefail
root=${1:?usage: check_layers.sh REPO_ROOT}
cd "$root/src"
sim_side='policies/federated/'
bad=$(grep -rlE '#include "sim/' framework plugins policies |
      grep -vE "^($sim_side)" || true)
if [[ -n $bad ]]; then
  echo "simulator headers included from scheduling code:" >&2
  for f in $bad; do grep -nH '#include "sim/' "$f" >&2; done
  exit 1
fi
# The core library of each policy links no simulator target either.
if awk '/^orrery_library\(orrery_kubedsm$/,/\)/' policies/kubedsm/CMakeLists.txt |
   grep -q orrery_sim; then
  echo "orrery_kubedsm (the core) links orrery_sim" >&2
  exit 1
fi
# CARICO's core library links neither the simulator nor gRPC (the policy and rpc layers do).
if awk '/^orrery_library\(orrery_carico$/,/\)/' policies/carico/CMakeLists.txt |
   grep -qE 'orrery_sim|orrery_carico_rpc|grpc'; then
  echo "orrery_carico (the core) links the simulator or gRPC" >&2
  exit 1
fi
if awk '/^orrery_library\(orrery_optpack$/,/\)/' policies/optpack/CMakeLists.txt |
   grep -q orrery_sim; then
  echo "orrery_optpack (the core) links orrery_sim" >&2
  exit 1
fi
# The experiments layer (src/experiments): policies hold no experiment code and include none of
# it; only the CLI (and tests and benchmarks, outside src/) include experiments; no experiment
# links or includes the whole catalog (each links the policies it runs).
left=$(find policies -name 'repro.*' -o -name 'evaluation.*' -o -name 'authors_data.h')
if [[ -n $left ]]; then
  echo "reproduction code under src/policies (it belongs in src/experiments): $left" >&2
  exit 1
fi
bad=$(grep -rlE '#include "experiments/' . | grep -vE '^\./(cli|experiments)/' || true)
if [[ -n $bad ]]; then
  echo "src/experiments included from outside src/cli (and tests, bench):" >&2
  for f in $bad; do grep -nH '#include "experiments/' "$f" >&2; done
  exit 1
fi
if grep -v "^#" experiments/CMakeLists.txt | grep -q orrery_catalog ||
   grep -rq '#include "policies/catalog.h"' experiments; then
  echo "an experiment links or includes orrery_catalog (take the policies it runs instead)" >&2
  exit 1
fi
echo "layers ok: no sim/ include in framework, plugins or policy cores; experiments apart"
