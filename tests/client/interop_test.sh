#!/usr/bin/env bash
# Interop with the official Node SDK (@azure/cosmos 4.9.3): documents written
# by docshard are read back by the SDK, and documents the SDK writes are read
# back by docshard, through the same partitioned collections.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/support/cli_test_preamble.sh
source "$here/../support/cli_test_preamble.sh"
url=$(server_url a)
measure_lag a

db=interop$$
cat >"$tmp/scheme.json" <<JSON
{ "docshard": 1,
  "accounts": { "default": {"endpoint": "$url", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca"} },
  "resolver": {"type": "hash", "partitionKey": "/userId", "hash": "murmur3",
    "collections": ["dbs/$db/colls/c0", "dbs/$db/colls/c1", "dbs/$db/colls/c2"]} }
JSON
"$cli" init --config "$tmp/scheme.json" >/dev/null; check $? 0 "init"

# docshard writes; the SDK reads each from the collection docshard chose.
for i in $(seq 1 12); do echo "{\"id\":\"ds$i\",\"userId\":\"u$i\",\"n\":$((i * 11)),\"writer\":\"docshard\"}"; done |
  "$cli" put --config "$tmp/scheme.json" >"$tmp/put.out"; check $? 0 "docshard put"
reads=(); expected=""
for i in $(seq 1 12); do
  coll=$(grep "\"id\":\"ds$i\"" "$tmp/put.out" | sed 's|.*"collection":"dbs/[^/]*/colls/\([^"]*\)".*|\1|')
  reads+=("$coll:ds$i:u$i"); expected+="ds$i $((i * 11)) docshard"$'\n'
done
settle
out=$(node "$here/interop.js" "$url" "$ca" "$db" read "${reads[@]}"); check $? 0 "SDK reads every docshard document"
check "$out"$'\n' "$expected" "SDK sees docshard's documents in the collections docshard chose"

# The SDK writes where `docshard route` says; docshard reads them back.
writes=()
for i in $(seq 1 12); do
  coll=$("$cli" route --config "$tmp/scheme.json" "v$i" | sed 's|.*"collection":"dbs/[^/]*/colls/\([^"]*\)".*|\1|')
  writes+=("$coll:sdk$i:v$i:$((i * 7))")
done
node "$here/interop.js" "$url" "$ca" "$db" write "${writes[@]}" >/dev/null; check $? 0 "SDK writes where route says"
settle
for i in $(seq 1 12); do
  got=$("$cli" get --config "$tmp/scheme.json" --id "sdk$i" --key "v$i"); check $? 0 "docshard gets sdk$i"
  check "$(echo "$got" | grep -c "\"n\":$((i * 7)),\"writer\":\"azure-cosmos\"")" 1 "docshard sees the SDK's document sdk$i"
done
check "$("$cli" query --config "$tmp/scheme.json" "SELECT VALUE COUNT(1) FROM c WHERE c.writer = 'azure-cosmos'")" 12 "fan-out counts the SDK's documents"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
