#!/usr/bin/env bash
# The reference deployment (deploy/: a PostgreSQL 15 primary, its streaming
# standby, two instances, nginx in front), tested with the generated Python
# client. tests/topology/clients.py plays whole games through
# nginx, TOPOLOGY_WORKERS at a time, each game followed live by one of its
# seats, while this script
#   (1) SIGTERMs the instance holding the most open streams, lets the games
#       go on through the other, and starts it again;
#   (2) SIGKILLs the instance holding the most open streams, the same way;
#   (3) stops the standby (immediate shutdown), lets the games go on, and
#       starts it again;
# pacing each step by the actions acknowledged (never by the clock). Then:
#   * every acknowledged action is in the log exactly once, in order, seqs
#     without a gap, every hash recomputed (scripts/faults/verify.py, through
#     nginx), and every game's audit re-decides it validly with its chain
#     intact (tests/topology/check.py);
#   * every stream brought every version once, in order, across its
#     resumptions by Last-Event-ID, and at least one stream was resumed;
#   * every head read after a client's own action showed that action;
#   * a restarted instance serves requests again through nginx;
#   * the instances mark the stopped standby down, cost no request while it
#     is away (every request of the clients answered), and read from it
#     again by themselves once it is back;
#   * spectators behind nginx are counted apart (--trusted-proxy): one
#     holding all the streams it may does not keep another from opening one;
#   * the instances served reads from the standby
#     (umpire_reads_total{target="standby-…"} on their /metrics);
#   * no panic in any instance's log.
# Every wait is a poll with a generous bound: it passes on a busy machine.
#
#   scripts/topology-test.sh    (UMPIRE_PROFILE=release or UMPIRE_BIN=path to
#                                choose the binary; debug by default)
# Results: target/topology/ (clients.json, verify.json, summary.txt, logs).
# Installs what it needs: nginx and PostgreSQL 15 from Debian, the client
# generator from PyPI and npm (openapi/generate-clients.sh).
set -euo pipefail
source "$(dirname "$0")/../deploy/lib.sh"

WORKERS="${TOPOLOGY_WORKERS:-4}"
# Actions acknowledged between two steps of the run.
STEP_ACTIONS="${TOPOLOGY_STEP_ACTIONS:-40}"
OUT="${TOPOLOGY_RESULTS_DIR:-${CARGO_TARGET_DIR:-$REPO_ROOT/target}/topology}"
mkdir -p "$OUT"
: >"$OUT/summary.txt"

ensure_apt curl curl
ensure_apt nginx nginx
if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
    useradd --system --no-create-home postgres
fi
"$REPO_ROOT/openapi/generate-clients.sh"
venv="$TOOLS_DIR/venv-clients"
client_path="$REPO_ROOT/openapi/clients/python/generated:$REPO_ROOT/openapi/clients/python"
UMPIRE="$(umpire_binary "${UMPIRE_PROFILE:-debug}")"

make_work_dir
RUN_DIR="$WORK_DIR/deploy"
mkdir -p "$RUN_DIR"
export UMPIRE_DEPLOY_PORT UMPIRE_DEPLOY_INSTANCE_PORTS
UMPIRE_DEPLOY_PORT="$(free_port)"
UMPIRE_DEPLOY_INSTANCE_PORTS="$(free_port) $(free_port)"
CLIENTS_PID=
SPECTATOR_PIDS=()
cleanup() {
    [[ -n "$CLIENTS_PID" ]] && kill "$CLIENTS_PID" 2>/dev/null || true
    local pid
    for pid in "${SPECTATOR_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    local n
    for n in 1 2; do
        [[ -f "$RUN_DIR/instance-$n/server.log" ]] && cp "$RUN_DIR/instance-$n/server.log" "$OUT/instance-$n.log"
    done
    [[ -f "$RUN_DIR/nginx/access.log" ]] && cp "$RUN_DIR/nginx/access.log" "$OUT/nginx-access.log"
    [[ -f "$RUN_DIR/nginx/error.log" ]] && cp "$RUN_DIR/nginx/error.log" "$OUT/nginx-error.log"
    deploy_down
    cleanup_work_dir
}
trap cleanup EXIT

failures=0
check() { # check DESCRIPTION STATUS
    if [[ "$2" == 0 ]]; then
        printf 'PASS %s\n' "$1" | tee -a "$OUT/summary.txt" >&2
    else
        printf 'FAIL %s\n' "$1" | tee -a "$OUT/summary.txt" >&2
        failures=$((failures + 1))
    fi
}
note() { printf '     %s\n' "$*" | tee -a "$OUT/summary.txt" >&2; }
ok() { "$@" && echo 0 || echo 1; }

deploy_up
log "the deployment is up at $DEPLOY_URL"
deadline=$((SECONDS + 120))
until standby_replaying || ((SECONDS > deadline)); do sleep 0.5; done
check "the standby streams from the primary (pg_stat_replication: streaming)" "$(ok standby_replaying)"

