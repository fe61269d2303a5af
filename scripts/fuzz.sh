#!/usr/bin/env bash
# Runs the libFuzzer targets of build/fuzz (fuzz/README.md): each for SECONDS, JOBS at a time,
# from the seeds in fuzz/corpus/<target>/ (read only) plus a working corpus in
# build/fuzz/corpus/<target>/ (what the runs find is kept there between runs). Crashes, hangs
# (> 25 s for one input), leaks and out-of-memory (> 2 GiB) stop a target and are written to
# build/fuzz/artifacts/<target>/. Prints one line per target from libFuzzer's final statistics
# and exits 1 when any target failed. With FUZZ_SEED set, every target starts from that
# libFuzzer -seed, so a run replays the same mutations (CI's smoke run: a find is reproducible
# by running the same command; without it libFuzzer picks a random seed each run).
#   scripts/fuzz.sh SECONDS [JOBS] [TARGET...]      (default: every target, 2 at a time)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [JOBS] [TARGET...]}
jobs=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
all=(quantity k8s_objects json_items yaml_json_diff scenario trace federated_config
     scheduler_config extender watch_stream kubeconfig carico_proc carico_wire kubcg_csv)
targets=("${@:-${all[@]}}")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
out=build/fuzz

dicts_of() {
  case $1 in
    quantity) echo quantity ;;
    k8s_objects | yaml_json_diff) echo yaml json ;;
    scheduler_config) echo yaml ;;
    scenario | federated_config) echo yaml scenario ;;
    json_items | extender | watch_stream) echo json ;;
    kubeconfig) echo yaml kubeconfig ;;
    trace) echo trace ;;
    kubcg_csv) echo csv ;;
    carico_proc) echo proc ;;
    *) ;;
  esac
}

run_one() {
  local t=$1 bin=$out/fuzz/fuzz_$1 dict=() d
  [ -x "$bin" ] || { echo "$t: $bin not built (cmake --preset fuzz && cmake --build --preset fuzz)"; return 1; }
  mkdir -p "$out/corpus/$t" "$out/artifacts/$t" "$out/logs" "$out/dict"
  local names=($(dicts_of "$t"))
  if [ ${#names[@]} -gt 0 ]; then
    : > "$out/dict/$t.dict"
    for d in "${names[@]}"; do cat "fuzz/dict/$d.dict" >> "$out/dict/$t.dict"; done
    dict=(-dict="$out/dict/$t.dict")
  fi
  local log=$out/logs/$t.log rc=0 seed=()
  [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 -rss_limit_mb=2048 \
    "${seed[@]}" "${dict[@]}" -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" "fuzz/corpus/$t" \
    > "$log" 2>&1 || rc=$?
  local final; final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  local units; units=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  if [ $rc -ne 0 ]; then
    echo "$t: FAILED (exit $rc): $(grep -E 'ERROR|^fuzz:|SUMMARY' "$log" | head -3 | tr '\n' ' ')"
    echo "$t:   input: $(ls -t "$out/artifacts/$t" | head -1)  log: $log"
    return 1
  fi
  echo "$t: ${seconds}s runs=${units:-?} $(echo "$final" | sed -E 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+//')"
}
export -f run_one dicts_of
export out seconds

mkdir -p "$out"
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' > "$summary" 2>&1 || status=1
sort "$summary"
exit ${status:-0}
