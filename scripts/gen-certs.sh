#!/usr/bin/env bash
# Generate the TLS material for the local test backend (throwaway, test-only).
# Usage: scripts/gen-certs.sh [DIR]   (default: ${DOCSHARD_RUN_DIR:-<repo>/.run}/certs)
#
# Idempotent: does nothing when DIR already holds a complete, unexpired set.
# Safe to run concurrently: an flock serialises generators, and the set is built
# in a temporary directory next to DIR and renamed into place.
#
# Files (all PEM; private keys mode 0600):
#   ca.pem, ca-key.pem                 test CA (the only CA clients should trust)
#   server.pem, server-key.pem         CA-signed, SAN DNS:localhost,IP:127.0.0.1
#   expired.pem, expired-key.pem       CA-signed, same SAN, validity 2020-2021 (expired)
#   wronghost.pem, wronghost-key.pem   CA-signed, SAN DNS:wrong.example only
#   selfsigned.pem, selfsigned-key.pem self-signed, SAN DNS:localhost,IP:127.0.0.1
#   other-ca.pem (+ other-ca-key.pem)  a second CA that nobody trusts
#   untrusted.pem, untrusted-key.pem   signed by other-ca, SAN DNS:localhost,IP:127.0.0.1
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
run_dir=${DOCSHARD_RUN_DIR:-$root/.run}
dir=${1:-$run_dir/certs}
# Bump when the set of files or their properties change: older sets are rebuilt.
SET_VERSION=1

die() { echo "gen-certs: $*" >&2; exit 1; }
command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"

complete() {
  local d=$1 f
  [ -f "$d/.complete" ] && [ "$(cat "$d/.complete" 2>/dev/null)" = "$SET_VERSION" ] || return 1
  for f in ca ca-key server server-key expired expired-key wronghost wronghost-key \
           selfsigned selfsigned-key other-ca untrusted untrusted-key; do
    [ -s "$d/$f.pem" ] || return 1
  done
  # Regenerate when the good certificates expire within a day.
  for f in ca server selfsigned untrusted wronghost other-ca; do
    openssl x509 -in "$d/$f.pem" -noout -checkend 86400 >/dev/null 2>&1 || return 1
  done
}

complete "$dir" && exit 0

parent=$(dirname "$dir")
mkdir -p "$parent" || die "cannot create $parent"
lock="$parent/.$(basename "$dir").lock"

