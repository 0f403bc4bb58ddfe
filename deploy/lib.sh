# The reference deployment's pieces, as functions: sourced by deploy/start.sh,
# deploy/stop.sh, the topology test and the replica benchmark. Source it from
# bash with `set -euo pipefail` after setting RUN_DIR (where everything
# lives); it starts nothing by itself.
#
#   RUN_DIR/secrets/    pgpass (the three roles' passwords), admin-token: 0600, yours
#   RUN_DIR/primary/    pgdata, socket, postgres.log: the PostgreSQL 15 primary
#   RUN_DIR/standby/    pgdata, socket, postgres.log: its streaming standby
#   RUN_DIR/instance-N/ server.log, pid, port: `umpire serve` number N (1, 2)
#   RUN_DIR/nginx/      nginx.conf (deploy/nginx.conf filled in), logs, pid
#   RUN_DIR/ports       the ports chosen at the first start, kept for restarts
#   with HA=1 (deploy/start.sh --ha), Patroni nodes and etcd members instead
#   of primary/ and standby/: see deploy/ha.sh
#
# PostgreSQL listens on unix sockets only (listen_addresses = ''), in
# directories only the user it runs as may enter; every connection gives its
# role's password (scram-sha-256). As root it runs as the `postgres` system
# user, as pgcluster/src/lib.rs does. Roles:
#   umpire      the clusters' superuser: creates the database, runs `umpire migrate`
#   umpire_app  what the instances log in as: LOGIN NOSUPERUSER, SELECT and
#               INSERT on the service's tables only (granted by migrations/V1..)
#   replicator  REPLICATION only: what the standby streams the WAL as

source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"

DEPLOY_DIR="$REPO_ROOT/deploy"
# PostgreSQL 15's server programs, from Debian's postgresql-15 (installed
# when missing); UMPIRE_DEPLOY_PG_BIN to use others.
PG_BIN="${UMPIRE_DEPLOY_PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_PORT=5432
: "${INSTANCES:=2}"

as_root() { [[ "$(id -u)" == 0 ]]; }

# pg BINARY ARGS...: a PostgreSQL program, as postgres when we are root.
pg() { pg_as_postgres "$@"; }

# own_by_postgres PATH...: hands paths to the user PostgreSQL runs as.
own_by_postgres() { as_root && chown postgres:postgres "$@" || true; }

random_secret() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

password_of() { awk -F: -v role="$1" '$4 == role { print $5 }' "$RUN_DIR/secrets/pgpass"; }

# conninfo CLUSTER ROLE DATABASE: a libpq key=value connection string to
# CLUSTER (primary or standby) with the role's password.
conninfo() {
    printf 'host=%s port=%s user=%s password=%s dbname=%s' \
        "$RUN_DIR/$1/socket" "$PG_PORT" "$2" "$(password_of "$2")" "$3"
}

# psql_owner CLUSTER DATABASE ARGS...: psql as the superuser, the password
# from the pgpass file (never in a command line).
psql_owner() {
    local cluster="$1" database="$2"; shift 2
    PGPASSFILE="$RUN_DIR/secrets/pgpass" "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 \
        -h "$RUN_DIR/$cluster/socket" -p "$PG_PORT" -U umpire -d "$database" "$@"
}

deploy_secrets() {
    mkdir -p "$RUN_DIR/secrets"
    chmod 700 "$RUN_DIR/secrets"
    if [[ ! -s "$RUN_DIR/secrets/pgpass" ]]; then
        (umask 077 && printf '*:*:*:umpire:%s\n*:*:*:umpire_app:%s\n*:*:*:replicator:%s\n' \
            "$(random_secret)" "$(random_secret)" "$(random_secret)" >"$RUN_DIR/secrets/pgpass")
    fi
    if [[ ! -s "$RUN_DIR/secrets/admin-token" ]]; then
        (umask 077 && random_secret >"$RUN_DIR/secrets/admin-token")
    fi
}

