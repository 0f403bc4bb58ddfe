#!/usr/bin/env bash
# Live streams under load, on the release build and its private
# cluster: 1,000 streams on 200 games being played by 8 submitters.
# Prints accepted actions/s without and with the streams open, the server's
# memory per idle stream, and the time from each action's 201 answer to the
# arrival of its events at every stream that follows the game (p50, p99),
# and the CPU each process on the machine spent per accepted action.
# Figures: docs/benchmarks.md.
#
#   scripts/bench-streams.sh                  (STREAMS=1000 GAMES=200 SECONDS_PER_PHASE=3 CLIENTS=8 ROUNDS=3)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

binary="$(umpire_binary release)"
log "building the stream readers (api/examples/stream_readers.rs)"
(cd "$REPO_ROOT" && cargo build --release -p umpire-api --features bench --example stream_readers >&2)
readers="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/stream_readers"
make_work_dir
trap cleanup_work_dir EXIT
# One file descriptor per stream, and then some.
ulimit -n 8192 2>/dev/null || true
start_server "$binary" "$WORK_DIR/data" --max-streams "$((${STREAMS:-1000} + 100))"
log "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
python3 "$REPO_ROOT/scripts/load/streams.py" "$BASE_URL" "$SERVER_PID" \
    --games "${GAMES:-200}" --streams "${STREAMS:-1000}" \
    --seconds "${SECONDS_PER_PHASE:-3}" --clients "${CLIENTS:-8}" --rounds "${ROUNDS:-3}" \
    --readers "$readers"
