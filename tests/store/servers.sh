#!/usr/bin/env bash
# CTest fixture for the store tests: one local server (account "main").
#   servers.sh start|stop PREFIX
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=$root/scripts/cosmos-server.sh
action=${1:?start|stop}
prefix=${2:?prefix}
case $action in
  start)
    "$server" stop --name "$prefix-main" >/dev/null 2>&1 || true
    "$server" start --name "$prefix-main" >/dev/null || { echo "cannot start $prefix-main" >&2; exit 1; } ;;
  stop)
    "$server" stop --name "$prefix-main" >/dev/null 2>&1 || true
    exit 0 ;;
  *) echo "usage: servers.sh start|stop PREFIX" >&2; exit 2 ;;
esac
