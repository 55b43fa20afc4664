#!/usr/bin/env bash
# Runs a sample against two fresh local servers (accounts "default" and
# "west"), stopping them whatever happens. Their settings (gateway mode,
# partitions, ...) are fixture "samples" of tests/servers.conf.
#   scripts/run-sample.sh NAME [BUILD_DIR [DRIVER]]
# DRIVER, when given, is run instead of the sample, with the sample's path and
# arguments (e.g. a script that scrapes what the sample serves).
# samples/NAME/scheme.json, if present, is pointed at the servers
# (scripts/render-sample-scheme.sh: their endpoints and CA) and passed to the
# sample as its only argument.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: run-sample.sh NAME [BUILD_DIR]}
build=${2:-$root/build}
run=${DOCSHARD_RUN_DIR:-$root/.run}
servers=$root/tests/support/servers.sh
prefix=sample-$name-$$
# A throwaway key for loopback servers, only in this process's environment.
DOCSHARD_SERVER_KEY=$(openssl rand -base64 64 | tr -d '\n')
export DOCSHARD_SERVER_KEY

cleanup() { "$servers" stop --prefix "$prefix" -- a b; }
trap cleanup EXIT

"$servers" start --prefix "$prefix" --settings samples -- a b
url_a=$(cat "$run/servers/$prefix-a.url")
url_b=$(cat "$run/servers/$prefix-b.url")
echo "local servers: default=$url_a  west=$url_b ($("$servers" settings samples))"

args=()
if [ -f "$root/samples/$name/scheme.json" ]; then
  mkdir -p "$run/samples"
  scheme=$run/samples/$name-$$.json
  "$root/scripts/render-sample-scheme.sh" "$root/samples/$name/scheme.json" "$scheme" "$url_a" "$url_b" \
    "$run/certs/ca.pem"
  args=("$scheme")
fi
if [ -n "${3:-}" ]; then
  "$3" "$build/samples/docshard_sample_$name" "${args[@]}"
else
  "$build/samples/docshard_sample_$name" "${args[@]}"
fi
