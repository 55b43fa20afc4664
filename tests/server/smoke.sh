#!/usr/bin/env bash
# Smoke test of the local test backend (scripts/cosmos-server.sh + launcher.js).
# Starts its own instance (ephemeral port, unique name), checks TLS, keep-alive,
# signatures (official SDK + wrong key), the query fix and a 429 fault, then stops it.
# Exits non-zero on any failure; ends with an "N passed, N failed" line.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
run_dir=${DOCSHARD_RUN_DIR:-$root/.run}
tool=$root/tools/cosmos-server
ctl=$root/scripts/cosmos-server.sh
name="smoke-$$-$RANDOM"
ca=$run_dir/certs/ca.pem
passed=0
failed=0
started=0

ok() { echo "ok - $*"; passed=$((passed + 1)); }
fail() { echo "FAIL - $*"; failed=$((failed + 1)); }
cleanup() {
  ((started)) && "$ctl" stop --name "$name" >/dev/null 2>&1
}
trap cleanup EXIT
finish() {
  # Keep the server log only when something failed.
  ((failed == 0)) && rm -f "$run_dir/servers/$name.log"
  echo "$passed passed, $failed failed"
  ((failed == 0)) && exit 0 || exit 1
}

for tool_name in node curl openssl; do
  command -v "$tool_name" >/dev/null || { fail "$tool_name not found (run scripts/setup.sh)"; finish; }
done

# Our own key, so nothing needs to be read back from disk; never printed.
DOCSHARD_SERVER_KEY=$(openssl rand -base64 64 | tr -d '\n')
export DOCSHARD_SERVER_KEY

# --- start ---------------------------------------------------------------
if ! url=$(timeout 120 "$ctl" start --name "$name"); then
  fail "cosmos-server.sh start failed (log: $run_dir/servers/$name.log)"
  finish