# ports: the nginx port and one per instance, chosen at the first start
# (UMPIRE_DEPLOY_PORT, default 8080; UMPIRE_DEPLOY_INSTANCE_PORTS, default
# "8081 8082") and kept in RUN_DIR/ports so restarts reuse them.
deploy_ports() {
    if [[ ! -s "$RUN_DIR/ports" ]]; then
        printf 'NGINX_PORT=%s\nINSTANCE_PORTS=(%s)\n' "${UMPIRE_DEPLOY_PORT:-8080}" \
            "${UMPIRE_DEPLOY_INSTANCE_PORTS:-8081 8082}" >"$RUN_DIR/ports"
    fi
    # shellcheck disable=SC1091
    source "$RUN_DIR/ports"
    DEPLOY_URL="http://127.0.0.1:$NGINX_PORT"
}

instance_url() { printf 'http://127.0.0.1:%s' "${INSTANCE_PORTS[$(($1 - 1))]}"; }

# cluster_conf CLUSTER: the settings both clusters share, in a file their
# postgresql.conf includes (pg_basebackup copies it; the standby's is then
# rewritten for its own socket).
cluster_conf() {
    local cluster="$1"
    cat >"$RUN_DIR/$cluster/pgdata/umpire-deploy.conf" <<EOF
# Written by deploy/lib.sh: unix socket only, in a directory of its own.
listen_addresses = ''
unix_socket_directories = '$RUN_DIR/$cluster/socket'
unix_socket_permissions = 0700
port = $PG_PORT
max_connections = 200
# Streaming replication (the defaults, said here): WAL for a standby, and the
# standby answers read-only queries while it replays.
wal_level = replica
max_wal_senders = 10
hot_standby = on
# The standby tells the primary which rows its queries still read, so its
# reads are not cancelled by the primary's cleanup.
hot_standby_feedback = on
# The standby's slot keeps WAL it has not received, at most this much (a
# standby down for long enough is then rebuilt with pg_basebackup).
max_slot_wal_keep_size = 2GB
EOF
    own_by_postgres "$RUN_DIR/$cluster/pgdata/umpire-deploy.conf"
    grep -q "include_if_exists = 'umpire-deploy.conf'" "$RUN_DIR/$cluster/pgdata/postgresql.conf" ||
        echo "include_if_exists = 'umpire-deploy.conf'" >>"$RUN_DIR/$cluster/pgdata/postgresql.conf"
}

cluster_running() { pg pg_ctl status -D "$RUN_DIR/$1/pgdata" >/dev/null 2>&1; }

start_cluster() {
    local cluster="$1"
    cluster_running "$cluster" && return 0
    pg pg_ctl start -w -t 120 -D "$RUN_DIR/$cluster/pgdata" -l "$RUN_DIR/$cluster/postgres.log" >/dev/null ||
        { tail -n 20 "$RUN_DIR/$cluster/postgres.log" >&2; die "the $cluster did not start"; }
}

stop_cluster() {
    local cluster="$1" mode="${2:-fast}"
    [[ -f "$RUN_DIR/$cluster/pgdata/postmaster.pid" ]] || return 0
    pg pg_ctl stop -w -t 60 -m "$mode" -D "$RUN_DIR/$cluster/pgdata" >/dev/null 2>&1 || true
}

cluster_dirs() {
    mkdir -p "$RUN_DIR/$1/socket"
    own_by_postgres "$RUN_DIR/$1" "$RUN_DIR/$1/socket"
    chmod 700 "$RUN_DIR/$1" "$RUN_DIR/$1/socket"
}

# setup_primary: initdb (first time), start, roles and database, migrations.
setup_primary() {
    [[ -x "$PG_BIN/initdb" ]] || ensure_apt "$PG_BIN/initdb" postgresql-15
    cluster_dirs primary
    if [[ ! -f "$RUN_DIR/primary/pgdata/PG_VERSION" ]]; then
        log "initdb: the primary in $RUN_DIR/primary/pgdata"
        local pwfile="$RUN_DIR/primary/owner-password"
        (umask 077 && password_of umpire >"$pwfile")
        own_by_postgres "$pwfile"
        pg initdb -D "$RUN_DIR/primary/pgdata" -U umpire --pwfile="$pwfile" \
            --auth=scram-sha-256 --encoding=UTF8 --locale=C >"$RUN_DIR/primary/initdb.log" 2>&1 ||
            { rm -f "$pwfile"; cat "$RUN_DIR/primary/initdb.log" >&2; die "initdb failed"; }
        rm -f "$pwfile"
        cat >"$RUN_DIR/primary/pgdata/pg_hba.conf" <<'EOF'
# Written by deploy/lib.sh: unix socket only, a password for every role,
# each role only where it is needed.
local   all          umpire                 scram-sha-256
local   umpire       umpire_app             scram-sha-256
local   replication  replicator             scram-sha-256
EOF
        own_by_postgres "$RUN_DIR/primary/pgdata/pg_hba.conf"
        cluster_conf primary
        start_cluster primary
        # Passwords go through psql's standard input, never its arguments.
        psql_owner primary postgres -f - <<EOF
SET log_statement = 'none';
CREATE ROLE umpire_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD '$(password_of umpire_app)';
CREATE ROLE replicator LOGIN REPLICATION NOSUPERUSER NOCREATEDB NOCREATEROLE
    PASSWORD '$(password_of replicator)';
CREATE DATABASE umpire OWNER umpire;
EOF
    fi
    start_cluster primary
    # The owner migrates; the instances, as umpire_app, only check that it
    # was done (storage/src/pool.rs).
    DATABASE_URL="$(conninfo primary umpire umpire)" "$UMPIRE" migrate -q ||
        die "umpire migrate failed"
}

