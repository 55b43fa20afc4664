#!/usr/bin/env bash
# The local servers of a test fixture (tests/README.md): one
# scripts/cosmos-server.sh instance per role, named PREFIX-ROLE, with the
# fixture's settings from tests/servers.conf (row FIXTURE/ROLE, else FIXTURE,
# else default).
#
#   servers.sh start --prefix PREFIX --settings FIXTURE [LAUNCHER-OPTIONS...] -- ROLE[:OPTIONS]...
#       Starts every role in parallel (a running instance of the same name is
#       restarted). Options, later ones winning: the role's row of
#       tests/servers.conf, then LAUNCHER-OPTIONS (e.g. --partitions 4), then the
#       role's own OPTIONS (e.g. "untrusted:--cert-set untrusted"). Each role's
#       options are kept (run dir, servers/NAME.options) for restart.
#   servers.sh restart --prefix PREFIX [LAUNCHER-OPTIONS...] -- ROLE...
#       Stops and starts each role with the options it was started with, then
#       LAUNCHER-OPTIONS (e.g. --port N to come back on the same port).
#   servers.sh stop --prefix PREFIX -- ROLE...
#       Stops every role (an instance that is not running is not an error).
#   servers.sh settings FIXTURE[/ROLE]
#       Prints the settings of FIXTURE (or of its ROLE) as options (--gateway G
#       --partitions N --replica-lag-ms MS --split-after-docs N), for scripts
#       that start their servers themselves.
#
# Environment: DOCSHARD_SERVER_KEY and DOCSHARD_RUN_DIR as for cosmos-server.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=$root/scripts/cosmos-server.sh
conf=$root/tests/servers.conf
servers_dir=${DOCSHARD_RUN_DIR:-$root/.run}/servers

die() { echo "servers.sh: $*" >&2; exit 2; }

# The first row of tests/servers.conf among KEYS, then "default", as launcher options.
settings() {
  local key row=""
  for key in "$@" default; do
    row=$(awk -v f="$key" '$1 !~ /^#/ && NF && $1 == f { print; exit }' "$conf")
    [ -n "$row" ] && break
  done
  [ -n "$row" ] || die "$conf has no row for '$*' and no default row"
  read -r _ gateway partitions lag split extra <<<"$row"
  [ -z "${extra:-}" ] && [ -n "${split:-}" ] || die "$conf: row '$row' must have 5 columns"
  [[ $gateway == strict || $gateway == lenient ]] || die "$conf: bad gateway '$gateway' in row '$row'"
  [[ $partitions =~ ^[0-9]+$ && $lag =~ ^[0-9]+$ && $split =~ ^[0-9]+$ ]] || die "$conf: bad number in row '$row'"
  echo "--gateway $gateway --partitions $partitions --replica-lag-ms $lag --split-after-docs $split"
}

# Starts NAME with OPTIONS (restarting it if it runs) and records the options.
start_one() {
  local name=$1
  shift
  "$server" stop --name "$name" >/dev/null 2>&1 || true
  mkdir -p "$servers_dir" && echo "$*" >"$servers_dir/$name.options" || return 1
  "$server" start --name "$name" "$@" >/dev/null || { echo "servers.sh: cannot start $name" >&2; return 1; }
}

# Waits for the background jobs PIDS; fails if any failed.
wait_all() {
  local rc=0 p
  for p in "$@"; do wait "$p" || rc=1; done
  return $rc
}

action=${1-}
(($#)) && shift
if [ "$action" = settings ]; then
  (($# == 1)) || die "usage: servers.sh settings FIXTURE[/ROLE]"
  [[ $1 == */* ]] && settings "$1" "${1%%/*}" || settings "$1"
  exit
fi
prefix="" fixture="" options=()
while (($#)); do
  case $1 in
    --prefix) prefix=${2-}; shift 2 ;;
    --settings) fixture=${2-}; shift 2 ;;
    --) shift; break ;;
    *) options+=("$1"); shift ;;
  esac
done
roles=("$@")
[ -n "$prefix" ] || die "--prefix PREFIX is required"
((${#roles[@]})) || die "no roles given (after --)"

case $action in
  start)
    [ -n "$fixture" ] || die "start: --settings FIXTURE is required"
    # Every role's settings first, so that a bad row starts nothing.
    declare -A role_settings
    for spec in "${roles[@]}"; do
      role=${spec%%:*}
      role_settings[$role]=$(settings "$fixture/$role" "$fixture") || exit 2
    done
    # Certificates (and node_modules) once, then the servers in parallel.
    "$server" install >/dev/null || exit 1
    pids=()
    for spec in "${roles[@]}"; do
      role=${spec%%:*}
      read -r -a fixture_options <<<"${role_settings[$role]}"
      role_options=()
      [ "$role" != "$spec" ] && read -r -a role_options <<<"${spec#*:}"
      start_one "$prefix-$role" "${fixture_options[@]}" "${options[@]}" "${role_options[@]}" &
      pids+=($!)
    done
    wait_all "${pids[@]}" ;;
  restart)
    pids=()
    for role in "${roles[@]}"; do
      [ -f "$servers_dir/$prefix-$role.options" ] || die "restart: $prefix-$role was not started by servers.sh start"
      read -r -a saved <"$servers_dir/$prefix-$role.options"
      start_one "$prefix-$role" "${saved[@]}" "${options[@]}" &
      pids+=($!)
    done
    wait_all "${pids[@]}" ;;
  stop)
    pids=()
    for spec in "${roles[@]}"; do
      name=$prefix-${spec%%:*}
      { "$server" stop --name "$name" >/dev/null 2>&1; rm -f "$servers_dir/$name.options"; } &
      pids+=($!)
    done
    wait_all "${pids[@]}" || true ;;
  *) die "usage: servers.sh start|restart|stop|settings ... (see the header of $0)" ;;
esac
