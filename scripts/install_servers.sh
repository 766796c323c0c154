#!/usr/bin/env bash
# Install what the server-backed tests need, idempotently (CI: fresh Debian machine, root; dev: mostly a no-op).
#   - PostgreSQL server binaries (apt `postgresql`) unless /usr/lib/postgresql/*/bin/initdb already exists
#   - a JDK (javac) and Maven (apt `default-jdk-headless maven`) unless already on PATH
#   - the Neo4j 5.26 jars + compiled launcher via scripts/fetch_neo4j.sh [neo4j_cache_dir]
# apt is only touched when something is missing, and `apt-get update` runs at most once, right before installing.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=()

if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    packages+=(postgresql)
fi
if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    packages+=(default-jdk-headless)
fi
if ! command -v mvn >/dev/null 2>&1; then
    packages+=(maven)
fi

if [ "${#packages[@]}" -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "install_servers: apt-get install ${packages[*]}" >&2
    if [[ " ${packages[*]} " == *" postgresql "* ]]; then
        # Tests run their own throwaway clusters; skip the distro's default 'main' cluster on port 5432
        # (same drop-in the official postgres Docker image uses; no conffile conflict).
        $sudo mkdir -p /etc/postgresql-common/createcluster.d
        echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/graphfeed-tests.conf >/dev/null
    fi
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${packages[@]}"
fi

"$repo/scripts/fetch_neo4j.sh" "$@"
