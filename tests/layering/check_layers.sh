#!/usr/bin/env bash
# The layering, checked on the sources (docs/ARCHITECTURE.md). Each rule names the files it covers
# and the includes (or linked targets) they must not have:
#   - the model (src/core) includes only model headers: no util/, io/ or anything above, and its
#     library links no YAML or JSON library;
#   - utilities (src/util) include only the model and themselves, and link no YAML/JSON library;
#   - input/output formats (src/io) include no k8s/, sim/, framework/, plugins/, policies/ header;
#   - the ApiBackend's object codec (k8s/object_codec.*, k8s/objects.*) includes no client,
#     informer, workers or backend header (pure JSON ↔ model);
#   - scheduling code — src/framework, src/plugins and every policy's core library — includes no
#     simulator header (sim/...), so it runs unchanged on a real cluster; the policy cores link no
#     simulator target (CARICO's no gRPC either). src/policies/federated is still exempt (its actors
#     run on the simulator's event loop until it is split);
#   - the real-cluster layer (src/k8s) includes and links no policy, simulator, experiment or CLI
#     code (the CLI gives it the policies and plugins it runs);
#   - the framework and the plugins include nothing of the worlds above them (sim, k8s, policies,
#     experiments, cli);
#   - there are no cycles between folders (src/X, and src/policies/X, src/experiments/X apart):
#     the folder-level include graph sorts topologically;
#   - the experiments layer (src/experiments) holds the simulator adapters and reproductions: no
#     such file is left under src/policies, only src/cli includes experiments, and no experiment
#     links or includes the whole catalog (each links the policies it runs).
set -euo pipefail
root=${1:?usage: check_layers.sh REPO_ROOT}
cd "$root/src"
failed=0
rules=0

# no_include NAME FORBIDDEN_REGEX FILE...: none of the files includes a header matching the regex.
no_include() {
  local name=$1 forbidden=$2
  shift 2
  rules=$((rules + 1))
  local bad
  bad=$(grep -nHE "#include [\"<]($forbidden)" "$@" 2>/dev/null || true)
  if [[ -n $bad ]]; then
    echo "layering rule broken: $name" >&2
    echo "$bad" >&2
    failed=1
  fi
}

# no_link NAME LIBRARY FILE FORBIDDEN_REGEX: the orrery_library(LIBRARY ...) call in FILE names no
# dependency matching the regex.
no_link() {
  local name=$1 lib=$2 file=$3 forbidden=$4
  rules=$((rules + 1))
  if awk "/^orrery_library\\($lib\$/,/\\)/" "$file" | grep -qE "$forbidden"; then
    echo "layering rule broken: $name ($lib in $file)" >&2
    failed=1
  fi
}

