#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan in their
# own build directory and runs each one for SECONDS (default 30). Fails when a
# target crashes, leaks, trips a sanitizer or aborts on a broken invariant.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#   Env: DOCSHARD_FUZZ_BUILD_DIR (default build-fuzz), DOCSHARD_JOBS (2).
# Repro of a finding: build-fuzz/tests/fuzz/fuzz_<target> <artifact file>
# Each run starts from tests/fuzz/corpus/<target>/ plus what earlier runs in
# this build directory found (kept under build-fuzz/corpus/, not in the repo).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(partition_scheme http_response fan_out_token partition_key)
build=${DOCSHARD_FUZZ_BUILD_DIR:-$root/build-fuzz}

# libFuzzer ships in Debian's libclang-rt-14-dev.
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null | grep -q "ok installed"; then
  echo "fuzz: installing clang and libclang-rt-14-dev"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
fi

# Sanitizers go in CMAKE_*_FLAGS rather than DOCSHARD_SANITIZE, because the
# latter's -fsanitize=... is added after CMAKE_CXX_FLAGS and would switch
# UBSan's "function" check back on: clang 14 cannot assemble coroutine bodies
# (cosmos_client.cpp, http/connection.cpp, http_transport.cpp) with it ("Cannot represent a
# difference across sections"). Every other UBSan check stays on.
# -fsanitize=fuzzer-no-link: the library gets coverage instrumentation too.
# -fno-sanitize-recover: a UBSan report must stop the run, not scroll past;
# pointer-overflow stays recoverable only so that tests/sanitizers/ubsan.supp
# can silence RapidJSON 1.1.0's own report (see that file).
# -gline-tables-only: file:line in reports, a fraction of -g's build time.
sanitize="-fsanitize=address,undefined -fno-sanitize=function -fno-sanitize-recover=all -fsanitize-recover=pointer-overflow -fno-omit-frame-pointer"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DDOCSHARD_BUILD_FUZZ=ON -DDOCSHARD_BUILD_TESTS=OFF -DDOCSHARD_BUILD_TOOLS=OFF -DDOCSHARD_BUILD_SAMPLES=OFF \
  -DDOCSHARD_SANITIZE= \
  -DCMAKE_CXX_FLAGS="-gline-tables-only -fsanitize=fuzzer-no-link $sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" >/dev/null
cmake --build "$build" -j"${DOCSHARD_JOBS:-2}" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$root/tests/sanitizers/ubsan.supp}
summary=$build/fuzz-summary.txt
: >"$summary"
rc=0
for t in "${targets[@]}"; do
  work=$build/corpus/$t
  artifacts=$build/artifacts/$t
  mkdir -p "$work" "$artifacts"
  log=$build/fuzz-$t.log
  max_len=4096
  [ "$t" = http_response ] && max_len=12288
  set +e
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$work" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1
  status=$?
  set -e
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  crashes=$(find "$artifacts" -type f | wc -l)
  line="$t: ${execs} executions in ${seconds}s, exit $status, $crashes artifact(s)"
  echo "fuzz: $line" | tee -a "$summary"
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    rc=1
    echo "fuzz: $t FAILED; log $log; reproduce: $build/tests/fuzz/fuzz_$t $artifacts/<file>" >&2
    grep -m1 -A25 -E 'ERROR: |runtime error|deadly signal' "$log" >&2 || tail -n 30 "$log" >&2
  fi
done
exit $rc
