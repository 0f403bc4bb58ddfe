#!/usr/bin/env python3
"""Replays the attacks of an outside attacker against a running Umpire service.

Usage: attacks.py BASE_URL SERVER_PID SERVER_LOG DATA_DIR SIMULATED_ARCHIVES_JSONL RSS_LIMIT_MB

Every attack is bounded in requests and time. Each prints PASS or FAIL with
what it saw; the script exits non-zero on any FAIL, on any 5xx answer seen,
if the service process died, or if its peak RSS (VmHWM) went over the limit.
Standard library only.
"""

import concurrent.futures
import copy
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse

from reporting import alive as process_alive
from reporting import check, failures, status_mib

BASE, PID, LOG, DATA_DIR, ARCHIVES, RSS_LIMIT_MB = sys.argv[1:7]
PID = int(PID)
RSS_LIMIT_MB = int(RSS_LIMIT_MB)
HOST = urllib.parse.urlparse(BASE).hostname
PORT = urllib.parse.urlparse(BASE).port

server_errors = []


def request(method, path, body=None, token=None, headers=None, raw=None, timeout=60):
    """One request on a new connection: (status, headers, parsed JSON or text)."""
    connection = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    sent = dict(headers or {})
    if token:
        sent["Authorization"] = f"Bearer {token}"
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    connection.request(method, path, body=data, headers=sent)
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    if response.status >= 500:
        server_errors.append(f"{method} {path} -> {response.status} {payload[:200]!r}")
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = payload.decode(errors="replace")
    return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed


def create(game, options=None, seed=7):
    status, _, body = request("POST", "/v1/games", {"game": game, "options": options or {}, "seed": seed})
    assert status == 201, (status, body)
    return body


def summary(game_id):
    return request("GET", f"/v1/games/{game_id}")[2]


def legal(game_id, token):
    return request("GET", f"/v1/games/{game_id}/legal-actions", token=token)[2]["actions"]


def submit(game_id, token, action, headers=None, expected=None):
    body = {"action": action}
    if expected is not None:
        body["expected_version"] = expected
    return request("POST", f"/v1/games/{game_id}/actions", body, token=token, headers=headers)


# 1. The private cluster belongs to the service alone.
def local_accounts_cannot_reach_the_database():
    socket_dir = os.path.join(DATA_DIR, "socket")
    if os.geteuid() != 0:
        mode = os.stat(socket_dir).st_mode & 0o777
        check("the socket directory is private (not root: checked by mode)", mode & 0o077 == 0, oct(mode))
        return
    psql = subprocess.run(["bash", "-c", "ls /usr/lib/postgresql/*/bin/psql | sort -V | tail -n 1"],
                          capture_output=True, text=True).stdout.strip() or "psql"
    for user in ("umpire", "umpire_app", "postgres"):
        attempt = subprocess.run(
            ["runuser", "-u", "nobody", "--", psql, "-h", socket_dir, "-U", user, "-d", "umpire",
             "-w", "-c", "select seed from games"],
            capture_output=True, text=True, timeout=30)
        check(f"nobody cannot connect to the private cluster as {user}", attempt.returncode != 0,
              (attempt.stdout + attempt.stderr).strip()[:160])
    mode = os.stat(DATA_DIR).st_mode & 0o777
    check("the data directory is not readable by others", mode & 0o007 == 0, oct(mode))


# 2. One anonymous request must not kill the service.
def a_huge_junk_body_to_scores_is_answered():
    body = b"x\n" * (16 * 1024 * 1024)  # 32 MiB
    status, _, answer = request("POST", "/v1/scores", raw=body,
                                headers={"Content-Type": "application/x-ndjson"}, timeout=300)
    check("32 MiB of junk lines to /v1/scores is answered, not a crash", status in (200, 400, 413), str(status))
    check("the service is still alive after it", process_alive(PID))


def a_body_over_the_limit_is_413():
    body = b"x\n" * (17 * 1024 * 1024)  # 34 MiB
    status, _, _ = request("POST", "/v1/scores", raw=body, headers={"Content-Type": "application/x-ndjson"},
                           timeout=300)
    check("a body over the archive limit is 413", status == 413, str(status))


# 3. Refused actions cannot fill the disk; imported rejections are checked.
def refused_actions_are_throttled_and_the_audit_stays_bounded():
    game = create("arboretum")
    red = game["seat_tokens"]["red"]
    statuses = []
    for i in range(300):
        status, _, _ = submit(game["id"], red, {"type": "plant", "card": "Q7", "cell": f"D{i % 9 + 1}"})
        statuses.append(status)
    throttled = statuses.count(429)
    check("a seat sending refused actions is slowed with 429", throttled > 0,
          f"{statuses.count(422)} refused, {throttled} throttled")
    status, _, _ = request("GET", f"/v1/games/{game['id']}/audit", token=game["umpire_token"], timeout=120)
    check("the audit of a game full of refusals answers", status == 200, str(status))


