#!/usr/bin/env bash
# Reads off the primary: state reads at versions known to exist,
# 8 clients, while 8 clients submit the actions of whole games, once with
# the streaming standby configured (`UMPIRE_REPLICAS`) and once without, on
# the same data in the same run. The reference deployment's pieces
# (deploy/lib.sh: a PostgreSQL 15 primary, its standby from pg_basebackup
# -R, two release instances), without nginx: the writes go to instance 1,
# the reads to instance 2, so the reader's fold cache does not already hold
# the games being written, and it starts cold in both runs (both instances
# are started afresh for each).
#
# The data: BENCH_GAMES (1,500) games of each kind (`umpire simulate --game all`,
# 4 kinds; `umpire import`), their versions known from the archives. The
# reads (wrk, scripts/load/state-at.lua, 8 threads, 8 connections): GET
# /v1/games/{id}/state?at=N, a random game and a random N within it. The
# writes (wrk, scripts/load/play.lua, 8 threads, 8 connections): planned
# whole games (scripts/load/driver.py plan) played against instance 1.
# Per run, BENCH_SECONDS (30) of both at once, and before it the same
# reads alone for BENCH_SECONDS / 2 (the primary's CPU per read without
# the writes' share). Reported: reads/s, p50 and p99, actions/s, the reader's
# umpire_reads_total by target (memory, primary, standby-N), the share of
# versioned reads the primary served, the CPU seconds of the primary's and
# the standby's processes (utime + stime from /proc, the postmaster's
# exited children included) and the primary's CPU per read; wall clock
# beside each.
#
#   scripts/bench-replicas.sh      (BENCH_SECONDS=30 BENCH_GAMES=1500)
# Results: target/bench-replicas/results.txt
set -euo pipefail
source "$(dirname "$0")/../deploy/lib.sh"

SECONDS_PER_RUN="${BENCH_SECONDS:-30}"
# 4 x 1,500 = 6,000 games: three times the 2,048 games an instance's fold
# cache holds at most (service/src/folds.rs), so the reader keeps going to
# a database after it warms up, as a reader of a large store would.
GAMES_PER_KIND="${BENCH_GAMES:-1500}"
OUT="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/bench-replicas"
mkdir -p "$OUT"
: >"$OUT/results.txt"
result() { printf '%s\n' "$*" | tee -a "$OUT/results.txt"; }
here="$REPO_ROOT/scripts/load"

ensure_apt wrk wrk
ensure_apt curl curl
if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
    useradd --system --no-create-home postgres
fi
UMPIRE="$(umpire_binary release)"
make_work_dir
RUN_DIR="$WORK_DIR/deploy"
mkdir -p "$RUN_DIR"
UMPIRE_DEPLOY_PORT="$(free_port)"
UMPIRE_DEPLOY_INSTANCE_PORTS="$(free_port) $(free_port)"
WRK_PIDS=()
cleanup() {
    local pid
    for pid in "${WRK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    local n
    for n in 1 2; do
        [[ -f "$RUN_DIR/instance-$n/server.log" ]] && cp "$RUN_DIR/instance-$n/server.log" "$OUT/instance-$n.log"
    done
    deploy_down
    cleanup_work_dir
}
trap cleanup EXIT

chmod 755 "$RUN_DIR"
deploy_secrets
deploy_ports
setup_primary
setup_standby

log "simulating and importing $GAMES_PER_KIND games of each kind"
"$UMPIRE" simulate --game all --count "$GAMES_PER_KIND" --seed 34 -q -o "$WORK_DIR/games.jsonl"
DATABASE_URL="$(conninfo primary umpire_app umpire)" "$UMPIRE" import -q "$WORK_DIR/games.jsonl" >/dev/null
python3 - "$WORK_DIR/games.jsonl" "$WORK_DIR/reads.tsv" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        game = json.loads(line)
        out.write(f"{game['game_id']}\t{len(game['events'])}\n")
PY
games="$(wc -l <"$WORK_DIR/reads.tsv")"
events="$(awk -F'\t' '{ n += $2 } END { print n }' "$WORK_DIR/reads.tsv")"