# metric N NAME-AND-LABELS: the sum of the samples of instance N whose line
# starts with the given text (0 when the instance is down).
metric() {
    curl -s --max-time 5 "$(instance_url "$1")/metrics" 2>/dev/null |
        awk -v prefix="$2" 'index($0, prefix) == 1 { n += $NF } END { print n + 0 }'
}
standby_reads_seen=0
sample_standby_reads() { # counters restart with an instance: sampled before each stop
    local n
    for n in 1 2; do
        standby_reads_seen=$((standby_reads_seen + $(metric "$n" 'umpire_reads_total{target="standby')))
    done
}
busiest() { # the instance holding the most open streams
    local one two
    one="$(metric 1 umpire_streams_open)"; two="$(metric 2 umpire_streams_open)"
    ((one >= two)) && echo 1 || echo 2
}
progress() { cat "$WORK_DIR/progress" 2>/dev/null || echo 0; }
# wait_for_actions N: until the clients have N actions acknowledged (at most
# 10 minutes: on a quiet machine it is seconds).
wait_for_actions() {
    local deadline=$((SECONDS + 600))
    while (($(progress) < $1)); do
        kill -0 "$CLIENTS_PID" 2>/dev/null || die "the clients stopped early (see above)"
        ((SECONDS < deadline)) || die "the clients acknowledged $(progress) of $1 actions in 10 minutes"
        sleep 0.5
    done
}

log "clients: $WORKERS workers playing through nginx"
PYTHONPATH="$client_path" "$venv/bin/python" "$REPO_ROOT/tests/topology/clients.py" "$DEPLOY_URL" \
    "$RUN_DIR/secrets/admin-token" "$OUT/clients.json" "$WORK_DIR/progress" "$WORK_DIR/stop" \
    --workers "$WORKERS" &
CLIENTS_PID=$!

step=$STEP_ACTIONS
for signal in TERM KILL; do
    wait_for_actions "$step"
    victim="$(busiest)"
    streams="$(metric "$victim" umpire_streams_open)"
    sample_standby_reads
    log "SIG$signal to instance $victim ($streams open streams) after $(progress) actions"
    stop_instance "$victim" "$signal"
    step=$(($(progress) + STEP_ACTIONS))
    wait_for_actions "$step"
    note "instance $victim (SIG$signal with $streams open streams): the games went on through the other, $(progress) actions so far"
    start_instance "$victim"
    # Requests to /v1 only: the /metrics scrapes polling it count too.
    served() { metric "$1" 'umpire_http_requests_total{endpoint="/v1/'; }
    served_before="$(served "$victim")"
    step=$(($(progress) + STEP_ACTIONS))
    wait_for_actions "$step"
    # nginx gives a restarted instance requests again by itself (its
    # fail_timeout has passed): polled, bounded, never timed.
    deadline=$((SECONDS + 120))
    until (($(served "$victim") > served_before + 5)) || ((SECONDS > deadline)); do sleep 0.5; done
    check "instance $victim, started again after SIG$signal, serves /v1 requests through nginx again" \
        "$(ok test "$(served "$victim")" -gt $((served_before + 5)))"
done

# (3) The standby stopped (immediate: as if its machine went away) while
# the games go on, then started again: the instances skip it and read from
# the primary (the clients' checks say whether any request failed), mark it
# down, and take it back by themselves once it has caught up.
standby_up() { # standby_up VALUE: both instances show umpire_standby_up VALUE
    local n
    for n in 1 2; do
        [[ "$(metric "$n" 'umpire_standby_up{standby="standby-1"}')" == "$1" ]] || return 1
    done
}
poll() { # poll SECONDS COMMAND...: until COMMAND succeeds or SECONDS pass
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.5; done
}
wait_for_actions "$step"
sample_standby_reads
log "stopping the standby (immediate) after $(progress) actions"
stop_cluster standby immediate
check "both instances mark the standby down (umpire_standby_up 0) while it is stopped" "$(ok poll 120 standby_up 0)"
step=$(($(progress) + STEP_ACTIONS))
wait_for_actions "$step"
note "the games went on without the standby: $(progress) actions so far; skips $(for n in 1 2; do curl -s "$(instance_url "$n")/metrics" | grep '^umpire_standby_skips_total' | tr '\n' ' '; done)"
start_cluster standby
check "both instances take the standby back by themselves once it is started again (umpire_standby_up 1)" "$(ok poll 120 standby_up 1)"
standby_reads_now() { metric 1 'umpire_reads_total{target="standby'; metric 2 'umpire_reads_total{target="standby'; }
standby_reads_before=$(($(standby_reads_now | paste -sd+)))
step=$(($(progress) + STEP_ACTIONS))
wait_for_actions "$step"
standby_reads_grew() { (($(standby_reads_now | paste -sd+) > standby_reads_before)); }
check "reads go to the standby again after it is back" "$(ok poll 120 standby_reads_grew)"

