#!/usr/bin/env bash
# Peak memory of the service per request, for answers whose size grows with
# what is stored or sent. Starts the release build on a private
# cluster and measures its peak RSS (VmHWM of /proc/PID/status, reset through
# /proc/PID/clear_refs before each request) while it:
#   (a) audits, then exports, a game holding RSS_REJECTIONS (100,000) distinct
#       rejections, written into the database as its owner;
#   (b) scores bodies at the size limit (32 MiB) on POST /v1/scores: tiny junk
#       lines (`x\n`, refused 413: too many archives), the most junk lines a
#       request scores each as long as the limit allows, and real archives
#       (`umpire simulate`) as JSON Lines.
# Prints one line per request and exits non-zero when any peak is above
# RSS_LIMIT_MB (256) or an answer is not what it should be.
#
# Usage: scripts/rss.sh      (UMPIRE_BIN=path to measure another binary)
# Results: target/rss/summary.txt (and server.log). Takes a few minutes.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

REJECTIONS="${RSS_REJECTIONS:-100000}"
LIMIT_MB="${RSS_LIMIT_MB:-256}"
MAX_BODY=$((32 * 1024 * 1024))   # MAX_ARCHIVE_BYTES
MAX_ARCHIVES=10000               # MAX_ARCHIVES_PER_REQUEST
OUT="${RSS_RESULTS_DIR:-$REPO_ROOT/target/rss}"
mkdir -p "$OUT"
: >"$OUT/summary.txt"

ensure_apt curl curl
binary="$(umpire_binary release)"
make_work_dir
cleanup() {
    [[ -f "${SERVER_LOG:-}" ]] && cp "$SERVER_LOG" "$OUT/server.log"
    cleanup_work_dir
}
trap cleanup EXIT
start_server "$binary" "$WORK_DIR/data"

kib() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$SERVER_PID/status"; }
failures=0
report() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt" >&2; }
fail() { report "FAIL $*"; failures=$((failures + 1)); }

# measure NAME EXPECTED-STATUS CURL-ARGS...: one request with the peak reset
# before it; the answer goes to $WORK_DIR/answer.
measure() {
    local name="$1" expected="$2"; shift 2
    # What the previous request freed may stay resident for a moment: let it
    # go before the peak is reset, or it would count as this request's.
    sleep 2
    echo 5 >"/proc/$SERVER_PID/clear_refs"
    local before result status seconds bytes peak
    before="$(kib VmRSS)"
    result="$(curl -s -o "$WORK_DIR/answer" -w '%{http_code} %{time_total} %{size_download}' "$@")"
    read -r status seconds bytes <<<"$result"
    peak="$(kib VmHWM)"
    report "$(printf '%-44s %s  %8.2f s  %12s bytes  rss before %4d MB  peak %4d MB' \
        "$name" "$status" "$seconds" "$bytes" $((before / 1024)) $((peak / 1024)))"
    [[ "$status" == "$expected" ]] || fail "$name: status $status, expected $expected"
    ((peak / 1024 <= LIMIT_MB)) || fail "$name: peak RSS $((peak / 1024)) MB is above $LIMIT_MB MB"
}

log "simulating archives"
"$binary" simulate --game all --count 1500 --seed 15 --out "$WORK_DIR/simulated.jsonl"

# (a) a game with many rejections. The service keeps at most 32 distinct
# refusals per (game, actor, version) and import refuses more, so the game is
# imported plain and its refusals are written straight into rejected_actions
# as the owner: what a database from before that policy (V4) may hold, and
# the most an audit or export can be asked to read.
head -n 1 "$WORK_DIR/simulated.jsonl" >"$WORK_DIR/plain.json"
measure "import (a plain game)" 201 -X POST -H 'content-type: application/json' \
    --data-binary "@$WORK_DIR/plain.json" "$BASE_URL/v1/games/import"
