#!/usr/bin/env bash
# Style checks: clang-format (every C++ file, .clang-format) and clang-tidy
# (.clang-tidy) over the library, resolvers and tools, from a compile database
# of their own (a clang-14 configure in build-lint; nothing is compiled).
# CI runs both (scripts/test.sh).
#   scripts/lint.sh [format|tidy|all]     (default all)
#   scripts/lint.sh fix                   reformat every C++ file in place
#   Env: DOCSHARD_LINT_BUILD_DIR (build-lint), DOCSHARD_JOBS (2),
#        DOCSHARD_TIDY_FILES  regex of the files clang-tidy checks
#                             (default: src/, resolvers/, tools/ sources).
# Exit 1 on any format difference or clang-tidy finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
jobs=${DOCSHARD_JOBS:-2}
build=${DOCSHARD_LINT_BUILD_DIR:-$root/build-lint}
cd "$root"

for tool in clang-format-14 clang-tidy-14 run-clang-tidy-14; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (scripts/setup.sh installs it)" >&2; exit 2; }
done

cxx_files() {  # every C++ file of the repository (not node_modules)
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -- '*.cpp' '*.hpp' '*.h' ':!:**/node_modules/**'
  else
    find bench include resolvers samples src tests tools -name node_modules -prune -o \
      \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print
  fi
}

rc=0
if [ "$what" = fix ]; then
  cxx_files | xargs -r clang-format-14 -i --style=file
  exit 0
fi

if [ "$what" = format ] || [ "$what" = all ]; then
  start=$SECONDS
  # --dry-run --Werror: a file that would change is an error, with the lines.
  if ! cxx_files | xargs -r clang-format-14 --dry-run --Werror --style=file 2>"$root/.lint-format.log"; then
    head -n 60 "$root/.lint-format.log" >&2
    echo "lint: clang-format: $(grep -c 'error:' "$root/.lint-format.log") place(s) differ in" \
      "$(grep -oE '^[^:]+' "$root/.lint-format.log" | sort -u | wc -l) file(s); scripts/lint.sh fix reformats" >&2
    rc=1
  else
    echo "lint: clang-format clean ($(cxx_files | wc -l) files, $((SECONDS - start)) s)"
  fi
  rm -f "$root/.lint-format.log"
fi

if [ "$what" = tidy ] || [ "$what" = all ]; then
  start=$SECONDS
  # clang-14's view of the flags (g++-only warning options would be errors).
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DDOCSHARD_BUILD_TESTS=OFF -DDOCSHARD_BUILD_SAMPLES=OFF >/dev/null
  files=${DOCSHARD_TIDY_FILES:-"^$root/(src|resolvers|tools)/.*\\.cpp\$"}
  # run-clang-tidy exits non-zero when any file has a finding (WarningsAsErrors).
  # (sed: clang-tidy colours its output even into a file.)
  if ! run-clang-tidy-14 -p "$build" -j "$jobs" -quiet "$files" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >"$build/clang-tidy.log" \
    || grep -qE '(error|warning): ' "$build/clang-tidy.log"; then
    grep -E '(error|warning): ' "$build/clang-tidy.log" | sort -u | head -n 80 >&2
    echo "lint: clang-tidy: $(grep -E 'error: ' "$build/clang-tidy.log" | sort -u | wc -l) finding(s); log $build/clang-tidy.log" >&2
    rc=1
  else
    # The files checked: those of the compile database that the regex selects.
    checked=$(sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$build/compile_commands.json" | sort -u | grep -cE "$files" || true)
    echo "lint: clang-tidy clean ($checked files, $((SECONDS - start)) s)"
  fi
fi
exit $rc
