#!/usr/bin/env bash
# Resolver-core benchmarks (docs/benchmarks.md): builds a Release tree in
# build-bench, runs the Google Benchmark suite (5 repetitions, aggregates
# only), runs the `docshard route` vs legacy Node SDK comparison over 1e6 keys,
# writes JSON under bench/results/ and prints the targets with PASS/FAIL.
#
# The ring build benchmarks run once more per md5 chain implementation the CPU
# runs (AVX-512, AVX2, portable), each forced with DOCSHARD_RING_SIMD, and the
# summary prints issue 16's ratios per implementation, measured in one run each.
#
# Usage: scripts/bench.sh [--skip-build] [--quick]
#   --quick   fewer repetitions and 2e5 route keys (a smoke run; results are
#             written under bench/results/quick/ so committed results stay put)
# Environment: DOCSHARD_BENCH_CPU (CPU to pin the micro-benchmarks to; default
#   the last one), DOCSHARD_BENCH_BUILD_DIR (default build-bench),
#   DOCSHARD_JOBS (build parallelism, default 2), DOCSHARD_RING_SIMD
#   (portable|avx2|avx512: the md5 chains of the main run; default the widest
#   the CPU has). A build with only the portable chains: configure build-bench
#   with -DDOCSHARD_RING_SIMD=OFF and run with --skip-build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BENCH_BUILD_DIR:-$root/build-bench}
results=$root/bench/results
skip_build=0 quick=0
for a in "$@"; do
  case $a in
    --skip-build) skip_build=1 ;;
    --quick) quick=1 ;;
    *) echo "usage: scripts/bench.sh [--skip-build] [--quick]" >&2; exit 2 ;;
  esac
done
reps=5 route_keys=1000000 route_runs=3
if ((quick)); then reps=2 route_keys=200000 route_runs=1 results=$root/bench/results/quick; fi
mkdir -p "$results"

log() { printf 'bench: %s\n' "$*" >&2; }

# ---- prerequisites ---------------------------------------------------------
need=()
for p in libbenchmark-dev cmake g++ ninja-build; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  log "installing ${need[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v node >/dev/null && command -v npm >/dev/null || { echo "bench: node and npm are needed (scripts/setup.sh installs them)" >&2; exit 1; }

legacy=$root/bench/legacy-node
if [ ! -f "$legacy/node_modules/documentdb/lib/hash/hashPartitionResolver.js" ]; then
  log "npm install documentdb@1.15.3 into bench/legacy-node"
  (cd "$legacy" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
fi

# ---- build -------------------------------------------------------------------
bench_name=bench
# shellcheck source=scripts/bench-support.sh
source "$root/scripts/bench-support.sh"
if ((!skip_build)); then
  bench_build docshard_resolver_bench docshard_bench_keys
  # The CLI is another area's target; build it when it is there.
  if [ -f "$root/tools/docshard/CMakeLists.txt" ]; then
    cmake --build "$build" -j"${DOCSHARD_JOBS:-2}" >&2 || log "WARNING: building the docshard CLI failed; route comparison skipped"
  fi
fi
bench_exe=$build/bench/docshard_resolver_bench
keys_exe=$build/bench/docshard_bench_keys
cli_exe=""
if [ -d "$build/tools/docshard" ]; then
  cli_exe=$(find "$build/tools/docshard" -maxdepth 2 -type f -name docshard -perm -u+x | head -n1 || true)
fi

# ---- machine -----------------------------------------------------------------
ncpu=$(nproc)
cpu=${DOCSHARD_BENCH_CPU:-$((ncpu - 1))}
pin=() pinned=null
if command -v taskset >/dev/null; then pin=(taskset -c "$cpu"); pinned=$cpu; fi
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
# The widest x86 vector extension the CPU reports (the md5 chains' choice
# follows it; "none" elsewhere), and the flags it was read from.
cpu_flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2- || true)
cpu_simd=none
for f in sse2 avx2 avx512f; do if [[ " $cpu_flags " == *" $f "* ]]; then cpu_simd=$f; fi; done
cpu_simd_flags=$( { tr ' ' '\n' <<<"$cpu_flags" | grep -E '^(sse2|ssse3|sse4_2|avx|avx2|avx512[a-z_0-9]*)$' || true; } \
                  | sort | tr '\n' ' ' | sed 's/ $//')