generate() {
  local out=$1
  local serial
  ossl() {  # run openssl quietly; on failure show what it said
    local log
    if ! log=$(openssl "$@" 2>&1); then
      echo "$log" >&2
      die "openssl $1 failed (while generating ${step:-?})"
    fi
  }
  newserial() { echo "0x$(openssl rand -hex 16)"; }
  cat >"$out/ext.cnf" <<'EOF'
[ ca_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ leaf_good ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ leaf_wrong ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:wrong.example
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = placeholder
EOF
  local cfg="$out/ext.cnf"

  step="CA"
  ossl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -config "$cfg" \
    -subj "/O=docshard test/CN=docshard test CA" -extensions ca_ext \
    -keyout "$out/ca-key.pem" -out "$out/ca.pem"
  step="other CA"
  ossl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -config "$cfg" \
    -subj "/O=docshard test/CN=docshard UNTRUSTED CA" -extensions ca_ext \
    -keyout "$out/other-ca-key.pem" -out "$out/other-ca.pem"

  # leaf NAME CA-PREFIX EXT-SECTION CN
  leaf() {
    local name=$1 ca=$2 ext=$3 cn=$4
    step="$name"
    ossl req -new -newkey rsa:2048 -nodes -config "$cfg" -subj "/O=docshard test/CN=$cn" \
      -keyout "$out/$name-key.pem" -out "$out/$name.csr"
    ossl x509 -req -sha256 -days 825 -in "$out/$name.csr" -CA "$out/$ca.pem" \
      -CAkey "$out/$ca-key.pem" -set_serial "$(newserial)" -extfile "$cfg" -extensions "$ext" \
      -out "$out/$name.pem"
    rm -f "$out/$name.csr"
  }
  leaf server ca leaf_good localhost
  leaf wronghost ca leaf_wrong wrong.example
  leaf untrusted other-ca leaf_good localhost

  # Self-signed leaf with the right SAN.
  step="selfsigned"
  ossl req -x509 -newkey rsa:2048 -nodes -sha256 -days 825 -config "$cfg" \
    -subj "/O=docshard test/CN=localhost" -extensions leaf_good \
    -keyout "$out/selfsigned-key.pem" -out "$out/selfsigned.pem"

  # Expired: `openssl x509 -req` (3.0) cannot set dates in the past, `openssl ca` can.
  step="expired"
  mkdir -p "$out/ca-db"
  : >"$out/ca-db/index.txt"
  openssl rand -hex 16 >"$out/ca-db/serial"
  cat >"$out/ca-db/ca.cnf" <<EOF
[ ca ]
default_ca = ca_default
[ ca_default ]
database = $out/ca-db/index.txt
new_certs_dir = $out/ca-db
serial = $out/ca-db/serial
default_md = sha256
policy = pol
unique_subject = no
copy_extensions = none
[ pol ]
organizationName = optional
commonName = supplied
EOF
  ossl req -new -newkey rsa:2048 -nodes -config "$cfg" -subj "/O=docshard test/CN=localhost" \
    -keyout "$out/expired-key.pem" -out "$out/expired.csr"
  ossl ca -batch -notext -config "$out/ca-db/ca.cnf" -cert "$out/ca.pem" -keyfile "$out/ca-key.pem" \
    -startdate 20200101000000Z -enddate 20210101000000Z -extfile "$cfg" -extensions leaf_good \
    -in "$out/expired.csr" -out "$out/expired.pem"
  rm -rf "$out/ca-db" "$out/expired.csr" "$cfg"

  # Self-checks: the set must behave as its names say.
  step="verification"
  openssl verify -CAfile "$out/ca.pem" "$out/server.pem" >/dev/null 2>&1 ||
    die "server.pem does not verify against ca.pem"
  openssl verify -CAfile "$out/ca.pem" -verify_hostname localhost -verify_ip 127.0.0.1 \
    "$out/server.pem" >/dev/null 2>&1 || die "server.pem does not match localhost/127.0.0.1"
  ! openssl verify -CAfile "$out/ca.pem" "$out/expired.pem" >/dev/null 2>&1 ||
    die "expired.pem unexpectedly verifies"
  ! openssl verify -CAfile "$out/ca.pem" -verify_hostname localhost "$out/wronghost.pem" >/dev/null 2>&1 ||
    die "wronghost.pem unexpectedly matches localhost"
  ! openssl verify -CAfile "$out/ca.pem" "$out/untrusted.pem" >/dev/null 2>&1 ||
    die "untrusted.pem unexpectedly verifies against ca.pem"
  ! openssl verify -CAfile "$out/ca.pem" "$out/selfsigned.pem" >/dev/null 2>&1 ||
    die "selfsigned.pem unexpectedly verifies against ca.pem"

  chmod 0600 "$out"/*-key.pem
  chmod 0644 "$out"/ca.pem "$out"/server.pem "$out"/expired.pem "$out"/wronghost.pem \
    "$out"/selfsigned.pem "$out"/other-ca.pem "$out"/untrusted.pem
  echo "$SET_VERSION" >"$out/.complete"
}

# Serialise generators; the rename below keeps readers from seeing half a set
# even if flock is unavailable.
exec 9>"$lock"
if command -v flock >/dev/null; then
  flock -w 120 9 || die "timed out waiting for $lock"
fi
complete "$dir" && exit 0   # another process finished while we waited

tmp=$(mktemp -d "$parent/.certs-tmp.XXXXXX") || die "cannot create a temporary directory in $parent"
trap 'rm -rf "$tmp"' EXIT
generate "$tmp"
chmod 0755 "$tmp"
if [ -e "$dir" ]; then
  # Incomplete, stale or expired set: move it aside, then replace it.
  old="$parent/.certs-old.$$"
  mv "$dir" "$old" && rm -rf "$old"
fi
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
  complete "$dir" || die "could not install the certificate set into $dir"
fi
trap - EXIT
rm -rf "$tmp"
echo "gen-certs: wrote test certificates to $dir" >&2
