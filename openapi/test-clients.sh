#!/usr/bin/env bash
# Tests the generated clients against the real server: generates them, starts
# `umpire serve` on a free loopback port with a private PostgreSQL cluster in
# a temporary directory, and with EACH client (Python, then TypeScript):
#   * creates games and plays every seat's legal actions (list_legal_actions)
#     to the end of whole games (Draft & Cider for one and for two players);
#   * submits an illegal action and catches the 422 as a typed error
#     (`UmpireError`: status, `code`, message, `rule`), and reads it as the
#     generated error model too;
#   * plays a game in which every seat follows its live stream with the
#     client's stream helper (`follow_game` / `followGame`), and follows a
#     stream through a proxy that cuts it mid-way: resumed with
#     Last-Event-ID, every event comes once, in order;
#   * checks that every answer whose shape depends on the game parses into
#     that game's own types, never another's;
# after type-checking each driver: Python with `mypy --strict`, TypeScript
# with `tsc` under `strict`.
# Exits non-zero on any failure.
#
# Usage: openapi/test-clients.sh   (UMPIRE_BIN=path or UMPIRE_PROFILE=release
#                                   to pick the binary; debug is built if missing)
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"

"$REPO_ROOT/openapi/generate-clients.sh"

binary="$(umpire_binary "${UMPIRE_PROFILE:-debug}")"
make_work_dir
trap cleanup_work_dir EXIT
start_server "$binary" "$WORK_DIR/data"

failed=0
log "Python client"
venv="$TOOLS_DIR/venv-clients"
python_dir="$REPO_ROOT/openapi/clients/python"
if (cd "$python_dir" && "$venv/bin/mypy" --config-file mypy.ini --cache-dir "$TOOLS_DIR/mypy-cache" play.py >&2); then
    PYTHONPATH="$python_dir/generated" \
        "$venv/bin/python" "$python_dir/play.py" "$BASE_URL" || failed=$((failed + 1))
else
    log "the Python driver does not type-check against the generated client (mypy --strict)"
    failed=$((failed + 1))
fi

log "TypeScript client"
ts_dir="$REPO_ROOT/openapi/clients/typescript"
rm -rf "$ts_dir/dist"
if (cd "$ts_dir" && node_modules/.bin/tsc -p tsconfig.json); then
    node "$ts_dir/dist/play.js" "$BASE_URL" || failed=$((failed + 1))
else
    log "the TypeScript driver does not type-check against the generated types"
    failed=$((failed + 1))
fi

echo "client tests: $((2 - failed)) passed, $failed failed"
((failed == 0)) || die "a generated client failed (see above)"
log "both generated clients played whole games, followed streams and caught typed errors"
