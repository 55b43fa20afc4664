#!/usr/bin/env bash
# The CLI against the fixture's two-region account (role "regions", region-1
# writes): an account with preferredRegions in the config reads from the first
# preferred region, --diagnostics names the region of every attempt, and with
# that region refusing connections a read fails over to the next one.
# shellcheck source=tests/support/cli_test_preamble.sh
source "$(cd "$(dirname "$0")" && pwd)/../support/cli_test_preamble.sh"

url=$(server_url regions)
regions() { curl -sf --cacert "$ca" -X POST -H 'Content-Type: application/json' -d "$1" "$url/_docshard/regions" >/dev/null; }
trap 'regions "{\"down\":[]}"; rm -rf "$tmp"' EXIT
regions '{"down":[],"lagMs":0}'; check $? 0 "regions reset"

db=cliregions$$
cat >"$tmp/scheme.json" <<JSON
{ "docshard": 1,
  "accounts": {
    "default": {"endpoint": "$url", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca",
                "preferredRegions": ["region-2", "region-1"]} },
  "resolver": {"type": "hash", "partitionKey": "/userId", "hash": "murmur3",
    "collections": ["dbs/$db/colls/r0", "dbs/$db/colls/r1"]} }
JSON
"$cli" init --config "$tmp/scheme.json" >/dev/null; check $? 0 "init exit"
echo '{"id":"d1","userId":"u1","n":1}' | "$cli" put --config "$tmp/scheme.json" --diagnostics >/dev/null 2>"$tmp/put.diag"
check $? 0 "put exit"
# Writes go to the write region whatever the preference.
check "$(grep -c '"region":"region-1","outcome":"ok","status":201' "$tmp/put.diag")" 1 "the create went to region-1"

# Replication to region-2 has no lag here (lagMs 0), so a read there finds it.
"$cli" get --config "$tmp/scheme.json" --id d1 --key u1 --diagnostics >"$tmp/get.out" 2>"$tmp/get.diag"
check $? 0 "get exit"
check "$(grep -c '"n":1' "$tmp/get.out")" 1 "get returns the document"
check "$(grep -o '"region":"[^"]*"' "$tmp/get.diag" | tr '\n' ' ')" '"region":"region-2" ' "the read went to region-2 only"

# region-2 refuses connections: the read fails over to region-1.
regions '{"down":["region-2"],"unavailable":"refuse"}'; check $? 0 "region-2 down"
"$cli" get --config "$tmp/scheme.json" --id d1 --key u1 --diagnostics >"$tmp/get2.out" 2>"$tmp/get2.diag"
check $? 0 "get exit with region-2 down"
check "$(grep -c '"n":1' "$tmp/get2.out")" 1 "get returns the document from region-1"
check "$(grep -c '"region":"region-1","outcome":"ok","status":200' "$tmp/get2.diag")" 1 "the read was served by region-1"
check "$(grep -c '"region":"region-2","outcome":"ok"' "$tmp/get2.diag")" 0 "region-2 served nothing"
check "$(cat "$tmp"/*.diag "$tmp"/*.out | grep -cF "$DOCSHARD_SERVER_KEY")" 0 "no key in output"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
