#!/usr/bin/env bash
# The full test suite: set-up (idempotent), build, then every test through CTest.
# Integration tests start and stop their own local servers (CTest fixtures).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j"${DOCSHARD_TEST_JOBS:-2}" "$@"
# Style and API reference stage (CI): the clang-format check, clang-tidy over
# src/, resolvers/ and tools/ (scripts/lint.sh format, tidy) and Doxygen with
# warnings as errors (scripts/docs.sh).
case "${DOCSHARD_CI_EXTRAS:-0}" in
1|full)
  "$root/scripts/lint.sh" format
  "$root/scripts/lint.sh" tidy
  "$root/scripts/docs.sh"
  ;;
esac
# Reliability stage (docs/reliability.md), each part in its own build
# directory. Owner of this stage: reliability.
#   DOCSHARD_CI_EXTRAS=1 (what .ci/run sets): fuzz each target 20 s, ASan+UBSan
#     of the whole suite (built with clang 14: CI's clang build), TSan of the
#     concurrency tests (transport pool, fan-out, migration, hardening).
#   DOCSHARD_CI_EXTRAS=full: fuzz each target DOCSHARD_FUZZ_SECONDS (300 s),
#     and TSan of the unit tests too.
case "${DOCSHARD_CI_EXTRAS:-0}" in
1)
  "$root/scripts/fuzz.sh" "${DOCSHARD_FUZZ_SECONDS:-20}"
  DOCSHARD_SANITIZE_TSAN_TESTS=${DOCSHARD_SANITIZE_TSAN_TESTS:-'^(integration_operations|client_|migration|hardening_(fanout503|hang|throttle))'} \
    "$root/scripts/sanitize.sh"
  ;;
full)
  "$root/scripts/fuzz.sh" "${DOCSHARD_FUZZ_SECONDS:-300}"
  "$root/scripts/sanitize.sh"
  ;;
esac
