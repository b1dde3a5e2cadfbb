#!/usr/bin/env bash
# Measures what a running rewind-server does when PostgreSQL stops and starts again: how long
# until /health says 503, how long a request takes while the database is down, and how long until
# /health says 200 once PostgreSQL accepts connections again (the server is never restarted).
# Run from the repository's root, after `cd Server && swift build`, on the script's cluster:
#   bash Server/scripts/with-postgres.sh bash Server/scripts/measure-outage.sh [ROUNDS]
# REWIND_SERVER_BIN names another build (Server/.build/release/rewind-server).
set -euo pipefail
: "${REWIND_TEST_PG_DATA:?run it under Server/scripts/with-postgres.sh (it stops and starts that cluster)}"
ROUNDS=${1:-5}
SERVER=${REWIND_SERVER_BIN:-Server/.build/debug/rewind-server}
RUN_AS=()
if [ "$(id -u)" = 0 ]; then RUN_AS=(runuser -u postgres --); fi
pg_ctl() {
    "${RUN_AS[@]}" "$REWIND_TEST_PG_BIN/pg_ctl" -D "$REWIND_TEST_PG_DATA" -l "$REWIND_TEST_PG_DATA/../measure.log" -w "$@" >/dev/null
}
LOG=$(mktemp)
DATABASE_URL=$REWIND_TEST_DATABASE_URL LOG_LEVEL=info "$SERVER" serve --port 0 2>"$LOG" &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -f "$LOG"' EXIT
PORT=""
while [ -z "$PORT" ]; do
    kill -0 "$SERVER_PID" || { cat "$LOG" >&2; exit 1; }
    PORT=$(grep -o 'port=[0-9]*' "$LOG" | head -n 1 | cut -d= -f2 || true)
    sleep 0.05
done
health() { curl -s -o /dev/null -w '%{http_code}' --max-time 120 "http://127.0.0.1:$PORT/health"; }
now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
echo "rewind-server on port $PORT ($SERVER); $ROUNDS rounds of pg_ctl -m immediate stop, then start"
for round in $(seq 1 "$ROUNDS"); do
    [ "$(health)" = 200 ] || { echo "round $round: /health is not 200 before the stop" >&2; exit 1; }
    stopping=$(now)
    pg_ctl -m immediate stop
    stopped=$(now)
    until [ "$(health)" = 503 ]; do :; done
    unavailable=$(now)
    down=$(curl -s -o /dev/null -w '%{http_code} in %{time_total} s' --max-time 120 "http://127.0.0.1:$PORT/health")
    starting=$(now)
    pg_ctl start -o "$REWIND_TEST_PG_START_OPTIONS"
    started=$(now)
    until [ "$(health)" = 200 ]; do :; done
    serving=$(now)
    echo "round $round: pg_ctl stop took $(ms "$stopping" "$stopped") ms; /health 503 $(ms "$stopping" "$unavailable") ms" \
        "after the stop began; while down /health answered $down; pg_ctl start took $(ms "$starting" "$started") ms;" \
        "/health 200 $(ms "$started" "$serving") ms after pg_ctl start returned"
done
