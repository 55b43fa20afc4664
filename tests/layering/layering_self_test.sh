#!/usr/bin/env bash
# check-layering.sh fails on a tree with back-edges and names them (file,
# line, edge), and passes on the same tree without them.
# Usage: layering_self_test.sh <path of check-layering.sh>
set -euo pipefail
check=${1:?check-layering.sh}
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/src/core "$tree"/src/client "$tree"/src/migration "$tree"/src/store \
  "$tree"/include/docshard/core "$tree"/include/docshard/client
printf '#pragma once\n' > "$tree"/include/docshard/client/partitioned_client.hpp
printf '#pragma once\n' > "$tree"/include/docshard/core/partition_key.hpp
printf '#pragma once\n' > "$tree"/src/client/merge_engine.hpp
printf '#pragma once\n' > "$tree"/src/migration/work_queue.hpp
printf '#include "docshard/core/partition_key.hpp"\n' > "$tree"/src/core/ok.cpp
printf '#include "docshard/core/partition_key.hpp"\n#include "merge_engine.hpp"\n' > "$tree"/src/client/ok.cpp
printf '#include "docshard/client/partitioned_client.hpp"\n' > "$tree"/src/store/ok.cpp

if ! out=$(bash "$check" "$tree" 2>&1); then
  echo "the clean tree failed:" >&2
  echo "$out" >&2
  exit 1
fi

printf '#include <string>\n#include "docshard/client/partitioned_client.hpp"\n' > "$tree"/src/core/bad.cpp
printf '#include "client/merge_engine.hpp"\n' > "$tree"/include/docshard/core/partition_key.hpp
printf '#include "migration/work_queue.hpp"\n' > "$tree"/src/store/sibling.cpp
printf '#pragma once\n' > "$tree"/include/docshard/not_in_table.hpp
mkdir -p "$tree"/include/docshard/nowhere
printf '#pragma once\n' > "$tree"/include/docshard/nowhere/not_a_layer.hpp
if out=$(bash "$check" "$tree" 2>&1); then
  echo "back-edges were not found:" >&2
  echo "$out" >&2
  exit 1
fi
status=0
for want in 'src/core/bad.cpp:2: core includes docshard/client/partitioned_client.hpp (client): core -> client' \
            'include/docshard/core/partition_key.hpp:1: core includes client/merge_engine.hpp (client): core -> client' \
            'src/store/sibling.cpp:1: store includes migration/work_queue.hpp (migration): store -> migration' \
            'include/docshard/not_in_table.hpp:1: public header not in the layer table' \
            'include/docshard/nowhere/not_a_layer.hpp:1: public header not in the layer table'; do
  if ! grep -qF -- "$want" <<< "$out"; then
    echo "missing from the report: $want" >&2
    status=1
  fi
done
if (( status != 0 )); then
  echo "$out" >&2
  exit 1
fi
echo "layering check: clean tree passes; 5 planted problems reported with file, line and edge"
