#!/usr/bin/env bash
# Generates the Python and TypeScript clients from openapi/openapi.json.
#
#   Python:     openapi-python-client (PyPI)  -> openapi/clients/python/generated/umpire_client
#   TypeScript: openapi-typescript (npm)      -> openapi/clients/typescript/generated/schema.d.ts
#               used through openapi-fetch (npm)
#
# Generated code is not committed (see .gitignore); this script is. Tools are
# installed on first use: a venv under .tools/ and node_modules via `npm ci`
# from the committed package-lock.json.
#
# If openapi/openapi.json is missing it is written from the binary
# (`umpire openapi`); the committed file is otherwise used as it is.
set -euo pipefail
source "$(dirname "$0")/../scripts/lib/common.sh"

spec="$REPO_ROOT/openapi/openapi.json"
if [[ ! -s "$spec" ]]; then
    binary="$(umpire_binary "${UMPIRE_PROFILE:-debug}")"
    log "openapi/openapi.json is missing: writing it with $binary openapi"
    "$binary" openapi >"$spec"
fi

# Python
venv="$(python_venv clients openapi-python-client==0.29.1 python-dateutil==2.9.0.post0 ruff==0.17.6 mypy==1.15.0)"
python_out="$REPO_ROOT/openapi/clients/python/generated"
rm -rf "$python_out"
mkdir -p "$python_out"
log "generating the Python client"
# The generator formats its output with ruff, found on PATH.
# openapi-python-client 0.29 writes code that does not import for an
# operation with two request content types (`score_archives` and
# `import_game` take JSON and JSON Lines), and warns at a JSON Lines answer
# (`import_game`'s, for many archives): it is given the spec without JSON
# Lines, which Python callers send and read with httpx themselves. Nor does
# it get the live stream (`stream_game_events`, `text/event-stream`): its
# generated function would wait for the end of an endless body and then
# fail to parse it as JSON; umpire_helpers.follow_game follows a stream.
python_spec="$(mktemp --suffix=.json)"
trap 'rm -f "$python_spec"' EXIT
python3 - "$spec" "$python_spec" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
for item in spec["paths"].values():
    for method, operation in list(item.items()):
        answers = operation.get("responses", {}).get("200", {}).get("content", {})
        if "text/event-stream" in answers:
            del item[method]
            continue
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" in content:
            for media in [m for m in content if m != "application/json"]:
                del content[media]
        for status, response in list(operation.get("responses", {}).items()):
            if "application/x-ndjson" in response.get("content", {}):
                del operation["responses"][status]
json.dump(spec, open(sys.argv[2], "w"))
PY
PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate \
    --path "$python_spec" \
    --config "$REPO_ROOT/openapi/clients/python/config.yaml" \
    --output-path "$python_out/umpire-client" \
    --meta none \
    --overwrite >&2
# With --meta none the output directory is the package itself.
mv "$python_out/umpire-client" "$python_out/umpire_client"

# TypeScript
ts_dir="$REPO_ROOT/openapi/clients/typescript"
if [[ ! -d "$ts_dir/node_modules/openapi-typescript" || "$ts_dir/package-lock.json" -nt "$ts_dir/node_modules/.package-lock.json" ]]; then
    log "installing the npm packages (npm ci)"
    (cd "$ts_dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
rm -rf "$ts_dir/generated"
mkdir -p "$ts_dir/generated"
log "generating the TypeScript types"
(cd "$ts_dir" && node_modules/.bin/openapi-typescript "$spec" --default-non-nullable=false --output generated/schema.d.ts >&2)
log "clients generated: $python_out/umpire_client, $ts_dir/generated/schema.d.ts"
