#!/usr/bin/env bash
# One Between Flower Fields game watched by STREAMS spectators (10,000) and
# its five seats, one action a second for SECONDS (120), on the release
# build and its private cluster: the delivery time from each action's answer
# to each stream (p50, p99), the service's CPU per event delivered (from
# /proc) and its RSS per stream. Figures: docs/benchmarks.md.
#
#   scripts/measure bench fanout      (STREAMS=10000 SECONDS_TO_PLAY=120 INTERVAL=1)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

streams="${STREAMS:-10000}"
binary="$(umpire_binary release)"
log "building the stream readers (api/examples/stream_readers.rs)"
(cd "$REPO_ROOT" && cargo build --release -p umpire-api --features bench --example stream_readers >&2)
readers="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/stream_readers"
make_work_dir
trap 'stop_server; cleanup_work_dir' EXIT
# A descriptor per stream on either side, and then some.
ulimit -n $((2 * streams + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"
# Every stream comes from this one address: the per-client caps lifted. A
# connection is charged 48 KiB of the memory budget (what one that pipelines
# without reading may hold), so the default 512 MiB admits about 9,000:
# MEMORY_BUDGET (2GiB) leaves room for the streams asked for.
start_server "$binary" "$WORK_DIR/data" --memory-budget "${MEMORY_BUDGET:-2GiB}" \
    --max-streams "$((streams + 100))" --max-streams-per-client "$((streams + 100))" \
    --max-streams-per-address "$((streams + 100))" \
    --max-connections "$((streams + 200))" --max-connections-per-client "$((streams + 200))"
log "load average before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, ulimit -n $(ulimit -n)"
python3 "$REPO_ROOT/scripts/load/fanout.py" "$BASE_URL" "$SERVER_PID" --readers "$readers" \
    --streams "$streams" --seconds "${SECONDS_TO_PLAY:-120}" --interval "${INTERVAL:-1}"
log "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