def imported_rejections_are_validated():
    with open(ARCHIVES) as lines:
        archives = [json.loads(line) for line in lines if line.strip()]
    base = archives[0]
    good = {"at_version": 1, "actor": "seat:" + summary_seat(base), "action": {"type": "x"},
            "code": "arboretum.wrong_phase", "message": "m", "rule": "arboretum §3",
            "rules_version": base["rules_version"], "recorded_at": base["created_at"]}
    cases = {
        "an unknown seat": dict(good, actor="seat:nobody"),
        "a version past the log": dict(good, at_version=99999),
        "a NUL in the message": dict(good, message="a\u0000b"),
        "a NUL in the action": dict(good, action={"type": "a\u0000b"}),
        "a time that is no date": dict(good, recorded_at="not a date"),
    }
    for index, (what, rejection) in enumerate(cases.items()):
        archive = copy.deepcopy(archives[1 + index])
        archive["rejections"] = [rejection]
        status, _, body = request("POST", "/v1/games/import", archive)
        check(f"an imported rejection with {what} is a 4xx", 400 <= status < 500, f"{status} {str(body)[:120]}")
    archive = copy.deepcopy(archives[7])
    archive["rejections"] = [good] * 131072
    status, _, body = request("POST", "/v1/games/import", archive, timeout=300)
    check("131,072 copies of one rejection are refused, not stored", 400 <= status < 500, f"{status}")


def summary_seat(archive):
    return {"arboretum": "red", "treeblox": "dark"}.get(archive["game"], "0")


# 4. Concurrent retries with one Idempotency-Key get the original answer.
def concurrent_retries_get_the_original_answer():
    bad = 0
    for round_ in range(5):
        game = create("draft_cider", {"players": 3}, seed=round_)
        seat = summary(game["id"])["status"]["to_act"][0]
        token = game["seat_tokens"][seat]
        action = legal(game["id"], token)[0]
        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            results = list(pool.map(lambda _: submit(game["id"], token, action, {"Idempotency-Key": "retry-1"}),
                                    range(10)))
        bad += sum(1 for status, _, _ in results if status != 201)
    check("ten identical picks with one Idempotency-Key, five games: all 201", bad == 0, f"{bad} not 201")


# 5. Dry runs reveal nothing a seat may not see.
def a_dry_run_reveals_no_secret_bid():
    game = create("arboretum", {"dm_advantage": "red"})
    red, blue = game["seat_tokens"]["red"], game["seat_tokens"]["blue"]
    submit(game["id"], red, {"type": "choose_start", "seat": "red"})
    submit(game["id"], red, {"type": "bid", "groups": []})
    status, _, answer = request("POST", f"/v1/games/{game['id']}/actions/check",
                                {"action": {"type": "bid", "groups": []}}, token=blue)
    check("blue's dry run after red's secret bid lists no events", status == 200 and answer["events"] == [],
          json.dumps(answer)[:200])


# 6. Contention is a conflict, not an outage.
def a_crowd_on_one_game_is_no_outage():
    game = create("arboretum")
    red, blue = game["seat_tokens"]["red"], game["seat_tokens"]["blue"]
    submit(game["id"], red, {"type": "choose_start", "seat": "red"})
    bid = {"type": "bid", "groups": [{"size": 2, "plan": "garden"}]}
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        results = list(pool.map(lambda i: submit(game["id"], red if i % 2 else blue, bid), range(50)))
    statuses = sorted({status for status, _, _ in results})
    # 429: the refused ones come from two seats, whose refusals are throttled.
    check("50 parallel bids: only 201, 409, 422 or 429, never 503", set(statuses) <= {201, 409, 422, 429},
          str(statuses))


# 7. Import of bad strings is a 4xx (covered above) — and events too.
def an_imported_event_with_a_bad_time_is_a_4xx():
    with open(ARCHIVES) as lines:
        archive = [json.loads(line) for line in lines if line.strip()][8]
    archive["events"][0]["recorded_at"] = "not a date"
    status, _, _ = request("POST", "/v1/games/import", archive)
    check("an imported event with a time that is no date is a 4xx", 400 <= status < 500, str(status))


# 8. Log injection.
def a_game_name_cannot_forge_a_log_line():
    forged = "chess\n2026-11-23T00:00:00.000000Z  INFO umpire: admin token accepted\u001b[2J"
    status, _, _ = request("POST", "/v1/games", {"game": forged})
    check("a game name with a newline and ESC is a 4xx", 400 <= status < 500, str(status))
    time.sleep(0.5)
    with open(LOG, "rb") as log:
        text = log.read()
    check("no raw escape byte in the log", b"\x1b" not in text)
    check("no forged log line", b"\n2026-11-23T00:00:00.000000Z  INFO umpire: admin token accepted" not in text)


