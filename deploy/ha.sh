# The high-availability variant of the reference deployment, as functions:
# sourced after deploy/lib.sh by `deploy/start.sh --ha`, deploy/stop.sh and
# scripts/failover-test.sh. Instead of one primary and one standby made by
# hand, Patroni (Debian's `patroni`) runs HA_NODES PostgreSQL 15 nodes and
# keeps its leader lock in a three-member etcd cluster (Debian's
# `etcd-server`), all on loopback: when the primary's node dies, another
# node that is its synchronous standby is promoted, and the old one comes
# back as a standby of it (pg_rewind). It starts nothing by itself.
#
#   RUN_DIR/etcd-N/     data, etcd.log, pid: etcd member N (1..3)
#   RUN_DIR/node-N/     patroni.yml (0600: the passwords), pgdata, socket,
#                       patroni.log, pid: Patroni node N and its PostgreSQL
#   RUN_DIR/ha-ports    the ports chosen at the first start, kept for restarts
#
# The service is given every node (DATABASE_URL: a multi-host libpq string
# with target_session_attrs=read-write), so every connection it opens —
# the pool's, the LISTEN connection's — reaches whichever node is primary
# now; each node is also a read replica (target_session_attrs=read-only),
# so reads go to whichever nodes are standbys now.

: "${HA_NODES:=3}"
HA_SCOPE=umpire

# ha_ports: etcd's client and peer ports, Patroni's REST ports and
# PostgreSQL's TCP ports (loopback only), chosen free at the first start
# (UMPIRE_HA_PORT_BASE=N: N, N+1, ... instead) and kept in RUN_DIR/ha-ports.
ha_ports() {
    if [[ ! -s "$RUN_DIR/ha-ports" ]]; then
        local base="${UMPIRE_HA_PORT_BASE:-}" n next=0 ports=()
        for ((n = 0; n < 6 + 2 * HA_NODES; n++)); do
            if [[ -n "$base" ]]; then ports+=($((base + n))); else ports+=("$(free_port)"); fi
        done
        {
            printf 'ETCD_CLIENT_PORTS=(%s)\n' "${ports[*]:0:3}"
            printf 'ETCD_PEER_PORTS=(%s)\n' "${ports[*]:3:3}"
            next=6
            printf 'REST_PORTS=(%s)\n' "${ports[*]:$next:$HA_NODES}"
            printf 'NODE_PG_PORTS=(%s)\n' "${ports[*]:$((next + HA_NODES)):$HA_NODES}"
        } >"$RUN_DIR/ha-ports"
    fi
    # shellcheck disable=SC1091
    source "$RUN_DIR/ha-ports"
}

etcd_endpoints() {
    local port out=()
    for port in "${ETCD_CLIENT_PORTS[@]}"; do out+=("127.0.0.1:$port"); done
    local IFS=,
    printf '%s' "${out[*]}"
}

start_etcd_member() {
    local n="$1" dir="$RUN_DIR/etcd-$1" i cluster=()
    etcd_running "$n" && return 0
    mkdir -p "$dir"
    chmod 700 "$dir"
    for ((i = 1; i <= 3; i++)); do
        cluster+=("etcd-$i=http://127.0.0.1:${ETCD_PEER_PORTS[$((i - 1))]}")
    done
    local state=new
    [[ -d "$dir/data/member" ]] && state=existing
    # Longer heartbeats and elections than etcd's defaults (100 ms, 1 s):
    # on a loaded machine the defaults elect a new etcd leader for nothing,
    # and each election stalls Patroni's lock for its length.
    (IFS=, && exec etcd --name "etcd-$n" --data-dir "$dir/data" \
        --listen-client-urls "http://127.0.0.1:${ETCD_CLIENT_PORTS[$((n - 1))]}" \
        --advertise-client-urls "http://127.0.0.1:${ETCD_CLIENT_PORTS[$((n - 1))]}" \
        --listen-peer-urls "http://127.0.0.1:${ETCD_PEER_PORTS[$((n - 1))]}" \
        --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER_PORTS[$((n - 1))]}" \
        --initial-cluster "${cluster[*]}" --initial-cluster-state "$state" \
        --initial-cluster-token "umpire-$HA_SCOPE" \
        --heartbeat-interval 250 --election-timeout 2500 \
        >>"$dir/etcd.log" 2>&1) &
    echo $! >"$dir/pid"
}

