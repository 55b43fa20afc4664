#!/usr/bin/env bash
# Reading only what moves (issue 12 item 2; docs/benchmarks.md, "Reading only
# what moves"): documents read / documents moved by `docshard migrate` for a
# hash 4 -> 5 migration, with the stored ring position ("storeRingPosition":
# true on both schemes) and without, against one strict local server (4
# partition key ranges per collection). Per way: a fresh database, D documents
# seeded under A with `docshard put`, `docshard plan --count --json` (what the
# plan expects), then `docshard migrate --no-finish` (its "scanned" and
# "moved" counts; it verifies 0/0/0 itself, else it exits 1 and so does this).
#
# Usage: scripts/bench-arcs.sh [BUILD_DIR] [--documents D] [--hash md5|murmur3]
#   BUILD_DIR defaults to build-bench (configured and built here by
#   bench_build, scripts/bench-support.sh, when it has no CLI yet).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-bench documents=20000 hash=md5
while (($#)); do
  case $1 in
    --documents) documents=${2-}; shift 2 ;;
    --hash) hash=${2-}; shift 2 ;;
    -*) echo "usage: scripts/bench-arcs.sh [BUILD_DIR] [--documents D] [--hash md5|murmur3]" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
[[ $documents =~ ^[0-9]+$ ]] && ((documents >= 100)) || { echo "bench-arcs: need --documents >= 100" >&2; exit 2; }
[[ $hash == md5 || $hash == murmur3 ]] || { echo "bench-arcs: --hash md5 or murmur3" >&2; exit 2; }
log() { printf 'bench-arcs: [%s load %s] %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" >&2; }
bench_name=arcsbench
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
cli=$build/tools/docshard/docshard
[ -x "$cli" ] || bench_build docshard_cli

server=$root/scripts/cosmos-server.sh
name=arcsbench-$$
work=$(mktemp -d)
cleanup() {
  "$server" stop --name "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
url=$("$server" start --name "$name" --gateway strict --partitions 4)
run_dir=${DOCSHARD_RUN_DIR:-$root/.run}
key_file=$run_dir/servers/$name.key
ca=$run_dir/certs/ca.pem
scheme() {  # DB N STORE: hash over N collections of DB
  local colls="" i
  for ((i = 0; i < $2; i++)); do colls+="${colls:+,}\"dbs/$1/colls/c$i\""; done
  printf '{"docshard":1,"epoch":1,"accounts":{"default":{"endpoint":"%s","keyFile":"%s","caFile":"%s"}},"resolver":{"type":"hash","partitionKey":"/userId","hash":"%s","collections":[%s],"storeRingPosition":%s}}\n' \
    "$url" "$key_file" "$ca" "$hash" "$colls" "$3"
}

results=()
for store in true false; do
  db=ab$$${store:0:1}
  scheme "$db" 4 "$store" >"$work/a.json"
  scheme "$db" 5 "$store" >"$work/b.json"
  "$cli" init --config "$work/a.json" >/dev/null
  awk -v d="$documents" 'BEGIN { for (i = 0; i < d; i++) printf "{\"id\":\"d%d\",\"userId\":\"u%d\",\"n\":%d}\n", i, i, i }' \
    | "$cli" put --config "$work/a.json" --max-parallel 32 >/dev/null
  sleep 1
  log "storeRingPosition $store, $documents documents"
  plan=$("$cli" plan --from "$work/a.json" --to "$work/b.json" --count --json --summary)
  "$cli" migrate --from "$work/a.json" --to "$work/b.json" --checkpoint "$work/$db.checkpoint" --no-finish --quiet \
    >"$work/migrate.out" 2>"$work/migrate.err" || { cat "$work/migrate.out" "$work/migrate.err" >&2; exit 1; }
  line=$(grep '^moved ' "$work/migrate.out")
  moved=$(sed -E 's/^moved ([0-9]+) .*/\1/' <<<"$line")
  scanned=$(sed -E 's/.* scanned ([0-9]+);.*/\1/' <<<"$line")
  seconds=$(sed -E 's/.* in ([0-9.]+) s .*/\1/' <<<"$line")
  verify=$(grep '^verify: ' "$work/migrate.out" | sed 's/^verify: //')
  results+=("$(node -e '
    const [store, documents, moved, scanned, seconds, verify, plan] = process.argv.slice(1);
    const p = JSON.parse(plan).read;
    console.log(JSON.stringify({ storeRingPosition: store === "true", way: p.way, documents: +documents,
      read: +scanned, moved: +moved, readPerMoved: +(scanned / moved).toFixed(3), seconds: +seconds, verify,
      plan: { toRead: p.toRead, toMove: Math.round(p.toMove), toMoveEstimated: p.toMoveEstimated } }));' \
    "$store" "$documents" "$moved" "$scanned" "$seconds" "$verify" "$plan")")
  log "${results[-1]}"
done
cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
json="{\"machine\":{\"date\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\",\"commit\":\"$(git -C "$root" rev-parse --short HEAD)\",\"nproc\":$(nproc),\"cpuModel\":\"$cpu_model\",\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\",\"command\":\"scripts/bench-arcs.sh --documents $documents --hash $hash\",\"build\":\"$build\"},\"withPosition\":${results[0]},\"withoutPosition\":${results[1]}}"
mkdir -p "$root/bench/results"
echo "$json" >"$root/bench/results/migrate-arcs.json"
echo "$json"
