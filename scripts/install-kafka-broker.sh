#!/usr/bin/env bash
# Fetches the Apache Kafka broker (KRaft) that the Kafka sink tests and benchmark run: Maven resolves the jars
# pinned in test/kafka-broker/pom.xml (downloaded once per machine into ~/.m2) and copies them into
# test/kafka-broker/lib/ (git-ignored). Idempotent (a stamp records the pom it was built from) and safe when
# several test processes call it at once (flock). Needs Java 17+ and Maven.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/test/kafka-broker"
lib="$dir/lib"
stamp_of() { sha256sum "$dir/pom.xml" | cut -d' ' -f1; }

for tool in java mvn flock; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-kafka-broker: '$tool' is missing; install openjdk-17-jre-headless, maven and util-linux (apt-get install -y openjdk-17-jre-headless maven util-linux)" >&2
    exit 1
  fi
done

want="$(stamp_of)"
[[ -f "$lib/.stamp" && "$(cat "$lib/.stamp")" == "$want" ]] && exit 0

exec 9>"$dir/.install.lock"
flock 9
# Another process may have finished while this one waited for the lock.
[[ -f "$lib/.stamp" && "$(cat "$lib/.stamp")" == "$want" ]] && exit 0

tmp="$dir/lib.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "install-kafka-broker: resolving the Kafka broker jars (test/kafka-broker/pom.xml)" >&2
if ! mvn -q -B -f "$dir/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" >&2; then
  echo "install-kafka-broker: Maven could not resolve the broker (see above); check network access to Maven Central" >&2
  exit 1
fi
ls "$tmp"/kafka_2.13-*.jar >/dev/null
echo "$want" >"$tmp/.stamp"
rm -rf "$lib"
mv "$tmp" "$lib"
trap - EXIT
echo "install-kafka-broker: broker jars in test/kafka-broker/lib" >&2
