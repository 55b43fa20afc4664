#!/usr/bin/env bash
# Migration workers' throughput (issue 12; docs/benchmarks.md, "Migration
# workers"): moved documents per second with 1, 2 and 4 `docshard migrate
# --lease` worker processes, each --max-parallel 2, against one strict local
# server (4 partition key ranges per collection) that adds 10 ms to every data
# request (--delay-ms 10). Per run: a fresh database, D documents seeded under
# A (hash over 4 collections), migrated to B (5 collections: ~1/5 move); the
# time is from the workers' start until `--status --json` says finished
# (polled every 0.2 s), the moved count from the same status.
#
# Usage: scripts/bench-migrate.sh [BUILD_DIR] [--documents D] [--workers "1 2 4"] [--delay-ms MS]
#   BUILD_DIR defaults to build-bench (configured and built here by
#   bench_build, scripts/bench-support.sh, when it has no CLI yet).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-bench documents=8000 workers_list="1 2 4" delay=10
while (($#)); do
  case $1 in
    --documents) documents=${2-}; shift 2 ;;
    --workers) workers_list=${2-}; shift 2 ;;
    --delay-ms) delay=${2-}; shift 2 ;;
    -*) echo "usage: scripts/bench-migrate.sh [BUILD_DIR] [--documents D] [--workers \"1 2 4\"] [--delay-ms MS]" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
[[ $documents =~ ^[0-9]+$ && $delay =~ ^[0-9]+$ ]] && ((documents >= 100)) \
  || { echo "bench-migrate: need --documents >= 100 and a whole --delay-ms" >&2; exit 2; }
log() { printf 'bench-migrate: [%s load %s] %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" >&2; }
bench_name=migratebench
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
cli=$build/tools/docshard/docshard
[ -x "$cli" ] || bench_build docshard_cli

server=$root/scripts/cosmos-server.sh
name=migratebench-$$
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  "$server" stop --name "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
url=$("$server" start --name "$name" --gateway strict --partitions 4 --fault-json "{\"delayMs\":$delay}")
run_dir=${DOCSHARD_RUN_DIR:-$root/.run}
key_file=$run_dir/servers/$name.key
ca=$run_dir/certs/ca.pem
scheme() {  # DB N: hash over N collections of DB
  local colls="" i
  for ((i = 0; i < $2; i++)); do colls+="${colls:+,}\"dbs/$1/colls/c$i\""; done
  printf '{"docshard":1,"epoch":1,"accounts":{"default":{"endpoint":"%s","keyFile":"%s","caFile":"%s"}},"resolver":{"type":"hash","partitionKey":"/userId","collections":[%s]}}\n' \
    "$url" "$key_file" "$ca" "$colls"
}

results=()
for n in $workers_list; do
  db=mb$$n$n
  scheme "$db" 4 >"$work/a.json"
  scheme "$db" 5 >"$work/b.json"
  "$cli" init --config "$work/a.json" >/dev/null
  awk -v d="$documents" 'BEGIN { for (i = 0; i < d; i++) printf "{\"id\":\"d%d\",\"userId\":\"u%d\",\"n\":%d}\n", i, i, i }' \
    | "$cli" put --config "$work/a.json" --max-parallel 32 >/dev/null
  sleep 1
  lease=default:dbs/$db/colls/leases
  log "$n workers, $documents documents"
  "$cli" migrate --from "$work/a.json" --to "$work/b.json" --lease "$lease" --create-only >/dev/null 2>&1
  start=$(date +%s.%N)
  pids=()
  for ((w = 0; w < n; w++)); do
    "$cli" migrate --from "$work/a.json" --to "$work/b.json" --lease "$lease" --worker "w$w" --max-parallel 2 \
      --no-finish --quiet >"$work/w$w.log" 2>&1 &
    pids+=($!)
  done
  for ((;;)); do
    status=$("$cli" migrate --from "$work/a.json" --to "$work/b.json" --lease "$lease" --status --json 2>/dev/null || true)
    if [ -n "$status" ] && node -e 'process.exit(JSON.parse(process.argv[1]).total.finished ? 0 : 1)' "$status"; then break; fi
    sleep 0.2
  done
  end=$(date +%s.%N)
  for p in "${pids[@]}"; do wait "$p" || { echo "bench-migrate: a worker failed:" >&2; cat "$work"/w*.log >&2; exit 1; }; done
  pids=()
  moved=$(node -e 'console.log(JSON.parse(process.argv[1]).total.moved)' "$status")
  seconds=$(echo "$end - $start" | bc -l)
  results+=("$(printf '"workers_%d":{"workers":%d,"maxParallel":2,"documents":%d,"moved":%d,"seconds":%.2f,"movedPerSecond":%.1f}' \
    "$n" "$n" "$documents" "$moved" "$seconds" "$(echo "$moved / $seconds" | bc -l)")")
  log "${results[-1]}"
done
cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
json="{\"machine\":{\"date\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"commit\":\"$(git -C "$root" rev-parse --short HEAD)\",\"nproc\":$(nproc),\"cpuModel\":\"$cpu_model\",\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"command\":\"scripts/bench-migrate.sh --documents $documents --delay-ms $delay\",\"build\":\"$build\"},$(IFS=,; echo "${results[*]}")}"
mkdir -p "$root/bench/results"
echo "$json" >"$root/bench/results/migrate-workers.json"
echo "$json"
