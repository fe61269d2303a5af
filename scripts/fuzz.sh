#!/usr/bin/env bash
# Runs the libFuzzer targets of build/fuzz (fuzz/README.md): each for SECONDS, JOBS at a time,
# from the seeds in fuzz/corpus/<target>/ (read only) plus a working corpus in
# build/fuzz/corpus/<target>/ (what the runs find is kept there between runs). Crashes, hangs
# (> 25 s for one input), leaks and out-of-memory (> 2 GiB) stop a target and are written to
# build/fuzz/artifacts/<target>/. Prints one line per target from libFuzzer's final statistics
# and exits 1 when any target failed. With FUZZ_SEED set, every target starts from that
# libFuzzer -seed; with FUZZ_RUNS set, each target stops after that many inputs (SECONDS is then
# only a cap), so a run does the same amount of fuzzing on any machine (CI's smoke run). Neither
# makes a run bit-for-bit repeatable (ASLR moves the code addresses libFuzzer's comparison tables
# use; some targets read clocks): a find is replayed from its artifact (fuzz/README.md). Without
# them libFuzzer picks a random seed and runs for SECONDS.
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
  local log=$out/logs/$t.log rc=0 seed=() runs=()
  [ -n "${FUZZ_SEED:-}" ] && seed=(-seed="$FUZZ_SEED")
  [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
  "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=25 -rss_limit_mb=2048 \
    "${seed[@]}" "${runs[@]}" "${dict[@]}" -artifact_prefix="$out/artifacts/$t/" "$out/corpus/$t" \
    "fuzz/corpus/$t" > "$log" 2>&1 || rc=$?
  local final; final=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  local units; units=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  if [ $rc -ne 0 ]; then
    echo "$t: FAILED (exit $rc): $(grep -E 'ERROR|^fuzz:|SUMMARY' "$log" | head -3 | tr '\n' ' ')"
    echo "$t:   input: $(ls -t "$out/artifacts/$t" | head -1)  log: $log"
    return 1
  fi
  local budget="${seconds}s"
  [ -n "${FUZZ_RUNS:-}" ] && budget="${FUZZ_RUNS} runs (cap ${seconds}s)"
  echo "$t: $budget runs=${units:-?} $(echo "$final" | sed -E 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+//')"
}
export -f run_one dicts_of
export out seconds

mkdir -p "$out"
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' > "$summary" 2>&1 || status=1
sort "$summary"
exit ${status:-0}
