#!/usr/bin/env bash
# One-time (idempotent) set-up on Debian 12: system packages, the local
# Cosmos DB server (npm, project-local), and the build.
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

# clang-14 + libclang-rt-14-dev: the sanitizer and fuzz builds; clang-format-14,
# clang-tidy-14, doxygen, python3: scripts/lint.sh and scripts/docs.sh.
# prometheus-cpp-dev: the optional docshard::prometheus sink and its sample.
apt_pkgs=(libboost1.81-dev libssl-dev rapidjson-dev catch2 cmake g++ make pkg-config
          openssl nodejs npm ca-certificates wrk
          clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14 doxygen python3
          prometheus-cpp-dev)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from elsewhere than Debian; only install them if absent.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f "$root/tools/cosmos-server/package.json" ]; then
  if [ ! -d "$root/tools/cosmos-server/node_modules/@vercel/cosmosdb-server" ]; then
    echo "setup: npm install (local Cosmos DB server)"
    (cd "$root/tools/cosmos-server" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
  fi
fi

# DOCSHARD_WERROR=ON/OFF overrides the default (cmake/DocshardWarnings.cmake).
# DOCSHARD_WITH_PROMETHEUS=ON: prometheus-cpp-dev is installed above, so the
# Prometheus component and its sample test are always built here, never
# skipped because a package was missing.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=${DOCSHARD_BUILD_TYPE:-RelWithDebInfo} -DDOCSHARD_WITH_PROMETHEUS=ON \
  ${DOCSHARD_WERROR:+-DDOCSHARD_WERROR=$DOCSHARD_WERROR} ${DOCSHARD_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"${DOCSHARD_JOBS:-2}"
