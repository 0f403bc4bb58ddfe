#!/usr/bin/env bash
# Who makes the 8-client p99 of a 500-event game's state read: the service or
# the load generator sharing its two cores? Runs the state read of
# scripts/load.sh (wrk, 8 connections) three ways, against the release build:
#
#   * as load.sh does: 8 wrk threads, one per connection;
#   * 1 wrk thread driving the same 8 connections (the generator's own CPU
#     and wakeups shrink, the service's work per request does not);
#   * 1 client, for reference;
#
# and beside each, the service's own view: the share of requests its
# handler took more than 5 ms and more than 25 ms over (from the
# umpire_http_requests_duration_seconds histogram on /metrics, read before
# and after each run). A client p99 far above what the handler takes, and
# one that falls when the generator is lighter, is time spent outside the
# service's handling.
#
#   scripts/state-latency.sh           (LOAD_SECONDS=15 per run)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

SECONDS_PER_RUN="${LOAD_SECONDS:-15}"
ensure_apt wrk wrk
binary="$(umpire_binary release)"
make_work_dir
trap cleanup_work_dir EXIT
start_server "$binary" "$WORK_DIR/data"
here="$REPO_ROOT/scripts/load"
field() { sed -n "s/.*[[:space:]]$1=\([0-9.]*\).*/\1/p" <<<"$2" | head -n 1; }

bucket() { handler_count "/v1/games/{id}/state" "$1"; }

log "building a 500-event game"
read -r game_id seat_token version < <(python3 "$here/driver.py" long-game "$BASE_URL" --events 500)
for run in "8 8" "1 8" "1 1"; do
    read -r threads connections <<<"$run"
    sync
    before_all="$(bucket '\+Inf')"; before_5="$(bucket 0.005)"; before_25="$(bucket 0.025)"
    output="$(wrk -t"$threads" -c"$connections" -d"${SECONDS_PER_RUN}s" --timeout 10s -s "$here/report.lua" \
        -H "Authorization: Bearer $seat_token" "$BASE_URL/v1/games/$game_id/state")"
    line="$(grep '^RESULT' <<<"$output")"
    all=$(($(bucket '\+Inf') - before_all)); under_5=$(($(bucket 0.005) - before_5)); under_25=$(($(bucket 0.025) - before_25))
    awk -v t="$threads" -v c="$connections" -v n="$(field requests "$line")" -v d="$(field duration_us "$line")" \
        -v p50="$(field p50_us "$line")" -v p99="$(field p99_us "$line")" -v all="$all" -v u5="$under_5" -v u25="$under_25" \
        -v events="$version" 'BEGIN {
        printf "state%d wrk_threads=%d connections=%d requests_per_s=%.0f client_p50_ms=%.2f client_p99_ms=%.2f handler_over_5ms=%.2f%% handler_over_25ms=%.2f%%\n",
            events, t, c, n / (d / 1e6), p50 / 1000, p99 / 1000, 100 * (all - u5) / all, 100 * (all - u25) / all }'
done
