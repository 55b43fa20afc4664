#!/usr/bin/env bash
# The cost of metrics (issue 14; docs/benchmarks.md, "Metrics overhead"):
# process CPU per blocking point read through a CosmosClient with no meter vs
# one recording into docshard::prometheus, same document, same server, rounds
# alternating the order (bench/client_bench.cpp, mode observe). Goal: median
# paired ratio <= 1.05. Diagnostics are recorded in both arms (always on).
# Writes bench/results/observe.json (one JSON object, with the machine) and
# prints PASS/FAIL.
#
# Usage: scripts/bench-observe.sh [--skip-build] [--ops N] [--rounds N]
# Environment: DOCSHARD_BENCH_BUILD_DIR (default build-bench), DOCSHARD_JOBS (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BENCH_BUILD_DIR:-$root/build-bench}
skip_build=0 ops=2000 rounds=40
while (($#)); do
  case $1 in
    --skip-build) skip_build=1; shift ;;
    --ops) ops=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "usage: scripts/bench-observe.sh [--skip-build] [--ops N] [--rounds N]" >&2; exit 2 ;;
  esac
done
log() { printf 'bench-observe: [%s load %s] %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" >&2; }
bench_name=observebench
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
((skip_build)) || bench_build docshard_client_bench
bench=$build/bench/docshard_client_bench
# (flags.make with Makefiles, build.ninja with Ninja: bench_build uses Ninja.)
grep -qs 'DOCSHARD_BENCH_PROMETHEUS' "$build/bench/CMakeFiles/docshard_client_bench.dir/flags.make" "$build/build.ninja" \
  || log "note: docshard::prometheus is not built in $build (prometheus-cpp-dev missing?): measuring a summing sink"
bench_servers_begin
start_server observe --gateway strict --partitions 4
common=(--endpoint "$URL" --ca "$ca" --key-file "$KEYFILE" --db observe)
"$bench" setup "${common[@]}" --coll reads --doc doc0 >/dev/null
log "point reads, metrics off vs on: $rounds rounds of $ops"
result=$("$bench" observe "${common[@]}" --coll reads --doc doc0 --ops "$ops" --rounds "$rounds")
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p "$root/bench/results"
printf '{"benchmark":"observe","commit":"%s","cpu":"%s","nproc":%d,"result":%s}\n' \
  "$commit" "$cpu_model" "$(nproc)" "$result" | tee "$root/bench/results/observe.json"
ratio=$(sed -n 's/.*"medianPairedRatio":\([0-9.]*\).*/\1/p' <<<"$result")
if awk -v r="$ratio" 'BEGIN { exit !(r <= 1.05) }'; then
  log "PASS: metrics on / off CPU per read = $ratio (goal <= 1.05)"
else
  log "FAIL: metrics on / off CPU per read = $ratio (goal <= 1.05)"
  exit 1
fi