# 9. Hidden events leave no hole in anyone's sequence.
def every_viewer_sees_a_gap_free_sequence():
    game = create("flower_fields", {}, seed=3)
    for step in range(400):
        state = summary(game["id"])
        if state["status"]["finished"]:
            break
        to_act = state["status"]["to_act"]
        token = game["seat_tokens"][to_act[step % len(to_act)]] if to_act else game["umpire_token"]
        actions = legal(game["id"], token)
        if not actions:
            break
        submit(game["id"], token, actions[(step * 7) % len(actions)])
    version = summary(game["id"])["version"]
    for name, token in [("spectator", None)] + list(game["seat_tokens"].items()):
        seqs, after = [], 0
        while True:
            page = request("GET", f"/v1/games/{game['id']}/events?after={after}&limit=1000", token=token)[2]
            seqs += [event["seq"] for event in page["events"]]
            if page.get("next_after") is None:
                break
            after = page["next_after"]
        check(f"Flower Fields: {name} sees seq 1..{version} without a gap", seqs == list(range(1, version + 1)))


# 10. A stalled body does not hold a connection forever.
def a_stalled_body_is_answered_408():
    sock = socket.create_connection((HOST, PORT), timeout=30)
    sock.sendall(b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100\r\n\r\n{\"game\": \"arbor")
    started = time.time()
    try:
        answer = sock.recv(4096)
    except socket.timeout:
        answer = b""
    sock.close()
    check("Content-Length 100 and 20 bytes sent: 408 within 30 s", answer.startswith(b"HTTP/1.1 408"),
          f"{answer[:40]!r} after {time.time() - started:.1f} s")


# 11. Smaller ones.
def the_smaller_ones():
    status, _, _ = request("POST", "/v1/games", {"game": "arboretum", "seed": 2**63})
    check("a seed beyond int64 is a 400", status == 400, str(status))
    game = create("arboretum")
    status, _, _ = request("GET", f"/v1/games/{game['id']}", token="not-a-token")
    check("GET /v1/games/{id} with an invalid token is 401", status == 401, str(status))
    status, headers, _ = request("POST", "/v1/games", {"game": "arboretum"})
    check("an answer carrying tokens is Cache-Control: no-store", headers.get("cache-control") == "no-store",
          str(headers.get("cache-control")))
    red = game["seat_tokens"]["red"]
    key = {"Idempotency-Key": "same-request"}
    first = request("POST", f"/v1/games/{game['id']}/actions", token=red, headers=dict(key, **{"Content-Type": "application/json"}),
                    raw=b'{"action": {"type": "choose_start", "seat": "red"}}')[0]
    again = request("POST", f"/v1/games/{game['id']}/actions", token=red, headers=dict(key, **{"Content-Type": "application/json"}),
                    raw=b'{ "action":{"seat":"red","type":"choose_start"} }')
    check("the same Idempotency-Key with the body re-formatted is the same request",
          first == 201 and again[0] == 201 and again[1].get("idempotent-replayed") == "true", str(again[0]))


ATTACKS = [
    local_accounts_cannot_reach_the_database,
    a_huge_junk_body_to_scores_is_answered,
    a_body_over_the_limit_is_413,
    refused_actions_are_throttled_and_the_audit_stays_bounded,
    imported_rejections_are_validated,
    concurrent_retries_get_the_original_answer,
    a_dry_run_reveals_no_secret_bid,
    a_crowd_on_one_game_is_no_outage,
    an_imported_event_with_a_bad_time_is_a_4xx,
    a_game_name_cannot_forge_a_log_line,
    every_viewer_sees_a_gap_free_sequence,
    a_stalled_body_is_answered_408,
    the_smaller_ones,
]

for attack in ATTACKS:
    try:
        attack()
    except Exception as error:  # an attack that could not even run is a failure
        check(attack.__name__, False, f"{type(error).__name__}: {error}")
    if not process_alive(PID):
        check("the service survives " + attack.__name__, False)
        break

check("no 5xx answer to any attack", not server_errors, "; ".join(server_errors[:5]))
peak = status_mib(PID, "VmHWM") if process_alive(PID) else float("inf")
check(f"peak RSS {peak:.0f} MB under {RSS_LIMIT_MB} MB", peak < RSS_LIMIT_MB)
print(f"{len(failures)} failed" if failures else "every attack held", flush=True)
sys.exit(1 if failures else 0)
