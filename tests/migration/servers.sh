#!/usr/bin/env bash
# CTest fixture for the migration tests: two accounts (a, b), so that
# documents move between accounts as well as between collections.
#   servers.sh start|stop PREFIX
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=$root/scripts/cosmos-server.sh
action=${1:?start|stop}
prefix=${2:?prefix}
roles=(a b)
case $action in
  start)
    for r in "${roles[@]}"; do
      "$server" stop --name "$prefix-$r" >/dev/null 2>&1 || true
      "$server" start --name "$prefix-$r" >/dev/null || { echo "cannot start $prefix-$r" >&2; exit 1; }
    done ;;
  stop)
    for r in "${roles[@]}"; do "$server" stop --name "$prefix-$r" >/dev/null 2>&1 || true; done
    exit 0 ;;
  *) echo "usage: servers.sh start|stop PREFIX" >&2; exit 2 ;;
esac
