#!/usr/bin/env bash
# Runs the CTest suite of a sanitizer preset (asan or tsan; `make test-asan`, `make test-tsan`).
# The presets send every sanitizer report to build/<preset>/sanitizer-logs/ (log_path), so a
# finding in an `orrery` process a test started — a server stopped with SIGTERM, say — is seen even
# when the test did not look at that process's exit code. Fails when a test fails or when any
# report was written; prints the reports. See docs/RELIABILITY.md, "Sanitizers".
set -uo pipefail
preset=${1:?usage: sanitizer-tests.sh asan|tsan [jobs]}
jobs=${2:-2}
cd "$(dirname "$0")/.."
logs=build/$preset/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
ctest --preset "$preset" -j "$jobs"
status=$?
reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  for f in $reports; do
    echo "==== sanitizer report $f" >&2
    cat "$f" >&2
  done
  echo "orrery: $(echo "$reports" | wc -l) sanitizer report(s) in $logs" >&2
  status=1
fi
exit $status
