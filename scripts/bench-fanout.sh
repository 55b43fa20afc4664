#!/usr/bin/env bash
# Fan-out over collections x partition key ranges (issue 11; docs/benchmarks.md,
# "Fan-out over 8 collections x 4 ranges"): builds the Release tree (build-bench,
# -DDOCSHARD_BUILD_BENCH=ON) unless --skip-build, starts its own servers on
# 127.0.0.1 through scripts/cosmos-server.sh, all in the launcher's strict
# gateway mode:
#   - S fan-out servers (--servers, default 2) with --partitions 4, holding
#     collections f0..f7 round-robin, --docs-per-coll documents each (2,000);
#   - one baseline server with --partitions 1 (one range per collection),
#     holding one0 (docs-per-coll / 4 documents: what one fan-out stream reads)
#     and total0 (8 x docs-per-coll: what the whole fan-out reads);
# loads them, then sets the launcher's delayMs fault to 20 (--delay-ms) on every server (a
# timer before each data request is served, query plans and pkranges included:
# real latency on the server side), runs bench/fan_out_bench.cpp and prints
# the wall time ratios of this run with PASS/FAIL against the goal (<= 1.3x)
# and the client's CPU per merged item. Results: bench/results/fanout-ranges[-TAG].json.
# About a minute plus the build on the 2-CPU machine.
#
# Usage: scripts/bench-fanout.sh [--skip-build] [--quick] [--rounds N] [--docs-per-coll N]
#                                [--servers N] [--max-concurrency N] [--delay-ms MS] [--tag TAG]
#   --quick            5 rounds, 1 warm-up, results under bench/results/quick/
#   --max-concurrency  FanOutOptions::MaxConcurrency (default: the library's default)
#   --delay-ms         the added latency per request (default 20; 0 shows what the servers
#                      themselves take)
# Environment: DOCSHARD_BENCH_BUILD_DIR (default build-bench), DOCSHARD_JOBS (2),
#   DOCSHARD_BENCH_COMMIT (label recorded as the commit, default git HEAD).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BENCH_BUILD_DIR:-$root/build-bench}
results=$root/bench/results
orig_args="$*"
skip_build=0 quick=0 rounds=15 warmup=3 per_coll=2000 servers=2 max_concurrency=0 delay_ms=20 tag=""
usage() { sed -n '/^# Usage:/,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
  case $1 in
    --skip-build) skip_build=1; shift ;;
    --quick) quick=1; shift ;;
    --rounds) rounds=${2-}; shift 2 ;;
    --docs-per-coll) per_coll=${2-}; shift 2 ;;
    --servers) servers=${2-}; shift 2 ;;
    --max-concurrency) max_concurrency=${2-}; shift 2 ;;
    --delay-ms) delay_ms=${2-}; shift 2 ;;
    --tag) tag=${2-}; shift 2 ;;
    *) usage ;;
  esac
