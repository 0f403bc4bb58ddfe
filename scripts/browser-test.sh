#!/usr/bin/env bash
# The umpire's desk (/games/{id}) in headless Chromium from Debian's packages,
# driven over WebDriver (chromium-driver, Selenium from PyPI) against the real
# server on its private cluster: tests/browser/viewer.py. Saves a
# screenshot per game, and one at phone width, under target/browser/.
#
#   scripts/browser-test.sh            (UMPIRE_BIN=path to test another build)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

ensure_apt chromium chromium
ensure_apt chromedriver chromium-driver
venv="$(python_venv browser selenium==4.27.1)"
# The render budget is the release build's.
binary="$(umpire_binary release)"
make_work_dir
trap cleanup_work_dir EXIT
start_server "$binary" "$WORK_DIR/data"
out="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/browser"
"$venv/bin/python" "$REPO_ROOT/tests/browser/viewer.py" "$BASE_URL" "$binary" "$out"
log "screenshots in $out"