# setup_standby: pg_basebackup -R from the primary (first time: it writes
# standby.signal and primary_conninfo, and makes the primary's replication
# slot), then start it.
setup_standby() {
    cluster_dirs standby
    if [[ ! -f "$RUN_DIR/standby/pgdata/PG_VERSION" ]]; then
        log "pg_basebackup: the standby in $RUN_DIR/standby/pgdata"
        local passfile="$RUN_DIR/standby/replicator-pgpass"
        (umask 077 && printf '*:*:*:replicator:%s\n' "$(password_of replicator)" >"$passfile")
        own_by_postgres "$passfile"
        psql_owner primary postgres -c "SELECT pg_drop_replication_slot('umpire_standby_1')
            FROM pg_replication_slots WHERE slot_name = 'umpire_standby_1'" >/dev/null
        # primary_conninfo names this file (passfile=): the standby reads
        # the replicator's password from it whenever it connects, so it
        # stays, beside pgdata, readable by PostgreSQL's user alone.
        pg_as_postgres_env PGPASSFILE="$passfile" pg_basebackup -D "$RUN_DIR/standby/pgdata" \
            -h "$RUN_DIR/primary/socket" -p "$PG_PORT" -U replicator \
            -R -C -S umpire_standby_1 -X stream -c fast ||
            die "pg_basebackup failed"
        cluster_conf standby
    fi
    start_cluster standby
}

# pg_as_postgres_env VAR=VALUE PROGRAM ARGS...: a PostgreSQL program with one
# environment variable, as postgres when we are root.
pg_as_postgres_env() {
    local assignment="$1" program="$2"; shift 2
    if as_root; then
        runuser -u postgres -- env "$assignment" "$PG_BIN/$program" "$@"
    else
        env "$assignment" "$PG_BIN/$program" "$@"
    fi
}