model=(core/*.h core/*.cc)
no_include "the model includes only model headers (no util, io or anything above)" \
  'util/|io/|k8s/|sim/|framework/|plugins/|policies/|report/|obs/|net/|cli/' "${model[@]}"
no_include "the model includes no YAML/JSON library header" 'yaml-cpp|nlohmann' "${model[@]}"
no_link "the model links no YAML/JSON library" orrery_core core/CMakeLists.txt \
  'yaml|nlohmann|orrery_(util|io)'
no_include "utilities include only the model and utilities" \
  'io/|k8s/|sim/|framework/|plugins/|policies/|report/|obs/|net/|cli/' util/*.h util/*.cc
no_link "utilities link no YAML/JSON library" orrery_util util/CMakeLists.txt 'yaml|nlohmann|orrery_io'
no_include "input/output formats include no k8s, simulator, framework or policy header" \
  'k8s/|sim/|framework/|plugins/|policies/|report/|obs/|net/|cli/' io/*.h io/*.cc
no_include "the k8s object codec is pure (no client, informer, workers or backend)" \
  'k8s/client\.h|k8s/informer|k8s/workers\.h|k8s/api_backend|k8s/action_executor|framework/' \
  k8s/object_codec.h k8s/object_codec.cc k8s/objects.h k8s/objects.cc
no_include "the informer cache does not reach the action executor" \
  'k8s/action_executor|k8s/api_backend|k8s/workers\.h' k8s/informer_cache.h k8s/informer_cache.cc

no_include "the real-cluster layer includes no policy, simulator, experiment or CLI header" \
  'policies/|sim/|experiments/|cli/|report/' k8s/*.h k8s/*.cc
no_link "the real-cluster layer links no policy or simulator" orrery_k8s k8s/CMakeLists.txt \
  'orrery_(kube|baselines|kubedsm|kubcg|carico|optpack|federated|architectures|catalog|sim)'
no_include "the framework and the plugins include nothing of the worlds above them" \
  'sim/|k8s/|policies/|experiments/|cli/|report/' \
  framework/*.h framework/*.cc $(find plugins -name '*.h' -o -name '*.cc')

# Folder-level include edges "FROM TO" (folder = src/X, or src/policies/X, src/experiments/X).
rules=$((rules + 1))
edges=$(grep -rHoE '#include "[a-z0-9_]+/[^"]+"' --include=*.h --include=*.cc . |
  sed -E 's|^\./||' |
  sed -E 's#^((policies|experiments)/[a-z0-9_]+/|[a-z0-9_]+/)[^:]*:\#include "((policies|experiments)/[a-z0-9_]+/|[a-z0-9_]+/).*#\1 \3#' |
  sed -E 's#/ # #; s#/$##' | awk '$1 != $2' | sort -u)
if ! cycle=$(tsort <<<"$edges" 2>&1 >/dev/null) || [[ -n $cycle ]]; then
  echo "layering rule broken: folders include each other (a cycle):" >&2
  echo "$cycle" >&2
  failed=1
fi

sim_side='policies/federated/'
rules=$((rules + 1))
bad=$(grep -rlE '#include "sim/' framework plugins policies |
      grep -vE "^($sim_side)" || true)
if [[ -n $bad ]]; then
  echo "layering rule broken: simulator headers included from scheduling code:" >&2
  for f in $bad; do grep -nH '#include "sim/' "$f" >&2; done
  failed=1
fi
no_link "the KubeDSM core links no simulator" orrery_kubedsm policies/kubedsm/CMakeLists.txt orrery_sim
no_link "the CARICO core links neither the simulator nor gRPC" orrery_carico \
  policies/carico/CMakeLists.txt 'orrery_sim|orrery_carico_rpc|grpc'
no_link "the packer's core links no simulator" orrery_optpack policies/optpack/CMakeLists.txt orrery_sim

# rule_failed NAME DETAIL: report a broken rule checked by hand below.
rule_failed() {
  echo "layering rule broken: $1" >&2
  echo "$2" >&2
  failed=1
}
rules=$((rules + 1))
left=$(find policies -name 'repro.*' -o -name 'evaluation.*' -o -name 'authors_data.h')
[[ -z $left ]] || rule_failed "reproduction code under src/policies (it belongs in src/experiments)" "$left"
rules=$((rules + 1))
bad=$(grep -rnHE '#include "experiments/' . | grep -vE '^\./(cli|experiments)/' || true)
[[ -z $bad ]] || rule_failed "src/experiments included from outside src/cli" "$bad"
rules=$((rules + 1))
bad=$( (grep -v "^#" experiments/CMakeLists.txt | grep -n orrery_catalog) || true)
bad+=$(grep -rnH '#include "policies/catalog.h"' experiments || true)
[[ -z $bad ]] || rule_failed "an experiment links or includes orrery_catalog" "$bad"

if [[ $failed != 0 ]]; then exit 1; fi
echo "layers ok: $rules rules (model, util, io, k8s codec and cache, k8s apart from policies, no sim/ in scheduling code, no folder cycles, experiments apart)"
