#!/usr/bin/env bash
# Instructions the service executes per accepted action, counted by
# valgrind's callgrind: repeatable to ~0.2 % whatever else the machine is
# doing, unlike wall-clock load figures (±15 % between identical runs here).
# Use it to compare two builds of the action path:
#
#   scripts/instructions.sh                      # the current release build
#   UMPIRE_BIN=/tmp/umpire-before scripts/instructions.sh
#
# It starts the service under callgrind (its PostgreSQL runs natively),
# plans games with scripts/load/driver.py, replays 200 submissions to warm
# the caches, zeroes the counters, replays ACTIONS more (one client, in
# order) and reads the totals. Prints instructions per action in all and
# without SHA-256's compression function: under valgrind sha2 runs its
# portable code, natively it uses the CPU's SHA extensions, so that part
# is mostly an artefact of the measurement.
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
python3 "$here/driver.py" plan "$BASE_URL" "$WORK_DIR/plan-" --threads 1 \
    --actions-per-thread $((WARM_UP + ACTIONS))
python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" 0 "$WARM_UP"
callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
log "replaying $ACTIONS submissions"
python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" "$WARM_UP" "$ACTIONS"
callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
dump="$out.$SERVER_PID.1"
for _ in $(seq 50); do [[ -s "$dump" ]] && break; sleep 0.2; done
totals="$(callgrind_annotate --inclusive=yes "$dump" 2>/dev/null)"
all="$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' <<<"$totals")"
sha="$(awk '/sha2::sha256::compress256/ { gsub(",", "", $1); print $1; exit }' <<<"$totals")"
awk -v all="$all" -v sha="${sha:-0}" -v n="$ACTIONS" -v bin="$binary" 'BEGIN {
    printf "instructions per action: %.0f in all, %.0f without SHA-256 compression (%s, %d actions)\n",
        all / n, (all - sha) / n, bin, n }'

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
