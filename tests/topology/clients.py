"""Plays whole games through the reference deployment's nginx with the
generated Python client while scripts/topology-test.sh restarts instances
(and scripts/failover-test.sh fails the primary over).

    PYTHONPATH=openapi/clients/python/generated:openapi/clients/python \
        python clients.py BASE_URL ADMIN_TOKEN_FILE OUT_JSON PROGRESS_FILE STOP_FILE [--workers N]

Each worker, until STOP_FILE exists (it then finishes the game in hand):
creates a game (with the admin token), has one of its seats follow the
game's live stream with `umpire_helpers.follow_game` (which resumes with
Last-Event-ID when the connection drops), and plays it to its end with the
generated functions: the game's status, the legal actions of the seat to act,
one submitted with an Idempotency-Key and retried with the same key and body
until it is answered (a transport error, 502, 503, 504 or 409 `contended`
is retried; nothing else is), then a state read at an earlier version (the
kind of read a standby serves). Every read of the game's head after an
action says the version the action answered (`min_version`) and must show
it: read-your-writes, through any instance, from any database.

OUT_JSON holds the games in scripts/faults/verify.py's format (id, tokens,
setup version, every acknowledged action in order, with when its answered
attempt was sent and answered: `sent_at`, `answered_at`) and each stream's
versions as received, how many times it connected and how many of those
resumed with Last-Event-ID. PROGRESS_FILE holds the number of acknowledged
actions so far, rewritten as they come, for the script to pace restarts by.
Exits non-zero when a worker failed (a legal action refused, a request
unanswered past its retry budget, a read that did not show its own write).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
import uuid
from typing import Any, Callable, cast

import httpx
from umpire_client import AuthenticatedClient, Client
from umpire_client.api.games import (
    create_game,
    get_game,
    get_game_state,
    list_legal_actions,
    submit_action,
)
from umpire_client.models import (
    ArboretumActionAccepted,
    ArboretumOptions,
    ArboretumStreamEvent,
    CreatedGame,
    CreateGameRequest,
    DraftCiderActionAccepted,
    DraftCiderOptions,
    DraftCiderStreamEvent,
    ErrorBody,
    FlowerFieldsActionAccepted,
    FlowerFieldsOptions,
    FlowerFieldsStreamEvent,
    GameSummary,
    StreamEnd,
    SubmitActionRequest,
    TreebloxActionAccepted,
    TreebloxOptions,
    TreebloxStreamEvent,
)
from umpire_client.models.game_name import check_game_name
from umpire_client.types import Response
from umpire_helpers import follow_game

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("arboretum", {}),
    ("draft_cider", {"players": 2}),
    ("flower_fields", {}),
    ("treeblox", {}),
]
OPTIONS = {
    "arboretum": ArboretumOptions,
    "draft_cider": DraftCiderOptions,
    "flower_fields": FlowerFieldsOptions,
    "treeblox": TreebloxOptions,
}
STREAM_EVENTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "arboretum": ArboretumStreamEvent.from_dict,
    "draft_cider": DraftCiderStreamEvent.from_dict,
    "flower_fields": FlowerFieldsStreamEvent.from_dict,
    "treeblox": TreebloxStreamEvent.from_dict,
}
ACCEPTED = (ArboretumActionAccepted, DraftCiderActionAccepted, FlowerFieldsActionAccepted, TreebloxActionAccepted)
# How long one request keeps being retried before the worker gives up: far
# beyond an instance's restart (its 30 s shutdown timeout included), so that
# only a lost request, never a slow machine, ends the run.
RETRY_BUDGET_SECONDS = 180.0
MAX_MOVES = 3000


class Failure(Exception):
    pass


class Run:
    def __init__(self, progress_file: str) -> None:
        self.lock = threading.Lock()
        self.progress_file = progress_file
        self.acknowledged = 0
        self.statuses: dict[str, int] = {}
        self.retried: dict[str, int] = {}
        self.games: list[dict[str, Any]] = []
        self.streams: list[dict[str, Any]] = []
        self.failures: list[str] = []

    def count(self, table: dict[str, int], key: str) -> None:
        with self.lock:
            table[key] = table.get(key, 0) + 1

    def acknowledge(self) -> None:
        with self.lock:
            self.acknowledged += 1
            partial = self.progress_file + ".partial"
            with open(partial, "w") as handle:
                handle.write(f"{self.acknowledged}\n")
            os.replace(partial, self.progress_file)


def retried(run: Run, what: str, call: Callable[[], Response[Any]],
            timing: dict[str, float] | None = None) -> Response[Any]:
    """`call` until it is answered with something other than a transport
    error, 502, 503, 504 or 409 `contended` (each honouring Retry-After);
    the same arguments every time, so an action keeps its Idempotency-Key.
    `timing`, when given, gets the wall-clock time the answered attempt was
    sent (`sent_at`) and answered (`answered_at`)."""
    deadline = time.monotonic() + RETRY_BUDGET_SECONDS
    while True:
        wait = 0.2
        sent_at = time.time()
        try:
            response = call()
        except httpx.TransportError as error:
            run.count(run.retried, type(error).__name__)
        else:
            status = int(response.status_code)
            run.count(run.statuses, str(status))
            contended = status == 409 and isinstance(response.parsed, ErrorBody) and response.parsed.code == "contended"
            if status not in (502, 503, 504) and not contended:
                if timing is not None:
                    timing.update(sent_at=sent_at, answered_at=time.time())
                return response
            run.count(run.retried, str(status))
            # The service's 503 always says when to come back; one without
            # it came from somewhere that did not mean "busy, retry".
            if status == 503 and "retry-after" not in response.headers:
                run.count(run.statuses, "503 without Retry-After")
            try:
                wait = max(wait, float(response.headers.get("retry-after", "0")))
            except ValueError:
                pass
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not answered within {RETRY_BUDGET_SECONDS:.0f} s of retries")
        time.sleep(wait)


def follow(run: Run, base_url: str, game: str, game_id: str, seat: str, token: str) -> None:
    """One seat follows the game's stream to its end with the client's
    helper; records every version received, and every connection."""
    record: dict[str, Any] = {"game_id": game_id, "game": game, "seat": seat, "versions": [],
                              "connections": 0, "resumed": 0, "last_event_ids": [], "end": None, "error": None}

    def on_request(request: httpx.Request) -> None:
        if request.url.path.endswith("/stream"):
            record["connections"] += 1
            if "last-event-id" in request.headers:
                record["resumed"] += 1
                record["last_event_ids"].append(int(request.headers["last-event-id"]))

    client = AuthenticatedClient(base_url=base_url, token=token, httpx_args={"event_hooks": {"request": [on_request]}})
    try:
        # The helper gives up after 5 connections in a row that bring
        # nothing (about 10 s); a restart can keep one instance away longer
        # than that, so it is called again from the last version received.
        give_up = time.monotonic() + RETRY_BUDGET_SECONDS
        while True:
            after = record["versions"][-1] if record["versions"] else 0
            try:
                for entry in follow_game(client, game_id, STREAM_EVENTS[game], after=after):
                    if isinstance(entry, StreamEnd):
                        record["end"] = {"reason": entry.reason, "after": entry.after}
                        break
                    record["versions"].append(entry.seq)
                    give_up = time.monotonic() + RETRY_BUDGET_SECONDS
                break
            except ConnectionError:
                if time.monotonic() > give_up:
                    raise
    except Exception as error:  # noqa: BLE001 - recorded and reported as a failure
        record["error"] = f"{type(error).__name__}: {error}"
    with run.lock:
        run.streams.append(record)


def play(run: Run, base_url: str, admin: AuthenticatedClient, worker: int, number: int,
         followers: list[threading.Thread]) -> None:
    game, options = GAMES[(worker + number) % len(GAMES)]
    seed = worker * 1000 + number
    body = CreateGameRequest(game=check_game_name(game), options=OPTIONS[game].from_dict(options), seed=seed)
    # A creation retried after its answer was lost makes a second game
    # nobody plays: harmless, and not among the games checked.
    response = retried(run, f"create {game}", lambda: create_game.sync_detailed(client=admin, body=body))
    if not isinstance(response.parsed, CreatedGame):
        raise Failure(f"create {game}: {response.status_code} {response.content!r}")
    created = response.parsed
    game_id = str(created.id)
    seats = dict(created.seat_tokens.additional_properties)
    record: dict[str, Any] = {"id": game_id, "game": game, "umpire_token": created.umpire_token,
                              "seat_tokens": seats, "setup_version": created.version,
                              "acknowledged": [], "unknown": None}
    with run.lock:
        run.games.append(record)
    follower_seat = sorted(seats)[number % len(seats)]
    thread = threading.Thread(target=follow, args=(run, base_url, game, game_id, follower_seat, seats[follower_seat]), daemon=True)
    thread.start()
    followers.append(thread)

    clients = {seat: AuthenticatedClient(base_url=base_url, token=token) for seat, token in seats.items()}
    umpire = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    spectator = cast(AuthenticatedClient, Client(base_url=base_url))
    rng = random.Random(seed)
    written = created.version
    # Read-your-writes: every head read names the version this client last
    # wrote (`min_version`), so any instance may answer it from a standby
    # that has replayed it, and must show it.
    for moves in range(MAX_MOVES + 1):
        summary_response = retried(run, f"{game_id} status", lambda: get_game.sync_detailed(
            created.id, client=spectator, min_version=written))
        summary = summary_response.parsed
        if not isinstance(summary, GameSummary):
            raise Failure(f"{game_id} status: {summary_response.status_code} {summary_response.content[:200]!r}")
        if summary.version < written:
            raise Failure(f"{game_id}: read version {summary.version} after this client's write answered {written}")
        if summary.status.finished:
            return
        if moves == MAX_MOVES:
            raise Failure(f"{game_id}: not finished after {MAX_MOVES} moves")
        seat = rng.choice(sorted(summary.status.to_act)) if summary.status.to_act else None
        client = clients[seat] if seat is not None else umpire
        legal = retried(run, f"{game_id} legal actions", lambda: list_legal_actions.sync_detailed(
            created.id, client=client, min_version=written))
        actions = getattr(legal.parsed, "actions", None)
        if not actions:
            raise Failure(f"{game_id} v{summary.version} as {seat}: no legal actions: {legal.status_code} {legal.content!r}")
        action = rng.choice(actions)
        key = str(uuid.uuid4())
        submitted = SubmitActionRequest(action=action)
        timing: dict[str, float] = {}
        answer = retried(run, f"{game_id} action", lambda: submit_action.sync_detailed(
            created.id, client=client, body=submitted, idempotency_key=key), timing)
        if answer.status_code != 201 or not isinstance(answer.parsed, ACCEPTED):
            raise Failure(f"{game_id} v{summary.version} as {seat}: the legal action {action.to_dict()} was "
                          f"answered {answer.status_code} {answer.content!r}")
        accepted = answer.parsed
        record["acknowledged"].append({"key": key, "seat": seat or "umpire", "action": action.to_dict(),
                                       "version": accepted.version, "event_seqs": [e.seq for e in accepted.events],
                                       **timing})
        written = accepted.version
        run.acknowledge()
        # A read at a version known to exist: what a standby may serve.
        at = rng.randint(1, written)
        state = retried(run, f"{game_id} state at {at}", lambda: get_game_state.sync_detailed(created.id, client=spectator, at=at))
        if state.status_code != 200 or json.loads(state.content).get("version") != at:
            raise Failure(f"{game_id}: state at {at}: {state.status_code} {state.content[:200]!r}")


def worker(run: Run, base_url: str, admin: AuthenticatedClient, index: int, stop_file: str,
           followers: list[threading.Thread], max_seconds: float) -> None:
    started = time.monotonic()
    number = 0
    try:
        while not os.path.exists(stop_file) and time.monotonic() - started < max_seconds:
            play(run, base_url, admin, index, number, followers)
            number += 1
    except Exception as error:  # noqa: BLE001 - every failure is reported
        with run.lock:
            run.failures.append(f"worker {index}: {type(error).__name__}: {error}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("admin_token_file")
    parser.add_argument("out_json")
    parser.add_argument("progress_file")
    parser.add_argument("stop_file")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--max-seconds", type=float, default=900)
    args = parser.parse_args()
    with open(args.admin_token_file) as handle:
        admin = AuthenticatedClient(base_url=args.base_url, token=handle.read().strip())
    run = Run(args.progress_file)
    followers: list[threading.Thread] = []
    workers = [threading.Thread(target=worker, args=(run, args.base_url, admin, i, args.stop_file, followers,
                                                     args.max_seconds)) for i in range(args.workers)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    # Every game is over, so every follower ends with its `finished`; a
    # follower still waiting long after is reported, not waited for forever.
    deadline = time.monotonic() + RETRY_BUDGET_SECONDS
    for thread in list(followers):
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    with run.lock:
        hung = sum(thread.is_alive() for thread in followers)
        if hung:
            run.failures.append(f"{hung} followers had not ended {RETRY_BUDGET_SECONDS:.0f} s after the last game")
        out = {"games": run.games, "streams": run.streams, "failures": run.failures,
               "observations": {"acknowledged": run.acknowledged, "statuses": run.statuses, "retried": run.retried}}
    with open(args.out_json, "w") as handle:
        json.dump(out, handle, indent=1)
    print(f"clients: {len(run.games)} games, {run.acknowledged} acknowledged actions, {len(run.streams)} streams; "
          f"statuses {run.statuses}; retried {run.retried}", file=sys.stderr)
    for failure in run.failures[:10]:
        print(f"clients: FAIL {failure}", file=sys.stderr)
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
