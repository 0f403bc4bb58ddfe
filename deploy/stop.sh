#!/usr/bin/env bash
# Stops what deploy/start.sh started in RUN_DIR: nginx, the instances
# (SIGTERM: they finish what they accepted), the standby, the primary.
#
#   deploy/stop.sh [RUN_DIR]
set -euo pipefail
if [[ "$(id -u)" == 0 ]]; then
    RUN_DIR="${1:-/var/lib/umpire-deploy}"
else
    RUN_DIR="${1:-${XDG_DATA_HOME:-$HOME/.local/share}/umpire-deploy}"
fi
[[ -d "$RUN_DIR" ]] || { echo "no deployment in $RUN_DIR" >&2; exit 1; }
RUN_DIR="$(cd "$RUN_DIR" && pwd)"
source "$(dirname "$0")/lib.sh"
deploy_ports
deploy_down
echo "stopped everything in $RUN_DIR"
