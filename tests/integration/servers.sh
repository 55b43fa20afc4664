#!/usr/bin/env bash
# CTest fixture: start/stop the local servers the integration tests use.
#   servers.sh start|stop PREFIX
# PREFIX keeps concurrent builds (several engineers share .run/) apart.
# Roles: main (CRUD, paging), faults (fault injection, restarts), stock
# (connection: close), gateway (the real gateway's rules, 4 partition key
# ranges, replicas lagging up to 500 ms), and one per TLS negative case.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=$root/scripts/cosmos-server.sh
action=${1:?start|stop}
prefix=${2:?prefix}

roles=(main faults stock gateway untrusted wronghost expired selfsigned tls11)
args_for() {
  case $1 in
    stock) echo "--stock" ;;
    gateway) echo "--gateway strict --partitions 4 --replica-lag-ms 500" ;;
    untrusted|wronghost|expired|selfsigned) echo "--cert-set $1" ;;
    tls11) echo "--tls-max v1.1" ;;
    *) echo "" ;;
  esac
}

case $action in
  start)
    # Certificates (and node_modules) once, then the servers in parallel.
    "$root/scripts/gen-certs.sh" "${DOCSHARD_RUN_DIR:-$root/.run}/certs" >/dev/null || exit 1
    pids=()
    for r in "${roles[@]}"; do
      (
        "$server" stop --name "$prefix-$r" >/dev/null 2>&1 || true
        # shellcheck disable=SC2046
        "$server" start --name "$prefix-$r" $(args_for "$r") >/dev/null || { echo "cannot start $prefix-$r" >&2; exit 1; }
      ) &
      pids+=($!)
    done
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    exit $rc
    ;;
  stop)
    pids=()
    for r in "${roles[@]}"; do "$server" stop --name "$prefix-$r" & pids+=($!); done
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    exit $rc
    ;;
  *) echo "usage: servers.sh start|stop PREFIX" >&2; exit 2 ;;
esac
