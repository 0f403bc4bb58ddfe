#!/usr/bin/env bash
# The high-availability deployment (deploy/start.sh --ha: three Patroni
# nodes over a three-member etcd, synchronous replication, two instances,
# nginx) losing its primary under the generated Python client
# (tests/topology/clients.py through nginx, TOPOLOGY_WORKERS at a time,
# each game followed live), while this script
#   (1) SIGKILLs the primary's node (its Patroni, postmaster and backends
#       at once) FAILOVER_KILLS times (1; the benchmark 6): Patroni
#       promotes the synchronous standby; the node is started again and
#       comes back as a standby (pg_rewind);
#   (2) SIGKILLs the primary's postmaster alone FAILOVER_POSTMASTER_KILLS
#       times (1): its Patroni restarts it in place, no failover;
#   (3) switches over on purpose (patronictl switchover --force);
#   (4) SIGKILLs the etcd cluster's leader member and starts it again
#       (FAILOVER_ETCD_KILL=0 to skip);
# pacing each step by the actions acknowledged. Then:
#   * no acknowledged action lost or doubled: every one in the log once, in
#     order, every hash recomputed (scripts/faults/verify.py), every audit
#     valid (tests/topology/check.py);
#   * every stream brought every version once across its resumptions;
#   * no 500: every request in flight during a switch was answered 503
#     with Retry-After (or failed in transport) and retried;
#   * each of the service's connections followed the primary: actions
#     accepted after each switch (the pool, the group commit); both
#     instances' LISTEN connections on the primary of the end
#     (pg_stat_activity there); a clocked game whose deadline fell while
#     there was no primary timed out once, after (the timekeeper); both
#     instances' standby probes mark exactly the nodes that are standbys
#     now as up (umpire_standby_up);
#   * every node back as a streaming standby of the last primary.
# Figures (FAILOVER_FIGURES=FILE): for each switch, the time from the kill
# to the first action accepted that was sent after it, and to Patroni's new
# leader; with FAILOVER_THROUGHPUT_SECONDS=S (the benchmark), the clients'
# actions/s and action p99 over S seconds with synchronous replication and
# with asynchronous, alternately, FAILOVER_THROUGHPUT_ROUNDS (2) times.
#
#   scripts/failover-test.sh     (UMPIRE_PROFILE / UMPIRE_BIN as topology-test.sh)
# Results: target/failover/ (clients.json, verify.json, events.tsv,
# summary.txt, logs). Installs patroni, etcd-server, nginx, PostgreSQL 15.
set -euo pipefail
source "$(dirname "$0")/../deploy/lib.sh"
HA=1

