#!/usr/bin/env bash
# Secrets scan: runs a whole scenario with a fresh random master key and
# greps everything it produced for credentials. Zero hits required.
#   secrets_test.sh HARDENING_TEST_BINARY BUILD_DIR [QUICKSTART_BINARY]
# Scenario: three local servers with the key; the [secrets] test case (CRUD,
# query, a 409, and a client with a second random key getting 401) and, when
# built, the quickstart sample over two accounts.
# Scanned: the scenario's stdout/stderr, the server logs and every other file
# under its own run dir (.run equivalent), and every file under BUILD_DIR
# written while it ran (CTest logs included).
# Looked for: both keys (whole and a 24-character prefix), the hex of their
# decoded bytes and, in the scenario's own output and run dir, any signature
# or authorization value (sig=, sig%3D, type=master, type%3Dmaster),
# case-insensitively.
set -uo pipefail
test_bin=${1:?hardening test binary}
build=${2:?build dir}
quickstart=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
servers=$root/tests/support/servers.sh

tmp=$(mktemp -d "${TMPDIR:-/tmp}/docshard-secrets.XXXXXX")
export DOCSHARD_RUN_DIR=$tmp/run
out=$tmp/out
mkdir -p "$out" "$DOCSHARD_RUN_DIR"
marker=$tmp/started
touch "$marker"
prefix=sec-$$
DOCSHARD_SERVER_KEY=$(openssl rand -base64 64 | tr -d '\n')
DOCSHARD_HD_WRONG_KEY=$(openssl rand -base64 64 | tr -d '\n')
export DOCSHARD_SERVER_KEY DOCSHARD_HD_WRONG_KEY DOCSHARD_TEST_PREFIX=$prefix

# The hardening fixture's settings (tests/servers.conf).
stop_all() { "$servers" stop --prefix "$prefix" -- secrets a b; }
trap stop_all EXIT

rc=0
"$servers" start --prefix "$prefix" --settings hardening -- secrets a b >>"$out/servers.out" 2>>"$out/servers.err" ||
  { echo "cannot start the servers:"; cat "$out/servers.err"; exit 1; }

"$test_bin" "[secrets]" -s >"$out/secrets-test.out" 2>"$out/secrets-test.err" || {
  echo "secrets: the [secrets] test case failed:"; tail -n 40 "$out/secrets-test.out"; rc=1; }

if [ -n "$quickstart" ] && [ -x "$quickstart" ]; then
  url_a=$(cat "$DOCSHARD_RUN_DIR/servers/$prefix-a.url")
  url_b=$(cat "$DOCSHARD_RUN_DIR/servers/$prefix-b.url")
  ca=$DOCSHARD_RUN_DIR/certs/ca.pem
  if [ -f "$root/samples/quickstart/scheme.json" ]; then
    # Rendered as scripts/run-sample.sh does.
    "$root/scripts/render-sample-scheme.sh" "$root/samples/quickstart/scheme.json" "$tmp/scheme.json" \
      "$url_a" "$url_b" "$ca"
  else
    cat >"$tmp/scheme.json" <<JSON
{
  "docshard": 1,
  "accounts": {
    "default": { "endpoint": "$url_a", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca" },
    "west": { "endpoint": "$url_b", "keyEnv": "DOCSHARD_SERVER_KEY", "caFile": "$ca" }
  },
  "resolver": {
    "type": "hash", "partitionKey": "/userId", "hash": "murmur3",
    "collections": ["dbs/shop/colls/orders0", "dbs/shop/colls/orders1", "west:dbs/shop/colls/orders2"]
  }
}
JSON
  fi
  "$quickstart" "$tmp/scheme.json" >"$out/quickstart.out" 2>"$out/quickstart.err" || {
    echo "secrets: the quickstart failed:"; tail -n 20 "$out/quickstart.out" "$out/quickstart.err"; rc=1; }
  echo "secrets: quickstart ran ($(wc -c <"$out/quickstart.out") bytes of stdout)"
else
  echo "secrets: quickstart not built; scenario is the [secrets] test case only"
fi
stop_all

hex() { printf '%s' "$1" | base64 -d 2>/dev/null | od -An -tx1 | tr -d ' \n'; }
keys=$tmp/key-patterns
for k in "$DOCSHARD_SERVER_KEY" "$DOCSHARD_HD_WRONG_KEY"; do
  printf '%s\n' "$k" "${k:0:24}" "$(hex "$k")"
done >"$keys"
markers=$tmp/marker-patterns
{ cat "$keys"; printf '%s\n' 'sig=' 'sig%3d' 'type=master' 'type%3dmaster'; } >"$markers"

# Our own output, server logs and run dir: keys and any signature marker.
# Files other tests wrote into the build dir meanwhile (CTest runs tests in
# parallel): the keys only, since a unit test may legitimately print
# Microsoft's published example signature.
own=$tmp/own-files
others=$tmp/other-files
find "$out" "$DOCSHARD_RUN_DIR" -type f >"$own"
find "$build" -type f -newer "$marker" 2>/dev/null >"$others" || true
nfiles=$(($(wc -l <"$own") + $(wc -l <"$others")))
hits=$tmp/hits
: >"$hits"
scan() {  # PATTERNS FILELIST
  while IFS= read -r f; do
    # -F fixed strings, -i: hex and URL-encoding may come in either case.
    grep -a -i -H -n -o -F -f "$1" "$f" >>"$hits" 2>/dev/null || true
  done <"$2"
}
# The scanner must see a planted key (in its decoded-hex form) and a marker.
canary=$tmp/canary
{ echo "x $(hex "$DOCSHARD_SERVER_KEY") y"; echo "Sig%3Dabc"; } >"$canary"
echo "$canary" >"$tmp/canary-list"
scan "$markers" "$tmp/canary-list"
if [ "$(wc -l <"$hits")" -ne 2 ]; then echo "secrets: the scanner missed a planted credential"; exit 1; fi
: >"$hits"
rm -f "$canary"

scan "$markers" "$own"
scan "$keys" "$others"

if [ -s "$hits" ]; then
  echo "secrets: FAILED, credentials found (file:line:match; values not repeated here):"
  cut -d: -f1,2 "$hits" | sort | uniq -c
  echo "(kept for inspection: $tmp)"
  exit 1
fi
echo "secrets: scanned $nfiles files ($(cat "$out"/*.out "$out"/*.err | wc -c) bytes of output, server logs included): 0 hits"
if ((rc == 0)); then rm -rf "$tmp"; else echo "(kept for inspection: $tmp)"; fi
exit $rc