id="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK_DIR/answer")"
umpire="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["umpire_token"])' "$WORK_DIR/answer")"
read -r version seat rules_version plain_rejections < <(python3 -c '
import json, sys
archive = json.load(open(sys.argv[1]))
seat = next(e["actor"] for e in archive["events"] if e["actor"].startswith("seat:"))
print(len(archive["events"]), seat, archive["rules_version"], len(archive["rejections"]))' \
    "$WORK_DIR/plain.json")
PGPASSFILE="$WORK_DIR/data/pgpass" "$PG_BIN/psql" -q -v ON_ERROR_STOP=1 -h "$WORK_DIR/data/socket" \
    -U umpire -d umpire -c "
    INSERT INTO rejected_actions (game_id, rejection_id, at_version, actor, action, code, message,
                                  rule, rules_version)
    SELECT '$id', gen_random_uuid(), 1 + n % $version, '$seat',
           jsonb_build_object('type', 'no_such_action', 'attempt', n), 'invalid_action',
           'Malformed action: unknown variant.', NULL, $rules_version
    FROM generate_series(1, $REJECTIONS) AS n"
stored=$((REJECTIONS + plain_rejections))
report "game $id: $version events, $stored rejections written as the owner"
measure "audit ($stored rejections)" 200 -H "authorization: Bearer $umpire" "$BASE_URL/v1/games/$id/audit"
# Every rejection is an entry (the imported log is valid, so each is judged),
# and the document is whole: it ends the object it opened.
entries="$(grep -o '"kind":"rejected"' "$WORK_DIR/answer" | wc -l)"
[[ "$entries" == "$stored" ]] || fail "audit: $entries rejection entries, expected $stored"
[[ "$(tail -c 1 "$WORK_DIR/answer")" == "}" ]] || fail "audit: the document is cut"

measure "export ($stored rejections)" 200 -H "authorization: Bearer $umpire" "$BASE_URL/v1/games/$id/export"
exported="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rejections"]))' "$WORK_DIR/answer")"
[[ "$exported" == "$stored" ]] || fail "export: $exported rejections, expected $stored"

# (b) bodies at the size limit on /v1/scores.
python3 - "$WORK_DIR/tiny-junk" "$MAX_BODY" <<'PY'
import sys
path, limit = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as out:
    out.write(b"x\n" * (limit // 2))
PY
measure "scores: 32 MiB of x lines" 413 -X POST -H 'content-type: application/x-ndjson' \
    --data-binary "@$WORK_DIR/tiny-junk" "$BASE_URL/v1/scores"

python3 - "$WORK_DIR/long-junk" "$MAX_BODY" "$MAX_ARCHIVES" <<'PY'
import sys
path, limit, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# A JSON string: the parser's error quotes it back, as long as a line may be.
line = b'"' + b"x" * (limit // count - 3) + b'"\n'
with open(path, "wb") as out:
    out.write(line * count)
PY
measure "scores: $MAX_ARCHIVES long junk lines (32 MiB)" 200 -X POST -H 'content-type: application/x-ndjson' \
    --data-binary "@$WORK_DIR/long-junk" "$BASE_URL/v1/scores"
rows="$(grep -o '"source":"body:' "$WORK_DIR/answer" | wc -l)"
[[ "$rows" == "$MAX_ARCHIVES" ]] || fail "scores of junk: $rows rows, expected $MAX_ARCHIVES"

python3 - "$WORK_DIR/simulated.jsonl" "$WORK_DIR/real" "$MAX_BODY" "$MAX_ARCHIVES" <<'PY'
import sys
source, path, limit, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = open(source, "rb").read().splitlines(keepends=True)
size, taken = 0, 0
with open(path, "wb") as out:
    while taken < count:
        line = lines[taken % len(lines)]
        if size + len(line) > limit:
            break
        out.write(line)
        size += len(line)
        taken += 1
print(taken, file=open(path + ".count", "w"))
PY
real="$(cat "$WORK_DIR/real.count")"
measure "scores: $real real archives ($(($(stat -c %s "$WORK_DIR/real") / 1024 / 1024)) MiB)" 200 -X POST \
    -H 'content-type: application/x-ndjson' --data-binary "@$WORK_DIR/real" "$BASE_URL/v1/scores"
rows="$(grep -o '"source":"body:' "$WORK_DIR/answer" | wc -l)"
[[ "$rows" == "$real" ]] || fail "scores of archives: $rows rows, expected $real"

kill -0 "$SERVER_PID" || fail "the service is gone"
report "limit ${LIMIT_MB} MB; $failures failure(s)"
exit $((failures > 0))
