#!/bin/sh
# Makes the certificates deploy/docker-compose.yml mounts at /tls: a cluster CA, etcd's certificate
# (server and peer), the shards' (role spiffe://mailcue/shard) and the fronts' (role
# spiffe://mailcue/front). Every process speaks mutual TLS with them: etcd requires a client
# certificate of the CA, a shard requires one too and serves a front only front commands.
#   sh deploy/make-certs.sh deploy/tls        # needs the openssl CLI; run once, keep the CA key safe
# Certificates last 825 days; run again (into an empty directory) to renew them all.
set -eu
dir=${1:-deploy/tls}
days=${MAILCUE_CERT_DAYS:-825}
mkdir -p "$dir"
cd "$dir"
if [ -e ca.key ]; then echo "make-certs: $dir already holds a CA; use an empty directory" >&2; exit 1; fi
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" -subj /CN=mailcue-ca -keyout ca.key -out ca.crt 2>/dev/null
# leaf NAME SAN: a key and a certificate for server and client use, signed by the CA.
leaf() {
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' "$2" > "$1.ext"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days "$days" -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
local_names=DNS:localhost,IP:127.0.0.1
leaf etcd "DNS:etcd,$local_names"
leaf shard "URI:spiffe://mailcue/shard,DNS:shard-0,DNS:shard-1,DNS:shard-2,$local_names"
leaf front "URI:spiffe://mailcue/front,$local_names"
# The containers run as uid 1000 and read the keys through a read-only bind mount.
chmod 0644 ./*.crt
chmod 0640 ./*.key
rm -f ca.srl
echo "make-certs: wrote ca, etcd, shard and front certificates to $dir (ca.key signs new ones: keep it off the hosts)"