# standby_replaying: true when the standby is in recovery and streaming.
standby_replaying() {
    [[ "$(psql_owner primary postgres -Atc "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'" 2>/dev/null)" -ge 1 ]]
}

# start_instance N: `umpire serve` number N on its port, in the background;
# waits until /readyz answers (a restarted instance: the same port).
start_instance() {
    local n="$1" dir="$RUN_DIR/instance-$1" url
    mkdir -p "$dir"
    url="$(instance_url "$n")"
    local env=(DATABASE_URL="$(conninfo primary umpire_app umpire)")
    if [[ "${HA:-0}" != 0 ]]; then
        # Every Patroni node: the primary for writes, the standbys for reads.
        env=(DATABASE_URL="$(ha_conninfo umpire_app read-write)" UMPIRE_REPLICAS="$(ha_replicas)")
    elif [[ "${WITH_STANDBY:-1}" != 0 ]]; then
        env+=(UMPIRE_REPLICAS="$(conninfo standby umpire_app umpire)")
    fi
    # The connection strings hold passwords: given in the environment
    # (readable by this user and root only), never in arguments (`ps`).
    # nginx, on this machine, is the proxy whose X-Forwarded-For the
    # instances believe: spectators' streams are then limited per client,
    # not all together as nginx's one address.
    env "${env[@]}" "$UMPIRE" serve --bind "127.0.0.1:${INSTANCE_PORTS[$((n - 1))]}" \
        --admin-token-file "$RUN_DIR/secrets/admin-token" --trusted-proxy 127.0.0.1 "${INSTANCE_ARGS[@]}" \
        >>"$dir/server.log" 2>&1 &
    echo $! >"$dir/pid"
    local deadline=$((SECONDS + 120))
    while ((SECONDS < deadline)); do
        kill -0 "$(cat "$dir/pid")" 2>/dev/null ||
            { tail -n 20 "$dir/server.log" >&2; die "instance $n exited at start"; }
        [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url/readyz")" == 200 ]] && return 0
        sleep 0.2
    done
    tail -n 20 "$dir/server.log" >&2
    die "instance $n was not ready within 120 s"
}
INSTANCE_ARGS=()

instance_pid() { cat "$RUN_DIR/instance-$1/pid" 2>/dev/null || true; }

# stop_instance N [SIGNAL]: TERM (the default: it finishes what it accepted,
# within its 30 s shutdown timeout) or KILL; waits until it is gone.
stop_instance() {
    local n="$1" signal="${2:-TERM}" pid
    pid="$(instance_pid "$n")"
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill "-$signal" "$pid"
        local deadline=$((SECONDS + 60))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
        wait "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN_DIR/instance-$n/pid"
}

start_nginx() {
    ensure_apt nginx nginx
    local dir="$RUN_DIR/nginx" user_line=""
    mkdir -p "$dir/tmp"
    if as_root; then
        # The workers drop to www-data (Debian's nginx user); they write
        # request bodies over 128 KiB to tmp/.
        user_line="user www-data;"
        chown www-data "$dir/tmp"
    fi
    sed -e "s|@USER@|$user_line|" -e "s|@RUN@|$dir|g" -e "s|@LISTEN@|127.0.0.1:$NGINX_PORT|" \
        -e "s|@INSTANCE_1@|127.0.0.1:${INSTANCE_PORTS[0]}|" -e "s|@INSTANCE_2@|127.0.0.1:${INSTANCE_PORTS[1]}|" \
        "${NGINX_TEMPLATE:-$DEPLOY_DIR/nginx.conf}" >"$dir/nginx.conf"
    nginx -t -q -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" || die "nginx refused $dir/nginx.conf"
    nginx -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' >>"$dir/nginx.out" 2>&1 &
    echo $! >"$dir/pid"
    local deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$DEPLOY_URL/healthz")" == 200 ]] && return 0
        kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
        sleep 0.2
    done
    tail -n 20 "$dir/error.log" >&2
    die "nginx did not answer at $DEPLOY_URL"
}

stop_nginx() {
    local pid
    pid="$(cat "$RUN_DIR/nginx/pid" 2>/dev/null || true)"
    [[ -n "$pid" ]] || return 0
    if kill -0 "$pid" 2>/dev/null; then
        kill -QUIT "$pid" # graceful: open streams are closed, requests finish
        local deadline=$((SECONDS + 10))
        while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        kill -0 "$pid" 2>/dev/null && kill -TERM "$pid"
        wait "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN_DIR/nginx/pid"
}

# deploy_up: everything, in order; sets DEPLOY_URL.
deploy_up() {
    mkdir -p "$RUN_DIR"
    chmod 755 "$RUN_DIR" # PostgreSQL's user must reach its directories inside
    deploy_secrets
    deploy_ports
    if [[ "${HA:-0}" != 0 ]]; then
        setup_ha
    else
        setup_primary
        if [[ "${WITH_STANDBY:-1}" != 0 ]]; then
            setup_standby
        fi
    fi
    local n
    for ((n = 1; n <= INSTANCES; n++)); do start_instance "$n"; done
    start_nginx
}

# deploy_down: everything this run directory holds that runs, stopped:
# nginx first (no new requests), the instances (SIGTERM), the standby, the
# primary.
deploy_down() {
    [[ -d "${RUN_DIR:-}" ]] || return 0
    stop_nginx
    local dir
    for dir in "$RUN_DIR"/instance-*; do
        [[ -d "$dir" ]] && stop_instance "${dir##*-}"
    done
    stop_cluster standby
    stop_cluster primary
    [[ -s "$RUN_DIR/ha-ports" ]] && { ha_ports; ha_down; }
    return 0
}

# The high-availability variant (Patroni and etcd): deploy/ha.sh.
source "$DEPLOY_DIR/ha.sh"
