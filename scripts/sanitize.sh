#!/usr/bin/env bash
# Sanitizer runs of the test suite, each in its own build directory:
#   1. ASan + UBSan (build-asan): the test suite through CTest, with
#      halt_on_error and leak detection; any report fails the test.
#   2. TSan (build-tsan): the tests that exercise threads: the transport pool
#      (integration_operations), fan-out and the client (client_*), the
#      hardening fan-out/hang/throttle tests, migration tests, and the unit
#      tests (resolvers read from several threads).
#   scripts/sanitize.sh [asan|tsan|all]            (default all)
#   Env: DOCSHARD_SANITIZE_ASAN_TESTS    CTest -R regex for the ASan stage
#                                        (default: every test)
#        DOCSHARD_SANITIZE_ASAN_TARGETS  CMake targets to build for it, space
#                                        separated (default: all); they must
#                                        cover the tests the regex selects
#        DOCSHARD_SANITIZE_TSAN_TESTS    CTest -R regex for the TSan stage
#                                        (default: the list above); the unit
#                                        test binary is built only when it
#                                        names `unit:` (CTest names them
#                                        `unit:<case>`, no space)
#        DOCSHARD_SANITIZE_CXX           compiler (clang++-14; g++ works too)
#        DOCSHARD_WERROR                 ON (default) / OFF
#        DOCSHARD_SANITIZE_BUILD_ROOT    where build-asan and build-tsan go
#                                        (default: the source tree)
#        DOCSHARD_JOBS (2), DOCSHARD_TEST_JOBS (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
jobs=${DOCSHARD_JOBS:-2}
test_jobs=${DOCSHARD_TEST_JOBS:-2}
rc=0

# Built with clang 14 (the plain suite is g++ 12): the whole suite under ASan
# + UBSan is also CI's clang build of every target, with -Werror, at no extra
# cost. DOCSHARD_SANITIZE_CXX=g++ goes back to g++.
sanitize_cxx=${DOCSHARD_SANITIZE_CXX:-clang++-14}
command -v "$sanitize_cxx" >/dev/null || { echo "sanitize: $sanitize_cxx not found (scripts/setup.sh installs clang-14)" >&2; exit 2; }
if "$sanitize_cxx" --version | grep -qi clang; then
  sanitize_kind=clang
  sanitize_cc=${sanitize_cxx/clang++/clang}
else
  sanitize_kind=gnu
  sanitize_cc=${sanitize_cxx/g++/gcc}
fi
build_root=${DOCSHARD_SANITIZE_BUILD_ROOT:-$root}

configure() {  # DIR SANITIZERS
  # -fno-sanitize-recover: UBSan findings must fail the test, not just print;
  # pointer-overflow stays recoverable for tests/sanitizers/ubsan.supp only.
  # -O1 -g1: what the sanitizers recommend, with line tables for reports;
  # the coroutine-heavy transport builds 2.3x faster than at -O2 -g
  # (http_transport.cpp under ASan: 97 s instead of 220 s).
  # Per-compiler warning options: clang warns on (and -Werror fails at) an
  # unknown -Wno-* option, so the g++ ones are given to g++ only.
  # g++ -Wno-maybe-uninitialized: with -fsanitize g++ 12 reports false
  # positives inside libstdc++ (std::regex's std::function in Catch2, Asio's
  # futures), which -Werror would turn into a failed build.
  # g++ -Wno-tsan (TSan build only): g++ 12 warns that std::atomic_thread_fence,
  # which Asio's std_fenced_block uses, is not instrumented by TSan; that is a
  # note about coverage inside Asio, not a defect of ours, and -Werror made it
  # a failed build. Fences in our own code would go unseen too: we have none.
  # clang 14 needs neither. Every other warning stays an error.
  local extra=""
  if [ "$sanitize_kind" = gnu ]; then
    extra=" -Wno-maybe-uninitialized"
    [ "$2" = thread ] && extra="$extra -Wno-tsan"
  fi
  CC=$sanitize_cc CXX=$sanitize_cxx cmake -S "$root" -B "$1" -DCMAKE_CXX_COMPILER="$sanitize_cxx" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOCSHARD_SANITIZE="$2" \
    -DDOCSHARD_WERROR="${DOCSHARD_WERROR:-ON}" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS="-fno-sanitize-recover=all -fsanitize-recover=pointer-overflow$extra" -DDOCSHARD_BUILD_BENCH=OFF >/dev/null
}

if [ "$what" = asan ] || [ "$what" = all ]; then
  start=$SECONDS
  build=$build_root/build-asan
  configure "$build" address,undefined
  if [ -n "${DOCSHARD_SANITIZE_ASAN_TARGETS:-}" ]; then
    read -r -a asan_targets <<<"$DOCSHARD_SANITIZE_ASAN_TARGETS"
    cmake --build "$build" -j"$jobs" --target "${asan_targets[@]}"
  else
    cmake --build "$build" -j"$jobs"
  fi
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$root/tests/sanitizers/ubsan.supp"
  export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
  # package_*: the installed-package test builds a consumer project without
  # sanitizer flags, which cannot link an instrumented static library.
  # headers_stand_alone, layering*: they only compile (every public header on
  # its own; the layer rule), nothing runs that a sanitizer could watch, and
  # the build above already compiles every header with clang.
  (cd "$build" && ctest --output-on-failure -j"$test_jobs" -E '^(package_|headers_stand_alone$|layering)' \
     ${DOCSHARD_SANITIZE_ASAN_TESTS:+-R "$DOCSHARD_SANITIZE_ASAN_TESTS"}) || rc=1
  unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
  echo "sanitize: ASan+UBSan stage ($sanitize_cxx) $((SECONDS - start)) s"
fi

if [ "$what" = tsan ] || [ "$what" = all ]; then
  start=$SECONDS
  build=$build_root/build-tsan
  configure "$build" thread
  tsan_tests=${DOCSHARD_SANITIZE_TSAN_TESTS:-'^(unit:|integration_operations|client_|migration|hardening_(fanout503|hang|throttle))'}
  targets=(docshard_integration_tests docshard_client_tests docshard_hardening_tests)
  [[ "$tsan_tests" == *"unit:"* ]] && targets+=(docshard_unit_tests)
  # The client routing test compares against the CLI when it is built.
  grep -q '^docshard_cli:' <(cmake --build "$build" --target help | sed 's/^\.\.\. //; s/ .*//; s/$/:/') && targets+=(docshard_cli)
  grep -q '^docshard_migration_tests:' <(cmake --build "$build" --target help | sed 's/^\.\.\. //; s/ .*//; s/$/:/') \
    && targets+=(docshard_migration_tests)
  cmake --build "$build" -j"$jobs" --target "${targets[@]}"
  # second_deadlock_stack: readable lock-order reports; suppressions: see the file.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp"
  (cd "$build" && ctest --output-on-failure -j"$test_jobs" -R "$tsan_tests") || rc=1
  unset TSAN_OPTIONS
  echo "sanitize: TSan stage ($sanitize_cxx) $((SECONDS - start)) s"
fi
exit $rc
