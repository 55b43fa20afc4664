#!/usr/bin/env bash
# Client benchmarks (docs/benchmarks.md, "Client" sections): builds the Release
# tree (build-bench, -DDOCSHARD_BUILD_BENCH=ON), starts its own local servers on
# 127.0.0.1 (scripts/cosmos-server.sh), runs
#   1. point reads and creates at concurrency 1, 8, 64 against ONE server, side
#      by side: wrk (the server's ceiling), docshard's CosmosClient
#      (bench/client_bench.cpp, async API) and @azure/cosmos 4.9.3
#      (bench/node-sdk/bench.js); clients interleaved within each repetition,
#      order rotated per repetition; wrk runs one thread (-t1);
#   2. a query fanned out over 8 collections (2 servers, 20 ms added latency per
#      request) vs the same query on one collection, and MaxConcurrency=1;
#   3. PartitionedClient::ReadDocument vs CosmosClient::ReadDocument CPU per op;
# writes bench/results/client-*.json and prints PASS/FAIL against the goals.
#
# Usage: scripts/bench-client.sh [--skip-build] [--quick] [--reps N] [--duration-ms MS] [--pin] [--crud-only]
#                                [--no-node] [--baseline BIN] [--io-threads N] [--name NAME]
#   --quick      1 repetition, 2 s runs, results under bench/results/quick/
#   --pin        servers on CPU 0, every client (wrk, docshard, node) on CPU 1 (taskset):
#                each client gets one CPU of its own instead of sharing both with the
#                server; results are written as client-pinned-*.json
#   --crud-only  only part 1 (no fan-out, no routed reads)
#   --no-node    part 1 without @azure/cosmos (shorter; its goal is then not checked)
#   --baseline BIN  part 1 also runs BIN, a docshard_client_bench built from another
#                commit (reported as client "docshard-base"), in the same rotation:
#                before/after figures from one run, each against the same wrk runs
#   --io-threads N  docshard's CosmosClientOptions::IoThreads in part 1 (default 1)
#   --name NAME  results as client-NAME-*.json / client-pinned-NAME-*.json (default client-* /
#                client-pinned-*), so that a
#                partial or comparison run does not overwrite the full run's files
# Environment: DOCSHARD_BENCH_BUILD_DIR (default build-bench), DOCSHARD_JOBS (2),
#   DOCSHARD_BENCH_COMMIT (label recorded as the commit, default git HEAD).
#
# Every server follows the real gateway's rules with 4 partition key ranges per
# collection (--gateway strict --partitions 4, as the tests' default): the fan-out
# reads every range of every collection, a point read goes to its key's range.
# The crud server runs with --no-auth because wrk cannot sign requests; the
# docshard and Node clients still sign every request (the server just skips the
# HMAC check for all three). wrk does not verify the server certificate; both
# SDK clients verify it against .run/certs/ca.pem.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BENCH_BUILD_DIR:-$root/build-bench}
results=$root/bench/results
orig_args="$*"
pin=0 crud_only=0 skip_build=0 quick=0 reps=3 duration_ms=5000 warmup_ms=1000 no_node=0 baseline= io_threads=1 name=
while (($#)); do
  case $1 in
    --skip-build) skip_build=1; shift ;;
    --quick) quick=1; shift ;;
    --pin) pin=1; shift ;;
    --crud-only) crud_only=1; shift ;;
    --no-node) no_node=1; shift ;;
    --baseline) baseline=$2; shift 2 ;;
    --io-threads) io_threads=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --duration-ms) duration_ms=$2; shift 2 ;;
    *) echo "usage: scripts/bench-client.sh [--skip-build] [--quick] [--reps N] [--duration-ms MS] [--pin] [--crud-only] [--no-node] [--baseline BIN] [--io-threads N] [--name NAME]" >&2; exit 2 ;;
  esac
