#!/usr/bin/env bash
# The main job: set up, start the local server(s), run the quickstart sample.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DOCSHARD_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" "$build"
exec "$root/scripts/run-quickstart.sh" "$build"
