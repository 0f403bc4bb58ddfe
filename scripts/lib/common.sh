# Shared helpers for the tooling scripts in scripts/ and openapi/: finding or
# building the `umpire` binary, Python and npm tool caches, and starting the
# real server on a private PostgreSQL cluster under a temporary directory.
#
# Source it from bash with `set -euo pipefail`; it defines functions and the
# variables REPO_ROOT and TOOLS_DIR, and starts nothing by itself.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Installed tools (Python venvs, node_modules) are cached here between runs:
# a fresh machine fills it on first use. It is in .gitignore.
TOOLS_DIR="${UMPIRE_TOOLS_DIR:-$REPO_ROOT/.tools}"
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

# umpire_binary PROFILE: prints the path of target/PROFILE/umpire (PROFILE is
# debug or release), built first. UMPIRE_BIN wins.
umpire_binary() {
    local profile="$1"
    if [[ -n "${UMPIRE_BIN:-}" ]]; then
        [[ -x "$UMPIRE_BIN" ]] || die "UMPIRE_BIN=$UMPIRE_BIN is not executable"
        printf '%s\n' "$UMPIRE_BIN"
        return
    fi
    local target_dir="${CARGO_TARGET_DIR:-$REPO_ROOT/target}"
    local binary="$target_dir/$profile/umpire"
    # Always asked of cargo (a no-op when up to date), so a stale binary is
    # never measured.
    log "building $binary"
    # With the benchmarks' tools' feature, as they are built: one build of
    # the crate serves both, where alternating would rebuild it each time.
    local flags=(--features bench)
    [[ "$profile" == release ]] && flags+=(--release)
    (cd "$REPO_ROOT" && cargo build "${flags[@]}" -p umpire-api --bin umpire >&2)
    printf '%s\n' "$binary"
}

# python_venv NAME PACKAGE...: prints the path of a cached venv with the
# packages installed from PyPI (installed once, reused afterwards).
python_venv() {
    local name="$1"; shift
    local venv="$TOOLS_DIR/venv-$name"
    local stamp="$venv/.installed"
    local wanted="$*"
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
        log "installing $wanted into $venv"
        rm -rf "$venv"
        python3 -m venv "$venv" >&2
        "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
        printf '%s' "$wanted" > "$stamp"
    fi
    printf '%s\n' "$venv"
}

# ensure_apt COMMAND PACKAGE: installs a Debian package when COMMAND is missing.
ensure_apt() {
    command -v "$1" >/dev/null 2>&1 && return
    log "installing the Debian package $2"
    if [[ "$(id -u)" == 0 ]]; then
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
    else
        sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# make_work_dir: a temporary directory the postgres system user can traverse
# (the private cluster runs as postgres when we are root). Sets WORK_DIR.
make_work_dir() {
    WORK_DIR="$(mktemp -d /tmp/umpire-tools.XXXXXX)"
    chmod 755 "$WORK_DIR"
}

# start_server BINARY DATA_DIR [EXTRA ARGS...]: starts `umpire serve` on a free
# loopback port, waits until /readyz answers 200, and sets SERVER_PID,
# SERVER_PORT and BASE_URL. The server's log goes to DATA_DIR/../server.log
# (appended, so restarts keep history). Reuses SERVER_PORT when set.
#
# The tooling plays far more games a minute from loopback than a stranger
# may create without an admin token (10 a minute, 429 `too_many_games`), so
# it lifts that one limit to TOOLING_CREATIONS_PER_MINUTE (100000 unless set).
start_server() {
    local binary="$1" data_dir="$2"; shift 2
    SERVER_PORT="${SERVER_PORT:-$(free_port)}"
    BASE_URL="http://127.0.0.1:$SERVER_PORT"
    SERVER_LOG="$(dirname "$data_dir")/server.log"
    "$binary" serve --bind "127.0.0.1:$SERVER_PORT" --data-dir "$data_dir" \
        --creations-per-minute "${TOOLING_CREATIONS_PER_MINUTE:-100000}" "$@" \
        >>"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    wait_ready 120 || { tail -n 40 "$SERVER_LOG" >&2; die "the server did not become ready"; }
    log "server pid $SERVER_PID ready at $BASE_URL"
}

# wait_ready SECONDS: polls /readyz until 200; fails if the server exits.
wait_ready() {
    local deadline=$((SECONDS + $1))
    while ((SECONDS < deadline)); do
        if [[ -n "${SERVER_PID:-}" ]] && ! kill -0 "$SERVER_PID" 2>/dev/null; then
            return 1
        fi
        if [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$BASE_URL/readyz")" == 200 ]]; then
            return 0
        fi
        sleep 0.2
    done
    return 1
}