done
if ((quick)); then reps=1 duration_ms=2000 warmup_ms=500 results=$root/bench/results/quick; fi
((reps >= 1 && reps <= 20)) || { echo "bench-client: --reps must be 1..20" >&2; exit 2; }
((duration_ms >= 500 && duration_ms <= 60000)) || { echo "bench-client: --duration-ms must be 500..60000" >&2; exit 2; }
((io_threads >= 1 && io_threads <= 64)) || { echo "bench-client: --io-threads must be 1..64" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline" ] || { echo "bench-client: --baseline $baseline is not an executable" >&2; exit 2; }
[[ -z "$name" || "$name" =~ ^[a-z0-9-]+$ ]] || { echo "bench-client: --name takes [a-z0-9-]" >&2; exit 2; }
mkdir -p "$results"
server_pin=() client_pin=() prefix_name=client
if ((pin)); then
  command -v taskset >/dev/null || { echo "bench-client: --pin needs taskset" >&2; exit 1; }
  server_pin=(taskset -c 0) client_pin=(taskset -c 1) prefix_name=client-pinned
fi
# A pinned run keeps "pinned" in its name, so that the pinned and unpinned runs
# of one --name do not overwrite each other's files.
if [ -n "$name" ]; then prefix_name=${prefix_name}-$name; fi
log() { printf 'bench-client: [%s load %s] %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" >&2; }

command -v wrk >/dev/null || { echo "bench-client: wrk not found (apt-get install wrk)" >&2; exit 1; }
command -v node >/dev/null || { echo "bench-client: node not found (scripts/setup.sh)" >&2; exit 1; }
[ -d "$root/tools/cosmos-server/node_modules/@azure/cosmos" ] || "$root/scripts/cosmos-server.sh" install

# ---- build -------------------------------------------------------------------
bench_name=bench-client
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
if ((!skip_build)); then bench_build docshard_client_bench; fi
bench=$build/bench/docshard_client_bench
[ -x "$bench" ] || { echo "bench-client: $bench not built" >&2; exit 1; }

# ---- servers -----------------------------------------------------------------
bench_servers_begin
gateway=(--gateway strict --partitions 4)
server_args=("${gateway[@]}")
set_faults() {  # URL JSON
  curl -sf --max-time 5 --cacert "$ca" -X POST "$1/_docshard/faults" -d "$2" >/dev/null
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# ---- machine -----------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
uptime_before=$(uptime)
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
compiler=$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2-)
compiler_version=$("$compiler" --version | head -n1)
flags=$(grep -m1 '^CMAKE_CXX_FLAGS_RELEASE:' "$build/CMakeCache.txt" | cut -d= -f2-)
log "machine: $(nproc) CPUs ($cpu_model), $compiler_version, node $(node --version), $(wrk --version 2>&1 | head -n1 | cut -d' ' -f1-2)"

# ---- 1. crud: wrk vs docshard vs @azure/cosmos ---------------------------------
crud_jsonl=$tmp/crud.jsonl
: >"$crud_jsonl"
start_server crud --no-auth
crud_url=$URL crud_key=$KEYFILE
log "crud server $crud_url (--no-auth: wrk cannot sign; the SDK clients sign anyway)"
common=(--endpoint "$crud_url" --ca "$ca" --key-file "$crud_key" --db bench)
"$bench" setup "${common[@]}" --coll reads --doc doc0 >/dev/null
"$bench" setup "${common[@]}" --coll writes >/dev/null
doc_url=$crud_url/dbs/bench/colls/reads/docs/doc0
dur_s=$(((duration_ms + 999) / 1000))

run_wrk() {  # OP C REP
  local op=$1 c=$2 rep=$3 t out w u s
  # One wrk thread, like docshard's one I/O thread and Node's one event loop: on
  # a contended 2-CPU machine a second wrk thread would win it a larger CPU share.
  t=1
  local TIMEFORMAT='%R %U %S'
  if [ "$op" = read ]; then
    out=$( { time WRK_DOC=doc0 "${client_pin[@]}" wrk -t"$t" -c"$c" -d"${dur_s}s" --timeout 10s -s "$root/bench/wrk/read.lua" "$doc_url" 2>&1; } 2>"$tmp/wrk-time" )
  else
    out=$( { time WRK_PATH=/dbs/bench/colls/writes/docs WRK_TAG="wrk$rep-$c-$RANDOM" \
             "${client_pin[@]}" wrk -t"$t" -c"$c" -d"${dur_s}s" --timeout 10s -s "$root/bench/wrk/create.lua" "$crud_url" 2>&1; } 2>"$tmp/wrk-time" )
  fi
  read -r w u s <"$tmp/wrk-time"
  local j
  j=$(grep -m1 '^WRKJSON ' <<<"$out" | cut -d' ' -f2-) || { echo "$out" >&2; return 1; }
  node -e '
    const j = JSON.parse(process.argv[1]); const [op, c, u, s, load] = process.argv.slice(2);
    const wallS = j.durationUs / 1e6, cpuS = Number(u) + Number(s);
    console.log(JSON.stringify({client: "wrk", op, concurrency: Number(c), ops: j.ok, errors: j.requests - j.ok,
      wallS, opsPerSec: +(j.ok / wallS).toFixed(1), cpuS, cpuUsPerOp: j.ok ? +(cpuS * 1e6 / j.ok).toFixed(2) : 0,
      load, tlsVerified: false}));' "$j" "$op" "$c" "$u" "$s" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

log "warm-up (wrk 2 s, reads, c=8)"
wrk -t2 -c8 -d2s -s "$root/bench/wrk/read.lua" "$doc_url" >/dev/null 2>&1 || true

for rep in $(seq 1 "$reps"); do
  for op in read create; do
    for c in 1 8 64; do
      # Rotate the order every repetition so no client always follows another.
      case $((rep % 3)) in 1) order="wrk docshard node" ;; 2) order="docshard node wrk" ;; *) order="node wrk docshard" ;; esac
      if ((no_node)); then order=${order/node/}; fi
      # The baseline runs right after the client under test: before and after back to back.
      if [ -n "$baseline" ]; then order=${order/docshard/docshard base}; fi
      for client in $order; do
        if [ "$op" = create ]; then "$bench" reset "${common[@]}" --coll writes >/dev/null; fi
        case $client in
          wrk) line=$(run_wrk "$op" "$c" "$rep") ;;
          docshard) line=$("${client_pin[@]}" "$bench" crud "${common[@]}" --coll "$( [ $op = read ] && echo reads || echo writes)" \
                            --doc doc0 --op "$op" --concurrency "$c" --warmup-ms "$warmup_ms" \
                            --duration-ms "$duration_ms" --run-tag "ds$rep-$c-$RANDOM" \
                            $( ((io_threads > 1)) && echo "--io-threads $io_threads")) ;;
          base) line=$("${client_pin[@]}" "$baseline" crud "${common[@]}" --coll "$( [ $op = read ] && echo reads || echo writes)" \
                            --doc doc0 --op "$op" --concurrency "$c" --warmup-ms "$warmup_ms" \
                            --duration-ms "$duration_ms" --run-tag "db$rep-$c-$RANDOM")
                line=$(node -e 'const o = JSON.parse(process.argv[1]); o.client = "docshard-base"; console.log(JSON.stringify(o));' "$line") ;;
          node) line=$("${client_pin[@]}" node "$root/bench/node-sdk/bench.js" "${common[@]}" --coll "$( [ $op = read ] && echo reads || echo writes)" \
                        --doc doc0 --op "$op" --concurrency "$c" --warmup-ms "$warmup_ms" \
                        --duration-ms "$duration_ms" --run-tag "nd$rep-$c-$RANDOM") ;;
        esac
        line=$(node -e 'const o = JSON.parse(process.argv[1]); o.rep = Number(process.argv[2]); console.log(JSON.stringify(o));' "$line" "$rep")
        echo "$line" >>"$crud_jsonl"
        log "rep $rep $op c=$c $client: $(node -p 'const o = JSON.parse(process.argv[1]); `${o.opsPerSec} ops/s, ${o.cpuUsPerOp} us CPU/op, errors ${o.errors}`' "$line")"
      done
    done
  done
