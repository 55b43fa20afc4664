#!/usr/bin/env bash
# Test of samples/metrics_server: runs it (through scripts/run-sample.sh, which
# gives it two local servers), waits for its workload line, scrapes /metrics
# over plain HTTP, and checks the counters against the workload the sample
# reports, which are fixed numbers of operations, not figures from the
# metrics code. Ends with "PASSED: 0 check(s) failed" when all hold.
#   scrape_metrics.sh SAMPLE_BINARY SCHEME.json
set -euo pipefail
bin=${1:?usage: scrape_metrics.sh SAMPLE_BINARY SCHEME.json}
shift
dir=$(mktemp -d)
pid=
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
mkfifo "$dir/in"
"$bin" "$@" <"$dir/in" >"$dir/out" 2>"$dir/err" &
pid=$!
exec 3>"$dir/in"  # the sample serves while this stays open

for _ in $(seq 1800); do
  grep -q '^workload:' "$dir/out" && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "the sample stopped before its workload was done:"; cat "$dir/out" "$dir/err"; exit 1
  fi
  sleep 0.1
done
cat "$dir/out"
grep -q '^workload:' "$dir/out" || { echo "no workload line after 180 s"; cat "$dir/err"; exit 1; }
port=$(sed -n 's|^metrics at http://127\.0\.0\.1:\([0-9][0-9]*\)/metrics$|\1|p' "$dir/out")
field() { sed -n "s/^workload:.* $1=\\([0-9][0-9]*\\).*/\\1/p" "$dir/out"; }
upserts=$(field upserts); reads=$(field reads); missing=$(field missing); ranges=$(field ranges)

# Plain HTTP/1.0 GET, no curl needed.
exec 4<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&4
cat <&4 >"$dir/scrape"
exec 4<&-
grep -q '^HTTP/1\.[01] 200' "$dir/scrape" || { echo "scrape failed:"; head -5 "$dir/scrape"; exit 1; }

# sum NAME [LABEL=VALUE ...]: the sum over the series of NAME whose labels
# include every LABEL="VALUE" given.
sum() {
  local name=$1; shift
  awk -v name="$name" -v want="$*" '
    BEGIN { n = split(want, w, " ") }
    index($0, name "{") == 1 || $1 == name {
      ok = 1
      for (i = 1; i <= n; i++) { split(w[i], kv, "="); if (index($0, kv[1] "=\"" kv[2] "\"") == 0) ok = 0 }
      if (ok) total += $NF
    }
    END { printf "%.6g\n", total + 0 }' "$dir/scrape"
}

failed=0
check() {  # WHAT ACTUAL OP EXPECTED
  if awk -v a="$2" -v e="$4" -v op="$3" 'BEGIN { exit !((op == "==" && a == e) || (op == ">" && a > e)) }'; then
    echo "  [ ok ] $1: $2 $3 $4"
  else
    echo "  [FAIL] $1: $2, expected $3 $4"; failed=$((failed + 1))
  fi
}
d=db_client_operation_duration_seconds
check "upserts timed" "$(sum ${d}_count db_operation_name=upsert_item)" == "$upserts"
check "upserts in the +Inf bucket" "$(sum ${d}_bucket db_operation_name=upsert_item le=+Inf)" == "$upserts"
check "upserts answered 201 (all new ids)" "$(sum ${d}_count db_operation_name=upsert_item db_response_status_code=201)" == "$upserts"
check "reads of existing documents" "$(sum ${d}_count db_operation_name=read_item db_response_status_code=200)" == "$reads"
check "reads of missing documents (error.type 404)" "$(sum ${d}_count db_operation_name=read_item error_type=404)" == "$missing"
check "upserts on collection m0..m3 of database metrics" "$(sum ${d}_count db_operation_name=upsert_item db_namespace=metrics)" == "$upserts"
check "time spent upserting" "$(sum ${d}_sum db_operation_name=upsert_item)" ">" 0
r=azure_cosmosdb_client_operation_request_charge
check "upsert charges recorded" "$(sum ${r}_count db_operation_name=upsert_item)" == "$upserts"
check "request units charged for upserts" "$(sum ${r}_sum db_operation_name=upsert_item)" ">" 0
check "fan-out streams (one per partition key range)" "$(sum docshard_client_fan_out_streams_total db_operation_name=query_items)" == "$ranges"
check "no 429 on an unthrottled server" "$(sum docshard_client_operation_throttles_total)" == 0
check "connection gauge series" "$(grep -c '^db_client_connection_count{' "$dir/scrape" || true)" ">" 0
check "families typed" "$(grep -c '^# TYPE \(db_client_operation_duration_seconds histogram\|azure_cosmosdb_client_operation_request_charge histogram\|db_client_connection_count gauge\)$' "$dir/scrape" || true)" == 3
if [ -n "${DOCSHARD_SERVER_KEY:-}" ] && grep -qF "$DOCSHARD_SERVER_KEY" "$dir/scrape"; then
  echo "  [FAIL] the account key appears in /metrics"; failed=$((failed + 1))
else
  echo "  [ ok ] no account key in /metrics"
fi

exec 3>&-  # the sample stops when its input closes
wait "$pid" || { echo "  [FAIL] the sample exited with $?"; failed=$((failed + 1)); }
pid=
grep -q '^stopped$' "$dir/out" || { echo "  [FAIL] the sample did not stop cleanly"; failed=$((failed + 1)); }
echo "PASSED: $failed check(s) failed"
[ "$failed" -eq 0 ]
