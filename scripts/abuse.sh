#!/usr/bin/env bash
# Replays the attacks of issue 15 against a release build started as the
# README starts it (`umpire serve`, private cluster): the private database
# reached from another local account, huge and junk bodies, floods of refused
# actions, hostile archives, concurrent idempotent retries, dry-run leaks,
# contention, log injection, hidden-event gaps, stalled bodies and the
# smaller ones (scripts/abuse/attacks.py lists them). Exits non-zero on any
# 5xx, crash, leak, failed check or peak RSS over ABUSE_RSS_LIMIT_MB (256).
#
# Usage: scripts/abuse.sh    (UMPIRE_PROFILE=debug or UMPIRE_BIN=path to choose)
# Results: target/abuse/ (summary.txt, server.log). Takes a few minutes.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OUT="${ABUSE_RESULTS_DIR:-$REPO_ROOT/target/abuse}"
RSS_LIMIT_MB="${ABUSE_RSS_LIMIT_MB:-256}"
mkdir -p "$OUT"
ensure_apt curl curl
binary="$(umpire_binary "${UMPIRE_PROFILE:-release}")"
make_work_dir
cleanup() {
    stop_server
    [[ -f "${SERVER_LOG:-}" ]] && cp "$SERVER_LOG" "$OUT/server.log"
    cleanup_work_dir
}
trap cleanup EXIT

archives="$WORK_DIR/archives.jsonl"
"$binary" simulate --game arboretum --count 12 --seed 15 --out "$archives" >/dev/null
data_dir="$WORK_DIR/data"
start_server "$binary" "$data_dir"
python3 "$REPO_ROOT/scripts/abuse/attacks.py" "$BASE_URL" "$SERVER_PID" "$SERVER_LOG" \
    "$data_dir" "$archives" "$RSS_LIMIT_MB" | tee "$OUT/summary.txt"
