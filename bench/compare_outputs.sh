#!/usr/bin/env bash
# Runs a fixed set of orrery commands with wall-clock fields zeroed and writes their outputs to
# OUT, then (with REF) compares OUT byte for byte with an earlier run's outputs. Use it to check
# that an optimisation changed no result:
#
#   bench/compare_outputs.sh build/release/orrery /tmp/ref            # before: record
#   ... change code, rebuild ...
#   bench/compare_outputs.sh build/release/orrery /tmp/new /tmp/ref   # after: record and compare
#
# The set: (a) syn_250 on 10,000 workers with kube-default, and under Megha and PigeonC with
# their fault plans; (b) every scenario under scenarios/;
# (c) `orrery schedule` on the golden snapshot (deterministic and seeded ties) and on a
# bench-sized generated snapshot (bench/gen_snapshot.py, adaptive and 100 % of nodes), `orrery
# score` on the golden snapshot, and `orrery explain` (table and JSON, a preemption); (d) `orrery repro <paper> --quick` for kubedsm,
# federated, kubcg and carico; optpack only with ORRERY_COMPARE_OPTPACK=1 (its --quick run takes
# more than 10 minutes on 2 shared cores; `--deterministic`: solver budgets in work units, so the
# categories do not depend on the machine's speed). Run from anywhere; paths are resolved from the
# repo root.
# Exit status: 0 when every command succeeded (and the outputs match REF), 1 otherwise.
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 ORRERY_BINARY OUT_DIR [REF_DIR]" >&2
  exit 2
fi
bin=$(realpath "$1")
out=$(realpath -m "$2")
ref=${3:+$(realpath "$3")}
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/data"
cd "$root" || exit 2

rm -rf "$out"
mkdir -p "$out"/{sim,scenarios,schedule,repro}
status=0

run() {  # run NAME CMD...: stdout to OUT/NAME.stdout; a failure is reported but does not stop us
  local name=$1
  shift
  local t0=$(date +%s.%N)
  if ! "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"; then
    echo "FAILED ($?): $*" >&2
    status=1
  fi
  printf '%-40s %6.2f s\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)" >&2
}

# (a) the trace target.
run sim/syn250 "$bin" sim --trace "$data/megha/syn_250.0.tr" --workers 10000 \
  --out "$out/sim/syn250" --no-wall-clock -q

# (a') Megha and PigeonC on the same trace under their fault plans (scenarios/faults: fault plans
# for --faults, not scenarios).
for a in megha pigeonc; do
  cfg=$data/megha/megha_config_G5L5S10000_C.json
  [[ $a == pigeonc ]] && cfg=$data/megha/pigeon_config_D10M100S10000_C.json
  run "sim/syn250-$a-faults" "$bin" sim --trace "$data/megha/syn_250.0.tr" --cluster-config "$cfg" \
    --arch $a --faults scenarios/faults/$a.yaml --out "$out/sim/syn250-$a-faults" --no-wall-clock -q
done

# (b) every scenario (files that are cluster snapshots for other scenarios, and the fault plans
# above, are skipped).
while IFS= read -r f; do
  grep -q '^kind:' "$f" && continue
  [[ $f == scenarios/faults/* ]] && continue
  name=${f#scenarios/}
  name=${name%.yaml}
  run "scenarios/${name//\//_}" "$bin" sim "$f" --out "$out/scenarios/${name//\//_}" \
    --no-wall-clock -q
done < <(find scenarios -name '*.yaml' | LC_ALL=C sort)

# (c) orrery schedule / score.
g=tests/data/golden
run schedule/golden-deterministic "$bin" schedule --cluster $g/golden-cluster.json \
  --config $g/golden-config.yaml --out "$out/schedule/golden-deterministic.json"
run schedule/golden-seed7 "$bin" schedule --cluster $g/golden-cluster.json --seed 7 \
  --out "$out/schedule/golden-seed7.json"
run schedule/score "$bin" score --cluster $g/golden-cluster.json --pod tests/data/schedule/pod.yaml
run schedule/explain-golden "$bin" explain --cluster $g/golden-cluster.json web/pending-000 --top 10
run schedule/explain-golden-json "$bin" explain --cluster $g/golden-cluster.json batch/pending-001 \
  --config $g/golden-config.yaml -o json
run schedule/explain-preemption "$bin" explain --cluster tests/data/schedule/cluster.yaml urgent
snapshot=${TMPDIR:-/tmp}/orrery-compare-snapshot.json
if [[ ! -s $snapshot || bench/gen_snapshot.py -nt $snapshot ]]; then
  python3 bench/gen_snapshot.py >"$snapshot.tmp" && mv "$snapshot.tmp" "$snapshot"
fi
printf 'percentageOfNodesToScore: 100\n' >"$out/schedule/all-nodes.yaml"
run schedule/big-adaptive "$bin" schedule --cluster "$snapshot" --seed 3 \
  --out "$out/schedule/big-adaptive.json"
run schedule/big-all-nodes "$bin" schedule --cluster "$snapshot" --seed 3 \
  --config "$out/schedule/all-nodes.yaml" --out "$out/schedule/big-all-nodes.json"

# (d) the reproductions.
run repro/kubedsm "$bin" repro kubedsm --quick --out "$out/repro/kubedsm"
run repro/federated "$bin" repro federated --quick --no-wall-clock --out "$out/repro/federated"
run repro/kubcg "$bin" repro kubcg --quick --out "$out/repro/kubcg"
run repro/carico "$bin" repro carico --quick --out "$out/repro/carico"
if [[ ${ORRERY_COMPARE_OPTPACK:-0} == 1 ]]; then
  run repro/optpack "$bin" repro optpack --quick --deterministic --jobs 2 --out "$out/repro/optpack"
fi

# Normalise what legitimately differs between equal runs: the output path, the wall times printed
# by `repro kubedsm|kubcg|carico|optpack`, optpack's solver wall times (the only wall-clock field
# of its outputs: `solver_time_s_mean` in summary.json and Table 1's "solver duration (s)" rows;
# with --deterministic everything else is fixed), and the order in which parallel runs report
# progress. (`repro federated` zeroes its wall times itself with --no-wall-clock; kubcg and carico
# write no wall-clock field.)
sed -i -e "s|$out|OUT|g" "$out"/*/*.stdout "$out"/*/*.stderr
sed -i -E 's/(simulations|instances), [0-9.]+ ?(s|ms)\)/\1, <time>)/' "$out"/repro/*.stdout
if [[ -d $out/repro/optpack ]]; then
  sed -i -E 's/"solver_time_s_mean": [0-9.eE+-]+/"solver_time_s_mean": <time>/' \
    "$out/repro/optpack/summary.json"
  # Table 1's "solver duration (s)" rows: every number of those rows.
  sed -i -E '/solver duration \(s\)/s/>[0-9.eE+-]+</><time></g' "$out/repro/optpack/report.html"
fi
for f in "$out"/repro/*.stderr; do sed -i -E "s/^\[[0-9]+\/[0-9]+\] //" "$f"; LC_ALL=C sort -o "$f" "$f"; done

if [[ -n $ref ]]; then
  if diff -r -q "$ref" "$out" >&2; then
    echo "identical to $ref" >&2
  else
    echo "DIFFERENT from $ref" >&2
    status=1
  fi
fi
exit $status
