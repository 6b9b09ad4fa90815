#!/usr/bin/env bash
# Installs the Debian packages the integration tests, demo and benchmarks need. Idempotent: a package is only
# installed when the command it provides is missing, and `apt-get update` only runs when something is missing.
# Extend by adding "<command-or-file-to-probe> <debian-package>" lines to DEPS.
set -euo pipefail

DEPS=(
  "mariadbd mariadb-server"
  "mariadb-binlog mariadb-client"
  "mariadb-install-db mariadb-server"
  "openssl openssl"
  # The Debezium oracle (test/oracle, built by scripts/build-oracle.sh) for the differential tests and benchmarks.
  "javac openjdk-17-jdk-headless"
  # The Kafka sink tests and bench run a real Apache Kafka broker (scripts/install-kafka-broker.sh fetches it).
  "java openjdk-17-jre-headless"
  "mvn maven"
)

# Tests replace the list (entries separated by ';') to exercise the locking with fake packages.
if [[ -n ${CDC_SYSTEM_DEPS-} ]]; then IFS=';' read -r -a DEPS <<<"$CDC_SYSTEM_DEPS"; fi

have() {
  local probe=$1
  if [[ $probe == /* ]]; then [[ -e $probe ]]; return; fi
  # mariadbd lives in /usr/sbin, which a non-root PATH may lack.
  command -v "$probe" >/dev/null 2>&1 || [[ -x /usr/sbin/$probe ]] || [[ -x /usr/bin/$probe ]]
}

find_missing() {
  missing=()
  for entry in "${DEPS[@]}"; do
    read -r probe pkg <<<"$entry"
    if ! have "$probe"; then
      [[ " ${missing[*]-} " == *" $pkg "* ]] || missing+=("$pkg")
    fi
  done
}

find_missing
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-system-deps: all system dependencies present"
  exit 0
fi

if [[ $(id -u) -eq 0 ]] && command -v flock >/dev/null 2>&1; then
  # Concurrent callers (test processes, the harness) install one at a time: a second dpkg would hit the dpkg lock.
  # Whoever gets the lock second finds the packages present and does nothing.
  exec 9>"${TMPDIR:-/tmp}/serverless-cdc-install-system-deps.lock"
  flock 9
  find_missing
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-system-deps: all system dependencies present (installed by a concurrent run)"
    exit 0
  fi
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-system-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-system-deps: run as root:  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Only refresh package lists when apt cannot find a candidate for a missing package (e.g. a fresh container).
for pkg in "${missing[@]}"; do
  if ! apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [^(]'; then
    apt-get update -q
    break
  fi
done
echo "install-system-deps: installing ${missing[*]}"
apt-get install -y -q --no-install-recommends "${missing[@]}"
