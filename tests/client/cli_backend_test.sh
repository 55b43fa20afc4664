#!/usr/bin/env bash
# docshard init/put/get/delete/query against the fixture's two servers.
# Expected answers are computed here from the documents written.
# shellcheck source=tests/support/cli_test_preamble.sh
source "$(cd "$(dirname "$0")" && pwd)/../support/cli_test_preamble.sh"
measure_lag a b

db=cli$$
cat >"$tmp/scheme.json" <<JSON
{ "docshard": 1,
  "accounts": {
    "default": {"endpoint": "$(cat "$run/servers/$prefix-a.url")", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$run/certs/ca.pem"},
    "b": {"endpoint": "$(cat "$run/servers/$prefix-b.url")", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$run/certs/ca.pem"} },
  "resolver": {"type": "hash", "partitionKey": "/userId", "hash": "murmur3",
    "collections": ["dbs/$db/colls/c0", "dbs/$db/colls/c1", "b:dbs/$db/colls/c2", "b:dbs/$db/colls/c3"]} }
JSON
"$cli" init --config "$tmp/scheme.json" >"$tmp/init.out"; check $? 0 "init exit"
check "$(wc -l <"$tmp/init.out")" 4 "init names every collection"

for i in $(seq 0 59); do echo "{\"id\":\"d$i\",\"userId\":\"u$i\",\"n\":$(( (i * 37) % 101 ))}"; done >"$tmp/docs.jsonl"
echo '{"id":"nokey","other":1}' >>"$tmp/docs.jsonl"
"$cli" put --config "$tmp/scheme.json" <"$tmp/docs.jsonl" >"$tmp/put.out"; check $? 1 "put exits 1 when one document fails"
check "$(grep -c '"status":201' "$tmp/put.out")" 60 "60 documents created"
check "$(grep -c '"id":"nokey","error":"document has no partition key at /userId"' "$tmp/put.out")" 1 "the keyless document is reported"
# Every document landed where `docshard route` says.
for i in 0 7 33 59; do
  routed=$("$cli" route --config "$tmp/scheme.json" "u$i" | sed 's/.*"collection":"\([^"]*\)".*/\1/')
  put=$(grep "\"id\":\"d$i\"" "$tmp/put.out" | sed 's/.*"collection":"\([^"]*\)".*/\1/')
  check "$put" "$routed" "d$i placed as route says"
done

settle
check "$("$cli" get --config "$tmp/scheme.json" --id d7 --key u7 | grep -c "\"n\":$(( (7 * 37) % 101 ))")" 1 "get returns the document"
"$cli" delete --config "$tmp/scheme.json" --id d7 --key u7 >/dev/null; check $? 0 "delete exit"
settle
"$cli" get --config "$tmp/scheme.json" --id d7 --key u7 >/dev/null 2>&1; check $? 1 "get of a deleted document exits 1"

expected_sorted=$(for i in $(seq 0 59); do [ "$i" = 7 ] || echo $(( (i * 37) % 101 )); done | sort -n | head -5 | tr '\n' ' ')
got_sorted=$("$cli" query --config "$tmp/scheme.json" "SELECT TOP 5 c.n FROM c ORDER BY c.n" | sed 's/.*"n":\([0-9]*\).*/\1/' | tr '\n' ' ')
check "$got_sorted" "$expected_sorted" "ORDER BY + TOP across collections"
check "$("$cli" query --config "$tmp/scheme.json" "SELECT VALUE COUNT(1) FROM c")" 59 "COUNT across collections"
check "$("$cli" query --config "$tmp/scheme.json" --key u3 "SELECT VALUE c.id FROM c WHERE c.userId = 'u3'")" '"d3"' "query by key"
# --diagnostics: one JSON line on stderr per operation, with the routing decision
# and each attempt's partition key range; a query's names every collection read.
d0_coll=$(grep '"id":"d0"' "$tmp/put.out" | sed 's/.*"collection":"\([^"]*\)".*/\1/')
"$cli" get --config "$tmp/scheme.json" --id d0 --key u0 --diagnostics >/dev/null 2>"$tmp/get-diag.out"; check $? 0 "get --diagnostics exit"
check "$(wc -l <"$tmp/get-diag.out")" 1 "get --diagnostics prints one line"
check "$(grep -cF "\"routing\":{\"resolver\":\"\",\"epoch\":0,\"route\":\"hash(murmur3, 128 vnodes)\",\"collections\":[\"${d0_coll}\"]}" "$tmp/get-diag.out")" 1 "get --diagnostics shows the routing"
check "$(grep -c '"partitionKeyRangeId":"[0-9][0-9]*"' "$tmp/get-diag.out")" 1 "get --diagnostics names the range"
"$cli" query --config "$tmp/scheme.json" --diagnostics "SELECT VALUE COUNT(1) FROM c" >/dev/null 2>"$tmp/query-diag.out"; check $? 0 "query --diagnostics exit"
check "$(grep -o '"collection":"[^"]*"' "$tmp/query-diag.out" | sort -u | wc -l)" 4 "query --diagnostics covers every collection"
check "$(grep -c '"requests":\[{"operation":"QueryDocuments"' "$tmp/query-diag.out")" 1 "query --diagnostics lists the requests"
"$cli" query --config "$tmp/scheme.json" "SELECT * FROM c WHERE" >/dev/null 2>"$tmp/err"; check $? 1 "rejected SQL exits 1"
check "$(grep -c '400' "$tmp/err")" 1 "rejected SQL names the 400"
# The key never appears in any output.
check "$(cat "$tmp"/*.out "$tmp/err" | grep -cF "$DOCSHARD_SERVER_KEY")" 0 "no key in output"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
