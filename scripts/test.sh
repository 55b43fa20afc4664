#!/usr/bin/env bash
# The full test suite: set-up (idempotent), build, then every test through CTest.
# Integration tests start and stop their own local servers (CTest fixtures).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j"${DOCSHARD_TEST_JOBS:-2}" "$@"
# Optional reliability stage (docs/reliability.md), off unless
# DOCSHARD_CI_EXTRAS=1: fuzz each target 30 s, then the ASan+UBSan and TSan
# runs. Each uses its own build directory. Owner of this stage: reliability.
if [ "${DOCSHARD_CI_EXTRAS:-0}" = 1 ]; then
  "$root/scripts/fuzz.sh" 30
  "$root/scripts/sanitize.sh"
fi
