#!/usr/bin/env bash
# Fetch the Neo4j 5.26 jars (Maven Central), build the test launcher and a class-data-sharing archive, idempotently.
#
#   scripts/fetch_neo4j.sh [cache_dir]      default: $GRAPHFEED_NEO4J_HOME or ~/.cache/graphfeed/neo4j-5.26
#
# Layout:  <cache>/jars/*.jar                    mvn dependency:copy-dependencies of tests/servers/neo4j/pom.xml
#          <cache>/launcher/neo4j-launcher.jar   compiled Neo4jLauncher.java (a jar, because CDS rejects class dirs)
#          <cache>/neo4j.jsa                     AppCDS archive from one start/stop: about 30% less start-up CPU
#          <cache>/*.stamp                       sha256 of the inputs each step was built from
# A stamp is written only after its step succeeded and each step builds into a temp path renamed into place,
# so an interrupted run is simply redone; a changed pom, launcher, JVM options or JDK triggers the affected steps.
# GRAPHFEED_NEO4J_CDS=0 skips the archive (start-up then just takes longer).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$repo/tests/servers/neo4j"
cache="${1:-${GRAPHFEED_NEO4J_HOME:-$HOME/.cache/graphfeed/neo4j-5.26}}"

need() { command -v "$1" >/dev/null 2>&1 || { echo "fetch_neo4j: '$1' not found (run scripts/install_servers.sh)" >&2; exit 1; }; }
hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }
is_current() { [ -e "$cache/$1" ] && [ -f "$cache/$1.stamp" ] && [ "$(cat "$cache/$1.stamp")" = "$2" ]; }
jvm_options() { grep -v -e '^#' -e '^[[:space:]]*$' "$src/jvm.options"; }

mkdir -p "$cache"
# One fetch at a time per cache (parallel pytest workers may all call this).
exec 9>"$cache/.lock"
flock 9
tmp=""
trap 'if [ -n "$tmp" ]; then rm -rf "$tmp"; fi' EXIT

jars_stamp="$(hash_of "$src/pom.xml")"
if ! is_current jars "$jars_stamp"; then
    need mvn
    echo "fetch_neo4j: downloading jars into $cache/jars" >&2
    tmp="$(mktemp -d "$cache/jars.tmp.XXXXXX")"
    mvn -q -B -Dstyle.color=never -f "$src/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" >&2
    ls "$tmp"/neo4j-bolt-*.jar "$tmp"/neo4j-kernel-*.jar >/dev/null  # sanity: the parts we start
    rm -rf "$cache/jars" "$cache"/*.stamp
    mv "$tmp" "$cache/jars"; tmp=""
    echo "$jars_stamp" > "$cache/jars.stamp"
fi

launcher_stamp="$(hash_of "$src/Neo4jLauncher.java" "$cache/jars.stamp")"
if ! is_current launcher "$launcher_stamp"; then
    need javac
    tmp="$(mktemp -d "$cache/launcher.tmp.XXXXXX")"
    javac -nowarn -d "$tmp/classes" -cp "$cache/jars/*" "$src/Neo4jLauncher.java"
    jar cf "$tmp/neo4j-launcher.jar" -C "$tmp/classes" .
    rm -rf "$tmp/classes" "$cache/launcher"
    mv "$tmp" "$cache/launcher"; tmp=""
    echo "$launcher_stamp" > "$cache/launcher.stamp"
fi

if [ "${GRAPHFEED_NEO4J_CDS:-1}" != "0" ]; then
    java_version="$(java -Xshare:off -version 2>&1 | tr -d '\n')"
    cds_stamp="$(hash_of "$src/jvm.options" "$cache/launcher.stamp" <(echo "$java_version"))"
    if ! is_current neo4j.jsa "$cds_stamp"; then
        echo "fetch_neo4j: building class-data-sharing archive (one Neo4j start/stop)" >&2
        tmp="$(mktemp -d "$cache/cds.tmp.XXXXXX")"
        rm -f "$cache/neo4j.jsa" "$cache/neo4j.jsa.stamp"
        # stdin at EOF: the launcher stops right after READY; the archive is written at JVM exit.
        mapfile -t opts < <(jvm_options)
        if GRAPHFEED_NEO4J_PASSWORD="$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')" \
            java "${opts[@]}" -XX:ArchiveClassesAtExit="$tmp/neo4j.jsa" \
                -cp "$cache/jars/*:$cache/launcher/neo4j-launcher.jar" Neo4jLauncher "$tmp/data" 0 \
                </dev/null >"$tmp/cds.log" 2>&1 && [ -s "$tmp/neo4j.jsa" ]; then
            mv "$tmp/neo4j.jsa" "$cache/neo4j.jsa"
            echo "$cds_stamp" > "$cache/neo4j.jsa.stamp"
        else
            echo "fetch_neo4j: CDS archive not built (start-up will be slower); log tail:" >&2
            tail -n 20 "$tmp/cds.log" >&2 || true
        fi
        rm -rf "$tmp"; tmp=""
    fi
fi

echo "$cache"