etcd_running() { local pid; pid="$(cat "$RUN_DIR/etcd-$1/pid" 2>/dev/null)" && kill -0 "$pid" 2>/dev/null; }

etcd_healthy() {
    ETCDCTL_API=3 etcdctl --endpoints "$(etcd_endpoints)" --command-timeout=3s endpoint health >/dev/null 2>&1
}

stop_etcd_member() {
    local n="$1" signal="${2:-TERM}" pid
    pid="$(cat "$RUN_DIR/etcd-$n/pid" 2>/dev/null)" || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill "-$signal" "$pid"
        local deadline=$((SECONDS + 30))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    fi
    rm -f "$RUN_DIR/etcd-$n/pid"
}

start_etcd() {
    ensure_apt etcd etcd-server
    ensure_apt etcdctl etcd-client
    local n
    for n in 1 2 3; do start_etcd_member "$n"; done
    local deadline=$((SECONDS + 60))
    until etcd_healthy; do
        ((SECONDS < deadline)) || { tail -n 20 "$RUN_DIR/etcd-1/etcd.log" >&2; die "etcd did not become healthy"; }
        sleep 0.5
    done
}

# The Patroni timings (dcs: the cluster-wide configuration, written to etcd
# at bootstrap). Patroni's defaults are ttl 30, loop_wait 10,
# retry_timeout 10: a dead primary's lock then lasts up to 30 s and a
# standby notices its expiry up to 10 s later. These keep Patroni's rule
# (loop_wait + 2 * retry_timeout <= ttl) with a faster failover;
# UMPIRE_HA_TTL, UMPIRE_HA_LOOP_WAIT, UMPIRE_HA_RETRY_TIMEOUT override them.
HA_TTL="${UMPIRE_HA_TTL:-10}"
HA_LOOP_WAIT="${UMPIRE_HA_LOOP_WAIT:-2}"
HA_RETRY_TIMEOUT="${UMPIRE_HA_RETRY_TIMEOUT:-4}"
# synchronous_mode true: a commit (an action's acknowledgement) waits until
# the synchronous standby has flushed it, and Patroni promotes only that
# standby on failover. UMPIRE_HA_SYNC=0 for asynchronous replication (only
# to measure what synchronous costs: a failover may then lose the newest
# acknowledged actions).
HA_SYNC="${UMPIRE_HA_SYNC:-1}"

node_conf() {
    local n="$1" dir="$RUN_DIR/node-$1" sync=false
    [[ "$HA_SYNC" != 0 ]] && sync=true
    (umask 077 && cat >"$dir/patroni.yml" <<EOF
# Written by deploy/ha.sh: Patroni node $n of $HA_NODES.
scope: $HA_SCOPE
name: node-$n
log:
  level: INFO
restapi:
  listen: 127.0.0.1:${REST_PORTS[$((n - 1))]}
  connect_address: 127.0.0.1:${REST_PORTS[$((n - 1))]}
etcd3:
  hosts: $(etcd_endpoints)
bootstrap:
  dcs:
    ttl: $HA_TTL
    loop_wait: $HA_LOOP_WAIT
    retry_timeout: $HA_RETRY_TIMEOUT
    # A standby this far behind (bytes of WAL) is never promoted.
    maximum_lag_on_failover: 1048576
    # See docs/deployment.md ("High availability") for why strict is off.
    synchronous_mode: $sync
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        wal_log_hints: 'on'
        hot_standby: 'on'
        hot_standby_feedback: 'on'
        max_connections: 200
        max_wal_senders: 10
        max_replication_slots: 10
        max_slot_wal_keep_size: 2GB
  initdb:
  - encoding: UTF8
  - locale: C
  - auth-local: scram-sha-256
  - auth-host: scram-sha-256
postgresql:
  listen: 127.0.0.1:${NODE_PG_PORTS[$((n - 1))]}
  connect_address: 127.0.0.1:${NODE_PG_PORTS[$((n - 1))]}
  use_unix_socket: true
  # A new standby's base backup starts at once, not after a spread
  # checkpoint (minutes on an idle primary).
  basebackup:
  - checkpoint: fast
  data_dir: $dir/pgdata
  bin_dir: $PG_BIN
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: umpire
      password: '$(password_of umpire)'
    replication:
      username: replicator
      password: '$(password_of replicator)'
    rewind:
      username: umpire
      password: '$(password_of umpire)'
  parameters:
    unix_socket_directories: '$dir/socket'
    unix_socket_permissions: '0700'
  # Loopback and the node's own socket only; a password for every role.
  pg_hba:
  - local all umpire scram-sha-256
  - host all umpire 127.0.0.1/32 scram-sha-256
  - local umpire umpire_app scram-sha-256
  - host umpire umpire_app 127.0.0.1/32 scram-sha-256
  - local replication replicator scram-sha-256
  - host replication replicator 127.0.0.1/32 scram-sha-256
EOF
    )
    own_by_postgres "$dir/patroni.yml"
}