done
if ((quick)); then rounds=5 warmup=1 results=$root/bench/results/quick; fi
[[ $rounds =~ ^[0-9]+$ ]] && ((rounds >= 1 && rounds <= 100)) || { echo "bench-fanout: --rounds must be 1..100" >&2; exit 2; }
[[ $per_coll =~ ^[0-9]+$ ]] && ((per_coll >= 400 && per_coll <= 20000)) || { echo "bench-fanout: --docs-per-coll must be 400..20000" >&2; exit 2; }
[[ $servers =~ ^[0-9]+$ ]] && ((servers >= 1 && servers <= 8)) || { echo "bench-fanout: --servers must be 1..8" >&2; exit 2; }
[[ $max_concurrency =~ ^[0-9]+$ ]] && ((max_concurrency <= 1024)) || { echo "bench-fanout: --max-concurrency must be 0..1024" >&2; exit 2; }
[[ $delay_ms =~ ^[0-9]+$ ]] && ((delay_ms <= 1000)) || { echo "bench-fanout: --delay-ms must be 0..1000" >&2; exit 2; }
[[ $tag =~ ^[A-Za-z0-9._-]{0,32}$ ]] || { echo "bench-fanout: --tag: letters, digits, . _ - (at most 32)" >&2; exit 2; }
mkdir -p "$results"
out_json=$results/fanout-ranges${tag:+-$tag}.json
log() { printf 'bench-fanout: [%s load %s] %s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*" >&2; }
command -v node >/dev/null || { echo "bench-fanout: node not found (scripts/setup.sh)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench-fanout: curl not found" >&2; exit 1; }

# ---- build -------------------------------------------------------------------
bench_name=bench-fanout
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
if ((!skip_build)); then bench_build docshard_fan_out_bench; fi
bench=$build/bench/docshard_fan_out_bench
[ -x "$bench" ] || { echo "bench-fanout: $bench not built" >&2; exit 1; }

# ---- servers -----------------------------------------------------------------
bench_servers_begin
control() {  # URL [JSON]: GET or POST /_docshard/faults
  if (($# > 1)); then curl -sf --max-time 5 --cacert "$ca" -X POST "$1/_docshard/faults" -d "$2"
  else curl -sf --max-time 5 --cacert "$ca" "$1/_docshard/faults"; fi
}
delayed() {  # URL...: requests delayed so far, summed over the servers
  local u n=0 c
  for u in "$@"; do
    c=$(control "$u" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).counters.injected.delay))')
    n=$((n + c))
  done
  echo "$n"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
uptime_before=$(uptime)
cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
compiler=$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2-)
compiler_version=$("$compiler" --version | head -n1)
flags=$(grep -m1 '^CMAKE_CXX_FLAGS_RELEASE:' "$build/CMakeCache.txt" | cut -d= -f2-)
log "machine: $(nproc) CPUs ($cpu_model), $compiler_version, node $(node --version)"

fan_args=() fan_urls=()
for i in $(seq 0 $((servers - 1))); do
  start_server "fan$i" --gateway strict --partitions 4
  fan_args+=(--endpoint "$URL" --key-file "$KEYFILE")
  fan_urls+=("$URL")
done
start_server one --gateway strict --partitions 1
one_url=$URL one_key=$KEYFILE
log "servers: ${fan_urls[*]} (strict, 4 ranges per collection), $one_url (strict, 1 range)"

one_docs=$((per_coll / 4)) total_docs=$((8 * per_coll))
log "loading 8 x $per_coll documents over $servers server(s); baselines: $one_docs and $total_docs documents in one range"
"$bench" load "${fan_args[@]}" --ca "$ca" --prefix f --collections 8 --docs-per-coll "$per_coll" >"$tmp/load-fan.json"
"$bench" load --endpoint "$one_url" --key-file "$one_key" --ca "$ca" --prefix one --collections 1 --docs-per-coll "$one_docs" >/dev/null
"$bench" load --endpoint "$one_url" --key-file "$one_key" --ca "$ca" --prefix total --collections 1 --docs-per-coll "$total_docs" >/dev/null
log "loaded ($(node -p 'JSON.parse(process.argv[1]).seconds' "$(cat "$tmp/load-fan.json")") s for the fan-out collections)"

for u in "${fan_urls[@]}" "$one_url"; do control "$u" "{\"delayMs\":$delay_ms}" >/dev/null; done
delayed_before=$(delayed "${fan_urls[@]}" "$one_url")
log "delayMs $delay_ms on every server; $rounds rounds (+$warmup warm-up), MaxConcurrency $( ((max_concurrency)) && echo "$max_concurrency" || echo "default")"
run_args=()
for i in "${!fan_urls[@]}"; do run_args+=(--fan-endpoint "${fan_urls[$i]}" --fan-key-file "$run_dir/servers/$prefix-fan$i.key"); done
load_run_start=$(cut -d' ' -f1-3 /proc/loadavg)
"$bench" run "${run_args[@]}" --one-endpoint "$one_url" --one-key-file "$one_key" --ca "$ca" --collections 8 \
  --docs-per-coll "$per_coll" --one-docs "$one_docs" --rounds "$rounds" --warmup "$warmup" \
  --max-concurrency "$max_concurrency" >"$tmp/run.json"
load_run_end=$(cut -d' ' -f1-3 /proc/loadavg)
delayed_after=$(delayed "${fan_urls[@]}" "$one_url")

# ---- results -----------------------------------------------------------------
cat >"$tmp/machine.json" <<EOF
{
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "commit": "${DOCSHARD_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}",
  "dirtyTree": $( [ -n "$(git -C "$root" status --porcelain -- src include bench 2>/dev/null)" ] && echo true || echo false ),
  "nproc": $(nproc),
  "cpuModel": "$cpu_model",
  "compiler": "$compiler_version",
  "buildType": "Release",
  "cxxFlagsRelease": "$flags",
  "node": "$(node --version)",
  "uptimeBefore": "$uptime_before",
  "uptimeAfter": "$(uptime)",
  "loadAverageBefore": "$load_before",
  "loadAverageRunStart": "$load_run_start",
  "loadAverageRunEnd": "$load_run_end",
  "servers": $servers,
  "delayMs": $delay_ms,
  "requestsDelayedDuringRun": $((delayed_after - delayed_before)),
  "command": "scripts/bench-fanout.sh${orig_args:+ $orig_args}"
}
EOF
node - "$tmp/run.json" "$tmp/machine.json" "$out_json" <<'EOF'
const fs = require("fs");
const [runFile, machineFile, outFile] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(runFile, "utf8"));
const machine = JSON.parse(fs.readFileSync(machineFile, "utf8"));
fs.writeFileSync(outFile, JSON.stringify({ machine, run }, null, 2) + "\n");
const goal = 1.3;
const lines = [];
lines.push(`fan-out over 8 collections x 4 ranges on ${run.servers} strict server(s), delayMs ${machine.delayMs}, ` +
           `${run.rounds} rounds, MaxConcurrency ${run.maxConcurrency}, commit ${machine.commit}`);
