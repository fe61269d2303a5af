#!/usr/bin/env bash
# The two worlds' layering, checked on the sources (docs/ARCHITECTURE.md): scheduling code —
# src/framework, src/plugins and every policy's core library — includes no simulator header
# (sim/...), so it runs unchanged on a real cluster. A policy's core is its folder minus the
# simulator adapter and reproduction files listed here.
set -euo pipefail
root=${1:?usage: check_layers.sh REPO_ROOT}
cd "$root/src"
sim_side='policies/kubedsm/evaluation\.|policies/kubedsm/repro\.|policies/kubcg/evaluation\.|policies/kubcg/repro\.|policies/federated/|policies/carico/evaluation\.|policies/carico/repro\.'
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
echo "layers ok: no sim/ include in framework, plugins or policy cores"
