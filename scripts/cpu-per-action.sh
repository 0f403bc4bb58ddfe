#!/usr/bin/env bash
# The service's CPU per accepted action (utime + stime from /proc) over a
# fixed plan of whole games at 8 clients (scripts/load/play.lua through
# wrk; 8 x 4,000 planned actions, played to the end), with the given
# variables in the server's environment. For an A/B of one binary,
# alternate the two:
#   for i in 1 2 3; do scripts/cpu-per-action.sh; \
#       scripts/cpu-per-action.sh MIMALLOC_PURGE_DELAY=1000; done
# Prints one line: the variables, actions accepted, µs of CPU per action.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
here="$REPO_ROOT/scripts/load"
binary="$(umpire_binary "${UMPIRE_PROFILE:-release}")"
ensure_apt wrk wrk
make_work_dir
trap 'stop_server; cleanup_work_dir' EXIT
for assignment in "$@"; do export "${assignment?}"; done
start_server "$binary" "$WORK_DIR/data" >/dev/null 2>&1
for assignment in "$@"; do unset "${assignment%%=*}"; done
python3 "$here/driver.py" plan "$BASE_URL" "$WORK_DIR/plan-8-" \
    --threads 8 --actions-per-thread 4000 >/dev/null
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
before=$(cpu_ticks)
output="$(PLAN_PREFIX="$WORK_DIR/plan-8-" wrk -t8 -c8 -d60s --timeout 10s \
    -s "$here/play.lua" "$BASE_URL")"
after=$(cpu_ticks)
line="$(grep '^RESULT' <<<"$output")"
accepted="$(sed -E 's/.*accepted=([0-9]+).*/\1/' <<<"$line")"
refused="$(sed -E 's/.*refused=([0-9]+).*/\1/' <<<"$line")"
((refused == 0)) || die "$refused actions were refused"
awk -v vars="${*:-(none)}" -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" \
    -v accepted="$accepted" \
    'BEGIN { printf "env %s: %d actions, %.1f us of service CPU per action\n", vars, accepted, ticks / hz * 1e6 / accepted }'
