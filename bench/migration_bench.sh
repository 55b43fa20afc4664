#!/usr/bin/env bash
# Migration benchmark: documents moved / ideal, and migration throughput
# against a plain copy of the same documents, on two local server accounts.
#   bench/migration_bench.sh [BUILD_DIR]   (env: N documents, P parallelism)
# Scheme A: md5 hash over 4 collections (2 per account); B: the same plus a
# fifth (account b), so about 1/5 of the documents move.
# "ideal" is counted independently with `docshard route` on every key.
# "plain copy" = read the same documents (fan-out query, streamed) and create
# them in fresh collections spread over the same two accounts (`docshard put`),
# with the same parallelism: one read and one create per document, where the
# migration does a read, a provisional create, a tombstone check, a confirming
# replace and an If-Match delete per moved document and reads (and skips) the
# documents that stay.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-mig}
cli=$build/tools/docshard/docshard
N=${N:-20000}
P=${P:-16}
server=$root/scripts/cosmos-server.sh
export DOCSHARD_SERVER_KEY=${DOCSHARD_SERVER_KEY:-ZG9jc2hhcmQtbWlncmF0aW9uLWJlbmNoLWtleS1ub3QtYS1zZWNyZXQtMDEyMzQ1Njc=}
work=$(mktemp -d)
names=(migbench-a migbench-b)
cleanup() { for n in "${names[@]}"; do "$server" stop --name "$n" >/dev/null 2>&1 || true; done; rm -rf "$work"; }
trap cleanup EXIT
for n in "${names[@]}"; do "$server" stop --name "$n" >/dev/null 2>&1 || true; "$server" start --name "$n" >/dev/null; done
url_a=$("$server" url --name migbench-a); url_b=$("$server" url --name migbench-b)
ca=${DOCSHARD_RUN_DIR:-$root/.run}/certs/ca.pem
db=bench$$
accounts="{\"default\":{\"endpoint\":\"$url_a\",\"keyEnv\":\"DOCSHARD_SERVER_KEY\",\"caFile\":\"$ca\"},\"b\":{\"endpoint\":\"$url_b\",\"keyEnv\":\"DOCSHARD_SERVER_KEY\",\"caFile\":\"$ca\"}}"
scheme() { # name collections...
  local out=$work/$1.json; shift
  local list; list=$(printf '"%s",' "$@"); list=${list%,}
  echo "{\"docshard\":1,\"epoch\":1,\"accounts\":$accounts,\"resolver\":{\"type\":\"hash\",\"partitionKey\":\"/userId\",\"collections\":[$list]}}" > "$out"
}
scheme A dbs/$db/colls/c0 dbs/$db/colls/c1 b:dbs/$db/colls/c2 b:dbs/$db/colls/c3
scheme B dbs/$db/colls/c0 dbs/$db/colls/c1 b:dbs/$db/colls/c2 b:dbs/$db/colls/c3 b:dbs/$db/colls/c4
scheme C dbs/$db/colls/x0 dbs/$db/colls/x1 b:dbs/$db/colls/x2 b:dbs/$db/colls/x3 b:dbs/$db/colls/x4

awk -v n="$N" 'BEGIN { pad = sprintf("%0200d", 0); for (i = 0; i < n; i++) printf "{\"id\":\"d%d\",\"userId\":\"u%d\",\"n\":%d,\"pad\":\"%s\"}\n", i, i, i, pad }' > "$work/docs.jsonl"
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "\"u%d\"\n", i }' > "$work/keys.txt"
"$cli" init --config "$work/A.json" >/dev/null
"$cli" init --config "$work/B.json" >/dev/null
"$cli" init --config "$work/C.json" >/dev/null
"$cli" put --config "$work/A.json" --max-parallel "$P" < "$work/docs.jsonl" > /dev/null

# Ideal: keys whose collection differs between A and B (independent of the migrator).
"$cli" route --config "$work/A.json" < "$work/keys.txt" | sed 's/.*"collection":"\([^"]*\)".*/\1/' > "$work/ra"
"$cli" route --config "$work/B.json" < "$work/keys.txt" | sed 's/.*"collection":"\([^"]*\)".*/\1/' > "$work/rb"
ideal=$(paste -d' ' "$work/ra" "$work/rb" | awk '$1 != $2' | wc -l)
# The documents that move, for the plain copy.
paste -d' ' "$work/ra" "$work/rb" "$work/docs.jsonl" | awk '$1 != $2 { $1 = ""; $2 = ""; sub(/^  /, ""); print }' > "$work/moving.jsonl"

start=$(date +%s.%N)
"$cli" migrate --from "$work/A.json" --to "$work/B.json" --checkpoint "$work/cp.json" --max-parallel "$P" \
  --quiet --no-finish > "$work/migrate.out"
end=$(date +%s.%N)
cat "$work/migrate.out"
moved=$(sed -n 's/^moved \([0-9]*\).*/\1/p' "$work/migrate.out")
move_s=$(sed -n 's/.* in \([0-9.]*\) s (.*/\1/p' "$work/migrate.out")
total_s=$(echo "$end - $start" | bc -l)

# Plain copy of the same documents: read them back and create them elsewhere.
ids=$work/moving.ids
sed 's/^{"id":"\([^"]*\)".*/\1/' "$work/moving.jsonl" > "$ids"
start=$(date +%s.%N)
"$cli" query --config "$work/B.json" --max-parallel "$P" 'SELECT * FROM c WHERE c.n >= 0' \
  | awk -v ids="$ids" 'BEGIN { while ((getline l < ids) > 0) want["\"" l "\""] = 1 }
      { if (match($0, /"id":"[^"]*"/)) { id = substr($0, RSTART + 5, RLENGTH - 5); if (id in want) print } }' \
  | "$cli" put --config "$work/C.json" --max-parallel "$P" > "$work/copy.out"
end=$(date +%s.%N)
copy_s=$(echo "$end - $start" | bc -l)
copied=$(grep -c '"status":201' "$work/copy.out" || true)

printf 'documents=%d parallel=%d ideal=%d moved=%d moved/ideal=%.4f\n' "$N" "$P" "$ideal" "$moved" \
  "$(echo "$moved / $ideal" | bc -l)"
printf 'migration: %.2f s moving (%.0f docs/s), %.2f s with start-up and verification\n' "$move_s" \
  "$(echo "$moved / $move_s" | bc -l)" "$total_s"
printf 'plain copy: %d documents in %.2f s (%.0f docs/s)\n' "$copied" "$copy_s" "$(echo "$copied / $copy_s" | bc -l)"
printf 'migration time / plain copy time = %.2f (goal <= 2)\n' "$(echo "$move_s / $copy_s" | bc -l)"
