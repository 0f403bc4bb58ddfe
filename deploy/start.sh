#!/usr/bin/env bash
# The reference deployment, all on this machine (docs/deployment.md): a
# PostgreSQL 15 primary, a streaming standby made from it with pg_basebackup -R, two `umpire serve` instances (the primary for writes,
# the standby for reads at versions it holds) and nginx in front of them.
# Prints the URL clients use.
#
#   deploy/start.sh [--detach] [--ha] [RUN_DIR]
#
# --ha: the primary and its standbys are Patroni nodes (HA_NODES, 3) with
# their leader lock in a three-member etcd cluster, synchronous
# replication, automatic failover (deploy/ha.sh; docs/deployment.md, "High
# availability"). Installs Debian's patroni and etcd-server when missing.
#
# RUN_DIR holds everything (see deploy/lib.sh): /var/lib/umpire-deploy as
# root, else ~/.local/share/umpire-deploy. A second start reuses it: the
# clusters, passwords and ports made the first time. In the foreground
# (the default) Ctrl-C stops everything; with --detach it returns once all
# is up, and `deploy/stop.sh RUN_DIR` stops it.
#
# Environment: UMPIRE_BIN (the binary; else the release build, built
# first), UMPIRE_DEPLOY_PORT (nginx, 8080), UMPIRE_DEPLOY_INSTANCE_PORTS
# ("8081 8082"), WITH_STANDBY=0 (no standby: the instances read from the
# primary only).
set -euo pipefail
detach=0
HA=0
while [[ "${1:-}" == --* ]]; do
    case "$1" in
        --detach) detach=1 ;;
        --ha) HA=1 ;;
        *) echo "usage: deploy/start.sh [--detach] [--ha] [RUN_DIR]" >&2; exit 2 ;;
    esac
    shift
done
if [[ "$(id -u)" == 0 ]]; then
    RUN_DIR="${1:-/var/lib/umpire-deploy}"
else
    RUN_DIR="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/umpire-deploy}"
fi
mkdir -p "$RUN_DIR"
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
source "$(dirname "$0")/lib.sh"
# PostgreSQL runs as root's `postgres` user: CI machines may lack it.
if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
    useradd --system --no-create-home postgres
fi

UMPIRE="$(umpire_binary release)"
# Whatever fails half-way is stopped again.
trap deploy_down EXIT
trap 'exit 130' INT TERM
deploy_up

printf '%s\n' \
    "Umpire is up at $DEPLOY_URL (nginx; the admin token is in $RUN_DIR/secrets/admin-token)" \
    "  instance 1   $(instance_url 1)   log $RUN_DIR/instance-1/server.log" \
    "  instance 2   $(instance_url 2)   log $RUN_DIR/instance-2/server.log"
if ((HA)); then
    for ((n = 1; n <= HA_NODES; n++)); do
        printf '  node %s       127.0.0.1:%s (%s)   Patroni REST 127.0.0.1:%s   log %s\n' "$n" \
            "${NODE_PG_PORTS[$((n - 1))]}" "$(node_role "$n")" "${REST_PORTS[$((n - 1))]}" "$RUN_DIR/node-$n/patroni.log"
    done
    printf '%s\n' \
        "  etcd         $(etcd_endpoints)" \
        "  patronictl   patronictl -c $RUN_DIR/node-1/patroni.yml list"
else
    standby="none"
    [[ "${WITH_STANDBY:-1}" != 0 ]] && standby="$RUN_DIR/standby/socket   log $RUN_DIR/standby/postgres.log"
    printf '%s\n' \
        "  primary      $RUN_DIR/primary/socket   log $RUN_DIR/primary/postgres.log" \
        "  standby      $standby"
fi
printf '%s\n' \
    "  nginx        $RUN_DIR/nginx/nginx.conf   logs $RUN_DIR/nginx/access.log, error.log"
((HA)) || echo "  admin SQL    PGPASSFILE=$RUN_DIR/secrets/pgpass psql -h $RUN_DIR/primary/socket -U umpire -d umpire"
if ((detach)); then
    trap - EXIT
    echo "Stop it with: deploy/stop.sh $RUN_DIR"
    exit 0
fi
echo "Ctrl-C (or SIGTERM to $$) stops everything."
# Waiting on a background sleep: a signal interrupts `wait` at once (a
# foreground sleep would hold the trap until it ended).
sleep infinity &
sleeper=$!
trap 'kill "$sleeper" 2>/dev/null || true; deploy_down' EXIT
wait "$sleeper"
