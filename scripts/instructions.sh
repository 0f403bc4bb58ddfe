#!/usr/bin/env bash
# Instructions the service executes per accepted action, counted by
# valgrind's callgrind: repeatable to ~0.2 % whatever else the machine is
# doing, unlike wall-clock load figures (±15 % between identical runs here).
# Use it to compare two builds of the action path:
#
#   scripts/instructions.sh                      # the current release build
#   UMPIRE_BIN=/tmp/umpire-before scripts/instructions.sh
#   CALLGRIND_KEEP=/tmp/action.out scripts/instructions.sh   # and keep the dump
#   STREAMS=1 SPECTATORS_ONLY=1 ACTIONS=400 scripts/instructions.sh   # streams, all spectators'
#   STREAMS=1 ACTIONS=400 scripts/instructions.sh   # and seats: the seats' share of deliveries
#   STREAMS=1 SPECTATORS_ONLY=1 SPECTATORS=8 ACTIONS=400 scripts/instructions.sh   # more watchers a game
#
# CALLGRIND_KEEP=PATH keeps the action path's dump at PATH and the stack
# ceiling's at PATH.ceiling; with STREAMS=1 also the streamed phase's at
# PATH.streams (and the idle interval taken off it at PATH.idle) and the
# stream ceiling's last run's (its
# quiet phase at PATH.stream-ceiling-quiet, followed at
# PATH.stream-ceiling), for `callgrind_annotate --inclusive=yes`.
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
# planned submissions (the same moves as those measured, in fresh games)
# is followed by two spectators and each of its seats
# (api/examples/stream_readers.rs, natively), those submissions replayed,
# and the instructions per action above the count without streams printed
# (less what the service does idle while the phase waits for its last
# deliveries), per action and per event delivered, and the part of it
# that renders each event once per viewer (what the streams cost the
# action path, without the machine's noise; the kernel's sends not seen);
# then the same events delivered to the same readers by the streams'
# ceiling (api/examples/stream_ceiling.rs: actix's SSE path writing each
# event once with serde when first read, no store, no redaction), and the
# ratio of the two per event delivered (the target: <= 1.5), and of the
# two without their rendering.
#
# Then the same for the stack's own ceiling (api/examples/stack_ceiling.rs:
# actix-web and the service's pool doing one event-sized INSERT per request,
# no rules) on the same cluster, and the ratio of the two (the target:
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
# Every reader of the stream figures comes from one address: no per-client
# or per-address cap on streams or connections.
start_server "$wrapper" "$WORK_DIR/data" --max-streams-per-client 100000 \
    --max-streams-per-address 100000 --max-connections-per-client 100000
here="$REPO_ROOT/scripts/load"
planned=$((WARM_UP + ACTIONS))
# With streams, the streamed phase replays the same moves as the measured
# one, a whole cycle of the plan later (scripts/load/driver.py: its 12
# recorded games, about 640 moves): what it costs more is the streams', not
# another mix of actions (the windows 400 lines apart differed by about
# 300 instructions per event delivered, either way).
MAX_CYCLE=1000
[[ -n "${STREAMS:-}" ]] && planned=$((WARM_UP + 2 * ACTIONS + MAX_CYCLE))
python3 "$here/driver.py" plan "$BASE_URL" "$WORK_DIR/plan-" --threads 1 \
    --actions-per-thread "$planned"
cycle="$(cat "$WORK_DIR/plan-cycle")"
(( cycle <= MAX_CYCLE )) || die "the plan repeats every $cycle lines, more than $MAX_CYCLE"
# The streamed window: the first line at or after the measured window's end
# that a whole number of cycles from its start.
streamed_from=$((WARM_UP + (ACTIONS + cycle - 1) / cycle * cycle))
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

