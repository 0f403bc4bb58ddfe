#!/usr/bin/env bash
# Archives as a given build exports them, for a test that every later build
# imports and audits clean (the recorded format may not change).
#
#   UMPIRE_BIN=/work/umpire-before-35 scripts/archives-of-a-build.sh OUT.jsonl
#
# Starts that build's `umpire serve` on a private cluster, plays through its
# HTTP API one whole game of every registered game (random legal actions,
# seeded), a clocked game the clock times out, a game whose seat token is
# reissued, actions whose JSON takes each of the hash's encodings (text
# escapes, non-ASCII keys past U+E000, a float, a large integer, a NUL
# character stored as U+FFFD), an idempotent retry and refusals by the
# rules; then
# writes each game's export (`GET /v1/games/{id}/export`, the umpire's) as
# one line of OUT.jsonl.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
out="${1:?usage: archives-of-a-build.sh OUT.jsonl}"
binary="$(umpire_binary release)"
make_work_dir
trap 'stop_server; cleanup_work_dir' EXIT
start_server "$binary" "$WORK_DIR/data" >/dev/null 2>&1
log "playing games on $binary ($BASE_URL)"
PYTHONPATH="$REPO_ROOT/scripts/lib" python3 - "$BASE_URL" "$out" <<'PY'
import json
import sys
import time

from umpire_http import Api, play_to_end

base_url, out = sys.argv[1], sys.argv[2]
api = Api(base_url)
games = []

def post(game_id, token, body, key=None):
    return api.request("POST", f"/v1/games/{game_id}/actions", body, token=token,
                       idempotency_key=key)

# One whole game of each game, and Draft & Cider for more players.
for game, options, seed in [
    ("arboretum", {}, 7),
    ("treeblox", {}, 7),
    ("flower_fields", {}, 7),
    ("draft_cider", {"players": 2}, 7),
    ("draft_cider", {"players": 5}, 8),
]:
    created, _ = play_to_end(api, game, options, seed)
    games.append(created)

# Actions whose JSON takes each path of the hash's encoding: extra fields
# the game ignores but the log records as sent.
created = api.create_game("treeblox", {}, 11)
games.append(created)
game_id = created["id"]
odd = {
    "escapes": "quote \" backslash \\ tab \t newline \n bell \u0007 del \u007f",
    "non_ascii": "é ü 漢字 \u2028 \U0001F600",
    "\ue000 private use key": 1,
    "\U0001F600 astral key": 2,
    "float": 0.1,
    "exponent": 1e21,
    "large": 2**60,
    "negative": -(2**53),
    "nul": "a\u0000b",
    "nested": {"b": [1, {"z": None, "a": True}], "a": []},
}
for _ in range(6):
    summary = api.summary(game_id)
    if summary["status"]["finished"]:
        break
    seat = sorted(summary["status"]["to_act"])[0]
    token = created["seat_tokens"][seat]
    action = api.legal_actions(game_id, token)["actions"][0]
    key = f"odd-{summary['version']}"
    response = post(game_id, token, {"action": {**action, **odd}}, key)
    assert response.status == 201, response.body
    # A retry with the same key answers the original.
    assert post(game_id, token, {"action": {**action, **odd}}, key).status in (200, 201)
    # A refusal by the rules, kept beside the log: the same move again.
    # (Not an unknown action type: the service records that as
    # `invalid_action` and the audit re-decides it as `malformed`, which
    # it counts as a disputed refusal.)
    assert post(game_id, token, {"action": {**action, **odd}}).status == 422

# A clocked game the clock times out, and a seat's token reissued.
response = api.request("POST", "/v1/games", {"game": "treeblox", "seed": 12,
                        "clock": {"per_move_ms": 300, "reserve_ms": 300, "start": "now"}})
assert response.status == 201, response.body
games.append(response.body)
time.sleep(2.5)
reissued = api.create_game("arboretum", {}, 13)
games.append(reissued)
response = api.request("POST", f"/v1/games/{reissued['id']}/seats/red/reissue",
                       None, token=reissued["umpire_token"])
assert response.status in (200, 201), response.body

# Each export's bytes as the build wrote them (one JSON document, one line).
import http.client
from urllib.parse import urlparse

url = urlparse(base_url)
with open(out, "wb") as lines:
    for created in games:
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        connection.request("GET", f"/v1/games/{created['id']}/export",
                           headers={"Authorization": f"Bearer {created['umpire_token']}"})
        answer = connection.getresponse()
        body = answer.read().strip()
        assert answer.status == 200, body
        assert b"\n" not in body, "an export is one line"
        json.loads(body)
        lines.write(body + b"\n")
        connection.close()
print(f"{len(games)} archives written to {out}", file=sys.stderr)
PY
