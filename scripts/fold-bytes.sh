#!/usr/bin/env bash
# What the fold cache charges the memory budget against what it costs the
# process: N simulated Flower Fields games (default 300) imported, the
# service restarted, then each game's state read once; prints the charged
# `folds` bytes beside the growth of the service's RSS (docs/benchmarks.md,
# "The memory budget"). Usage: scripts/fold-bytes.sh   (N=1000 for more)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
N="${N:-300}"
binary="$(umpire_binary "${UMPIRE_PROFILE:-release}")"
make_work_dir
trap 'stop_server; cleanup_work_dir' EXIT
"$binary" simulate --game flower_fields --count "$N" --seed 5 --out "$WORK_DIR/games.jsonl" >/dev/null
split -l 20 "$WORK_DIR/games.jsonl" "$WORK_DIR/part."
# A budget large enough that nothing is evicted: the charge is the whole cache.
start_server "$binary" "$WORK_DIR/data" --memory-budget 8GiB
for part in "$WORK_DIR"/part.*; do
    curl -sf -o /dev/null -H 'content-type: application/x-ndjson' \
        --data-binary @"$part" "$BASE_URL/v1/games/import"
done
# Restarted, so that the imports' memory is not counted.
stop_server
unset SERVER_PORT
start_server "$binary" "$WORK_DIR/data" --memory-budget 8GiB
python3 -c 'import json,sys; [print(json.loads(l)["game_id"]) for l in open(sys.argv[1])]' \
    "$WORK_DIR/games.jsonl" >"$WORK_DIR/ids"
rss_kib() { awk '/VmRSS/{print $2}' "/proc/$SERVER_PID/status"; }
curl -sf -o /dev/null "$BASE_URL/v1/games/$(head -n 1 "$WORK_DIR/ids")/state"
before=$(rss_kib)
folds_before=$(curl -sf "$BASE_URL/metrics" | awk -F' ' '/^umpire_memory_charged_bytes\{charge="folds"\}/{print $2}')
while read -r id; do curl -sf -o /dev/null "$BASE_URL/v1/games/$id/state"; done <"$WORK_DIR/ids"
after=$(rss_kib)
folds=$(curl -sf "$BASE_URL/metrics" | awk -F' ' '/^umpire_memory_charged_bytes\{charge="folds"\}/{print $2}')
events=$(python3 -c 'import json,sys; print(sum(len(json.loads(l)["events"]) for l in open(sys.argv[1])))' "$WORK_DIR/games.jsonl")
python3 - "$N" "$events" "$before" "$after" "$folds_before" "$folds" <<'PY'
import sys
games, events, before, after, folds_before, folds = map(float, sys.argv[1:])
growth = (after - before) * 1024
charged = folds - folds_before
print(f"games {games:.0f}, events {events:.0f}")
print(f"RSS growth      {growth / 2**20:8.1f} MiB  ({growth / events:6.0f} B per event)")
print(f"folds charged   {charged / 2**20:8.1f} MiB  ({charged / events:6.0f} B per event)")
print(f"charged / growth {charged / growth:.3f}")
PY
