#!/usr/bin/env bash
# The clock at scale, on the release build started as the README
# starts it: CLOCK_GAMES (100,000) Treeblox games with running clocks, made
# straight through the service layer (api/examples/clock_games.rs), their
# first deadlines spread evenly over a 60 s window that opens once they are
# all made. Prints:
#   - the service's CPU while every clock waits with nothing due (20 s, from
#     /proc; target < 2 % of a core);
#   - the timeouts recorded in the window, per second, and their lateness
#     (recorded_at − deadline, from the log itself) p50/p99/max (target p99
#     < 1 s), with the service's CPU per timeout;
#   - that each game got exactly its one timeout in the window.
# Not run by CI: the figures go to docs/benchmarks.md.
#
# Usage: scripts/bench-clock.sh   (UMPIRE_BIN=path, CLOCK_GAMES=N,
#        CLOCK_CREATE_SECONDS=seconds allowed for making the games)
# Results: target/bench-clock/ (report.txt, server.log).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OUT="${CLOCK_RESULTS_DIR:-$REPO_ROOT/target/bench-clock}"
GAMES="${CLOCK_GAMES:-100000}"
CREATE_SECONDS="${CLOCK_CREATE_SECONDS:-240}"
WINDOW_MS=60000
mkdir -p "$OUT"
ensure_apt curl curl
binary="$(umpire_binary release)"
log "building the games' maker (api/examples/clock_games.rs)"
(cd "$REPO_ROOT" && cargo build --release -q -p umpire-api --features bench --example clock_games >&2)
maker="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/clock_games"
make_work_dir
trap 'cleanup_keeping_log "$OUT"' EXIT

start_server "$binary" "$WORK_DIR/data"
export PGPASSFILE="$WORK_DIR/data/pgpass"
owner="$(cluster_url umpire umpire "$WORK_DIR/data" | sed 's/ password=[^ ]*//')"
service_url="$(cluster_url umpire_app umpire "$WORK_DIR/data")"
sql() { "$PG_BIN/psql" -X -q -t -A -d "$owner" -c "$1"; }

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER_PID/stat"; }
ticks_per_second="$(getconf CLK_TCK)"

now_ms() { date +%s%3N; }
window_start=$(( $(now_ms) + CREATE_SECONDS * 1000 ))
log "making $GAMES clocked games; their first deadlines fall in the 60 s from $(date -d @$((window_start / 1000)) +%T)"
DATABASE_URL="$service_url" "$maker" "$GAMES" "$window_start" "$WINDOW_MS" | tee "$OUT/report.txt"

# Every game's first look (each creation asks for one) done: nothing due.
while [[ "$(sql "SELECT count(*) FROM clock_checks WHERE check_at <= now()")" != 0 ]]; do sleep 1; done
waiting="$(sql "SELECT count(*) FROM clock_checks WHERE check_at > now()")"
left_ms=$(( window_start - $(now_ms) ))
(( left_ms > 25000 )) || die "the window opens in ${left_ms} ms: no room to measure the idle service (raise CLOCK_CREATE_SECONDS)"
before="$(cpu_ticks)"; sleep 20; after="$(cpu_ticks)"
idle_percent="$(python3 -c "print(f'{100 * ($after - $before) / $ticks_per_second / 20:.2f}')")"
echo "idle: $waiting clocks waiting, nothing due: the service used ${idle_percent} % of a core over 20 s (target < 2 %)" \
    | tee -a "$OUT/report.txt"

# The window: wait for it to close, and for the last timeout to land.
while (( $(now_ms) < window_start )); do sleep 0.5; done
before="$(cpu_ticks)"
while (( $(now_ms) < window_start + WINDOW_MS + 5000 )); do sleep 1; done
while [[ "$(sql "SELECT count(*) FROM clock_checks WHERE check_at <= now()")" != 0 ]]; do sleep 1; done
after="$(cpu_ticks)"
sql "
WITH timeouts AS (
    SELECT DISTINCT ON (game_id, decided_at) game_id, recorded_at,
           recorded_at - (action->>'deadline')::timestamptz AS late
    FROM events WHERE actor = 'clock' ORDER BY game_id, decided_at, seq
)
SELECT format('window: %s timeouts in %s s, %s a second; lateness p50 %s ms, p99 %s ms, max %s ms (target p99 < 1,000 ms); %s games timed out other than once',
    count(*),
    round(extract(epoch FROM max(recorded_at) - min(recorded_at))::numeric, 1),
    round(count(*) / greatest(extract(epoch FROM max(recorded_at) - min(recorded_at)), 0.001)::numeric),
    round((extract(epoch FROM percentile_cont(0.5) WITHIN GROUP (ORDER BY late)) * 1000)::numeric, 1),
    round((extract(epoch FROM percentile_cont(0.99) WITHIN GROUP (ORDER BY late)) * 1000)::numeric, 1),
    round((extract(epoch FROM max(late)) * 1000)::numeric, 1),
    (SELECT count(*) FROM (SELECT game_id FROM timeouts GROUP BY game_id HAVING count(*) <> 1) AS twice)
        + $GAMES - count(DISTINCT game_id))
FROM timeouts" | tee -a "$OUT/report.txt"
timeouts="$(sql "SELECT count(*) FROM events WHERE actor = 'clock'")"
python3 -c "print(f'firing: the service used {($after - $before) / $ticks_per_second:.1f} s of CPU, {1e6 * ($after - $before) / $ticks_per_second / max($timeouts, 1):.0f} µs a timeout')" \
    | tee -a "$OUT/report.txt"
curl -s "$BASE_URL/metrics" | grep -E '^umpire_clock_(timeouts_total|overtaken_total|timeout_lateness_seconds_(sum|count))' \
    | tee -a "$OUT/report.txt"
