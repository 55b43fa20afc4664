#!/usr/bin/env bash
# The full test suite: set-up (idempotent), build, then every test through CTest.
# Integration tests start and stop their own local servers (CTest fixtures).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BUILD_DIR:-$root/build}
# Each stage prints its wall time, so CI's 45-minute budget can be read off
# one log (docs/reliability.md, "CI").
stage_start=$SECONDS
stage_done() { echo "test.sh: stage $1: $((SECONDS - stage_start)) s (total $SECONDS s)"; stage_start=$SECONDS; }
"$root/scripts/setup.sh" "$build"
stage_done "set-up and build"
cd "$build"
ctest --output-on-failure -j"${DOCSHARD_TEST_JOBS:-2}" "$@"
stage_done "plain suite"
# Style and API reference stage (CI): the clang-format check, clang-tidy over
# src/, resolvers/ and tools/ (scripts/lint.sh format, tidy) and Doxygen with
# warnings as errors (scripts/docs.sh).
case "${DOCSHARD_CI_EXTRAS:-0}" in
1|full)
  "$root/scripts/lint.sh" format
  "$root/scripts/lint.sh" tidy
  stage_done "format and clang-tidy"
  "$root/scripts/docs.sh"
  stage_done "Doxygen"
  ;;
esac
# Reliability stage (docs/reliability.md), each part in its own build
# directory. Owner of this stage: reliability.
#   DOCSHARD_CI_EXTRAS=1 (what .ci/run sets): fuzz each target 20 s, ASan+UBSan
#     of the whole suite (built with clang 14: CI's clang build), TSan of the
#     concurrency tests (transport pool, fan-out, the multi-threaded
#     migration tests, hardening).
#   DOCSHARD_CI_EXTRAS=full: fuzz each target DOCSHARD_FUZZ_SECONDS (300 s),
#     and TSan of the unit tests and of every migration test too.
case "${DOCSHARD_CI_EXTRAS:-0}" in
1)
  "$root/scripts/fuzz.sh" "${DOCSHARD_FUZZ_SECONDS:-20}"
  stage_done "fuzz"
  # The migration tests of this list are the ones whose own process runs
  # migrators, movers and lease renewals on several threads (workers:
  # --max-parallel and renewal threads; concurrent: migrators on std::threads;
  # scenarios: 8 parallel streams while ranges split). The others (crash,
  # protocol, inputs, verify, leases, splits, plan) drive one thread or other
  # processes; they hold the migration servers' lock one after another and
  # were the TSan stage's critical path (~90 s), so they run under `full`.
  DOCSHARD_SANITIZE_TSAN_TESTS=${DOCSHARD_SANITIZE_TSAN_TESTS:-'^(integration_operations|client_|migration_(workers|concurrent|scenarios)$|hardening_(fanout503|hang|throttle))'} \
    "$root/scripts/sanitize.sh"
  stage_done "sanitizers"
  ;;
full)
  "$root/scripts/fuzz.sh" "${DOCSHARD_FUZZ_SECONDS:-300}"
  "$root/scripts/sanitize.sh"
  stage_done "fuzz and sanitizers"
  ;;
esac
