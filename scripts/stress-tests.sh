#!/usr/bin/env bash
# The test suite on a busy machine: LOOPS CPU-bound busy loops (default 6, on 2 cores a load
# average near 8) run beside `ctest`, ROUNDS times in a row (default 3); any failure fails the run.
# Timing assumptions in tests are bugs: a wait is a deadline on an observable condition, generous
# enough for this. Not in CI (a round takes several times the normal suite); run it before
# resolving anything that touches threads, processes or timeouts.
#
#   scripts/stress-tests.sh [-n LOOPS] [-r ROUNDS] [-p PRESET] [-- CTEST-ARGS...]
#   scripts/stress-tests.sh -r 20 -- -R 'ServeLeaderTest'   # one test family, 20 rounds
set -euo pipefail
cd "$(dirname "$0")/.."
loops=6 rounds=3 preset=release
while getopts "n:r:p:h" opt; do
  case $opt in
    n) loops=$OPTARG ;;
    r) rounds=$OPTARG ;;
    p) preset=$OPTARG ;;
    *) sed -n '2,9p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
[[ $loops =~ ^[0-9]+$ && $rounds =~ ^[1-9][0-9]*$ ]] || { echo "stress: -n and -r take counts" >&2; exit 2; }
[[ -d build/$preset ]] || { echo "stress: build/$preset is missing: run make build first" >&2; exit 2; }

pids=()
stop_loops() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_loops EXIT
for ((i = 0; i < loops; i++)); do
  (while :; do :; done) &
  pids+=($!)
done
echo "stress: $loops busy loops on $(nproc) cores; $rounds round(s) of ctest --preset $preset $*"
failed=0
for ((r = 1; r <= rounds; r++)); do
  start=$(date +%s)
  if ctest --preset "$preset" -j "$(nproc)" --output-on-failure "$@" >"build/stress-round-$r.log" 2>&1; then
    verdict=passed
  else
    verdict=FAILED
    failed=$((failed + 1))
  fi
  summary=$(grep -E "tests passed|tests failed" "build/stress-round-$r.log" | tail -1)
  echo "stress: round $r/$rounds $verdict in $(($(date +%s) - start)) s, load $(cut -d' ' -f1 /proc/loadavg): $summary"
  [[ $verdict == FAILED ]] && grep -E "^\s+[0-9]+ - " "build/stress-round-$r.log" | sed 's/^/stress:   /' || true
done
echo "stress: $((rounds - failed)) of $rounds rounds passed (logs: build/stress-round-*.log)"
[[ $failed -eq 0 ]]
