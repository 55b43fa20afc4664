#!/usr/bin/env bash
# CTest fixture: two accounts (a, b) for the partition-aware client, plus one
# (down) that the partial-results test stops. a and b behave like the real
# gateway (strict rules, 4 partition key ranges per collection, query plans,
# splits); plain and down are the stock server (no query plans, one range).
#   servers.sh start|stop PREFIX
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=$root/scripts/cosmos-server.sh
action=${1:?start|stop}
prefix=${2:?prefix}
roles=(a b plain down)
case $action in
  start)
    for r in "${roles[@]}"; do
      "$server" stop --name "$prefix-$r" >/dev/null 2>&1 || true
      args=()
      case $r in a|b) args=(--gateway strict --partitions 4) ;; esac
      "$server" start --name "$prefix-$r" "${args[@]}" >/dev/null || { echo "cannot start $prefix-$r" >&2; exit 1; }
    done ;;
  stop)
    rc=0
    for r in "${roles[@]}"; do "$server" stop --name "$prefix-$r" >/dev/null 2>&1 || rc=1; done
    exit 0 ;;
  *) echo "usage: servers.sh start|stop PREFIX" >&2; exit 2 ;;
esac