done
"$bench" reset "${common[@]}" --coll writes >/dev/null
"$srv" stop --name "$prefix-crud" >/dev/null 2>&1 || true

# ---- 2a. fan-out over 8 collections, 20 ms per request ---------------------------
if ((!crud_only)); then
start_server fan-a; fan_a=$URL key_a=$KEYFILE
start_server fan-b; fan_b=$URL key_b=$KEYFILE
fan_common=(--endpoint "$fan_a" --endpoint "$fan_b" --key-file "$key_a" --key-file "$key_b" --ca "$ca")
"$bench" fanout-setup "${fan_common[@]}" --docs-per-coll 20 >/dev/null
set_faults "$fan_a" '{"delayMs":20}'
set_faults "$fan_b" '{"delayMs":20}'
fan_rounds=$((quick ? 5 : 15))
log "fan-out: 8 collections on 2 servers, delayMs 20, $fan_rounds rounds"
"$bench" fanout "${fan_common[@]}" --docs-per-coll 20 --rounds "$fan_rounds" >"$tmp/fanout.json"
"$srv" stop --name "$prefix-fan-a" >/dev/null 2>&1 || true
"$srv" stop --name "$prefix-fan-b" >/dev/null 2>&1 || true

# ---- 2b. routed vs direct point reads ----------------------------------------
start_server routed
routed_rounds=$((quick ? 4 : 12))
log "routed vs direct reads ($routed_rounds rounds x 2 x 2000 reads)"
"$bench" routed --endpoint "$URL" --ca "$ca" --key-file "$KEYFILE" --docs 256 --ops 2000 \
  --rounds "$routed_rounds" >"$tmp/routed.json"
"$srv" stop --name "$prefix-routed" >/dev/null 2>&1 || true
fi

# ---- results -----------------------------------------------------------------
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cat >"$tmp/machine.json" <<EOF
{
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "commit": "${DOCSHARD_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}",
  "dirtyTree": $( [ -n "$(git -C "$root" status --porcelain -- src include 2>/dev/null)" ] && echo true || echo false ),
  "nproc": $(nproc),
  "cpuModel": "$cpu_model",
  "compiler": "$compiler_version",
  "buildType": "Release",
  "cxxFlagsRelease": "$flags",
  "node": "$(node --version)",
  "wrk": "$(wrk --version 2>&1 | head -n1 | cut -d' ' -f1-2)",
  "uptimeBefore": "$uptime_before",
  "uptimeAfter": "$(uptime)",
  "loadAverageBefore": "$load_before",
  "loadAverageAfter": "$load_after",
  "repetitions": $reps,
  "ioThreads": $io_threads,
  "baseline": "${baseline:+$(basename "$baseline")}",
  "pinned": $( ((pin)) && echo '"servers CPU 0, clients CPU 1"' || echo false ),
  "servers": "${gateway[*]}",
  "durationMs": $duration_ms,
  "warmupMs": $warmup_ms,
  "command": "scripts/bench-client.sh${orig_args:+ $orig_args}"
}
EOF
node "$root/bench/node-sdk/summarize.js" "$tmp" "$results" "$prefix_name"
