#!/usr/bin/env bash
# Start/stop local Cosmos DB test servers (tools/cosmos-server/launcher.js).
#
#   scripts/cosmos-server.sh start --name NAME [--port N] [--stock] [--no-auth]
#                                  [--fault-json JSON] [--cert-set SET]
#                                  [--tls-max VER] [--tls-min VER]
#                                  [--gateway strict|lenient] [--partitions N]
#                                  [--replica-lag-ms MS] [--split-after-docs N]
#                                  [--regions N|"A,B,..."] [--region-lag-ms MS] [-- LAUNCHER-ARGS...]
#       Starts a detached instance on 127.0.0.1 and prints its URL
#       (https://127.0.0.1:PORT). Port 0/default = ephemeral, so instances never collide.
#       SET: default|expired|wronghost|selfsigned|untrusted (certificates from gen-certs.sh)
#       VER: v1|v1.1|v1.2|v1.3 (--tls-max below v1.2 also lowers the minimum to v1)
#       --gateway/--partitions/--replica-lag-ms/--split-after-docs: the launcher's gateway mode
#       (tools/cosmos-server/README.md); the defaults (lenient, 1, 0, 0) are the plain server.
#       --regions/--region-lag-ms: a multi-region account (README.md, "Multi-region mode"); the
#       URL printed is its global endpoint, /_docshard/regions lists the regional ones.
#   scripts/cosmos-server.sh stop --name NAME     SIGTERM, then SIGKILL after 5 s
#   scripts/cosmos-server.sh stop-all             stop every instance under the run dir
#   scripts/cosmos-server.sh url --name NAME      print the URL of a running instance
#   scripts/cosmos-server.sh info --name NAME     url=, pid=, log=, ca=, key_file= lines
#   scripts/cosmos-server.sh install              npm ci in tools/cosmos-server if needed, and
#                                                 the certificates (start does both itself)
#
# Files under ${DOCSHARD_RUN_DIR:-<repo>/.run}/servers/: NAME.log, NAME.pid, NAME.url and,
# when the key was generated, NAME.key. The CA that signs the certificates is
# ${DOCSHARD_RUN_DIR:-<repo>/.run}/certs/ca.pem.
#
# Master key: env DOCSHARD_SERVER_KEY (base64) if set; otherwise a random 64-byte key
# is generated and written to NAME.key (mode 0600, no trailing newline). It is a throwaway test key for a
# server on loopback, never a real Cosmos key. It is never printed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
run_dir=${DOCSHARD_RUN_DIR:-$root/.run}
servers=$run_dir/servers
certs=$run_dir/certs
tool_dir=$root/tools/cosmos-server
launcher=$tool_dir/launcher.js
ready_timeout_s=20

