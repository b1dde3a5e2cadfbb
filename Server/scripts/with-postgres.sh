#!/usr/bin/env bash
# Runs CMD... with a throwaway PostgreSQL cluster, for the server's tests:
#   bash Server/scripts/with-postgres.sh swift test --skip-build
# The cluster is made by initdb in a temporary directory, listens on 127.0.0.1 only (its unix
# socket in that directory too), and is stopped and removed when CMD ends, however it ends.
# REWIND_PG_DURABLE=1 keeps PostgreSQL's durable defaults (the benchmarks); tests run without fsync.
# CMD gets its URL in REWIND_TEST_DATABASE_URL (user postgres, trust authentication, database
# postgres; each test creates a database of its own), the PostgreSQL binaries' directory in
# REWIND_TEST_PG_BIN and a directory in REWIND_TEST_PG_CLUSTERS (the fault tests make and restart
# clusters of their own there; they are stopped with this run's). A run killed before it could
# stop its clusters (SIGKILL, a cancelled CI job) is cleaned up by the next run. Debian's
# postgresql is installed when no initdb is found. PostgreSQL refuses to run as root, so as root
# the cluster runs as the `postgres` system user (created when missing).
set -euo pipefail

find_bin() {
    local initdb
    initdb=$(command -v initdb 2>/dev/null || true)
    if [ -z "$initdb" ]; then
        initdb=$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1 || true)
    fi
    if [ -n "$initdb" ]; then dirname "$(readlink -f "$initdb")"; fi
}

PG_BIN=$(find_bin)
if [ -z "$PG_BIN" ]; then
    echo "with-postgres: installing Debian's postgresql" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    PG_BIN=$(find_bin)
fi
if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/pg_ctl" ] || [ ! -x "$PG_BIN/postgres" ]; then
    echo "with-postgres: no initdb, pg_ctl and postgres found" >&2
    exit 1
fi

RUN_AS=()
if [ "$(id -u)" = 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
        useradd --system --user-group --home-dir /nonexistent --shell /usr/sbin/nologin postgres
    fi
    RUN_AS=(runuser -u postgres --)
fi

# Stops every cluster under the run directory $1 (its own in data/, the tests' own in clusters/*/)
# and removes the directory.
remove_run() {
    local data
    for data in "$1/data" "$1"/clusters/*/data; do
        if [ -f "$data/postmaster.pid" ]; then
            "${RUN_AS[@]}" "$PG_BIN/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$1" 2>/dev/null || true  # another user's run: not ours to remove
}

# A run killed without its trap (SIGKILL, a cancelled CI job) leaves its clusters running: each
# run directory names the script's process in `owner`, and one whose process is gone is removed.
for stale in /tmp/rewind-postgres.*; do
    [ -d "$stale" ] || continue
    owner=$(cat "$stale/owner" 2>/dev/null || true)
    # Alive: signalable, or listed in /proc (another user's process cannot be signalled).
    if [ -n "$owner" ] && { kill -0 "$owner" 2>/dev/null || [ -d "/proc/$owner" ]; }; then continue; fi
    if [ -z "$owner" ] && [ -z "$(find "$stale" -maxdepth 0 -mmin +60)" ]; then continue; fi  # starting
    echo "with-postgres: removing $stale (its run ended without stopping it)" >&2
    remove_run "$stale"
done

TMP=$(mktemp -d /tmp/rewind-postgres.XXXXXX)
echo $$ >"$TMP/owner"
# The tests' own clusters (PrivateCluster) are made here, so that they go with this run's.
mkdir "$TMP/clusters"
if [ "$(id -u)" = 0 ]; then chown postgres: "$TMP" "$TMP/clusters"; fi

stop() {
    remove_run "$TMP"
}
trap stop EXIT

"${RUN_AS[@]}" "$PG_BIN/initdb" -D "$TMP/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$TMP/initdb.log" 2>&1 \
    || { cat "$TMP/initdb.log" >&2; exit 1; }
# Tests need no durability (fsync off: faster on a shared disk); benchmarks ask for PostgreSQL's
# defaults (fsync and synchronous_commit on) with REWIND_PG_DURABLE=1.
SYNC_OPTIONS="-c fsync=off -c synchronous_commit=off"
if [ "${REWIND_PG_DURABLE:-0}" = 1 ]; then SYNC_OPTIONS="-c fsync=on -c synchronous_commit=on"; fi
# A free port on 127.0.0.1: the first in 54329-54420 where nothing answers and PostgreSQL can
# listen (another cluster may take a port between the probe and the start: the next one is tried).
PORT=""
for candidate in $(seq 54329 54420); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then continue; fi
    rm -f "$TMP/postgres.log"
    START_OPTIONS="-c listen_addresses=127.0.0.1 -p $candidate -k $TMP $SYNC_OPTIONS -c max_connections=300"
    if "${RUN_AS[@]}" "$PG_BIN/pg_ctl" -D "$TMP/data" -l "$TMP/postgres.log" -w -o "$START_OPTIONS" \
        start >/dev/null; then
        PORT=$candidate
        break
    fi
    grep -q "could not bind\|could not create any TCP/IP sockets" "$TMP/postgres.log" \
        || { cat "$TMP/postgres.log" >&2; exit 1; }
done
if [ -z "$PORT" ]; then echo "with-postgres: no free port in 54329-54420" >&2; exit 1; fi

export REWIND_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
# The binaries, for tests that make (and restart) a cluster of their own, and where to make it.
export REWIND_TEST_PG_BIN="$PG_BIN" REWIND_TEST_PG_CLUSTERS="$TMP/clusters"
# The cluster's data directory and start options, for a script that stops and starts it
# (scripts/measure-outage.sh; the tests restart clusters of their own, never this one).
export REWIND_TEST_PG_DATA="$TMP/data" REWIND_TEST_PG_START_OPTIONS="$START_OPTIONS"
echo "with-postgres: $("$PG_BIN/postgres" --version) on 127.0.0.1:$PORT ($TMP)" >&2
"$@"
