#!/usr/bin/env bash
# Points a sample's scheme.json at running servers. The samples' files load
# offline as they are (docshard route/validate/stats work on them): accounts
# "default" at https://localhost:8081 and "west" at https://localhost:8082,
# keys from DOCSHARD_SERVER_KEY. This writes a copy with the two endpoints
# replaced and the CA that signs the servers' certificates added.
#   scripts/render-sample-scheme.sh IN.json OUT.json URL_DEFAULT URL_WEST CA_FILE
set -euo pipefail
in=${1:?usage: render-sample-scheme.sh IN.json OUT.json URL_DEFAULT URL_WEST CA_FILE}
out=${2:?}; url_a=${3:?}; url_b=${4:?}; ca=${5:?}
sed -e "s|\"https://localhost:8081\"|\"$url_a\"|g" -e "s|\"https://localhost:8082\"|\"$url_b\"|g" \
    -e "s|\"keyEnv\": \"DOCSHARD_SERVER_KEY\"|\"keyEnv\": \"DOCSHARD_SERVER_KEY\", \"caFile\": \"$ca\"|g" \
    "$in" >"$out"
