#!/usr/bin/env bash
# The full test suite: set-up (idempotent), build, then every test through CTest.
# Integration tests start and stop their own local servers (CTest fixtures).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j"${DOCSHARD_TEST_JOBS:-2}" "$@"
