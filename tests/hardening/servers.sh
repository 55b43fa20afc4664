#!/usr/bin/env bash
# CTest fixture: the servers the hardening tests fault. One server per test
# (each test reconfigures its own), so the tests may run in parallel.
#   servers.sh start|stop PREFIX
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=$root/scripts/cosmos-server.sh
action=${1:?start|stop}
prefix=${2:?prefix}
# fan-a/fan-b: two accounts for the fan-out (fan-b gets the 503 window);
# throttle: 429 on every 3rd request; drop, hang, huge: one fault each;
# secrets: the 401 path.
roles=(fan-a fan-b throttle drop hang huge secrets)

case $action in
  start)
    "$root/scripts/gen-certs.sh" "${DOCSHARD_RUN_DIR:-$root/.run}/certs" >/dev/null || exit 1
    pids=()
    for r in "${roles[@]}"; do
      (
        "$server" stop --name "$prefix-$r" >/dev/null 2>&1 || true
        "$server" start --name "$prefix-$r" >/dev/null || { echo "cannot start $prefix-$r" >&2; exit 1; }
      ) &
      pids+=($!)
    done
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    exit $rc ;;
  stop)
    pids=()
    for r in "${roles[@]}"; do "$server" stop --name "$prefix-$r" >/dev/null 2>&1 & pids+=($!); done
    for p in "${pids[@]}"; do wait "$p" || true; done
    exit 0 ;;
  *) echo "usage: servers.sh start|stop PREFIX" >&2; exit 2 ;;
esac
