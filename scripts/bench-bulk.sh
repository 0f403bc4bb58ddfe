#!/usr/bin/env bash
# Bulk scoring benchmarks, repeatable: see docs/benchmarks.md for figures.
#
#   scripts/bench-bulk.sh                 # 10k games (2,500 of each game)
#   GAMES_PER_KIND=25000 DB=0 scripts/bench-bulk.sh   # 100k games, files only
#
# 1. `umpire simulate --game all` writes the games as JSON Lines.
# 2. From files: `umpire score FILE` (every game's hash chain checked, the
#    default) and `umpire score --trust-chain FILE` (folded as it stands)
#    against `cat FILE > /dev/null`, plain serde_json parsing of the same
#    bytes into `Value`, and a parse that builds nothing (`IgnoredAny`),
#    each of the two on one thread.
# 3. From the database (DB=1): the games are imported into a private cluster
#    and `umpire score --db` is compared with
#    `psql -c "COPY (SELECT game_id, payload FROM events ORDER BY game_id, seq) TO STDOUT"`
#    of the same rows.
# Each run reports wall time and peak RSS (/usr/bin/time -v).
set -euo pipefail

GAMES_PER_KIND=${GAMES_PER_KIND:-2500}
SEED=${SEED:-1}
DB=${DB:-1}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WORK=${WORK:-$(mktemp -d /tmp/umpire-bench.XXXXXX)}
mkdir -p "$WORK"
# Run as root, `umpire serve` starts PostgreSQL as the postgres user, which
# must be able to reach the data directory inside the work directory.
chmod 755 "$WORK"
BIN=$CARGO_TARGET_DIR/release/umpire
PARSE=$CARGO_TARGET_DIR/release/examples/parse_jsonl

# Built once; set REBUILD=1 to rebuild (the example's dev-dependencies make
# it a separate, slow build).
if [ "${REBUILD:-0}" = "1" ] || [ ! -x "$BIN" ] || [ ! -x "$PARSE" ]; then
    (cd "$ROOT" && cargo build --release -q -p umpire-api --features bench --bin umpire \
        && cargo build --release -q -p umpire-archive --example parse_jsonl)
fi

