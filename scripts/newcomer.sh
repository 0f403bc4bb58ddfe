#!/usr/bin/env bash
# A newcomer's first hour, timed: a fresh clone, then the two commands at
# the top of README.md, as they are written there: the test command, then
# the serve command until /readyz answers 200. Prints the wall time of each
# and of both, with the machine's load (/proc/loadavg) at each step, for
# the figure the README gives.
#
#   scripts/newcomer.sh            # clones HEAD of this checkout into /tmp
#   REPO=URL-or-path scripts/newcomer.sh
#
# Crates are taken from ~/.cargo as they are (download them first, e.g.
# with `cargo fetch`, to time the build alone). The target directory is the
# clone's own, cold; CARGO_TARGET_DIR is unset for the run. The serve
# command runs with `--bind 127.0.0.1:<a free port> --data-dir <the clone's>`
# added, so that it meets neither a service nor a cluster already on this
# machine. Exits non-zero if a test fails or serve does not answer.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

repo="${REPO:-$REPO_ROOT}"
make_work_dir
trap cleanup_work_dir EXIT
clone="$WORK_DIR/umpire"
git clone --quiet "$repo" "$clone"
cd "$clone"
unset CARGO_TARGET_DIR

# The README's first block: its first command is the test command, its
# second the serve command (comments after `#` dropped).
mapfile -t commands < <(awk '/^```/ { if (open) exit; open = 1; next } open { sub(/[[:space:]]+#.*/, ""); if ($0 != "") print }' README.md)
((${#commands[@]} == 2)) || die "README.md's first block is not two commands: ${commands[*]}"
test_command="${commands[0]}"
serve_command="${commands[1]}"
log "commit $(git rev-parse --short HEAD); the test command: $test_command"
log "the serve command: $serve_command"

load() { cut -d' ' -f1-3 /proc/loadavg; }
started=$SECONDS
log "load $(load): running the test command"
bash -c "$test_command" >"$WORK_DIR/tests.log" 2>&1 || {
    tail -n 40 "$WORK_DIR/tests.log" >&2
    die "the test command failed after $((SECONDS - started)) s (log: $WORK_DIR/tests.log)"
}
tested=$((SECONDS - started))
passed=$(awk '/^test result:/ { n += $4 } END { print n + 0 }' "$WORK_DIR/tests.log")
compiled=$(grep -o 'Finished `test` profile.* in .*' "$WORK_DIR/tests.log" | head -n 1 || true)
log "load $(load): the test command passed $passed tests in $tested s ($compiled)"

SERVER_PORT="$(free_port)"
BASE_URL="http://127.0.0.1:$SERVER_PORT"
SERVER_LOG="$WORK_DIR/server.log"
serving=$SECONDS
# shellcheck disable=SC2086 # the README's command, split as a shell would
$serve_command --bind "127.0.0.1:$SERVER_PORT" --data-dir "$WORK_DIR/data" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_ready 600 || { tail -n 40 "$SERVER_LOG" >&2; die "serve did not answer /readyz"; }
served=$((SECONDS - serving))
total=$((SECONDS - started))
log "load $(load): serve answered /readyz $served s after it was started"
printf 'fresh clone -> %d tests green in %d s, then serve answering /readyz in %d s: %d min %02d s in all (load at the end %s, %d cores)\n' \
    "$passed" "$tested" "$served" $((total / 60)) $((total % 60)) "$(load)" "$(nproc)"
