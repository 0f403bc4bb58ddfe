#!/usr/bin/env bash
# What idle live streams cost, measured on a release build started
# as the README starts it: IDLE_STREAMS (1,000) long unfinished Flower Fields
# games (about 265 events each), each read once, then one anonymous spectator
# stream at the head of each, spread over 127.0.X.Y source addresses so that
# the per-client cap (16) is not what is measured. Prints RSS before the
# streams, once open, after 35 s idle and after closing them, RSS per idle
# stream (target under 64 KiB), the service's CPU over 60 s idle with every
# stream open (target under 5 % of a core) and the memory charges of
# /metrics at each step. Not run by CI: the figures go to docs.
#
# Usage: scripts/idle-streams.sh   (UMPIRE_BIN=path, IDLE_STREAMS=N,
#        extra `umpire serve` arguments after --, e.g. -- --memory-budget 1GiB)
# Results: target/idle-streams/ (report.txt, server.log). Takes about 2 minutes.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OUT="${IDLE_STREAMS_RESULTS_DIR:-$REPO_ROOT/target/idle-streams}"
STREAMS="${IDLE_STREAMS:-1000}"
[[ "${1:-}" == -- ]] && shift
mkdir -p "$OUT"
ensure_apt curl curl
binary="$(umpire_binary release)"
make_work_dir
trap 'cleanup_keeping_log "$OUT"' EXIT

# Room for this many streams whatever the defaults: the instance's cap is
# not what is measured.
serve_args=(--max-streams "$((STREAMS + 16))" "$@")
games="$WORK_DIR/games.json"
start_server "$binary" "$WORK_DIR/data" "${serve_args[@]}"
python3 "$REPO_ROOT/scripts/abuse/idle_streams.py" import "$BASE_URL" "$binary" "$STREAMS" "$games"
# A fresh process: what the imports allocated is not measured.
stop_server
start_server "$binary" "$WORK_DIR/data" "${serve_args[@]}"
python3 "$REPO_ROOT/scripts/abuse/idle_streams.py" measure "$BASE_URL" "$SERVER_PID" "$games" \
    | tee "$OUT/report.txt"
