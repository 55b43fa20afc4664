#!/usr/bin/env bash
# Verify's memory (issue 12 item 4; docs/benchmarks.md, "Verify's memory"):
# peak RSS of `docshard verify` over the same scheme at two sizes (default
# 10,000 and 100,000 documents) on one strict local server (4 partition key
# ranges per collection, 4 collections), three ways in the same run:
#   plain       verify --config            (must stay flat)
#   expected    verify ... --expected FILE (grows by ~17 bytes per expected document)
#   ids         verify ... --ids           (holds every id: a baseline that
#               grows with the documents)
#   baseline    with --baseline-cli PATH: that build's `verify` (e.g. one built
#               from an older commit, to compare designs in the same run)
# Prints one JSON object (machine, per size and way: peak RSS KiB, seconds,
# the verify summary line) and the ratios 100k / 10k.
#
# Usage: scripts/bench-verify.sh [BUILD_DIR] [--small N] [--large N] [--baseline-cli PATH]
#   BUILD_DIR defaults to build-bench (configured and built here by
#   bench_build, scripts/bench-support.sh, when it has no CLI yet).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-bench small=10000 large=100000 baseline_cli=""
while (($#)); do
  case $1 in
    --baseline-cli) baseline_cli=${2-}; shift 2 ;;
    --small) small=${2-}; shift 2 ;;
    --large) large=${2-}; shift 2 ;;
    -*) echo "usage: scripts/bench-verify.sh [BUILD_DIR] [--small N] [--large N]" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
[[ $small =~ ^[0-9]+$ && $large =~ ^[0-9]+$ ]] && ((small >= 100 && large > small && large <= 2000000)) \
  || { echo "bench-verify: need 100 <= --small < --large <= 2000000" >&2; exit 2; }
cli=$build/tools/docshard/docshard
[ -z "$baseline_cli" ] || [ -x "$baseline_cli" ] || { echo "bench-verify: --baseline-cli: $baseline_cli is not executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-verify: /usr/bin/time (Debian package time) is needed for peak RSS" >&2; exit 1; }

log() { printf 'bench-verify: [%s load %s] %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" >&2; }
bench_name=verifybench
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
[ -x "$cli" ] || bench_build docshard_cli
bench_servers_begin  # sets ca, tmp; stops the server and removes $tmp on exit
work=$tmp
start_server one --gateway strict --partitions 4
url=$URL key_file=$KEYFILE
db=verify$$
cat >"$work/scheme.json" <<EOF
{"docshard":1,"epoch":1,
 "accounts":{"default":{"endpoint":"$url","keyFile":"$key_file","caFile":"$ca"}},
 "resolver":{"type":"hash","partitionKey":"/userId",
             "collections":["dbs/$db/colls/c0","dbs/$db/colls/c1","dbs/$db/colls/c2","dbs/$db/colls/c3"]}}
EOF
"$cli" init --config "$work/scheme.json" >/dev/null
load() {  # FROM TO: documents dFROM..dTO-1, ~300 bytes each
  awk -v a="$1" -v b="$2" 'BEGIN { pad = sprintf("%0200d", 0)
    for (i = a; i < b; i++) printf "{\"id\":\"d%d\",\"userId\":\"u%d\",\"n\":%d,\"pad\":\"%s\"}\n", i, i, i, pad }' \
    | "$cli" put --config "$work/scheme.json" --max-parallel 16 >/dev/null
  awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i < b; i++) printf "{\"id\":\"d%d\",\"key\":\"u%d\"}\n", i, i }' \
    >>"$work/expected.jsonl"
}
measure() {  # SIZE WAY args...: one JSON member
  local size=$1 way=$2 start end binary=$cli
  shift 2
  [ "$way" = baseline ] && binary=$baseline_cli
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$binary" verify --config "$work/scheme.json" "$@" >"$work/out" || true
  end=$(date +%s.%N)
  printf '"%s_%s":{"documents":%d,"peakRssKiB":%d,"seconds":%.2f,"summary":"%s"}' "$way" "$size" "$size" \
    "$(tail -n1 "$work/rss")" "$(echo "$end - $start" | bc -l)" "$(tail -n1 "$work/out")"
}

cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
results=()
log "loading $small documents"
load 0 "$small"
ways=(plain expected ids)
[ -n "$baseline_cli" ] && ways+=(baseline)
for way in "${ways[@]}"; do
  case $way in plain) args=() ;; expected|baseline) args=(--expected "$work/expected.jsonl") ;; ids) args=(--ids) ;; esac
  results+=("$(measure "$small" "$way" "${args[@]}")")
done
log "loading $((large - small)) more"
load "$small" "$large"
for way in "${ways[@]}"; do
  case $way in plain) args=() ;; expected|baseline) args=(--expected "$work/expected.jsonl") ;; ids) args=(--ids) ;; esac
  results+=("$(measure "$large" "$way" "${args[@]}")")
done
json="{\"machine\":{\"date\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"commit\":\"$(git -C "$root" rev-parse --short HEAD)\",\"nproc\":$(nproc),\"cpuModel\":\"$cpu_model\",\"command\":\"scripts/bench-verify.sh\",\"baselineCli\":\"$baseline_cli\"},$(IFS=,; echo "${results[*]}")}"
mkdir -p "$root/bench/results"
echo "$json" >"$root/bench/results/verify-memory.json"
echo "$json"
node -e '
  const r = JSON.parse(process.argv[1]), s = process.argv[2], l = process.argv[3];
  for (const way of ["plain", "expected", "ids", "baseline"]) {
    const a = r[`${way}_${s}`], b = r[`${way}_${l}`];
    if (!a) continue;
    console.log(`${way.padEnd(9)} ${s}: ${a.peakRssKiB} KiB, ${l}: ${b.peakRssKiB} KiB, ratio ${(b.peakRssKiB / a.peakRssKiB).toFixed(2)}x; ${b.summary}`);
  }' "$json" "$small" "$large"
