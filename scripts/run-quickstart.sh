#!/usr/bin/env bash
# The quickstart sample against two fresh local servers.
#   scripts/run-quickstart.sh [BUILD_DIR]
exec "$(dirname "$0")/run-sample.sh" quickstart "$@"