die() { echo "cosmos-server: $*" >&2; exit 1; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

valid_name() { [[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$ ]]; }

# pid of a live launcher for NAME, or nothing
live_pid() {
  local name=$1 pid
  [ -f "$servers/$name.pid" ] || return 1
  pid=$(cat "$servers/$name.pid" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # Guard against a recycled pid: it must be our launcher.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "cosmos-server/launcher.js" || return 1
  echo "$pid"
}

ensure_node_modules() {
  command -v node >/dev/null || die "node not found (run scripts/setup.sh)"
  [ -d "$tool_dir/node_modules/@vercel/cosmosdb-server" ] && return 0
  command -v npm >/dev/null || die "npm not found (run scripts/setup.sh)"
  mkdir -p "$run_dir"
  (
    exec 8>"$run_dir/.npm.lock"
    command -v flock >/dev/null && { flock -w 300 8 || die "timed out waiting for $run_dir/.npm.lock"; }
    if [ ! -d "$tool_dir/node_modules/@vercel/cosmosdb-server" ]; then
      echo "cosmos-server: npm ci in tools/cosmos-server (first use)" >&2
      (cd "$tool_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) ||
        die "npm ci failed in $tool_dir"
    fi
  )
}

cmd_start() {
  local name="" port=0 stock=0 no_auth=0 fault_json="" cert_set=default tls_max="" tls_min=""
  local gateway_args=()
  local extra=()
  while (($#)); do
    case $1 in
      --name) name=${2-}; shift 2 ;;
      --port) port=${2-}; shift 2 ;;
      --stock) stock=1; shift ;;
      --no-auth) no_auth=1; shift ;;
      --fault-json) fault_json=${2-}; shift 2 ;;
      --cert-set) cert_set=${2-}; shift 2 ;;
      --tls-max) tls_max=${2-}; shift 2 ;;
      --tls-min) tls_min=${2-}; shift 2 ;;
      --gateway|--partitions|--replica-lag-ms|--split-after-docs|--regions|--region-lag-ms)
        [ $# -ge 2 ] || die "start: $1 needs a value"
        gateway_args+=("$1" "$2"); shift 2 ;;
      --) shift; extra=("$@"); break ;;
      *) die "start: unknown option '$1'" ;;
    esac
  done
  [ -n "$name" ] || die "start: --name NAME is required"
  valid_name "$name" || die "start: bad name '$name' (letters, digits, . _ -)"
  [[ $port =~ ^[0-9]+$ ]] && ((port <= 65535)) || die "start: bad --port '$port'"
  local cert key
  case $cert_set in
    default) cert=server ;;
    expired|wronghost|selfsigned|untrusted) cert=$cert_set ;;
    *) die "start: unknown --cert-set '$cert_set' (default|expired|wronghost|selfsigned|untrusted)" ;;
  esac

  mkdir -p "$servers"
  "$root/scripts/gen-certs.sh" "$certs" || die "start: gen-certs.sh failed"
  ensure_node_modules

  local pid
  if pid=$(live_pid "$name"); then
    die "start: instance '$name' is already running (pid $pid, $(cat "$servers/$name.url" 2>/dev/null)); stop it first"
  fi
  rm -f "$servers/$name.pid" "$servers/$name.url" "$servers/$name.key"

  local server_key
  if [ -n "${DOCSHARD_SERVER_KEY:-}" ]; then
    server_key=$DOCSHARD_SERVER_KEY
  else
    server_key=$(openssl rand -base64 64 | tr -d '\n') || die "start: openssl rand failed"
    (umask 077 && printf '%s' "$server_key" >"$servers/$name.key") || die "start: cannot write $servers/$name.key"
  fi

  local args=(--port "$port" --cert "$certs/$cert.pem" --key-file "$certs/$cert-key.pem")
  ((stock)) && args+=(--stock)
  ((no_auth)) && args+=(--no-auth)
  [ -n "$fault_json" ] && args+=(--faults "$fault_json")
  [ -n "$tls_max" ] && args+=(--max-tls "$tls_max")
  [ -n "$tls_min" ] && args+=(--min-tls "$tls_min")
  args+=("${gateway_args[@]}")
  args+=("${extra[@]}")

  local log=$servers/$name.log
  : >"$log"
  # Detached: own session, no inherited stdio (a test runner's pipe must not be held open).
  DOCSHARD_SERVER_KEY=$server_key setsid node "$launcher" "${args[@]}" \
    </dev/null >>"$log" 2>&1 8>&- 9>&- &
  pid=$!
  echo "$pid" >"$servers/$name.pid"

  local url="" i
  for ((i = 0; i < ready_timeout_s * 10; i++)); do
    url=$(grep -m1 -oE '^ready https://127\.0\.0\.1:[0-9]+$' "$log" 2>/dev/null | cut -d' ' -f2 || true)
    [ -n "$url" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$servers/$name.pid" "$servers/$name.key"
      echo "cosmos-server: start: launcher for '$name' exited before it was ready; log tail ($log):" >&2
      tail -n 20 "$log" >&2
      exit 1
    fi
    sleep 0.1
  done
  if [ -z "$url" ]; then
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$servers/$name.pid" "$servers/$name.key"
    echo "cosmos-server: start: '$name' not ready within ${ready_timeout_s}s; log tail ($log):" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  echo "$url" >"$servers/$name.url"
  echo "$url"
}

stop_one() {
  local name=$1 pid i
  if ! pid=$(live_pid "$name"); then
    rm -f "$servers/$name.pid" "$servers/$name.url" "$servers/$name.key"
    echo "cosmos-server: '$name' is not running" >&2
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "cosmos-server: '$name' (pid $pid) ignored SIGTERM for 5 s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$servers/$name.pid" "$servers/$name.url" "$servers/$name.key"
  echo "cosmos-server: stopped '$name'" >&2
}

need_name() {
  local name=""
  while (($#)); do
    case $1 in
      --name) name=${2-}; shift 2 ;;
      *) die "unknown option '$1'" ;;
    esac
  done
  [ -n "$name" ] || die "--name NAME is required"
  valid_name "$name" || die "bad name '$name'"
  echo "$name"
}

cmd=${1-}
[ -n "$cmd" ] || usage
shift
case $cmd in
  start) cmd_start "$@" ;;
  stop) name=$(need_name "$@"); stop_one "$name" ;;
  stop-all)
    shopt -s nullglob
    for f in "$servers"/*.pid; do stop_one "$(basename "$f" .pid)"; done
    ;;
  url)
    name=$(need_name "$@")
    live_pid "$name" >/dev/null || die "url: instance '$name' is not running"
    cat "$servers/$name.url"
    ;;
  info)
    name=$(need_name "$@")
    pid=$(live_pid "$name") || die "info: instance '$name' is not running"
    echo "url=$(cat "$servers/$name.url")"
    echo "pid=$pid"
    echo "log=$servers/$name.log"
    echo "ca=$certs/ca.pem"
    if [ -f "$servers/$name.key" ]; then echo "key_file=$servers/$name.key"; else echo "key_file="; fi
    ;;
  install)
    (($# == 0)) || die "install takes no options"
    ensure_node_modules
    "$root/scripts/gen-certs.sh" "$certs" || die "install: gen-certs.sh failed"
    ;;
  -h|--help|help) usage ;;
  *) die "unknown command '$cmd' (start|stop|stop-all|url|info|install)" ;;
esac
