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
# with `tsc` under `strict`. Then it runs every fenced block of the client's
# README (openapi/clients/*/README.md) against the same server: the `sh`
# blocks first, as one bash script from the repository root, then the
# blocks of the client's language as one program (a later block uses what
# an earlier one defined), type-checked as the driver is, each block at its
# README line (openapi/readme_blocks.py), so an error names the README's
# line. The blocks find the server at UMPIRE_URL. A block in any other
# language fails, as does a block that fails.
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

# readme_program README LANGUAGE ALLOWED OUT: the README's LANGUAGE blocks
# written to OUT as one program, at their README lines; fails when the
# README has a block outside ALLOWED (a comma-separated list).
readme_program() {
    python3 "$REPO_ROOT/openapi/readme_blocks.py" "$1" "$2" "$4" --allowed "$3"
}

# run_readme_sh README ALLOWED: the README's `sh` blocks, in order, as one
# bash script (errexit, pipefail) from the repository root.
run_readme_sh() {
    local script="$WORK_DIR/readme-$(basename "$(dirname "$1")").sh"
    readme_program "$1" sh "$2" "$script" || return 1
    (cd "$REPO_ROOT" && UMPIRE_URL="$BASE_URL" bash -euo pipefail "$script")
}

passed=0
failed=0
log "Python client"
venv="$TOOLS_DIR/venv-clients"
python_dir="$REPO_ROOT/openapi/clients/python"
if (cd "$python_dir" && "$venv/bin/mypy" --config-file mypy.ini --cache-dir "$TOOLS_DIR/mypy-cache" play.py >&2); then
    if PYTHONPATH="$python_dir/generated" "$venv/bin/python" "$python_dir/play.py" "$BASE_URL"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
else
    log "the Python driver does not type-check against the generated client (mypy --strict)"
    failed=$((failed + 1))
fi

log "Python client: the blocks of its README"
readme="$python_dir/README.md"
program="$WORK_DIR/readme-python.py"
# Compiled under the README's name: a traceback names the README's line
# and quotes it.
if run_readme_sh "$readme" sh,python &&
    readme_program "$readme" python sh,python "$program" &&
    (cd "$python_dir" && "$venv/bin/mypy" --config-file mypy.ini --cache-dir "$TOOLS_DIR/mypy-cache" "$program" >&2) &&
    UMPIRE_URL="$BASE_URL" PYTHONPATH="$python_dir/generated:$python_dir" "$venv/bin/python" -c '
import sys
program, readme = sys.argv[1], sys.argv[2]
exec(compile(open(program, encoding="utf-8").read(), readme, "exec"), {"__name__": "__main__"})
' "$program" "$readme"; then
    passed=$((passed + 1))
else
    log "a block of $readme failed (its line is the README's)"
    failed=$((failed + 1))
fi

log "TypeScript client"
ts_dir="$REPO_ROOT/openapi/clients/typescript"
rm -rf "$ts_dir/dist"
if (cd "$ts_dir" && node_modules/.bin/tsc -p tsconfig.json); then
    if node "$ts_dir/dist/play.js" "$BASE_URL"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
else
    log "the TypeScript driver does not type-check against the generated types"
    failed=$((failed + 1))
fi

log "TypeScript client: the blocks of its README"
readme="$ts_dir/README.md"
# readme.ts beside helpers.ts, so that the README's imports resolve as they
# do for a reader who copies helpers.ts; compiled with a source map, so an
# error's stack names readme.ts at the README's line.
rm -f "$ts_dir/readme.ts"
if run_readme_sh "$readme" sh,ts &&
    readme_program "$readme" ts sh,ts "$ts_dir/readme.ts" &&
    (cd "$ts_dir" && node_modules/.bin/tsc -p tsconfig.readme.json) &&
    UMPIRE_URL="$BASE_URL" node --enable-source-maps "$ts_dir/dist/readme.js"; then
    passed=$((passed + 1))
else
    log "a block of $readme failed (its line is the README's)"
    failed=$((failed + 1))
fi

echo "client tests: $passed passed, $failed failed"
((failed == 0)) || die "a generated client or a block of its README failed (see above)"
log "both generated clients played whole games, followed streams and caught typed errors, and every block of their READMEs ran"
