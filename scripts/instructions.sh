#!/usr/bin/env bash
# Instructions the service executes per accepted action, counted by
# valgrind's callgrind: repeatable to ~0.2 % whatever else the machine is
# doing, unlike wall-clock load figures (±15 % between identical runs here).
# Use it to compare two builds of the action path:
#
#   scripts/instructions.sh                      # the current release build
#   UMPIRE_BIN=/tmp/umpire-before scripts/instructions.sh
#   CALLGRIND_KEEP=/tmp/action.out scripts/instructions.sh   # and keep the dump
#
# It starts the service under callgrind (its PostgreSQL runs natively),
# plans games with scripts/load/driver.py, replays 200 submissions to warm
# the caches, zeroes the counters, replays ACTIONS more (one client, in
# order) and reads the totals. Prints instructions per action in all and
# without SHA-256's compression function: under valgrind sha2 runs its
# portable code, natively it uses the CPU's SHA extensions, so that part
# is mostly an artefact of the measurement.
#
# With STREAMS=1, then the live streams' cost: every game of ACTIONS more
# planned submissions is followed by two spectators and each of its seats
# (api/examples/stream_readers.rs, natively), those submissions replayed,
# and the instructions per action above the count without streams printed,
# per action and per event delivered (issue 16: what the streams cost the
# action path, without the machine's noise; the kernel's sends not seen).
#
# Then the same for the stack's own ceiling (api/examples/stack_ceiling.rs:
# actix-web and the service's pool doing one event-sized INSERT per request,
# no rules) on the same cluster, and the ratio of the two (issue 20's target:
# instructions per accepted action <= 2 x the ceiling's per request).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ACTIONS="${ACTIONS:-1000}"
WARM_UP=200
ensure_apt valgrind valgrind
binary="$(umpire_binary release)"
make_work_dir
trap cleanup_work_dir EXIT
out="$WORK_DIR/callgrind.out"
wrapper="$WORK_DIR/umpire-under-callgrind"
printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s.%%p %s "$@"\n' \
    "$out" "$binary" >"$wrapper"
chmod +x "$wrapper"
log "starting $binary under callgrind (slow)"
start_server "$wrapper" "$WORK_DIR/data"
here="$REPO_ROOT/scripts/load"
planned=$((WARM_UP + ACTIONS))
[[ -n "${STREAMS:-}" ]] && planned=$((WARM_UP + 2 * ACTIONS))
python3 "$here/driver.py" plan "$BASE_URL" "$WORK_DIR/plan-" --threads 1 \
    --actions-per-thread "$planned"
python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" 0 "$WARM_UP"
callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
log "replaying $ACTIONS submissions"
python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" "$WARM_UP" "$ACTIONS"
callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
dump="$out.$SERVER_PID.1"
for _ in $(seq 50); do [[ -s "$dump" ]] && break; sleep 0.2; done
# CALLGRIND_KEEP=PATH keeps the action path's dump there, for callgrind_annotate.
[[ -n "${CALLGRIND_KEEP:-}" ]] && cp "$dump" "$CALLGRIND_KEEP"
totals="$(callgrind_annotate --inclusive=yes "$dump" 2>/dev/null)"
all="$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' <<<"$totals")"
sha="$(awk '/sha2::sha256::compress256/ { gsub(",", "", $1); print $1; exit }' <<<"$totals")"
awk -v all="$all" -v sha="${sha:-0}" -v n="$ACTIONS" -v bin="$binary" 'BEGIN {
    printf "instructions per action: %.0f in all, %.0f without SHA-256 compression (%s, %d actions)\n",
        all / n, (all - sha) / n, bin, n }'

if [[ -n "${STREAMS:-}" ]]; then
    log "building the stream readers (api/examples/stream_readers.rs)"
    (cd "$REPO_ROOT" && cargo build --release -p umpire-api --example stream_readers >&2)
    readers="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/stream_readers"
    # Two spectators and every seat of each game the next ACTIONS lines play.
    python3 - "$WORK_DIR/plan-0.tsv" $((WARM_UP + ACTIONS)) "$ACTIONS" >"$WORK_DIR/follows" <<'PY'
import sys
plan, start, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tokens: dict[str, list[str]] = {}
with open(plan, encoding="utf-8") as lines:
    for line in lines.read().splitlines()[start:start + count]:
        path, token, _ = line.split("\t", 2)
        seats = tokens.setdefault(path.split("/")[3], [])
        if token not in seats:
            seats.append(token)