node_pid() { cat "$RUN_DIR/node-$1/pid" 2>/dev/null || true; }
node_running() { local pid; pid="$(node_pid "$1")"; [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; }

# start_node N: Patroni node N (as postgres when we are root); it starts,
# bootstraps, or rewinds and follows its PostgreSQL by itself.
start_node() {
    local n="$1" dir="$RUN_DIR/node-$1"
    node_running "$n" && return 0
    mkdir -p "$dir/socket"
    own_by_postgres "$dir" "$dir/socket"
    chmod 700 "$dir" "$dir/socket"
    node_conf "$n"
    if as_root; then
        runuser -u postgres -- patroni "$dir/patroni.yml" >>"$dir/patroni.log" 2>&1 &
    else
        patroni "$dir/patroni.yml" >>"$dir/patroni.log" 2>&1 &
    fi
    echo $! >"$dir/pid"
}

# postmaster_pid N: node N's PostgreSQL postmaster, if it runs.
postmaster_pid() {
    local file="$RUN_DIR/node-$1/pgdata/postmaster.pid" pid
    [[ -r "$file" ]] || return 0
    pid="$(head -n 1 "$file")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
    return 0
}

# kill_node N: node N lost as a machine is lost: its Patroni, its
# postmaster and every backend of it SIGKILLed at once (no lock released,
# nothing flushed, no goodbye to any client).
kill_node() {
    local n="$1" pids=() pid
    pid="$(node_pid "$n")"
    [[ -n "$pid" ]] && pids+=("$pid")
    # runuser's child is Patroni itself.
    [[ -n "$pid" ]] && pids+=($(pgrep -P "$pid" || true))
    pid="$(postmaster_pid "$n")"
    [[ -n "$pid" ]] && pids+=("$pid" $(pgrep -P "$pid" || true))
    ((${#pids[@]})) && kill -KILL "${pids[@]}" 2>/dev/null
    rm -f "$RUN_DIR/node-$n/pid"
    return 0
}

stop_node() {
    local n="$1" pid
    pid="$(node_pid "$n")"
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        # Patroni stops its PostgreSQL (fast) before it exits.
        kill -TERM "$pid"
        local deadline=$((SECONDS + 60))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill_node "$n"
    fi
    # A PostgreSQL its Patroni was still starting when told to stop may
    # outlive it: stopped here (fast), so nothing is left running.
    local postmaster
    postmaster="$(postmaster_pid "$n")"
    if [[ -n "$postmaster" ]]; then
        kill -INT "$postmaster" 2>/dev/null || true
        local deadline=$((SECONDS + 60))
        while kill -0 "$postmaster" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    fi
    rm -f "$RUN_DIR/node-$n/pid"
}

# node_role N: what node N's Patroni REST API says it is (primary, replica,
# ...; nothing when it does not answer).
node_role() {
    curl -s --max-time 2 "http://127.0.0.1:${REST_PORTS[$(($1 - 1))]}/patroni" 2>/dev/null |
        python3 -c 'import json, sys; print(json.load(sys.stdin).get("role", ""))' 2>/dev/null || true
}

# leader_node: the node whose REST API answers /primary 200 (it holds the
# leader lock and runs as primary); nothing when none does.
leader_node() {
    local n
    for ((n = 1; n <= HA_NODES; n++)); do
        if [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
            "http://127.0.0.1:${REST_PORTS[$((n - 1))]}/primary" 2>/dev/null)" == 200 ]]; then
            printf '%s\n' "$n"
            return 0
        fi
    done
}

# wait_for_leader SECONDS: prints the leader's number once there is one.
wait_for_leader() {
    local deadline=$((SECONDS + $1)) leader
    while ((SECONDS < deadline)); do
        leader="$(leader_node)"
        [[ -n "$leader" ]] && { printf '%s\n' "$leader"; return 0; }
        sleep 0.2
    done
    return 1
}

# streaming_standbys: how many standbys the leader streams to (and, in
# synchronous mode, how many of those are synchronous, after a slash).
streaming_standbys() {
    local leader
    leader="$(leader_node)"
    [[ -n "$leader" ]] || { echo 0/0; return; }
    psql_node "$leader" postgres -Atc "SELECT count(*) || '/' || count(*) FILTER (WHERE sync_state = 'sync')
        FROM pg_stat_replication WHERE state = 'streaming'" 2>/dev/null || echo 0/0
}

# psql_node N DATABASE ARGS...: psql as the superuser on node N.
psql_node() {
    local n="$1" database="$2"; shift 2
    PGPASSFILE="$RUN_DIR/secrets/pgpass" PGCONNECT_TIMEOUT=3 "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
        -h 127.0.0.1 -p "${NODE_PG_PORTS[$((n - 1))]}" -U umpire -d "$database" "$@"
}

# ha_conninfo ROLE ATTRS: every node in one libpq string; libpq and
# tokio-postgres try the hosts in order and keep the first whose session
# has ATTRS (read-write: the primary; read-only: a standby).
ha_conninfo() {
    local hosts=() port
    for port in "${NODE_PG_PORTS[@]}"; do hosts+=(127.0.0.1); done
    local IFS=,
    printf 'host=%s port=%s user=%s password=%s dbname=umpire target_session_attrs=%s connect_timeout=2' \
        "${hosts[*]}" "${NODE_PG_PORTS[*]}" "$1" "$(password_of "$1")" "$2"
}

# ha_replicas: each node as its own read replica (comma-separated, as
# UMPIRE_REPLICAS takes them), read-only: the primary refuses such a
# session, so reads go to the standbys, whichever they are now.
ha_replicas() {
    local port out=()
    for port in "${NODE_PG_PORTS[@]}"; do
        out+=("host=127.0.0.1 port=$port user=umpire_app password=$(password_of umpire_app) dbname=umpire target_session_attrs=read-only connect_timeout=2")
    done
    local IFS=,
    printf '%s' "${out[*]}"
}

# setup_ha: etcd, the Patroni nodes, the roles and the database on the
# first leader, the migrations; returns once every standby streams.
setup_ha() {
    [[ -x "$PG_BIN/initdb" ]] || ensure_apt "$PG_BIN/initdb" postgresql-15
    ensure_apt patroni patroni
    ha_ports
    start_etcd
    local n leader
    for ((n = 1; n <= HA_NODES; n++)); do start_node "$n"; done
    leader="$(wait_for_leader 180)" || { tail -n 30 "$RUN_DIR/node-1/patroni.log" >&2; die "no Patroni leader within 180 s"; }
    log "Patroni: node $leader leads"
    # The roles and the database, once (they replicate to every node).
    if [[ "$(psql_node "$leader" postgres -Atc "SELECT count(*) FROM pg_roles WHERE rolname = 'umpire_app'")" == 0 ]]; then
        psql_node "$leader" postgres -f - <<EOF
SET log_statement = 'none';
CREATE ROLE umpire_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD '$(password_of umpire_app)';
EOF
    fi
    if [[ "$(psql_node "$leader" postgres -Atc "SELECT count(*) FROM pg_database WHERE datname = 'umpire'")" == 0 ]]; then
        psql_node "$leader" postgres -c "CREATE DATABASE umpire OWNER umpire"
    fi
    DATABASE_URL="$(ha_conninfo umpire read-write)" "$UMPIRE" migrate -q || die "umpire migrate failed"
    local deadline=$((SECONDS + 240))
    until [[ "$(streaming_standbys)" == "$((HA_NODES - 1))/"* ]]; do
        ((SECONDS < deadline)) || die "the standbys were not all streaming within 240 s ($(streaming_standbys))"
        sleep 0.5
    done
}

# ha_down: every node this run directory holds (however many were
# started), then etcd.
ha_down() {
    local dir n
    for dir in "$RUN_DIR"/node-*; do
        [[ -d "$dir" ]] && stop_node "${dir##*-}"
    done
    for n in 1 2 3; do stop_etcd_member "$n"; done
}

# patronictl_ha ARGS...: patronictl with node 1's configuration (it only
# reads where etcd is and the scope from it).
patronictl_ha() { patronictl -c "$RUN_DIR/node-1/patroni.yml" "$@"; }