lines.push(`load average: before ${machine.loadAverageBefore}, run ${machine.loadAverageRunStart} -> ${machine.loadAverageRunEnd}; ` +
           `${machine.requestsDelayedDuringRun} requests delayed by the servers during the run`);
for (const q of ["orderBy", "groupBy"]) {
  const text = q === "orderBy" ? run.orderByQuery : run.groupByQuery;
  lines.push(`${text}`);
  for (const [w, label] of [["One", `one range, ${run.oneDocs} docs (= one stream)`], ["Total", `one range, ${run.totalDocs} docs (= all streams)`],
                            ["Raw", "the 32 stream requests at once, no merge"], ["Fan", "fan-out, 8 collections x 4 ranges"]]) {
    const s = run[q + w];
    lines.push(`  ${label.padEnd(42)} median ${s.wallMedianMs.toFixed(2).padStart(8)} ms  ` +
               `client CPU ${s.cpuMedianMs.toFixed(3)} ms/query, ${s.cpuUsPerItemReadMedian.toFixed(2)} us per item read ` +
               `(${s.itemsRead} read, ${s.pages} pages)` + (s.coldMs ? `, first query ${s.coldMs.toFixed(1)} ms` : ""));
  }
  const one = run[q + "RatioOne"], total = run[q + "RatioTotal"], raw = run[q + "RatioRaw"];
  lines.push(`  ratio fan-out / one range, same data per stream: ${one.toFixed(3)}x ${one <= goal ? "PASS" : "FAIL"} (<= ${goal})`);
  lines.push(`  ratio fan-out / one range, same total data:      ${total.toFixed(3)}x ${total <= goal ? "PASS" : "FAIL"} (<= ${goal})`);
  lines.push(`  ratio fan-out / its stream requests without merge: ${raw.toFixed(3)}x`);
}
lines.push(`results: ${outFile}`);
console.log(lines.join("\n"));
EOF
