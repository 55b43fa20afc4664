# Sourced by the benchmark scripts (bench.sh, bench-client.sh, bench-fanout.sh,
# bench-observe.sh, bench-arcs.sh, bench-migrate.sh, bench-verify.sh):
# the Release benchmark build and local servers that stop when the script
# exits. The caller sets `root`, `build` and `bench_name` (the prefix of its
# messages, logs and server names) and defines log() before sourcing.

# TARGET...: configures $build (Release, benchmarks on, no tests or samples)
# and builds the targets.
bench_build() {
  log "building Release tree in $build"
  mkdir -p "$build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDOCSHARD_BUILD_BENCH=ON \
        -DDOCSHARD_BUILD_TESTS=OFF -DDOCSHARD_BUILD_SAMPLES=OFF >"$build/$bench_name-configure.log" 2>&1 \
    || { cat "$build/$bench_name-configure.log" >&2; exit 1; }
  cmake --build "$build" --target "$@" -j"${DOCSHARD_JOBS:-2}" >&2
}

# Sets srv, run_dir, ca and a temporary directory $tmp; on exit, stops every
# server start_server started and removes $tmp. server_pin (a command prefix,
# e.g. taskset -c 0) and server_args (options for every server) may be set
# before start_server is called.
bench_servers_begin() {
  srv=$root/scripts/cosmos-server.sh
  run_dir=${DOCSHARD_RUN_DIR:-$root/.run}
  ca=$run_dir/certs/ca.pem
  prefix=$bench_name-$$
  started=()
  tmp=$(mktemp -d)
  trap bench_servers_cleanup EXIT
}

bench_servers_cleanup() {
  local n
  for n in "${started[@]}"; do "$srv" stop --name "$n" >/dev/null 2>&1 || true; done
  rm -rf "$tmp"
}

# NAME [start options...]: starts a server on 127.0.0.1; sets URL and KEYFILE.
start_server() {
  local name=$prefix-$1
  shift
  local pin=() args=()
  if declare -p server_pin >/dev/null 2>&1; then pin=("${server_pin[@]}"); fi
  if declare -p server_args >/dev/null 2>&1; then args=("${server_args[@]}"); fi
  URL=$("${pin[@]}" "$srv" start --name "$name" "${args[@]}" "$@")
  started+=("$name")
  KEYFILE=$run_dir/servers/$name.key
  [[ $URL =~ ^https://127\.0\.0\.1:[0-9]+$ ]] || { echo "$bench_name: unexpected server URL '$URL'" >&2; exit 1; }
}
