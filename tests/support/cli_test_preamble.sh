# Sourced by the shell tests that drive the built CLI against a server fixture
# (tests/client/*_test.sh): the fixture's environment (cli, run, prefix, ca),
# a temporary directory $tmp removed on exit, check(), server_url() and
# settle(). Each test ends with: echo "$passes passed, $fails failed".
set -uo pipefail
cli=${DOCSHARD_CLI:?DOCSHARD_CLI is not set}
run=${DOCSHARD_RUN_DIR:-$DOCSHARD_SOURCE_DIR/.run}
prefix=${DOCSHARD_TEST_PREFIX:?}
ca=$run/certs/ca.pem
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0

# check GOT EXPECTED WHAT
check() { if [ "$1" = "$2" ]; then passes=$((passes+1)); else echo "FAIL: $3: expected [$2] got [$1]"; fails=$((fails+1)); fi; }

# server_url ROLE: the URL of the fixture's server of that role.
server_url() { cat "$run/servers/$prefix-$1.url"; }

# measure_lag ROLE... then settle: waits out the largest replica lag of these
# servers. Each docshard command and each SDK run is a separate process, hence
# a separate session without the writer's session tokens: it reads another
# process's writes once every replica has them, at most the server's replica
# lag (tests/servers.conf) after the write.
lag_ms=0
measure_lag() {
  local role ms
  for role in "$@"; do
    ms=$(curl -sf --cacert "$ca" "$(server_url "$role")/_docshard/state" | sed -n 's/.*"replicaLagMs":\([0-9]*\).*/\1/p')
    [ "${ms:-0}" -gt "$lag_ms" ] && lag_ms=$ms
  done
}
settle() { sleep "$(awk -v ms="$lag_ms" 'BEGIN { printf "%.3f", (ms > 0 ? (ms + 50) / 1000 : 0) }')"; }
