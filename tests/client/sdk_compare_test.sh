#!/usr/bin/env bash
# docshard's fan-out against the official SDK: 1,500 documents (mixed types,
# missing fields, ties) written by `docshard put` into a scheme of 2 accounts
# x 3 collections (4 ranges each, strict gateway) and into one collection of
# the same server; every query through `docshard query` over the scheme must
# equal what @azure/cosmos 4.9.3 returns on the one collection.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/support/cli_test_preamble.sh
source "$here/../support/cli_test_preamble.sh"
url_a=$(server_url a)
url_b=$(server_url b)
db=cmp$$

cat >"$tmp/scheme.json" <<JSON
{ "docshard": 1,
  "accounts": {
    "default": {"endpoint": "$url_a", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca"},
    "b": {"endpoint": "$url_b", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca"} },
  "resolver": {"type": "hash", "partitionKey": "/userId",
    "collections": ["dbs/$db/colls/m0", "dbs/$db/colls/m1", "dbs/$db/colls/m2",
                    "b:dbs/$db/colls/m3", "b:dbs/$db/colls/m4", "b:dbs/$db/colls/m5"]} }
JSON
cat >"$tmp/one.json" <<JSON
{ "docshard": 1,
  "accounts": { "default": {"endpoint": "$url_a", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca"} },
  "resolver": {"type": "hash", "partitionKey": "/userId", "collections": ["dbs/$db/colls/one"]} }
JSON
"$cli" init --config "$tmp/scheme.json" >/dev/null || { echo "FAIL: init"; exit 1; }
"$cli" init --config "$tmp/one.json" >/dev/null || { echo "FAIL: init one"; exit 1; }

for i in $(seq 0 1499); do
  case $((i % 6)) in
    0) s='' ;; 1) s=',"s":null' ;; 2) s=",\"s\":$((i % 40))" ;; 3) s=",\"s\":\"v$((i % 25))\"" ;;
    4) s=',"s":true' ;; *) s=",\"s\":$((i % 30)).5" ;;
  esac
  echo "{\"id\":\"d$i\",\"userId\":\"u$((i % 613))\",\"n\":$(( (i * 7) % 101 )),\"g\":$((i % 5)),\"x\":$(( (i * 13) % 997 - 400 ))$s}"
done >"$tmp/docs.jsonl"
"$cli" put --config "$tmp/scheme.json" <"$tmp/docs.jsonl" >/dev/null || { echo "FAIL: put scheme"; exit 1; }
"$cli" put --config "$tmp/one.json" <"$tmp/docs.jsonl" >/dev/null || { echo "FAIL: put one"; exit 1; }
# The queries below are other processes (other sessions): they see every write once the
# servers' replica lag (tests/servers.conf, /_docshard/state) has passed since the last.
measure_lag a
settle

# Queries the SDK itself answers right (it cannot merge ORDER BY over mixed
# types, MAX with null, falsy DISTINCT values, or SUM over non-numbers).
cat >"$tmp/queries.jsonl" <<'Q'
{"sql": "SELECT c.id, c.n, c.x FROM c ORDER BY c.n, c.id", "mode": "exact"}
{"sql": "SELECT TOP 50 c.id, c.x FROM c ORDER BY c.x DESC, c.id", "mode": "exact"}
{"sql": "SELECT c.id FROM c ORDER BY c.n DESC, c.id OFFSET 100 LIMIT 200", "mode": "exact"}
{"sql": "SELECT VALUE c.id FROM c WHERE c.n >= 40 AND c.n < 50 ORDER BY c.n, c.id", "mode": "exact"}
{"sql": "SELECT * FROM c WHERE c.g = 3 AND IS_STRING(c.s)", "mode": "multiset"}
{"sql": "SELECT DISTINCT VALUE c.userId FROM c", "mode": "multiset"}
{"sql": "SELECT DISTINCT VALUE c.n FROM c WHERE c.n > 0 ORDER BY c.n", "mode": "exact"}
{"sql": "SELECT DISTINCT c.g FROM c", "mode": "multiset"}
{"sql": "SELECT c.g, COUNT(1) AS cnt, SUM(c.x) AS total, MIN(c.x) AS lo, MAX(c.x) AS hi, AVG(c.x) AS mean FROM c GROUP BY c.g", "mode": "multiset"}
{"sql": "SELECT VALUE COUNT(1) FROM c WHERE c.g = 2", "mode": "exact"}
{"sql": "SELECT VALUE AVG(c.x) FROM c", "mode": "exact"}
{"sql": "SELECT COUNT(1) AS n, SUM(c.x) AS s, MIN(c.n) AS lo FROM c", "mode": "exact"}
{"sql": "SELECT VALUE MAX(c.s) FROM c WHERE IS_STRING(c.s)", "mode": "exact"}
{"sql": "SELECT TOP 1 VALUE COUNT(1) FROM c", "mode": "exact"}
{"sql": "SELECT VALUE c.g FROM c GROUP BY c.g", "mode": "multiset"}
Q
i=0
while IFS= read -r line; do
  sql=$(node -e 'console.log(JSON.parse(process.argv[1]).sql)' "$line")
  "$cli" query --config "$tmp/scheme.json" "$sql" >"$tmp/$i.out" || { echo "FAIL: docshard query $sql"; exit 1; }
  i=$((i + 1))
done <"$tmp/queries.jsonl"
node "$here/sdk_compare.js" "$url_a" "$ca" "$db" one "$tmp/queries.jsonl" "$tmp"
