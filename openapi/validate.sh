#!/usr/bin/env bash
# Validates openapi/openapi.json as OpenAPI 3.1 with openapi-spec-validator
# (from PyPI, into a private virtualenv under target/).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/openapi-venv
if [ ! -x "$venv/bin/openapi-spec-validator" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "openapi-spec-validator>=0.7"
fi
"$venv/bin/openapi-spec-validator" openapi/openapi.json