log "stopping the clients after $(progress) actions (each finishes its game)"
touch "$WORK_DIR/stop"
clients_status=0
wait "$CLIENTS_PID" || clients_status=$?
CLIENTS_PID=
check "the clients played every game to its end: every legal action accepted, every request answered within its retries, every head read after an action showed it" "$clients_status"
note "$(python3 -c "import json, sys; o = json.load(open(sys.argv[1]))['observations']; print(f\"{o['acknowledged']} actions acknowledged; answers {o['statuses']}; retried {o['retried']}\")" "$OUT/clients.json")"
sample_standby_reads

verified=0
python3 "$REPO_ROOT/scripts/faults/verify.py" "$DEPLOY_URL" "$OUT/clients.json" --report "$OUT/verify.json" || verified=$?
check "every acknowledged action is in the log exactly once, in order; seqs without a gap; every hash recomputes; replays of keys answered from the first ($(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['totals'])" "$OUT/verify.json"))" "$verified"

checked=0
PYTHONPATH="$client_path" "$venv/bin/python" "$REPO_ROOT/tests/topology/check.py" "$DEPLOY_URL" \
    "$OUT/clients.json" --expect-resumed 2>"$WORK_DIR/check.txt" || checked=$?
cat "$WORK_DIR/check.txt" >&2
check "every stream brought every version once and in order across its resumptions (Last-Event-ID through nginx), and ended finished; every audit valid, its chain intact ($(sed -n 's/^check: {/{/p' "$WORK_DIR/check.txt"))" "$checked"

check "the instances served reads from the standby: umpire_reads_total{target=\"standby-…\"} = $standby_reads_seen (summed over both, sampled before each stop and at the end)" \
    "$(ok test "$standby_reads_seen" -gt 0)"
for n in 1 2; do
    note "instance $n at the end: $(curl -s "$(instance_url "$n")/metrics" | grep -E '^umpire_(reads_total|standby_skips_total|standby_up)' | tr '\n' ' ')"
done

# Spectators behind nginx are told apart by the address nginx forwards
# (--trusted-proxy): one spectator (from 127.0.0.2) opening 40 streams of a
# game in progress is refused some (each instance lets it hold 16), and
# another spectator (from 127.0.0.3) still gets one. Were the instances to
# count nginx's own address, the second would be refused too.
game_json="$(curl -s -X POST "$DEPLOY_URL/v1/games" -H "authorization: Bearer $(cat "$RUN_DIR/secrets/admin-token")" \
    -H 'content-type: application/json' -d '{"game": "treeblox", "seed": 7}')"
game_id="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["id"])' "$game_json")"
mkdir -p "$WORK_DIR/spectators"
SPECTATOR_PIDS=()
open_stream() { # open_stream ADDRESS NAME: a spectator's stream from ADDRESS, its head in NAME
    curl -s -N -o /dev/null -D "$WORK_DIR/spectators/$2" --interface "$1" --max-time 300 \
        "$DEPLOY_URL/v1/games/$game_id/stream" &
    SPECTATOR_PIDS+=($!)
}
status_of() { head -n 1 "$WORK_DIR/spectators/$1" 2>/dev/null | awk '{ print $2 }'; }
for i in $(seq 1 40); do open_stream 127.0.0.2 "first-$i"; done
answered() { local i; for i in $(seq 1 40); do [[ -n "$(status_of "first-$i")" ]] || return 1; done; }
poll 120 answered || true
refused=0; opened=0
for i in $(seq 1 40); do
    case "$(status_of "first-$i")" in 429) refused=$((refused + 1)) ;; 200) opened=$((opened + 1)) ;; esac
done
open_stream 127.0.0.3 second
second_answered() { [[ -n "$(status_of second)" ]]; }
poll 60 second_answered || true
check "through nginx, spectators are counted apart: one opening 40 streams got $opened and $refused refused (429), another then got $(status_of second)" \
    "$(ok test "$refused" -gt 0 -a "$opened" -le 32 -a "$(status_of second)" = 200)"
for pid in "${SPECTATOR_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
for pid in "${SPECTATOR_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
SPECTATOR_PIDS=()

panics=0
for n in 1 2; do
    grep -q panicked "$RUN_DIR/instance-$n/server.log" && { grep -m 3 panicked "$RUN_DIR/instance-$n/server.log" >&2; panics=1; }
done
check "no panic in either instance's log" "$panics"
note "nginx answered clients: $(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[1-5][0-9][0-9]$/ && $(i-1) ~ /"$/) { print $i; break } }' "$RUN_DIR/nginx/access.log" | sort | uniq -c | tr -s ' ' | tr '\n' ',' | sed 's/,$//')"

if ((failures)); then die "$failures topology check(s) failed: see $OUT/summary.txt"; fi
log "all topology checks passed: $OUT/summary.txt"