WORKERS="${TOPOLOGY_WORKERS:-4}"
STEP_ACTIONS="${FAILOVER_STEP_ACTIONS:-30}"
KILLS="${FAILOVER_KILLS:-1}"
POSTMASTER_KILLS="${FAILOVER_POSTMASTER_KILLS:-1}"
ETCD_KILL="${FAILOVER_ETCD_KILL:-1}"
THROUGHPUT_SECONDS="${FAILOVER_THROUGHPUT_SECONDS:-0}"
THROUGHPUT_ROUNDS="${FAILOVER_THROUGHPUT_ROUNDS:-2}"
OUT="${FAILOVER_RESULTS_DIR:-${CARGO_TARGET_DIR:-$REPO_ROOT/target}/failover}"
mkdir -p "$OUT"
: >"$OUT/summary.txt"
: >"$OUT/events.tsv"

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
cleanup() {
    [[ -n "$CLIENTS_PID" ]] && kill "$CLIENTS_PID" 2>/dev/null || true
    local n
    for n in 1 2; do
        [[ -f "$RUN_DIR/instance-$n/server.log" ]] && cp "$RUN_DIR/instance-$n/server.log" "$OUT/instance-$n.log"
    done
    for ((n = 1; n <= HA_NODES; n++)); do
        [[ -f "$RUN_DIR/node-$n/patroni.log" ]] && cp "$RUN_DIR/node-$n/patroni.log" "$OUT/patroni-$n.log"
    done
    [[ -f "$RUN_DIR/nginx/access.log" ]] && cp "$RUN_DIR/nginx/access.log" "$OUT/nginx-access.log"
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
poll() { # poll SECONDS COMMAND...: until COMMAND succeeds or SECONDS pass
    local deadline=$((SECONDS + $1)); shift
    until "$@"; do ((SECONDS < deadline)) || return 1; sleep 0.5; done
}
now() { date +%s.%N; }

started_at=$SECONDS
deploy_up
log "the HA deployment is up at $DEPLOY_URL after $((SECONDS - started_at)) s; node $(leader_node) leads"
# Patroni names the synchronous standby at its next loop.
one_synchronous() { [[ "$(streaming_standbys)" == "$((HA_NODES - 1))/1" ]]; }
check "Patroni: one leader, $((HA_NODES - 1)) standbys streaming, one of them synchronous" \
    "$(ok poll 60 one_synchronous)"

metric() { # metric N PREFIX: the sum of instance N's samples starting with PREFIX
    curl -s --max-time 5 "$(instance_url "$1")/metrics" 2>/dev/null |
        awk -v prefix="$2" 'index($0, prefix) == 1 { n += $NF } END { print n + 0 }'
}
progress() { cat "$WORK_DIR/progress" 2>/dev/null || echo 0; }
wait_for_actions() {
    local deadline=$((SECONDS + 600))
    while (($(progress) < $1)); do
        kill -0 "$CLIENTS_PID" 2>/dev/null || die "the clients stopped early (see above)"
        ((SECONDS < deadline)) || die "the clients acknowledged $(progress) of $1 actions in 10 minutes"
        sleep 0.3
    done
}
# all_streaming: every node but the leader streams from it, one synchronously.
all_streaming() { [[ "$(streaming_standbys)" == "$((HA_NODES - 1))/"* ]]; }
# event KIND NODE T_EVENT: one switch, for the figures (events.tsv).
event() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" "${5:-}" >>"$OUT/events.tsv"; }

admin_token="$(cat "$RUN_DIR/secrets/admin-token")"
# A clocked game whose seat's deadline falls while there is no primary
# (made just before the first kill): the timekeeper, on the pool, must
# record its timeout once a primary is back, once per deadline.
clocked_id=
make_clocked_game() {
    local created
    created="$(curl -s -X POST "$DEPLOY_URL/v1/games" -H "authorization: Bearer $admin_token" \
        -H 'content-type: application/json' \
        -d '{"game": "treeblox", "clock": {"per_move_ms": 2000, "reserve_ms": 0, "start": "now"}}')"
    clocked_id="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["id"])' "$created")" ||
        die "a clocked game was not created: $created"
    clocked_umpire="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["umpire_token"])' "$created")"
}

log "clients: $WORKERS workers playing through nginx"
PYTHONPATH="$client_path" "$venv/bin/python" "$REPO_ROOT/tests/topology/clients.py" "$DEPLOY_URL" \
    "$RUN_DIR/secrets/admin-token" "$OUT/clients.json" "$WORK_DIR/progress" "$WORK_DIR/stop" \
    --workers "$WORKERS" &
CLIENTS_PID=$!

disruptions=0
step=$STEP_ACTIONS
# (1) The primary's node SIGKILLed (as a machine is lost); started again.
for ((k = 1; k <= KILLS; k++)); do
    wait_for_actions "$step"
    poll 120 all_streaming || true
    leader="$(leader_node)"
    [[ -z "$clocked_id" ]] && make_clocked_game
    log "SIGKILL node $leader (the primary: Patroni, postmaster, backends) after $(progress) actions"
    kill_node "$leader"
    t_kill="$(now)"
    disruptions=$((disruptions + 1))
    new_leader="$(wait_for_leader 120)" || die "no new leader within 120 s of killing node $leader"
    t_leader="$(now)"
    event node-killed "$leader" "$t_kill" "$new_leader" "$t_leader"
    step=$(($(progress) + STEP_ACTIONS))
    wait_for_actions "$step"
    note "node $leader killed: node $new_leader leads; $(progress) actions so far"
    start_node "$leader"
    check "node $leader, killed as primary and started again, streams from node $new_leader (rewound as needed)" \
        "$(ok poll 180 all_streaming)"
    step=$(($(progress) + STEP_ACTIONS))
done

# (2) The primary's postmaster alone SIGKILLed: Patroni restarts it.
for ((k = 1; k <= POSTMASTER_KILLS; k++)); do
    wait_for_actions "$step"
    leader="$(leader_node)"
    pid="$(postmaster_pid "$leader")"
    log "SIGKILL the postmaster of node $leader (pid $pid) alone after $(progress) actions"
    kill -KILL "$pid"
    t_kill="$(now)"
    disruptions=$((disruptions + 1))
    back="$(wait_for_leader 120)" || die "no leader within 120 s of killing a postmaster"
    event postmaster-killed "$leader" "$t_kill" "$back" "$(now)"
    step=$(($(progress) + STEP_ACTIONS))
    wait_for_actions "$step"
    poll 120 all_streaming || true
    check "the postmaster of node $leader SIGKILLed alone: Patroni restarted it, node $back leads" \
        "$(ok test -n "$back")"
    step=$(($(progress) + STEP_ACTIONS))
done

# (3) A planned switchover.
wait_for_actions "$step"
# In synchronous mode a switchover goes to the synchronous standby only:
# one that has just come back is named at Patroni's next loop, and a
# request made before that is refused (asked again below).
poll 120 one_synchronous || true
leader="$(leader_node)"
log "patronictl switchover --force (node $leader leads) after $(progress) actions"
t_kill="$(now)"
disruptions=$((disruptions + 1))
switched() { local n; n="$(leader_node)"; [[ -n "$n" && "$n" != "$leader" ]]; }
for attempt in 1 2 3; do
    patronictl_ha switchover --force "$HA_SCOPE" >"$WORK_DIR/switchover.txt" 2>&1 || cat "$WORK_DIR/switchover.txt" >&2
    poll 40 switched && break
    log "no switch yet (attempt $attempt): $(tail -n 1 "$WORK_DIR/switchover.txt")"
done
new_leader="$(leader_node)"
event switchover "$leader" "$t_kill" "$new_leader" "$(now)"
check "patronictl switchover: node ${new_leader:-none} leads instead of node $leader" \
    "$(ok test -n "$new_leader" -a "$new_leader" != "$leader")"
step=$(($(progress) + STEP_ACTIONS))
wait_for_actions "$step"
check "node $leader, switched over, streams from node $new_leader" "$(ok poll 180 all_streaming)"

# (4) The etcd cluster's leader member SIGKILLed while the games go on.
if [[ "$ETCD_KILL" != 0 ]]; then
    etcd_leader() {
        ETCDCTL_API=3 etcdctl --endpoints "$(etcd_endpoints)" --command-timeout=3s endpoint status -w json 2>/dev/null |
            python3 -c 'import json, sys
s = json.load(sys.stdin)
ids = [e["Status"]["header"]["member_id"] for e in s]
print(next((i + 1 for i, e in enumerate(s) if e["Status"]["leader"] == e["Status"]["header"]["member_id"]), ""))'
    }
    member="$(etcd_leader)"
    step=$(($(progress) + STEP_ACTIONS))
    leader="$(leader_node)"
    log "SIGKILL etcd member ${member:-?} (etcd's leader) after $(progress) actions"
    [[ -n "$member" ]] && stop_etcd_member "$member" KILL
    event etcd-leader-killed "$member" "$(now)" "$leader" ""
    wait_for_actions "$step"
    still="$(leader_node)"
    check "etcd's leader member SIGKILLed: the games went on ($(progress) actions), node ${still:-none} leads (was $leader)" \
        "$(ok test -n "$still")"
    [[ -n "$member" ]] && start_etcd_member "$member"
    check "etcd healthy again with the member back" "$(ok poll 60 etcd_healthy)"
    step=$(($(progress) + STEP_ACTIONS))
    wait_for_actions "$step"
fi

# Each of the service's connections follows the primary.
final_leader="$(leader_node)"
listening_on_leader() {
    [[ "$(psql_node "$final_leader" umpire -Atc "SELECT count(*) FROM pg_stat_activity
        WHERE usename = 'umpire_app' AND query ILIKE 'LISTEN%'" 2>/dev/null)" -ge 2 ]]
}
check "both instances' LISTEN connections are on the primary of the end (node $final_leader, pg_stat_activity)" \
    "$(ok poll 60 listening_on_leader)"
connects="$(metric 1 umpire_append_listener_connects_total) $(metric 2 umpire_append_listener_connects_total)"
check "each instance listened again after every one of the $disruptions switches (umpire_append_listener_connects_total: $connects)" \
    "$(ok test "${connects% *}" -gt "$disruptions" -a "${connects#* }" -gt "$disruptions")"
probes_match() { # umpire_standby_up is 1 for exactly the nodes that are standbys now
    local n i want
    for n in 1 2; do
        for ((i = 1; i <= HA_NODES; i++)); do
            want=1
            [[ "$i" == "$final_leader" ]] && want=0
            [[ "$(metric "$n" "umpire_standby_up{standby=\"standby-$i\"}")" == "$want" ]] || return 1
        done
    done
}
check "both instances' standby probes mark up exactly the nodes that are standbys now (the primary, node $final_leader, refuses their read-only sessions)" \
    "$(ok poll 60 probes_match)"
clock_timed_out() { # a timeout by the clock, and no seat's deadline timed out by two appends
    curl -s "$DEPLOY_URL/v1/games/$clocked_id/events?after=0" -H "authorization: Bearer $clocked_umpire" |
        python3 -c 'import json, sys
appends = {}
for x in json.load(sys.stdin)["events"]:
    if x["actor"] == "clock":
        appends.setdefault((x["action"]["seat"], x["action"]["deadline"]), set()).add(x["recorded_at"])
sys.exit(0 if appends and all(len(a) == 1 for a in appends.values()) else 1)'
}
if [[ -n "$clocked_id" ]]; then
    check "the clocked game whose deadline fell while its primary was down timed out by the clock, once a deadline (the timekeeper reconnected)" \
        "$(ok poll 60 clock_timed_out)"
fi

# Synchronous against asynchronous replication, same machine, same run.
if ((THROUGHPUT_SECONDS > 0)); then
    touch "$WORK_DIR/stop"
    wait "$CLIENTS_PID" || true
    CLIENTS_PID=
    mv "$OUT/clients.json" "$OUT/clients-failover.json"
    : >"$OUT/throughput.tsv"
    for ((round = 1; round <= THROUGHPUT_ROUNDS; round++)); do
        for mode in true false; do
            patronictl_ha edit-config --force -s "synchronous_mode=$mode" "$HA_SCOPE" >/dev/null
            # Patroni applies the change at its next loop: waited for.
            sync_names() { psql_node "$(leader_node)" postgres -Atc "SHOW synchronous_standby_names" 2>/dev/null; }
            sync_applied() { if [[ "$mode" == true ]]; then [[ -n "$(sync_names)" ]]; else [[ -z "$(sync_names)" ]]; fi; }
            poll 60 sync_applied || true
            t0="$(now)"
            PYTHONPATH="$client_path" "$venv/bin/python" "$REPO_ROOT/tests/topology/clients.py" "$DEPLOY_URL" \
                "$RUN_DIR/secrets/admin-token" "$WORK_DIR/throughput-$mode-$round.json" "$WORK_DIR/tp-progress" \
                "$WORK_DIR/tp-stop-never" --workers "$WORKERS" --max-seconds "$THROUGHPUT_SECONDS" 2>/dev/null
            printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "$round" "$t0" "$THROUGHPUT_SECONDS" \
                "$WORK_DIR/throughput-$mode-$round.json" >>"$OUT/throughput.tsv"
            note "synchronous_mode=$mode round $round: $(psql_node "$(leader_node)" postgres -Atc "SHOW synchronous_standby_names") as synchronous_standby_names"
        done
    done
    python3 "$REPO_ROOT/scripts/failover-figures.py" throughput "$OUT/throughput.tsv" | tee -a "$OUT/summary.txt" >&2
    patronictl_ha edit-config --force -s "synchronous_mode=true" "$HA_SCOPE" >/dev/null
    clients_json="$OUT/clients-failover.json"
else
    log "stopping the clients after $(progress) actions (each finishes its game)"
    touch "$WORK_DIR/stop"
    clients_status=0
    wait "$CLIENTS_PID" || clients_status=$?
    CLIENTS_PID=
    clients_json="$OUT/clients.json"
    check "the clients played every game to its end: every legal action accepted, every request answered within its retries" "$clients_status"
fi
note "$(python3 -c "import json, sys; o = json.load(open(sys.argv[1]))['observations']; print(f\"{o['acknowledged']} actions acknowledged; answers {o['statuses']}; retried {o['retried']}\")" "$clients_json")"
check "no request answered 500, and every 503 said Retry-After" \
    "$(python3 -c "import json, sys; s = json.load(open(sys.argv[1]))['observations']['statuses']; sys.exit(1 if s.get('500') or s.get('503 without Retry-After') else 0)" "$clients_json" && echo 0 || echo 1)"
check "every game's clients finished without a failure" \
    "$(python3 -c "import json, sys; sys.exit(1 if json.load(open(sys.argv[1]))['failures'] else 0)" "$clients_json" && echo 0 || echo 1)"

verified=0
python3 "$REPO_ROOT/scripts/faults/verify.py" "$DEPLOY_URL" "$clients_json" --report "$OUT/verify.json" || verified=$?
check "no acknowledged action lost or doubled: each in the log exactly once, in order; seqs without a gap; every hash recomputes ($(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['totals'])" "$OUT/verify.json"))" "$verified"
checked=0
PYTHONPATH="$client_path" "$venv/bin/python" "$REPO_ROOT/tests/topology/check.py" "$DEPLOY_URL" \
    "$clients_json" 2>"$WORK_DIR/check.txt" || checked=$?
cat "$WORK_DIR/check.txt" >&2
check "every stream brought every version once and in order across its resumptions, and ended finished; every audit valid, its chain intact ($(sed -n 's/^check: {/{/p' "$WORK_DIR/check.txt"))" "$checked"

python3 "$REPO_ROOT/scripts/failover-figures.py" switches "$OUT/events.tsv" "$clients_json" | tee -a "$OUT/summary.txt" >&2
[[ -n "${FAILOVER_FIGURES:-}" ]] && cp "$OUT/summary.txt" "$FAILOVER_FIGURES"

panics=0
for n in 1 2; do
    grep -q panicked "$RUN_DIR/instance-$n/server.log" && { grep -m 3 panicked "$RUN_DIR/instance-$n/server.log" >&2; panics=1; }
done
check "no panic in either instance's log" "$panics"
note "nginx answered: $(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[1-5][0-9][0-9]$/ && $(i-1) ~ /"$/) { print $i; break } }' "$RUN_DIR/nginx/access.log" | sort | uniq -c | tr -s ' ' | tr '\n' ',' | sed 's/,$//')"
note "wall time: $SECONDS s"

if ((failures)); then die "$failures failover check(s) failed: see $OUT/summary.txt"; fi
log "all failover checks passed: $OUT/summary.txt"
