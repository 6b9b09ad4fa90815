#!/usr/bin/env bash
# Builds the Debezium oracle harness (test/oracle: Debezium's embedded engine writing NDJSON, used by the
# differential tests and the benchmarks). Idempotent: a stamp of pom.xml + sources skips a rebuild, and Maven
# runs offline (-o) when its cache (~/.m2) already holds everything. Safe when several test processes start it
# at once: the build runs under an exclusive lock. Prints nothing on success unless it had to build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/test/oracle"
target="$dir/target"

for tool in java javac mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build-oracle: '$tool' not found; the Debezium oracle needs a JDK 17+ and Maven." >&2
    echo "build-oracle: fix: apt-get install -y openjdk-17-jdk-headless maven  (or: bash scripts/install-system-deps.sh as root)" >&2
    exit 1
  fi
done

mkdir -p "$target"
exec 9>"$target/.build.lock"
flock 9

stamp="$(cat "$dir/pom.xml" $(find "$dir/src" -type f | sort) | sha256sum | cut -d' ' -f1)"
if [[ -f "$target/.stamp" && "$(cat "$target/.stamp")" == "$stamp" && -f "$target/debezium-oracle-1.0.jar" ]]; then
  exit 0
fi

echo "build-oracle: building test/oracle (Debezium embedded harness)" >&2
rm -f "$target/.stamp"
rm -rf "$target/lib"
cd "$dir"
if ! mvn -q -B -o package >"$target/build-offline.log" 2>&1; then
  echo "build-oracle: Maven cache incomplete, resolving online (once per machine)" >&2
  if ! mvn -q -B package >"$target/build.log" 2>&1; then
    tail -40 "$target/build.log" >&2
    echo "build-oracle: Maven build failed (full log: $target/build.log)" >&2
    exit 1
  fi
fi
echo "$stamp" >"$target/.stamp"