# stop_server: SIGTERM and wait (the server stops the cluster it started).
stop_server() {
    if [[ -n "${SERVER_PID:-}" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID"
        local deadline=$((SECONDS + 60))
        while kill -0 "$SERVER_PID" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
        kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL "$SERVER_PID"
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=
}

# cluster_url ROLE DATABASE DATA_DIR: a libpq connection string to the
# private cluster under DATA_DIR as ROLE (`umpire`, the owner, for admin work;
# `umpire_app`, the service's role), with the password from DATA_DIR/pgpass.
# For psql and pgbench prefer `export PGPASSFILE=DATA_DIR/pgpass`: a password
# in a command's arguments is visible to every local account in `ps`.
cluster_url() {
    local role="$1" database="$2" data_dir="$3" password
    password="$(awk -F: -v role="$role" '$4 == role { print $5 }' "$data_dir/pgpass")"
    [[ -n "$password" ]] || die "no password for $role in $data_dir/pgpass"
    printf 'host=%s port=5432 user=%s password=%s dbname=%s\n' \
        "$data_dir/socket" "$role" "$password" "$database"
}

# pg_as_postgres ARGS...: runs a PostgreSQL binary as the postgres system
# user when we are root (PostgreSQL refuses to run as root).
pg_as_postgres() {
    local program="$1"; shift
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$PG_BIN/$program" "$@"
    else
        "$PG_BIN/$program" "$@"
    fi
}

# cleanup_keeping_log OUT: cleanup_work_dir, after copying the server's log
# to OUT/server.log (for `trap 'cleanup_keeping_log "$OUT"' EXIT`).
cleanup_keeping_log() {
    stop_server
    [[ -f "${SERVER_LOG:-}" ]] && cp "$SERVER_LOG" "$1/server.log"
    cleanup_work_dir
}

# cleanup_work_dir: stops the server and any cluster left running under
# WORK_DIR (a SIGKILLed server leaves its cluster up), then removes WORK_DIR.
cleanup_work_dir() {
    stop_server
    if [[ -n "${WORK_DIR:-}" && -d "$WORK_DIR" ]]; then
        local pgdata
        # Data directories sit one or two levels down (abuse.sh's soak has
        # a directory of its own, for a log of its own).
        for pgdata in "$WORK_DIR"/*/pgdata "$WORK_DIR"/*/*/pgdata; do
            [[ -f "$pgdata/postmaster.pid" ]] && pg_as_postgres pg_ctl stop -m immediate -D "$pgdata" >/dev/null 2>&1 || true
        done
        if [[ -z "${KEEP_WORK_DIR:-}" ]]; then rm -rf "$WORK_DIR"; else log "kept $WORK_DIR"; fi
    fi
}

# start_stack_ceiling DATABASE [COMMAND PREFIX...]: builds and starts the
# stack's own ceiling (api/examples/stack_ceiling.rs: actix-web and the
# service's pool doing one event-sized INSERT per request, no rules) on a
# free port against DATABASE of the private cluster under WORK_DIR/data,
# under the prefix when given (valgrind ...). Sets CEILING_PID and
# CEILING_URL once it answers.
start_stack_ceiling() {
    local database="$1"; shift
    log "building the stack-ceiling baseline"
    (cd "$REPO_ROOT" && cargo build --release -p umpire-api --features bench --example stack_ceiling >&2)
    local port
    port="$(free_port)"
    CEILING_URL="http://127.0.0.1:$port"
    "$@" "${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/examples/stack_ceiling" \
        "$(cluster_url umpire "$database" "$WORK_DIR/data")" "127.0.0.1:$port" \
        >>"$WORK_DIR/stack-ceiling.log" 2>&1 &
    CEILING_PID=$!
    for _ in $(seq 300); do
        curl -s -o /dev/null --max-time 1 "$CEILING_URL/" && return 0
        kill -0 "$CEILING_PID" 2>/dev/null || break
        sleep 0.2
    done
    tail -n 20 "$WORK_DIR/stack-ceiling.log" >&2
    die "the stack-ceiling baseline did not start"
}

# handler_count ROUTE LE: how many requests to ROUTE (an actix route pattern
# such as /v1/games/{id}/state) the service's handlers finished within LE
# seconds so far (`\+Inf` for all), from the request-duration histogram on
# BASE_URL/metrics. Two readings around a run give the handler's own
# latency, apart from queueing and the client's.
handler_count() {
    curl -s "$BASE_URL/metrics" | awk -v route="endpoint=\"$1\"" -v le="le=\"$2\"" '
        /^umpire_http_requests_duration_seconds_bucket/ && index($0, route) && $0 ~ le { n += $2 }
        END { print n + 0 }'
}