compiler=$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2-)
compiler_version=$("$compiler" --version | head -n1)
flags=$(grep -m1 '^CMAKE_CXX_FLAGS_RELEASE:' "$build/CMakeCache.txt" | cut -d= -f2-)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "machine: $ncpu CPUs ($cpu_model, $cpu_simd), $compiler_version, flags '$flags', load $load_before"

# ---- micro-benchmarks --------------------------------------------------------
log "resolver micro-benchmarks (${reps} repetitions, pinned to CPU $cpu)"
"${pin[@]}" "$bench_exe" --benchmark_format=json --benchmark_out="$results/resolver.json" \
  --benchmark_out_format=json --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true \
  >/dev/null

# ---- md5 ring build per chain implementation ----------------------------------
# The ring build benchmarks again with each md5 chain implementation this CPU
# and build can run forced through DOCSHARD_RING_SIMD (src/core/md5_chain.hpp),
# every run with its own naive 131,072-digest baseline so that each ratio comes
# from one run; repetitions interleaved at random and all kept, so summarize.js
# pairs them and reports the spread of each ratio.
# bench_context KEY: a value of resolver.json's context (Google Benchmark
# writes NaN for some aggregates, which JSON.parse rejects).
bench_context() {
  node -e 'const t = require("fs").readFileSync(process.argv[1], "utf8").replace(/: (-?)(NaN|inf)\b/g, ": null");
           console.log(JSON.parse(t).context[process.argv[2]]);' "$results/resolver.json" "$1"
}
# Only this run's own files: archived runs (ring-build-*-<tag>.json) stay.
rm -f "$results"/ring-build-{avx512,avx2,portable}.json
chains=$(bench_context md5_chains_available)
for isa in ${chains//,/ }; do
  log "ring build benchmarks, md5 chains forced to $isa (${reps} repetitions)"
  DOCSHARD_RING_SIMD=$isa "${pin[@]}" "$bench_exe" --benchmark_filter='^BM_(BuildResolver|Md5NaiveChain)' \
    --benchmark_format=json --benchmark_out="$results/ring-build-$isa.json" --benchmark_out_format=json \
    --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true >/dev/null
done

# ---- route comparison --------------------------------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
links_json='['
for i in 0 1 2 3 4 5 6 7; do links_json+="\"dbs/bench/colls/c$i\""; ((i < 7)) && links_json+=','; done
links_json+=']'
printf '%s\n' "$links_json" >"$tmp/links.json"
cat >"$tmp/config.json" <<EOF
{"docshard":1,"resolver":{"type":"hash","partitionKey":"/id","hash":"murmur3","virtualNodesPerCollection":128,"collections":$links_json}}
EOF
log "generating $route_keys keys"
"$keys_exe" "$route_keys" >"$tmp/keys.jsonl"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# timed IN OUT cmd...: runs cmd with stdin IN and stdout OUT; sets T_WALL_MS
# (elapsed) and T_CPU_MS (user + system of the process and its threads).
timed() {
  local in=$1 out=$2 t w u s
  shift 2
  local TIMEFORMAT='%R %U %S'
  t=$( { time "$@" <"$in" >"$out" 2>/dev/null; } 2>&1 )
  read -r w u s <<<"$t"
  T_WALL_MS=$(awk -v w="$w" 'BEGIN { printf "%d", w * 1000 }')
  T_CPU_MS=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 1000 }')
}

log "legacy Node SDK (documentdb@1.15.3) route loop, $route_runs run(s)"
legacy_times=() legacy_cpu=()
for ((r = 0; r < route_runs; r++)); do
  timed /dev/null /dev/null node --no-deprecation "$legacy/route.js" --links "$tmp/links.json" \
        --keys "$tmp/keys.jsonl" --out "$tmp/legacy.jsonl" --stats "$tmp/legacy-stats-$r.json"
  legacy_times+=("$T_WALL_MS") legacy_cpu+=("$T_CPU_MS")