for game, seats in tokens.items():
    for token in ["-", "-", *seats]:
        print(game, token, 0)
PY
    streams=$(wc -l <"$WORK_DIR/follows")
    mkfifo "$WORK_DIR/readers-control"
    "$readers" "$(sed -E 's#^http://([^:]+):.*#\1#' <<<"$BASE_URL")" "${BASE_URL##*:}" \
        <"$WORK_DIR/readers-control" >"$WORK_DIR/arrivals" &
    readers_pid=$!
    exec 3>"$WORK_DIR/readers-control"
    { cat "$WORK_DIR/follows"; echo; } >&3
    for _ in $(seq 600); do grep -q '^ready$' "$WORK_DIR/arrivals" && break; sleep 0.5; done
    grep -q '^ready$' "$WORK_DIR/arrivals" || die "the $streams streams did not all open"
    callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
    echo go >&3
    log "replaying $ACTIONS more submissions with $streams streams following their games"
    python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" $((WARM_UP + ACTIONS)) "$ACTIONS"
    sleep 5 # the last deliveries, slow under valgrind
    callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
    echo stop >&3
    exec 3>&-
    wait "$readers_pid"
    delivered=$(grep -c -v -e '^ready$' -e '^end$' "$WORK_DIR/arrivals" || true)
    dump="$out.$SERVER_PID.2"
    for _ in $(seq 50); do [[ -s "$dump" ]] && break; sleep 0.2; done
    with_streams="$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')"
    awk -v with="$with_streams" -v without="$all" -v n="$ACTIONS" -v events="$delivered" -v streams="$streams" 'BEGIN {
        extra = (with - without) / n
        printf "instructions per action with %d streams following the games: %.0f, %.0f more than without\n", streams, with / n, extra
        printf "events delivered: %d (%.1f per action), %.0f instructions each\n", events, events / n, extra * n / events }'
fi

# counted_instructions DUMP: the program's total from a callgrind dump.
counted_instructions() {
    local dump="$1"
    for _ in $(seq 50); do [[ -s "$dump" ]] && break; sleep 0.2; done
    callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

export PGPASSFILE="$WORK_DIR/data/pgpass"
psql_admin() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK_DIR/data/socket" -U umpire "$@"; }
psql_admin -d postgres -c "CREATE DATABASE pgbench_events"
psql_admin -d pgbench_events -f "$here/pgbench-schema.sql"
ceiling_out="$WORK_DIR/callgrind-ceiling.out"
start_stack_ceiling pgbench_events valgrind --tool=callgrind --callgrind-out-file="$ceiling_out.%p"
trap 'kill "$CEILING_PID" 2>/dev/null || true; cleanup_work_dir' EXIT
# The ceiling's request body is the one scripts/load/insert.lua sends.
body="$(sed -n 's/^wrk.body = \[\[\(.*\)\]\]$/\1/p' "$here/insert.lua")"
[[ -n "$body" ]] || die "no request body found in insert.lua"
for _ in $(seq $((WARM_UP + ACTIONS))); do printf '/insert\t-\t%s\n' "$body"; done >"$WORK_DIR/ceiling.tsv"
python3 "$here/replay.py" "$CEILING_URL" "$WORK_DIR/ceiling.tsv" 0 "$WARM_UP"
callgrind_control -z "$CEILING_PID" >/dev/null 2>&1
log "replaying $ACTIONS inserts through the stack ceiling"
python3 "$here/replay.py" "$CEILING_URL" "$WORK_DIR/ceiling.tsv" "$WARM_UP" "$ACTIONS"
callgrind_control -d "$CEILING_PID" >/dev/null 2>&1
ceiling_all="$(counted_instructions "$ceiling_out.$CEILING_PID.1")"
kill "$CEILING_PID" 2>/dev/null || true
awk -v service="$all" -v sha="${sha:-0}" -v ceiling="$ceiling_all" -v n="$ACTIONS" 'BEGIN {
    printf "instructions per request of the stack ceiling: %.0f (%d requests)\n", ceiling / n, n
    printf "service per action / ceiling per request: %.2f in all, %.2f without SHA-256 compression (target <= 2.00)\n",
        service / ceiling, (service - sha) / ceiling }'
