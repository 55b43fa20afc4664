#!/usr/bin/env bash
# The repository stands alone: no text file in it points at product documents
# or paths that live outside it (files named like the product's spec documents,
# a sibling "shared" directory, one machine's absolute paths). Generated
# benchmark output (bench/results) records where it ran and is left out.
# Usage: stands_alone_test.sh <source dir>
set -euo pipefail
root=${1:?source directory}
cd "$root"
# The patterns are split so that this file does not match itself.
spec='(RESOLVERS|BACKEND|CONFIG|CLI)\.'"md"
outside='\.\./'"shared/|shared/"'spec|/work/'"(main|wt|shared)"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git -C "$root" ls-files)
else
  files=$(find . -type f -not -path './.git/*' -not -path './build*' -not -path '*/node_modules/*' -not -path './.run/*' | sed 's|^\./||')
fi
hits=$(printf '%s\n' "$files" | grep -v '^bench/results/' | grep -v 'node_modules/' \
  | while IFS= read -r f; do [[ -f "$f" ]] && grep -IHnE "$spec|$outside" "$f" || true; done)
if [[ -n "$hits" ]]; then
  echo "references to files outside the repository:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "no reference to a file outside the repository in $(printf '%s\n' "$files" | wc -l) files"