done
legacy_ms=$(printf '%s\n' "${legacy_times[@]}" | median)
legacy_cpu_ms=$(printf '%s\n' "${legacy_cpu[@]}" | median)
log "legacy Node SDK per-key resolve cost in-process (no I/O, 1e5 keys, 5 reps)"
node --no-deprecation "$legacy/route.js" --links "$tmp/links.json" --keys "$tmp/keys.jsonl" \
     --inproc 100000 --stats "$tmp/legacy-inproc.json" 2>/dev/null

cli_times=() cli_cpu=() agree=null mismatches=null sample=0
if [ -n "$cli_exe" ]; then
  log "docshard route ($cli_exe), $route_runs run(s)"
  for ((r = 0; r < route_runs; r++)); do
    timed "$tmp/keys.jsonl" "$tmp/docshard.jsonl" "$cli_exe" route --config "$tmp/config.json"
    cli_times+=("$T_WALL_MS") cli_cpu+=("$T_CPU_MS")
  done
  # Bit-exact check: every key of the run, line by line (same input order),
  # comparing the parsed key and collection of each line.
  node "$root/bench/compare_routes.js" "$tmp/legacy.jsonl" "$tmp/docshard.jsonl" >"$tmp/compare.json"
  sample=$(node -p "require('$tmp/compare.json').keysCompared")
  mismatches=$(node -p "require('$tmp/compare.json').mismatches")
  agree=$(node -p "require('$tmp/compare.json').agree")
else
  log "docshard CLI not built yet: route comparison skipped"
fi
cli_ms=null cli_cpu_ms=null
if ((${#cli_times[@]})); then
  cli_ms=$(printf '%s\n' "${cli_times[@]}" | median)
  cli_cpu_ms=$(printf '%s\n' "${cli_cpu[@]}" | median)
fi
join() { local IFS=,; echo "$*"; }
cat >"$results/route.json" <<EOF
{
  "keys": $route_keys,
  "collections": 8,
  "virtualNodesPerCollection": 128,
  "hash": "murmur3",
  "runs": $route_runs,
  "docshardRouteMs": [$(join "${cli_times[@]}")],
  "docshardRouteMedianMs": $cli_ms,
  "docshardRouteCpuMs": [$(join "${cli_cpu[@]}")],
  "docshardRouteCpuMedianMs": $cli_cpu_ms,
  "legacyNodeRouteMs": [$(join "${legacy_times[@]}")],
  "legacyNodeRouteMedianMs": $legacy_ms,
  "legacyNodeRouteCpuMs": [$(join "${legacy_cpu[@]}")],
  "legacyNodeRouteCpuMedianMs": $legacy_cpu_ms,
  "legacyNodeRouteStats": $(cat "$tmp/legacy-stats-0.json"),
  "legacyNodeInProcess": $(cat "$tmp/legacy-inproc.json"),
  "bitExact": {"keysCompared": $sample, "mismatches": $mismatches, "agree": $agree},
  "nodeVersion": "$(node --version)"
}
EOF

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cat >"$results/machine.json" <<EOF
{
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "commit": "${DOCSHARD_BENCH_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}",
  "nproc": $ncpu,
  "cpuModel": "$cpu_model",
  "cpuSimd": "$cpu_simd",
  "cpuSimdFlags": "$cpu_simd_flags",
  "md5ChainMainRun": "$(bench_context md5_chain)",
  "md5ChainsAvailable": "$chains",
  "ringSimdEnv": "${DOCSHARD_RING_SIMD:-}",
  "compiler": "$compiler_version",
  "buildType": "Release",
  "cxxFlagsRelease": "$flags",
  "pinnedCpu": $pinned,
  "loadAverageBefore": "$load_before",
  "loadAverageAfter": "$load_after",
  "repetitions": $reps
}
EOF

node "$root/bench/summarize.js" "$results"