# cluster_cpu CLUSTER: CPU seconds (user + system) of the cluster's
# processes so far: the postmaster, every child alive, and the children
# that exited (the postmaster's cutime + cstime).
cluster_cpu() {
    local postmaster ticks
    postmaster="$(head -n 1 "$RUN_DIR/$1/pgdata/postmaster.pid")"
    ticks="$(getconf CLK_TCK)"
    { echo "$postmaster"; ps -o pid= --ppid "$postmaster"; } | while read -r pid; do
        [[ -r "/proc/$pid/stat" ]] && sed 's/^.*) //' "/proc/$pid/stat" | awk -v self="$([[ "$pid" == "$postmaster" ]] && echo 1 || echo 0)" '
            { t = $12 + $13; if (self) t += $14 + $15; print t }'
    done | awk -v hz="$ticks" '{ n += $1 } END { printf "%.2f\n", n / hz }'
}
# reads_by_target N: the reader's umpire_reads_total as `target=count ...`.
reads_by_target() {
    curl -s "$(instance_url "$1")/metrics" | awk '
        /^umpire_reads_total\{/ { match($0, /target="[^"]*"/); t = substr($0, RSTART + 8, RLENGTH - 9); n[t] += $NF }
        END { for (t in n) printf "%s=%d ", t, n[t] }'
}
delta_targets() { # delta_targets "BEFORE" "AFTER": per-target differences
    python3 - "$1" "$2" <<'PY'
import sys
parse = lambda s: {k: int(v) for k, v in (p.split("=") for p in s.split())}
before, after = parse(sys.argv[1]), parse(sys.argv[2])
delta = {t: after[t] - before.get(t, 0) for t in sorted(after)}
total = sum(delta.values())
primary = delta.get("primary", 0)
standby = sum(v for t, v in delta.items() if t.startswith("standby"))
# Reads the cache answered never reach a database; versioned reads that did
# went to the primary or a standby.
to_db = primary + standby
share = f"{100 * primary / to_db:.1f}%" if to_db else "n/a"
print(" ".join(f"{t}={v}" for t, v in delta.items()) or "none", f"primary_share_of_database_reads={share}",
      f"primary_share_of_all={100 * primary / total:.1f}%" if total else "")
PY
}
field() { sed -n "s/.*[[:space:]]$1=\([0-9.]*\).*/\1/p" <<<"$2" | head -n 1; }
ms() { awk -v v="$1" 'BEGIN { printf "%.2f", v / 1000 }'; }

result "# umpire $("$UMPIRE" --version | awk '{print $2}'), $("$PG_BIN/postgres" --version), wrk $(wrk -v 2>&1 | head -n 1 | awk '{print $2}'), $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
result "# data: $games games, $events events (imported); reads: state?at=N of them, 8 wrk threads x 1 connection, against instance 2; writes: planned whole games, 8 x 1, against instance 1; ${SECONDS_PER_RUN}s mixed, $((SECONDS_PER_RUN / 2))s reads alone"

for config in without with; do
    if [[ "$config" == with ]]; then WITH_STANDBY=1; else WITH_STANDBY=0; fi
    start_instance 1
    start_instance 2
    log "[$config standby] planning the writes"
    UMPIRE_ADMIN_TOKEN="$(cat "$RUN_DIR/secrets/admin-token")" python3 "$here/driver.py" plan "$(instance_url 1)" "$WORK_DIR/plan-$config-" \
        --threads 8 --actions-per-thread $((400 * SECONDS_PER_RUN)) 2>"$WORK_DIR/plan.log" ||
        { cat "$WORK_DIR/plan.log" >&2; die "planning failed"; }
    # The standby has replayed everything so far (the plan's new games).
    deadline=$((SECONDS + 60))
    until [[ "$(psql_owner primary postgres -Atc "SELECT coalesce(bool_and(replay_lsn >= pg_current_wal_lsn()), false) FROM pg_stat_replication")" == t ]] ||
        ((SECONDS > deadline)); do sleep 0.2; done

    for phase in reads mixed; do
        duration=$SECONDS_PER_RUN
        [[ "$phase" == reads ]] && duration=$((SECONDS_PER_RUN / 2))
        sync
        targets_before="$(reads_by_target 2)"
        primary_before="$(cluster_cpu primary)"; standby_before="$(cluster_cpu standby)"
        wall_before="$(date +%s.%N)"
        WRK_PIDS=()
        LOAD_DIR="$here" READS_FILE="$WORK_DIR/reads.tsv" wrk -t8 -c8 -d"${duration}s" --timeout 10s -s "$here/state-at.lua" \
            "$(instance_url 2)" >"$WORK_DIR/reads.out" 2>&1 &
        WRK_PIDS+=($!)
        if [[ "$phase" == mixed ]]; then
            PLAN_PREFIX="$WORK_DIR/plan-$config-" wrk -t8 -c8 -d"${duration}s" --timeout 10s -s "$here/play.lua" \
                "$(instance_url 1)" >"$WORK_DIR/writes.out" 2>&1 &
            WRK_PIDS+=($!)
        fi
        for pid in "${WRK_PIDS[@]}"; do wait "$pid"; done
        WRK_PIDS=()
        wall="$(awk -v a="$wall_before" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
        primary_cpu="$(awk -v a="$primary_before" -v b="$(cluster_cpu primary)" 'BEGIN { printf "%.2f", b - a }')"
        standby_cpu="$(awk -v a="$standby_before" -v b="$(cluster_cpu standby)" 'BEGIN { printf "%.2f", b - a }')"
        targets="$(delta_targets "$targets_before" "$(reads_by_target 2)")"
        line="$(grep '^RESULT' "$WORK_DIR/reads.out")" || { cat "$WORK_DIR/reads.out" >&2; die "wrk (reads) printed no result"; }
        requests="$(field requests "$line")"
        rate="$(awk -v n="$requests" -v d="$(field duration_us "$line")" 'BEGIN { printf "%.0f", n / (d / 1e6) }')"
        per_read="$(awk -v c="$primary_cpu" -v n="$requests" 'BEGIN { printf "%.0f", 1e6 * c / n }')"
        writes=""
        if [[ "$phase" == mixed ]]; then
            wline="$(grep '^RESULT' "$WORK_DIR/writes.out")" || { cat "$WORK_DIR/writes.out" >&2; die "wrk (writes) printed no result"; }
            writes=" actions_per_s=$(awk -v n="$(field accepted "$wline")" -v d="$(field duration_us "$wline")" 'BEGIN { printf "%.0f", n / (d / 1e6) }') write_p99_ms=$(ms "$(field p99_us "$wline")") refused=$(field refused "$wline") plan_exhausted_threads=$(field exhausted_threads "$wline")"
        fi
        result "$config standby, $phase: reads_per_s=$rate read_p50_ms=$(ms "$(field p50_us "$line")") read_p99_ms=$(ms "$(field p99_us "$line")") non_2xx=$(field non_2xx "$line")$writes"
        result "    reads by target (instance 2): $targets"
        result "    wall ${wall}s: primary CPU ${primary_cpu}s, standby CPU ${standby_cpu}s; primary CPU per read served ${per_read} µs (all its CPU / reads$([[ "$phase" == mixed ]] && echo ', the writes'"'"' share included'))"
    done
    stop_instance 1
    stop_instance 2
done
result "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
log "results: $OUT/results.txt"
