#!/usr/bin/env bash
# Replays an outside attacker's attacks against a release build started as the
# README starts it (`umpire serve`, private cluster): the private database
# reached from another local account, huge and junk bodies, floods of refused
# actions, hostile archives, concurrent idempotent retries, dry-run leaks,
# contention, log injection, hidden-event gaps, stalled bodies and the
# smaller ones (scripts/abuse/attacks.py lists them). Exits non-zero on any
# 5xx, crash, leak, failed check or peak RSS over ABUSE_RSS_LIMIT_MB (256).
#
# Then the soak of the memory budget (scripts/abuse/soak.py) against a second server with
# `--memory-budget ${SOAK_BUDGET_MIB}MiB` (256): many cheap requests together
# (junk methods and paths, idle streams on long games, one client taking
# every stream slot, concurrent 30 MB bodies, audits), each in turn and then
# all at once for 60 s, while a seat plays a game. Fails if peak RSS reaches
# the budget plus 64 MiB, on any 5xx but 503 `busy` with Retry-After, if the
# service dies or if the seat has an action refused. SOAK=0 skips it.
#
# Usage: scripts/abuse.sh    (UMPIRE_PROFILE=debug or UMPIRE_BIN=path to choose)
# Results: target/abuse/ (summary.txt, soak.txt, server.log, soak-server.log).
# Takes about 3 minutes on a release build (the soak about 2).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OUT="${ABUSE_RESULTS_DIR:-$REPO_ROOT/target/abuse}"
RSS_LIMIT_MB="${ABUSE_RSS_LIMIT_MB:-256}"
SOAK_BUDGET_MIB="${SOAK_BUDGET_MIB:-256}"
mkdir -p "$OUT"
ensure_apt curl curl
binary="$(umpire_binary "${UMPIRE_PROFILE:-release}")"
make_work_dir
# Where the running server's log is kept when the script ends.
log_copy="$OUT/server.log"
cleanup() {
    stop_server
    [[ -f "${SERVER_LOG:-}" ]] && cp "$SERVER_LOG" "$log_copy"
    cleanup_work_dir
}
trap cleanup EXIT

archives="$WORK_DIR/archives.jsonl"
"$binary" simulate --game arboretum --count 12 --seed 15 --out "$archives" >/dev/null
data_dir="$WORK_DIR/data"
start_server "$binary" "$data_dir"
attacks_status=0
python3 "$REPO_ROOT/scripts/abuse/attacks.py" "$BASE_URL" "$SERVER_PID" "$SERVER_LOG" \
    "$data_dir" "$archives" "$RSS_LIMIT_MB" | tee "$OUT/summary.txt" || attacks_status=$?
stop_server
cp "$SERVER_LOG" "$OUT/server.log"

soak_status=0
if [[ "${SOAK:-1}" != 0 ]]; then
    # A server of its own, so that its peak RSS is the soak's alone.
    soak_dir="$WORK_DIR/soak"
    mkdir -p "$soak_dir"
    chmod 755 "$soak_dir"
    SERVER_PORT=
    log_copy="$OUT/soak-server.log"
    start_server "$binary" "$soak_dir/data" --memory-budget "${SOAK_BUDGET_MIB}MiB"
    python3 "$REPO_ROOT/scripts/abuse/soak.py" "$BASE_URL" "$SERVER_PID" "$SERVER_LOG" \
        "$SOAK_BUDGET_MIB" "$binary" | tee "$OUT/soak.txt" || soak_status=$?
    stop_server
fi
((attacks_status == 0)) || die "the attacks failed (see $OUT/summary.txt)"
((soak_status == 0)) || die "the soak failed (see $OUT/soak.txt)"
log "the attacks and the soak held"