# counted_instructions DUMP: the program's total from a callgrind dump.
counted_instructions() {
    local dump="$1"
    for _ in $(seq 50); do [[ -s "$dump" ]] && break; sleep 0.2; done
    callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

if [[ -n "${STREAMS:-}" ]]; then
    log "building the stream readers (api/examples/stream_readers.rs)"
    (cd "$REPO_ROOT" && cargo build --release -p umpire-api --features bench --example stream_readers >&2)
    readers="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/stream_readers"
    # SPECTATORS (2) spectators and every seat of each game the next
    # ACTIONS lines play (with SPECTATORS_ONLY=1, as many streams, all
    # spectators': the work the ceiling does, with no seat's redaction).
    # The lines between the two windows, played first and not counted: the
    # games the streamed window starts in the middle of stand where those
    # of the measured window stood.
    python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" $((WARM_UP + ACTIONS)) \
        $((streamed_from - WARM_UP - ACTIONS))
    python3 - "$WORK_DIR/plan-0.tsv" "$streamed_from" "$ACTIONS" "${SPECTATORS_ONLY:-}" \
        "${SPECTATORS:-2}" >"$WORK_DIR/follows" <<'PY'
import sys
plan, start, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spectators_only = sys.argv[4] == "1"
spectators = int(sys.argv[5])
tokens: dict[str, list[str]] = {}
with open(plan, encoding="utf-8") as lines:
    for line in lines.read().splitlines()[start:start + count]:
        path, token, _ = line.split("\t", 2)
        seats = tokens.setdefault(path.split("/")[3], [])
        if token not in seats:
            seats.append(token)
for game, seats in tokens.items():
    for token in ["-"] * spectators + seats:
        print(game, "-" if spectators_only else token, 0)
PY
    streams=$(wc -l <"$WORK_DIR/follows")
    mkfifo "$WORK_DIR/readers-control"
    "$readers" "$(sed -E 's#^http://([^:]+):.*#\1#' <<<"$BASE_URL")" "${BASE_URL##*:}" \
        <"$WORK_DIR/readers-control" >"$WORK_DIR/arrivals" &
    readers_pid=$!
    exec 3>"$WORK_DIR/readers-control"
    { cat "$WORK_DIR/follows"; echo; } >&3
    for _ in $(seq 2400); do grep -q '^ready$' "$WORK_DIR/arrivals" && break; sleep 0.5; done
    grep -q '^ready$' "$WORK_DIR/arrivals" || die "the $streams streams did not all open"
    # What the service does in the 20 s the streamed phase waits for its
    # last deliveries, whether streams are open or not (the timekeeper's
    # looks at due clocks, five a second; the pool's upkeep): counted in
    # that phase, and taken off it below. Measured with the streams open
    # and nothing played, so the heartbeats they are sent are counted too:
    # not a cost of the events delivered.
    callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
    sleep 20
    callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
    idle="$(counted_instructions "$out.$SERVER_PID.2")"
    [[ -n "${CALLGRIND_KEEP:-}" ]] && cp "$out.$SERVER_PID.2" "$CALLGRIND_KEEP.idle"
    callgrind_control -z "$SERVER_PID" >/dev/null 2>&1
    echo go >&3
    log "replaying $ACTIONS more submissions with $streams streams following their games"
    python3 "$here/replay.py" "$BASE_URL" "$WORK_DIR/plan-0.tsv" "$streamed_from" "$ACTIONS"
    sleep 20 # the last deliveries, slow under valgrind
    callgrind_control -d "$SERVER_PID" >/dev/null 2>&1
    echo stop >&3
    exec 3>&-
    wait "$readers_pid"
    delivered=$(grep -c -v -e '^ready$' -e '^end$' "$WORK_DIR/arrivals" || true)
    dump="$out.$SERVER_PID.3"
    for _ in $(seq 50); do [[ -s "$dump" ]] && break; sleep 0.2; done
    [[ -n "${CALLGRIND_KEEP:-}" ]] && cp "$dump" "$CALLGRIND_KEEP.streams"
    with_streams_and_idle="$(counted_instructions "$dump")"
    with_streams=$((with_streams_and_idle - idle))
    awk -v idle="$idle" -v n="$ACTIONS" 'BEGIN {
        printf "the service idle for 20 s with the streams open: %.0f instructions (%.0f per action), taken off\n", idle, idle / n }'
    awk -v with="$with_streams" -v without="$all" -v n="$ACTIONS" -v events="$delivered" -v streams="$streams" 'BEGIN {
        extra = (with - without) / n
        printf "instructions per action with %d streams following the games: %.0f, %.0f more than without\n", streams, with / n, extra
        printf "events delivered: %d (%.1f per action), %.0f instructions each\n", events, events / n, extra * n / events }'
    # How many of those went to seats' streams (each stream of a game
    # receives every event of it, a hidden one as its placeholder): beside
    # a SPECTATORS_ONLY=1 run of the same build, what a seat's redaction
    # costs per event it receives is the difference of the two runs'
    # instructions per delivery, divided by this share.
    seat_deliveries=$(awk 'NR == FNR { streams[$1]++; if ($2 != "-") seats[$1]++; next }
        NF == 3 { got[$1]++ }
        END { for (game in got) n += got[game] * seats[game] / streams[game]; printf "%.0f", n }' \
        "$WORK_DIR/follows" "$WORK_DIR/arrivals")
    if [[ "$seat_deliveries" != 0 ]]; then
        awk -v seats="$seat_deliveries" -v events="$delivered" 'BEGIN {
            printf "deliveries to seats: %d of %d (%.3f)\n", seats, events, seats / events }'
    fi
    stream_extra_per_event=$(awk -v with="$with_streams" -v without="$all" -v events="$delivered" \
        'BEGIN { printf "%.0f", (with - without) / events }')
    # Of that, the rendering: each event read and written once for each
    # viewer of its game's streams (`Cursor::page`, in the append's push or
    # a stream's own read), whatever the number of streams of that viewer;
    # the rest is what each delivery costs. The ceiling renders too (once
    # per event, with serde, when a stream first reads it), and its
    # rendering is split off the same way.
    stream_totals="$(callgrind_annotate --inclusive=yes "$dump" 2>/dev/null)"
    rendering="$(awk '/live::cursor::Cursor::page[^:]/ { gsub(",", "", $1); print $1; exit }' <<<"$stream_totals")"
    stream_delivery_per_event=$(awk -v extra="$stream_extra_per_event" -v rendering="${rendering:-0}" \
        -v events="$delivered" 'BEGIN { printf "%.0f", extra - rendering / events }')
    awk -v rendering="${rendering:-0}" -v events="$delivered" -v rest="$stream_delivery_per_event" 'BEGIN {
        printf "of which rendering once per viewer: %.0f per event delivered; the rest, per delivery: %.0f\n", rendering / events, rest }'

    # The streams' ceiling (api/examples/stream_ceiling.rs): the same SSE
    # framing over actix, handed each action's events decoded, written once
    # each with serde when first read (`RENDERED=0` in the environment: handed
    # them written, the thinner ceiling of stops before issue 48's "like
    # with like"), no store, no redaction. It is given what the streams above delivered:
    # each game's events of those submissions as a spectator reads them
    # (with the game and a status: the stream's message), one append per
    # submission (an action's events share their time), to the same
    # readers; and once more to games no one follows, so that what the
    # readers cost is the difference, as above.
    log "building the stream ceiling (api/examples/stream_ceiling.rs)"
    (cd "$REPO_ROOT" && cargo build --release -p umpire-api --features bench --example stream_ceiling >&2)
    python3 - "$BASE_URL" "$WORK_DIR/plan-0.tsv" "$streamed_from" "$ACTIONS" \
        "$WORK_DIR/stream-ceiling-" <<'PY'
