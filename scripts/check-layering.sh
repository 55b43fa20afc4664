#!/usr/bin/env bash
# The layering rule, checked over `#include` lines: a file may include headers
# of its own layer and of the layers below it, never of a layer above.
#   core < resolvers < http < cosmos < client < migration, store < tools
# (migration and store are siblings: neither includes the other). The build
# enforces the same order for private headers (each layer's objects see only
# src/<area> of its own and lower layers) and for symbols (a shared library
# per layer linked with --no-undefined); public headers all sit in one
# include directory, which only this check can police.
# Prints one line per offending edge: file:line: <layer> includes <header> (<layer>).
# Usage: check-layering.sh <source dir>
set -euo pipefail
root=${1:?source directory}
cd "$root"

# Where each public header of include/docshard/ (top level) lives. The
# subdirectories http/, cosmos/ and migration/ are their layers. A new
# top-level header must be added here (the check fails until it is).
declare -A public=(
  [atomic_file]=core [collection_ref]=core [config_node]=core [periodic_worker]=core [consistent_hash_ring]=core [errors]=core [export]=core
  [hash_generator]=core [json_value]=core [json_writer]=core [rapidjson_interop]=core [key_type]=core [logging]=core [metrics]=core [operation_diagnostics]=core [md5_hash_generator]=core [murmur3]=core [partition_key]=core
  [partition_key_path]=core [partition_resolver]=core [read_selector]=core [resolver_registry]=core
  [resolver_target]=core [resolver_visitor]=core [ring_ownership]=core [transition_state]=core [version]=core
  [builtin_resolvers]=resolvers [collection_template]=resolvers [hash_partition_resolver]=resolvers
  [lookup_partition_resolver]=resolvers [managed_hash_partition_resolver]=resolvers
  [partition_scheme]=resolvers [range_partition_resolver]=resolvers
  [spillover_partition_resolver]=resolvers [transition_partition_resolver]=resolvers
  [fan_out_query]=client [partitioned_client]=client [query_plan]=client [routing_trace]=client
  [managed_hash_collections]=store [scheme_store]=store [scheme_watcher]=store [spillover_manager]=store
  [docshard]=umbrella
)
declare -A rank=([core]=0 [resolvers]=1 [http]=2 [cosmos]=3 [client]=4 [migration]=5 [store]=5
                 [tools]=6 [umbrella]=6 [prometheus]=6)

# The layer of a repository path; empty when it is in none.
layer_of_path() {
  local p=$1
  case "$p" in
    src/*/*) local a=${p#src/}; echo "${a%%/*}" ;;
    resolvers/*) echo resolvers ;;
    tools/docshard/*) echo tools ;;
    include/docshard/http/*) echo http ;;
    include/docshard/cosmos/*) echo cosmos ;;
    include/docshard/migration/*) echo migration ;;
    include/docshard/*/*) echo "" ;;
    include/docshard/*) local n=${p#include/docshard/}; n=${n%.hpp}; echo "${public[$n]:-unlisted}" ;;
    *) echo "" ;;
  esac
}

# The layer of an included name, as written, from file $2.
layer_of_include() {
  local inc=$1 from=$2
  case "$inc" in
    docshard/*) layer_of_path "include/$inc" ;;
    core/* | http/* | cosmos/* | client/* | migration/* | store/*) layer_of_path "src/$inc" ;;
    */*) echo "" ;;
    *) # next to the including file
      if [[ -f "$(dirname "$from")/$inc" ]]; then layer_of_path "$(dirname "$from")/$inc"; else echo ""; fi ;;
  esac
}

dirs=()
for d in src resolvers include/docshard tools/docshard; do [[ -d "$d" ]] && dirs+=("$d"); done
files=$( { find "${dirs[@]}" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' \) \
           -not -path '*/node_modules/*'; } | sort)
bad=0
checked=0
while IFS= read -r f; do
  from=$(layer_of_path "$f")
  [[ -z "$from" ]] && continue
  if [[ "$from" == unlisted ]]; then
    echo "$f:1: public header not in the layer table of scripts/check-layering.sh"
    bad=$((bad + 1))
    continue
  fi
  checked=$((checked + 1))
  while IFS=: read -r line inc; do
    to=$(layer_of_include "$inc" "$f")
    [[ -z "$to" ]] && continue
    if [[ "$to" == unlisted ]]; then
      echo "$f:$line: includes $inc, a public header not in the layer table"
      bad=$((bad + 1))
    elif [[ "$to" != "$from" ]] && (( ${rank[$to]} >= ${rank[$from]} )); then
      echo "$f:$line: $from includes $inc ($to): $from -> $to is a back-edge"
      bad=$((bad + 1))
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$f" | sed -E 's/^([0-9]+):[^<"]*[<"]([^>"]+)[>"].*/\1:\2/')
done <<< "$files"
if (( bad > 0 )); then
  echo "layering: $bad offending include(s)" >&2
  exit 1
fi
echo "layering: $checked files, every include goes to the same or a lower layer"