fi
started=1
port=${url##*:}
[[ $url =~ ^https://127\.0\.0\.1:[0-9]+$ ]] && ok "started $url" || { fail "unexpected URL '$url'"; finish; }
[ "$("$ctl" url --name "$name")" = "$url" ] && ok "url --name" || fail "url --name does not match"

# Loopback only.
if command -v ss >/dev/null; then
  listen=$(ss -Hltn "sport = :$port" 2>/dev/null | awk '{print $4}')
  [ "$listen" = "127.0.0.1:$port" ] && ok "listens on 127.0.0.1 only" || fail "listening on '$listen'"
fi

curl_base=(curl -sS --max-time 10 --cacert "$ca")
ctl_path=/_docshard/faults

# --- TLS -------------------------------------------------------------------
code=$("${curl_base[@]}" -o /dev/null -w '%{http_code}' "https://localhost:$port$ctl_path" 2>&1)
[ "$code" = 200 ] && ok "TLS verifies for host localhost" || fail "TLS to localhost: $code"
code=$("${curl_base[@]}" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port$ctl_path" 2>&1)
[ "$code" = 200 ] && ok "TLS verifies for 127.0.0.1" || fail "TLS to 127.0.0.1: $code"
if curl -sS --max-time 10 -o /dev/null "https://localhost:$port$ctl_path" 2>/dev/null; then
  fail "TLS verified without our CA (system trust store should not know it)"
else
  ok "TLS fails without our CA"
fi
# A client that would accept TLS 1.0/1.1 (legacy ciphers allowed) must still be refused.
if curl -sS --max-time 10 --cacert "$ca" --tlsv1.0 --tls-max 1.1 --ciphers 'DEFAULT:@SECLEVEL=0' \
    -o /dev/null "https://localhost:$port$ctl_path" 2>/dev/null; then
  fail "TLS 1.1 accepted by the default server"
else
  ok "TLS <= 1.1 refused"
fi

# --- keep-alive --------------------------------------------------------------
verbose=$("${curl_base[@]}" -v -o /dev/null -o /dev/null "$url$ctl_path" "$url$ctl_path" 2>&1)
if grep -qiE "Re-using existing connection|Reusing existing connection" <<<"$verbose"; then
  ok "keep-alive: second request reused the connection"
else
  fail "keep-alive: connection not reused"
fi

# --- signatures ---------------------------------------------------------------
code=$("${curl_base[@]}" -o /dev/null -w '%{http_code}' "$url/dbs")
[ "$code" = 401 ] && ok "unsigned request -> 401" || fail "unsigned request -> $code"
if out=$(cd "$tool" && timeout 60 node sdk-check.js "$url" "$ca" 2>&1); then
  ok "official SDK (@azure/cosmos): signed create/read/query pass, wrong key -> 401"
else
  fail "SDK interop: $out"
fi

# --- query fix ---------------------------------------------------------------
if out=$(cd "$tool" && timeout 120 node bench-query.js "$url" "$ca" 5000 1000 2>&1); then
  ok "query fix: $out"
else
  fail "query fix: $out"
fi

# --- 429 fault ------------------------------------------------------------------
if out=$(cd "$tool" && timeout 30 node -e '
  const { Client } = require("./client.js");
  (async () => {
    const [url, ca] = process.argv.slice(1);
    const ctl = new Client(url, { ca, key: null });
    const c = new Client(url, { ca, key: process.env.DOCSHARD_SERVER_KEY });
    let r = await ctl.request("POST", "/_docshard/faults", { status429Every: 1, retryAfterMs: 321 });
    if (r.status !== 200) throw new Error(`set faults: HTTP ${r.status}`);
    r = await c.request("GET", "/dbs");
    if (r.status !== 429) throw new Error(`expected 429, got ${r.status}`);
    if (r.headers["x-ms-retry-after-ms"] !== "321") throw new Error(`retry-after ${r.headers["x-ms-retry-after-ms"]}`);
    if (!r.body || r.body.code !== "TooManyRequests") throw new Error(`body ${JSON.stringify(r.body)}`);
    r = await ctl.request("POST", "/_docshard/faults", {});
    r = await c.request("GET", "/dbs");
    if (r.status !== 200) throw new Error(`after reset: HTTP ${r.status}`);
    ctl.close(); c.close();
  })().catch(e => { console.error(e.message); process.exit(1); });
' "$url" "$ca" 2>&1); then
  ok "429 fault with x-ms-retry-after-ms, then reset"
else
  fail "429 fault: $out"
fi

# --- gateway options pass through ------------------------------------------------
gw_name="$name-gw"
if gw_url=$(timeout 60 "$ctl" start --name "$gw_name" --gateway strict --partitions 3 --replica-lag-ms 250 \
    --split-after-docs 1000); then
  state=$("${curl_base[@]}" "$gw_url/_docshard/state" 2>&1)
  if grep -q '"mode":"strict","partitions":3,"replicaLagMs":250,"splitAfterDocs":1000,"enabled":true' <<<"$state"; then
    ok "gateway options reach the launcher (/_docshard/state)"
  else
    fail "gateway state: $state"
  fi
  "$ctl" stop --name "$gw_name" >/dev/null 2>&1
  rm -f "$run_dir/servers/$gw_name.log"
else
  fail "start with gateway options failed (log: $run_dir/servers/$gw_name.log)"
fi

# --- the key never reaches the log -------------------------------------------
log=$run_dir/servers/$name.log
if grep -qF "$DOCSHARD_SERVER_KEY" "$log"; then fail "the key appears in $log"; else ok "key not in the log"; fi

# --- stop ----------------------------------------------------------------------
pid=$(cat "$run_dir/servers/$name.pid" 2>/dev/null || echo "")
"$ctl" stop --name "$name" 2>/dev/null
started=0
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
  fail "instance still running after stop (pid $pid)"
else
  ok "stopped"
fi
if "$ctl" url --name "$name" >/dev/null 2>&1; then fail "url still answers after stop"; else ok "url fails after stop"; fi

finish
