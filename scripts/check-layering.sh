#!/usr/bin/env bash
# The layering rule, checked over `#include` lines: a file may include headers
# of its own layer and of the layers below it, never of a layer above.
#   core < resolvers < http < cosmos < client < migration, store < tools
# (migration and store are siblings: neither includes the other). The build
# enforces the same order for private headers (each layer's objects see only
# src/<area> of its own and lower layers) and for symbols (a shared library
# per layer linked with --no-undefined); public headers sit in one include
# root (include/docshard/<area>/), which only this check can police.
# Prints one line per offending edge: file:line: <layer> includes <header> (<layer>).
# Usage: check-layering.sh <source dir>
set -euo pipefail
root=${1:?source directory}
cd "$root"

# Public headers: include/docshard/<area>/ is layer <area> (directory =
# layer = namespace, docs/architecture.md). At the top level sit only the
# headers of no area, listed here; a new one must be added (the check fails
# until it is), and a subdirectory that is not a layer is reported too.
declare -A toplevel=([export]=core [version]=core [rapidjson_interop]=core [docshard]=umbrella)
declare -A rank=([core]=0 [resolvers]=1 [http]=2 [cosmos]=3 [client]=4 [migration]=5 [store]=5
                 [tools]=6 [umbrella]=6 [prometheus]=6)

# The layer of a repository path; empty when it is in none.
layer_of_path() {
  local p=$1
  case "$p" in
    src/*/*) local a=${p#src/}; echo "${a%%/*}" ;;
    resolvers/*) echo resolvers ;;
    tools/docshard/*) echo tools ;;
    include/docshard/*/*)
      local a=${p#include/docshard/}; a=${a%%/*}
      if [[ -n "${rank[$a]:-}" && "$a" != umbrella && "$a" != tools ]]; then echo "$a"; else echo unlisted; fi ;;
    include/docshard/*) local n=${p#include/docshard/}; n=${n%.hpp}; echo "${toplevel[$n]:-unlisted}" ;;
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