import json
import sys
import urllib.request

base, plan, start, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lines = open(plan, encoding="utf-8").read().splitlines()[start:start + count]
games = [line.split("\t", 1)[0].split("/")[3] for line in lines]

def get(path):
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)

batches: dict[str, list[list[str]]] = {}
setup: dict[str, list[str]] = {}
for game in dict.fromkeys(games):
    status = get(f"/v1/games/{game}")["status"]
    events, after = [], 0
    while True:
        page = get(f"/v1/games/{game}/events?after={after}&limit=1000")
        events += page["events"]
        if page.get("next_after") is None:
            break
        after = page["next_after"]
    groups: list[list[str]] = []
    last_time = None
    for event in events:
        data = json.dumps({"game": page["game"], **event, "status": status},
                          separators=(",", ":"), ensure_ascii=False)
        if event["recorded_at"] != last_time:
            groups.append([])
            last_time = event["recorded_at"]
        groups[-1].append(data)
    played = games.count(game)
    setup[game] = [data for group in groups[:-played] for data in group]
    batches[game] = groups[-played:]

def line(game, events):
    return f"/v1/games/{game}/actions\t-\t" + json.dumps({"events": events}, separators=(",", ":"))

with open(out + "setup.tsv", "w", encoding="utf-8") as lines_out:
    for game, events in setup.items():
        lines_out.write(line(game, events) + "\n")