# Runs a command under /usr/bin/time -v; prints "<seconds> <peak RSS KiB>".
measure() {
    local log
    log=$(mktemp)
    /usr/bin/time -v "$@" 2>"$log" >/dev/null || { cat "$log" >&2; return 1; }
    local elapsed rss
    elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" \
        | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    grep -h "umpire score:" "$log" >&2 || true
    rm -f "$log"
    echo "$elapsed $rss"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

FILE=$WORK/games.jsonl
if [ ! -s "$FILE" ]; then
    echo "simulating $((GAMES_PER_KIND * 4)) games into $FILE" >&2
    read -r secs rss < <(measure "$BIN" simulate --game all --count "$GAMES_PER_KIND" --seed "$SEED" --out "$FILE")
    echo "simulate: ${secs}s, peak RSS ${rss} KiB" >&2
fi
GAMES=$(wc -l <"$FILE")
BYTES=$(stat -c %s "$FILE")
MB=$(awk -v b="$BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "input: $GAMES games, $MB MB, $(nproc) cores"

cat "$FILE" >/dev/null # warm the page cache
read -r cat_s _ < <(measure cat "$FILE")
read -r parse_s parse_rss < <(measure "$PARSE" "$FILE" value)
read -r ignored_s ignored_rss < <(measure "$PARSE" "$FILE" ignored)
read -r score_s score_rss < <(measure "$BIN" score "$FILE" --format csv --out /dev/null)
read -r trusted_s trusted_rss < <(measure "$BIN" score --trust-chain "$FILE" --format csv --out /dev/null)
echo
echo "| from files ($GAMES games, $MB MB) | seconds | games/s | MB/s | peak RSS |"
echo "| --- | ---: | ---: | ---: | ---: |"
for row in "cat FILE > /dev/null@$cat_s@-" \
    "serde_json::Value parse, 1 thread@$parse_s@$parse_rss" \
    "serde::de::IgnoredAny parse (builds nothing), 1 thread@$ignored_s@$ignored_rss" \
    "umpire score FILE (hash chains checked)@$score_s@$score_rss" \
    "umpire score --trust-chain FILE@$trusted_s@$trusted_rss"; do
    IFS=@ read -r name secs rss <<<"$row"
    secs=$(awk -v s="$secs" 'BEGIN { if (s < 0.01) s = 0.01; print s }')
    echo "| $name | $secs | $(awk -v g="$GAMES" -v s="$secs" 'BEGIN { printf "%.0f", g / s }') | $(awk -v b="$BYTES" -v s="$secs" 'BEGIN { printf "%.1f", b / 1e6 / s }') | ${rss} KiB |"
done
echo
echo "umpire score / serde_json parse (throughput): $(ratio "$parse_s" "$score_s")"
echo "umpire score / IgnoredAny parse (throughput): $(ratio "$ignored_s" "$score_s")"
echo "umpire score --trust-chain / IgnoredAny parse (throughput): $(ratio "$ignored_s" "$trusted_s")"
echo "umpire score / umpire score --trust-chain (throughput): $(ratio "$trusted_s" "$score_s")"
echo "umpire score / cat (throughput): $(ratio "$cat_s" "$score_s")"

if [ "$DB" = "1" ]; then
    DATA=$WORK/pg
    PORT_LOG=$WORK/serve.log
    # `umpire serve` starts (and migrates) a private cluster and keeps it up.
    "$BIN" serve --data-dir "$DATA" --bind 127.0.0.1:0 --workers 1 >"$PORT_LOG" 2>&1 &
    SERVE=$!
    trap 'kill $SERVE 2>/dev/null; wait $SERVE 2>/dev/null || true' EXIT
    for _ in $(seq 1 120); do grep -q "listening on" "$PORT_LOG" && break; sleep 0.5; done
    # psql logs in as the cluster's owner with the password from its
    # pgpass file; `umpire import` and `score --db` reuse the running
    # cluster through --data-dir.
    URL="host=$DATA/socket port=5432 user=umpire dbname=umpire"
    export PGPASSFILE=$DATA/pgpass
    STORED=$(psql "$URL" -Atc "SELECT count(*) FROM games")
    if [ "$STORED" -lt "$GAMES" ]; then
        echo "importing $GAMES games (each validated by replay)" >&2
        read -r import_s _ < <(measure "$BIN" import --data-dir "$DATA" "$FILE")
        echo "import: ${import_s}s" >&2
        psql "$URL" -qc "VACUUM ANALYZE" >/dev/null
    fi
    # Import against COPY: every game validated by replay and
    # stored, into a fresh database, against a raw `COPY ... FROM` of the
    # very same event rows into a table shaped like `events` (its columns,
    # keys and checks; no triggers), in the same run.
    PASSWORD=$(awk -F: '$4 == "umpire" { print $5; exit }' "$DATA/pgpass")
    psql "$URL" -qc "DROP DATABASE IF EXISTS bench_import" -c "CREATE DATABASE bench_import" >/dev/null
    IMPORT_URL="postgres://umpire:$PASSWORD@localhost/bench_import?host=$DATA/socket&port=5432"
    DATABASE_URL=$IMPORT_URL "$BIN" migrate >/dev/null 2>&1
    read -r bulk_import_s bulk_import_rss < <(measure env DATABASE_URL="$IMPORT_URL" "$BIN" import "$FILE")
    IMPORT_DB="host=$DATA/socket port=5432 user=umpire dbname=bench_import"
    EVENTS=$(psql "$IMPORT_DB" -Atc "SELECT count(*) FROM events")
    ROWS=$WORK/event-rows.copy
    psql "$IMPORT_DB" -qc "COPY events TO STDOUT" >"$ROWS"
    psql "$IMPORT_DB" -qc "CREATE TABLE copy_events (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)"
    cat "$ROWS" >/dev/null # warm the page cache
    read -r raw_copy_s _ < <(measure psql "$IMPORT_DB" -qc "\\copy copy_events FROM '$ROWS'")
    echo
    echo "| import ($GAMES games, $EVENTS events) | seconds | games/s | events/s | peak RSS |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    echo "| psql COPY events-shaped table FROM the same rows | $raw_copy_s | - | $(awk -v e="$EVENTS" -v s="$raw_copy_s" 'BEGIN { printf "%.0f", e / s }') | - |"
    echo "| umpire import FILE (validated by replay) | $bulk_import_s | $(awk -v g="$GAMES" -v s="$bulk_import_s" 'BEGIN { printf "%.0f", g / s }') | $(awk -v e="$EVENTS" -v s="$bulk_import_s" 'BEGIN { printf "%.0f", e / s }') | ${bulk_import_rss} KiB |"
    echo
    echo "umpire import / raw COPY (throughput, target >= 0.5): $(ratio "$raw_copy_s" "$bulk_import_s")"
    psql "$URL" -qc "DROP DATABASE bench_import" >/dev/null

    COPY="COPY (SELECT game_id, payload FROM events ORDER BY game_id, seq) TO STDOUT"
    DB_BYTES=$(psql "$URL" -c "$COPY" | wc -c)
    DB_MB=$(awk -v b="$DB_BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')
    psql "$URL" -c "$COPY" >/dev/null # warm shared buffers
    read -r copy_s _ < <(measure psql "$URL" -c "$COPY")
    read -r db_s db_rss < <(measure "$BIN" score --db --data-dir "$DATA" --format csv --out /dev/null)
    echo
    echo "| from the database ($GAMES games, $DB_MB MB as COPY text) | seconds | games/s | MB/s | peak RSS |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    echo "| psql COPY ... TO STDOUT > /dev/null | $copy_s | $(awk -v g="$GAMES" -v s="$copy_s" 'BEGIN { printf "%.0f", g / s }') | $(awk -v b="$DB_BYTES" -v s="$copy_s" 'BEGIN { printf "%.1f", b / 1e6 / s }') | - |"
    echo "| umpire score --db | $db_s | $(awk -v g="$GAMES" -v s="$db_s" 'BEGIN { printf "%.0f", g / s }') | $(awk -v b="$DB_BYTES" -v s="$db_s" 'BEGIN { printf "%.1f", b / 1e6 / s }') | ${db_rss} KiB |"
    echo
    echo "umpire score --db / raw COPY (throughput, target >= 0.70): $(ratio "$copy_s" "$db_s")"
fi
echo "work directory: $WORK" >&2
