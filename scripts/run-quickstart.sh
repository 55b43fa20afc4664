#!/usr/bin/env bash
# Starts two local servers (two accounts), writes the quickstart scheme for
# them, runs the quickstart, and stops the servers whatever happens.
#   scripts/run-quickstart.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
run=${DOCSHARD_RUN_DIR:-$root/.run}
server=$root/scripts/cosmos-server.sh
prefix=qs-$$
# A throwaway key for loopback servers, only in this process's environment.
DOCSHARD_SERVER_KEY=$(openssl rand -base64 64 | tr -d '\n')
export DOCSHARD_SERVER_KEY

cleanup() { "$server" stop --name "$prefix-a" >/dev/null 2>&1 || true; "$server" stop --name "$prefix-b" >/dev/null 2>&1 || true; }
trap cleanup EXIT

url_a=$("$server" start --name "$prefix-a")
url_b=$("$server" start --name "$prefix-b")
echo "local servers: default=$url_a  west=$url_b"

mkdir -p "$run/quickstart"
scheme=$run/quickstart/scheme.json
cat >"$scheme" <<JSON
{
  "docshard": 1,
  "epoch": 1,
  "accounts": {
    "default": { "endpoint": "$url_a", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$run/certs/ca.pem" },
    "west": { "endpoint": "$url_b", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$run/certs/ca.pem" }
  },
  "resolver": {
    "type": "hash",
    "partitionKey": "/userId",
    "hash": "murmur3",
    "virtualNodesPerCollection": 128,
    "collections": ["dbs/shop/colls/orders0", "dbs/shop/colls/orders1", "dbs/shop/colls/orders2",
                    "west:dbs/shop/colls/orders3", "west:dbs/shop/colls/orders4", "west:dbs/shop/colls/orders5"]
  }
}
JSON
"$build/samples/docshard_quickstart" "$scheme"