taken = {game: 0 for game in batches}
followed, quiet = [], []
for game in games:
    events = batches[game][taken[game]]
    taken[game] += 1
    followed.append(line(game, events))
    quiet.append(line(game + "-quiet", events))
open(out + "followed.tsv", "w", encoding="utf-8").write("\n".join(followed) + "\n")
open(out + "quiet.tsv", "w", encoding="utf-8").write("\n".join(quiet) + "\n")
PY
    # The ceiling's figure moves between runs of the same program (how many
    # events a wake-up finds together depends on timing under valgrind:
    # 2.9-3.3 k with its rendering), so it is run STREAM_CEILING_RUNS times
    # (5) and the ratio taken against the median.
    stream_ceiling_run() { # run number; prints the ceiling's instructions per event, and of them its rendering's
        local run=$1
        local stream_port stream_url stream_out stream_pid ceiling_readers_pid
        stream_port="$(free_port)"
        stream_url="http://127.0.0.1:$stream_port"
        stream_out="$WORK_DIR/callgrind-stream-ceiling-$run.out"
        valgrind --tool=callgrind --callgrind-out-file="$stream_out.%p" \
            "${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/stream_ceiling" "127.0.0.1:$stream_port" \
            >>"$WORK_DIR/stream-ceiling.log" 2>&1 &
        stream_pid=$!
        for _ in $(seq 300); do
            curl -s -o /dev/null --max-time 1 "$stream_url/" && break
            sleep 0.2
        done
        python3 "$here/replay.py" "$stream_url" "$WORK_DIR/stream-ceiling-setup.tsv" 0 \
            "$(wc -l <"$WORK_DIR/stream-ceiling-setup.tsv")" >&2
        mkfifo "$WORK_DIR/ceiling-readers-control-$run"
        "$readers" 127.0.0.1 "$stream_port" <"$WORK_DIR/ceiling-readers-control-$run" >"$WORK_DIR/ceiling-arrivals-$run" &
        ceiling_readers_pid=$!
        exec 4>"$WORK_DIR/ceiling-readers-control-$run"
        { cat "$WORK_DIR/follows"; echo; } >&4
        for _ in $(seq 2400); do grep -q '^ready$' "$WORK_DIR/ceiling-arrivals-$run" && break; sleep 0.5; done
        grep -q '^ready$' "$WORK_DIR/ceiling-arrivals-$run" || die "the stream ceiling's $streams streams did not all open"
        callgrind_control -z "$stream_pid" >/dev/null 2>&1
        python3 "$here/replay.py" "$stream_url" "$WORK_DIR/stream-ceiling-quiet.tsv" 0 "$ACTIONS" >&2
        callgrind_control -d "$stream_pid" >/dev/null 2>&1
        echo go >&4
        python3 "$here/replay.py" "$stream_url" "$WORK_DIR/stream-ceiling-followed.tsv" 0 "$ACTIONS" >&2
        sleep 20
        callgrind_control -d "$stream_pid" >/dev/null 2>&1
        echo stop >&4
        exec 4>&-
        wait "$ceiling_readers_pid"
        local ceiling_delivered ceiling_quiet ceiling_followed
        ceiling_delivered=$(grep -c -v -e '^ready$' -e '^end$' "$WORK_DIR/ceiling-arrivals-$run" || true)
        ceiling_quiet="$(counted_instructions "$stream_out.$stream_pid.1")"
        ceiling_followed="$(counted_instructions "$stream_out.$stream_pid.2")"
        if [[ -n "${CALLGRIND_KEEP:-}" ]]; then
            cp "$stream_out.$stream_pid.1" "$CALLGRIND_KEEP.stream-ceiling-quiet"
            cp "$stream_out.$stream_pid.2" "$CALLGRIND_KEEP.stream-ceiling"
        fi
        kill "$stream_pid" 2>/dev/null || true
        local ceiling_rendering
        ceiling_rendering="$(callgrind_annotate --inclusive=yes "$stream_out.$stream_pid.2" 2>/dev/null |
            awk '/stream_ceiling::render[^:]/ { gsub(",", "", $1); print $1; exit }')"
        awk -v quiet="$ceiling_quiet" -v followed="$ceiling_followed" -v events="$ceiling_delivered" \
            -v rendering="${ceiling_rendering:-0}" -v served="$delivered" -v run="$run" 'BEGIN {
            printf "stream ceiling, run %d: events delivered: %d (the service: %d), %.0f instructions each, of which rendering %.0f\n", run, events, served, (followed - quiet) / events, rendering / events > "/dev/stderr"
            printf "%.0f %.0f\n", (followed - quiet) / events, rendering / events }'
    }
    ceilings=()
    for run in $(seq "${STREAM_CEILING_RUNS:-5}"); do
        ceilings+=("$(stream_ceiling_run "$run")")
    done
    printf '%s\n' "${ceilings[@]}" | sort -n | awk -v service="$stream_extra_per_event" \
        -v delivery="$stream_delivery_per_event" '
        { figure[NR] = $1; rest[NR] = $1 - $2 }
        END {
            median = (NR % 2) ? figure[(NR + 1) / 2] : (figure[NR / 2] + figure[NR / 2 + 1]) / 2
            # The rest of the run whose total is the median.
            rest_median = (NR % 2) ? rest[(NR + 1) / 2] : (rest[NR / 2] + rest[NR / 2 + 1]) / 2
            printf "stream ceiling: %.0f instructions per event delivered (median of %d runs, %.0f-%.0f), of which rendering %.0f\n", median, NR, figure[1], figure[NR], median - rest_median
            printf "streams per event delivered / stream ceiling: %.2f (target <= 1.5; %.2f-%.2f over the runs)\n", service / median, service / figure[NR], service / figure[1]
            if (rest_median > 0) printf "the same without the rendering on either side: %.2f\n", delivery / rest_median }'
fi

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
[[ -n "${CALLGRIND_KEEP:-}" ]] && cp "$ceiling_out.$CEILING_PID.1" "$CALLGRIND_KEEP.ceiling"
kill "$CEILING_PID" 2>/dev/null || true
awk -v service="$all" -v sha="${sha:-0}" -v ceiling="$ceiling_all" -v n="$ACTIONS" 'BEGIN {
    printf "instructions per request of the stack ceiling: %.0f (%d requests)\n", ceiling / n, n
    printf "service per action / ceiling per request: %.2f in all, %.2f without SHA-256 compression (target <= 2.00)\n",
        service / ceiling, (service - sha) / ceiling }'
