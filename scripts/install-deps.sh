#!/usr/bin/env bash
# Installs the Debian packages orrery builds against, only those that are missing.
# Runs apt-get when root; otherwise prints the command to run.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  # KubCG's execution history: SQLite embedded, PostgreSQL (client library and a server the
  # tests start on loopback).
  libsqlite3-dev libpq-dev postgresql
  # CARICO: the local SVD (Eigen) and agents/aggregator over gRPC.
  libeigen3-dev libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  # Priority-optimal packing: CBC as the MIP certifier.
  coinor-libcbc-dev
  # Real Kubernetes: HTTP(S) client and servers (cpp-httplib over OpenSSL).
  libcpp-httplib-dev libssl-dev
  # The report's browser test (headless).
  chromium
  # Fuzzing (make fuzz): clang with libFuzzer and the sanitizer runtimes.
  clang-14 libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "orrery: installing missing build dependencies: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
else
  echo "orrery: run as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
