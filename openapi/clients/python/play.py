"""Plays whole games through the generated Python client (openapi-python-client).

    PYTHONPATH=openapi/clients/python/generated python play.py BASE_URL

For each game below: creates it (create_game), then until get_game reports
`status.finished`, picks a seat from `status.to_act`, reads that seat's
state (get_game_state), lists its legal actions (list_legal_actions) and
submits one (submit_action, with an Idempotency-Key), every seat with its
own token. Then reads the state, the final score and the whole event log as
every viewer: the spectator, each seat and the umpire. Also submits an
action out of turn and reads the 422's `code` and `rule` as typed fields of
the generated ErrorBody model, and takes a game through every archive
operation (export, import, audit, what-if, scores) and the rest
(list_game_types, check_action); and plays a game in which each seat waits
on its live stream instead of polling (`play_by_streams`).

The helpers of `umpire_helpers.py` are what a caller uses beyond the
generated code: `connect` raises every error answer as an `UmpireError`
(`catch_typed_errors` catches one for an illegal move), and `follow_game`
follows a live stream as typed entries, resuming with `Last-Event-ID` when
the connection drops (`play_by_streams`, `resume_after_a_dropped_stream`).

Every answer whose shape depends on the game must parse into that game's
own models, never another's (`of_game`); the spec's game-discriminated
unions (`StateResponse` is one of `ArboretumStateResponse`, ...) make that
possible. Type-checked with mypy (`--strict`) by openapi/test-clients.sh.
Exits non-zero on any failure.

Run by openapi/test-clients.sh, which generates the client and starts the server.
"""

from __future__ import annotations

import random
import socket
import sys
import threading
import uuid
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, cast

from umpire_client import AuthenticatedClient, Client
from umpire_client.api.archives import (
    export_game,
    get_game_audit,
    import_game,
    run_game_what_if,
    score_archives,
)
from umpire_client.api.games import (
    check_action,
    create_game,
    get_game,
    get_game_score,
    get_game_state,
    list_game_events,
    list_game_types,
    list_legal_actions,
    submit_action,
)
from umpire_client.models import (
    ArboretumActionAccepted,
    ArboretumActionCheck,
    ArboretumArchive,
    ArboretumAuditReport,
    ArboretumEventPage,
    ArboretumLegalActions,
    ArboretumOptions,
    ArboretumScoreResponse,
    ArboretumStateResponse,
    ArboretumStreamEvent,
    ArboretumWhatIfReport,
    DraftCiderActionAccepted,
    DraftCiderActionCheck,
    DraftCiderArchive,
    DraftCiderAuditReport,
    DraftCiderEventPage,
    DraftCiderLegalActions,
    DraftCiderScoreResponse,
    DraftCiderStateResponse,
    DraftCiderStreamEvent,
    DraftCiderWhatIfReport,
    FlowerFieldsActionAccepted,
    FlowerFieldsActionCheck,
    FlowerFieldsArchive,
    FlowerFieldsAuditReport,
    FlowerFieldsEventPage,
    FlowerFieldsLegalActions,
    FlowerFieldsScoreResponse,
    FlowerFieldsStateResponse,
    FlowerFieldsStreamEvent,
    FlowerFieldsWhatIfReport,
    TreebloxActionAccepted,
    TreebloxActionCheck,
    TreebloxArchive,
    TreebloxAuditReport,
    TreebloxEventPage,
    TreebloxLegalActions,
    TreebloxScoreResponse,
    TreebloxStateResponse,
    TreebloxStreamEvent,
    TreebloxWhatIfReport,
    CheckActionRequest,
    CreatedGame,
    CreateGameRequest,
    DraftCiderOptions,
    ErrorBody,
    FlowerFieldsOptions,
    GameSummary,
    GameTypes,
    ScoreRows,
    StatusJson,
    StreamEnd,
    SubmitActionRequest,
    TreebloxOptions,
    WhatIfRequest,
    WhatIfRequestOptions,
)
from umpire_client.models.game_name import check_game_name
from umpire_helpers import UmpireError, connect, follow_game

# Every game is played whole, so that each of its shapes round-trips through
# the generated models (Draft & Cider for one and for two players).
GAMES: list[tuple[str, dict[str, Any]]] = [
    ("draft_cider", {"players": 1}),
    ("draft_cider", {"players": 2}),
    ("treeblox", {}),
    ("flower_fields", {}),
    ("arboretum", {}),
]
MAX_MOVES = 2000

# What the game-discriminated answers are: one model per game. Narrowing an
# answer with `isinstance(answer, StateResponse)` leaves mypy that union.
ActionAccepted = ArboretumActionAccepted | DraftCiderActionAccepted | FlowerFieldsActionAccepted | TreebloxActionAccepted
ActionCheck = ArboretumActionCheck | DraftCiderActionCheck | FlowerFieldsActionCheck | TreebloxActionCheck
Archive = ArboretumArchive | DraftCiderArchive | FlowerFieldsArchive | TreebloxArchive
AuditReport = ArboretumAuditReport | DraftCiderAuditReport | FlowerFieldsAuditReport | TreebloxAuditReport
EventPage = ArboretumEventPage | DraftCiderEventPage | FlowerFieldsEventPage | TreebloxEventPage
LegalActions = ArboretumLegalActions | DraftCiderLegalActions | FlowerFieldsLegalActions | TreebloxLegalActions
ScoreResponse = ArboretumScoreResponse | DraftCiderScoreResponse | FlowerFieldsScoreResponse | TreebloxScoreResponse
StateResponse = ArboretumStateResponse | DraftCiderStateResponse | FlowerFieldsStateResponse | TreebloxStateResponse
StreamEvent = ArboretumStreamEvent | DraftCiderStreamEvent | FlowerFieldsStreamEvent | TreebloxStreamEvent
STREAM_EVENT_MODELS: dict[str, Callable[[dict[str, Any]], StreamEvent]] = {
    "arboretum": ArboretumStreamEvent.from_dict,
    "draft_cider": DraftCiderStreamEvent.from_dict,
    "flower_fields": FlowerFieldsStreamEvent.from_dict,
    "treeblox": TreebloxStreamEvent.from_dict,
}
WhatIfReport = ArboretumWhatIfReport | DraftCiderWhatIfReport | FlowerFieldsWhatIfReport | TreebloxWhatIfReport


class Failure(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


# The generated models of a game are named after it: `TreebloxStateResponse`,
# `TreebloxView`, `TreebloxEventTimeout`, ...
GAME_PREFIXES = ("Arboretum", "DraftCider", "FlowerFields", "Treeblox")


def prefix_of(game: str) -> str:
    return "".join(part.capitalize() for part in game.split("_"))


def foreign_models(value: object, prefix: str, path: str, found: list[str]) -> None:
    """Collects every generated model in `value` that belongs to another game."""
    name = type(value).__name__
    if name.startswith(GAME_PREFIXES) and not name.startswith(prefix):
        found.append(f"{path}: {name}")
    fields = getattr(type(value), "__attrs_attrs__", None)
    if fields is not None:
        for field in fields:
            foreign_models(getattr(value, field.name), prefix, f"{path}.{field.name}", found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            foreign_models(item, prefix, f"{path}[{index}]", found)
    elif isinstance(value, dict):
        for key, item in value.items():
            foreign_models(item, prefix, f"{path}[{key!r}]", found)


def of_game(value: object, game: str, what: str) -> None:
    """`value` parsed into `game`'s own models: its type is the game's
    (`TreebloxStateResponse`), and so is every model inside it, never
    another game's (Treeblox's `timeout` is not Draft & Cider's)."""
    prefix = prefix_of(game)
    name = type(value).__name__
    expect(name.startswith(prefix), f"{what}: parsed as {name}, not a {prefix} model")
    found: list[str] = []
    foreign_models(value, prefix, name, found)
    expect(not found, f"{what}: another game's models inside: {found[:5]}")


# Each game's generated options model. `CreateGameRequest.options` is a
# union of every game's options with nothing to tell them apart, so a plain
# dict would be parsed into the first model that fits: build the right one.
OPTIONS_MODELS: dict[str, type[ArboretumOptions | DraftCiderOptions | FlowerFieldsOptions | TreebloxOptions]] = {
    "arboretum": ArboretumOptions,
    "draft_cider": DraftCiderOptions,
    "flower_fields": FlowerFieldsOptions,
    "treeblox": TreebloxOptions,
}


def spectator_client(base_url: str) -> AuthenticatedClient:
    """A client without a token, for the operations a spectator may call.

    The spec says so (`security: [{}, {bearer: []}]`), but
    openapi-python-client types every operation with any security as taking
    an AuthenticatedClient (its issue #1372); a plain Client is what works."""
    return cast(AuthenticatedClient, Client(base_url=base_url))


def create(base_url: str, game: str, options: dict[str, Any], seed: int) -> CreatedGame:
    response = create_game.sync_detailed(
        client=spectator_client(base_url),
        body=CreateGameRequest(game=check_game_name(game), options=OPTIONS_MODELS[game].from_dict(options), seed=seed),
    )
    if not isinstance(response.parsed, CreatedGame):
        raise Failure(f"create_game {game}: {response.status_code} {response.content!r}")
    return response.parsed


def read_everything(base_url: str, game: str, created: CreatedGame, version: int) -> None:
    """Every viewer's state, score and whole event log, each parsed into the
    game's own models."""
    viewers: dict[str, AuthenticatedClient] = {"spectator": spectator_client(base_url)}
    viewers["umpire"] = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    for seat, token in created.seat_tokens.additional_properties.items():
        viewers[f"seat {seat}"] = AuthenticatedClient(base_url=base_url, token=token)
    for viewer, client in viewers.items():
        what = f"{game} as {viewer}"
        state = get_game_state.sync(created.id, client=client)
        if not isinstance(state, StateResponse):
            raise Failure(f"{what}: state: {state!r}")
        of_game(state, game, f"{what}: state")
        score = get_game_score.sync(created.id, client=client)
        if not isinstance(score, ScoreResponse):
            raise Failure(f"{what}: score: {score!r}")
        of_game(score, game, f"{what}: score")
        expect(score.final, f"{what}: the score is not final")
        after, seen = 0, 0
        while True:
            page = list_game_events.sync(created.id, client=client, after=after, limit=200)
            if not isinstance(page, EventPage):
                raise Failure(f"{what}: events after {after}: {page!r}")
            of_game(page, game, f"{what}: events after {after}")
            seen += len(page.events)
            if not isinstance(page.next_after, int):
                break
            after = page.next_after
        expect(seen == version, f"{what}: {seen} events, version {version}")


def play_whole_game(base_url: str, game: str, options: dict[str, Any], seed: int) -> None:
    """Plays a game to its end, each turn as the seat to act, reading that
    seat's state at every version; then reads everything as every viewer."""
    created = create(base_url, game, options, seed)
    expected_seats = options.get("players")
    seats = created.seat_tokens.additional_properties
    if expected_seats is not None:
        expect(len(seats) == expected_seats, f"{game}: {len(seats)} seats, not the {expected_seats} asked for")
    moves, version = play_to_the_end(base_url, game, created, seed)
    read_everything(base_url, game, created, version)
    print(f"python client: {game} {options} finished after {moves} moves, {version} events, every answer in {prefix_of(game)} models", file=sys.stderr)


def play_to_the_end(base_url: str, game: str, created: CreatedGame, seed: int) -> tuple[int, int]:
    """Plays `created` to its end, each turn as the seat to act (the umpire
    when none is), reading that seat's state at every version; the number
    of moves and the final version."""
    seats = created.seat_tokens.additional_properties
    clients = {seat: AuthenticatedClient(base_url=base_url, token=token) for seat, token in seats.items()}
    umpire = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    spectator = spectator_client(base_url)
    rng = random.Random(seed)
    moves = 0
    while True:
        summary = get_game.sync(created.id, client=spectator)
        if not isinstance(summary, GameSummary):
            raise Failure(f"{game}: get_game did not return a GameSummary: {summary!r}")
        if summary.status.finished:
            break
        expect(moves < MAX_MOVES, f"{game}: not finished after {MAX_MOVES} moves")
        seat = rng.choice(sorted(summary.status.to_act)) if summary.status.to_act else None
        client = clients[seat] if seat is not None else umpire
        what = f"{game} v{summary.version} as {seat or 'umpire'}"
        state = get_game_state.sync(created.id, client=client)
        if not isinstance(state, StateResponse):
            raise Failure(f"{what}: state: {state!r}")
        of_game(state, game, f"{what}: state")
        legal = list_legal_actions.sync(created.id, client=client)
        if not isinstance(legal, LegalActions):
            raise Failure(f"{what}: legal actions: {legal!r}")
        of_game(legal, game, f"{what}: legal actions")
        expect(len(legal.actions) > 0, f"{what}: must act but has no legal action")
        action = rng.choice(legal.actions)
        response = submit_action.sync_detailed(
            created.id,
            client=client,
            body=SubmitActionRequest(action=action),
            idempotency_key=str(uuid.uuid4()),
        )
        if not isinstance(response.parsed, ActionAccepted):
            raise Failure(f"{what}: the legal action {action.to_dict()} was refused: {response.status_code} {response.content!r}")
        of_game(response.parsed, game, f"{what}: accepted")
        moves += 1
    return moves, summary.version


def play_by_streams(base_url: str, game: str, options: dict[str, Any], seed: int) -> None:
    """A whole game in which each seat waits on its live stream
    (GET /v1/games/{id}/stream) instead of polling: after every action, each
    seat reads its stream (`follow_game`, each event parsed into the game's
    generated StreamEvent model) until the new version arrives, and the
    status in that event says who acts next. Every stream ends with the
    StreamEnd of reason `finished`."""
    created = create(base_url, game, options, seed)
    seats = created.seat_tokens.additional_properties
    umpire = connect(base_url, created.umpire_token)
    clients = {seat: connect(base_url, token) for seat, token in seats.items()}
    parse = STREAM_EVENT_MODELS[game]
    rng = random.Random(seed)
    streams = {seat: follow_game(client, str(created.id), parse) for seat, client in clients.items()}
    positions = {seat: 0 for seat in streams}

    def wait_for(version: int) -> StatusJson:
        """Every seat reads its stream up to `version`; the status after it."""
        status: StatusJson | None = None
        for seat, stream in streams.items():
            seen = positions[seat]
            while seen < version:
                streamed = next(stream)
                if isinstance(streamed, StreamEnd):
                    raise Failure(f"{game}: seat {seat}'s stream ended early: {streamed.to_dict()}")
                of_game(streamed, game, f"{game}: seat {seat}'s stream")
                expect(streamed.seq == seen + 1, f"{game}: seat {seat} got {streamed.seq} after {seen}")
                seen, status = streamed.seq, streamed.status
            positions[seat] = seen
        if status is None:
            raise Failure(f"{game}: no seat saw version {version}")
        return status

    status = wait_for(created.version)
    version, moves = created.version, 0
    while not status.finished:
        expect(moves < MAX_MOVES, f"{game}: not finished after {MAX_MOVES} moves")
        mover = rng.choice(sorted(status.to_act)) if status.to_act else None
        client = clients[mover] if mover is not None else umpire
        legal = list_legal_actions.sync(created.id, client=client)
        if not isinstance(legal, LegalActions) or not legal.actions:
            raise Failure(f"{game}: no legal action for {mover}: {legal!r}")
        accepted = submit_action.sync(created.id, client=client, body=SubmitActionRequest(action=rng.choice(legal.actions)))
        if not isinstance(accepted, ActionAccepted):
            raise Failure(f"{game}: submit_action: {accepted!r}")
        version, moves = accepted.version, moves + 1
        status = wait_for(version)
    for seat, stream in streams.items():
        end = next(stream)
        expect(isinstance(end, StreamEnd) and end.reason == "finished" and end.after == version, f"{game}: seat {seat}'s stream ended with {end!r}")
        expect(next(stream, None) is None, f"{game}: seat {seat}'s stream went on after its end")
    print(f"python client: {game} {options} played by {len(seats)} seats waiting on their streams, {moves} moves, {version} events", file=sys.stderr)


class CuttingProxy:
    """A TCP proxy in front of the server that cuts its first connection
    after `cut_after` bytes of answer (mid-stream), as a network would, and
    passes the later ones whole. Keeps the request heads it forwarded."""

    def __init__(self, server_port: int, cut_after: int) -> None:
        self.server_port = server_port
        self.cut_after = cut_after
        self.requests: list[str] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            client, _ = self.listener.accept()
            first = not self.requests
            head = client.recv(65536)
            self.requests.append(head.decode(errors="replace"))
            server = socket.create_connection(("127.0.0.1", self.server_port))
            server.sendall(head)
            threading.Thread(target=self.answer, args=(server, client, self.cut_after if first else None), daemon=True).start()

    @staticmethod
    def answer(server: socket.socket, client: socket.socket, cut_after: int | None) -> None:
        sent = 0
        with server, client:
            while cut_after is None or sent < cut_after:
                chunk = server.recv(min(4096, cut_after - sent) if cut_after is not None else 4096)
                if not chunk:
                    return
                client.sendall(chunk)
                sent += len(chunk)


def resume_after_a_dropped_stream(base_url: str) -> None:
    """`follow_game` through a connection cut mid-stream: it opens the
    stream again with `Last-Event-ID` and gets every event exactly once, in
    order, then the end of the finished game."""
    created = create(base_url, "draft_cider", {"players": 1}, 21)
    _, version = play_to_the_end(base_url, "draft_cider", created, 21)
    proxy = CuttingProxy(int(base_url.rsplit(":", 1)[1]), cut_after=4096)
    through_proxy = connect(f"http://127.0.0.1:{proxy.port}", created.umpire_token)
    seqs: list[int] = []
    end: StreamEnd | None = None
    for entry in follow_game(through_proxy, str(created.id), DraftCiderStreamEvent.from_dict):
        if isinstance(entry, StreamEnd):
            end = entry
        else:
            seqs.append(entry.seq)
    expect(seqs == list(range(1, version + 1)), f"events {seqs[:5]}... of {version}: not each once, in order")
    expect(end is not None and end.reason == "finished", f"the stream ended with {end!r}")
    expect(len(proxy.requests) >= 2, "the connection was not cut")
    resumed = proxy.requests[1].lower()
    expect("last-event-id: " in resumed, f"resumed without Last-Event-ID: {resumed!r}")
    print(f"python client: a stream cut after 4096 bytes resumed with Last-Event-ID, {len(seqs)} events once each", file=sys.stderr)


def catch_typed_errors(base_url: str) -> None:
    """Seat 1 plays seat 0's legal pick out of turn: with the client from
    `connect`, the 422 is raised as an UmpireError carrying the status, the
    stable `code`, the service's sentence, the rule section and where the
    service serves it (`rule_url`). Without it, the
    generated client returns the same answer as a typed ErrorBody value."""
    created = create(base_url, "draft_cider", {"players": 2}, 5)
    tokens = created.seat_tokens.additional_properties
    first = connect(base_url, tokens["0"])
    second = connect(base_url, tokens["1"])
    legal = list_legal_actions.sync(created.id, client=first)
    if not isinstance(legal, LegalActions) or not legal.actions:
        raise Failure(f"no legal action for seat 0: {legal!r}")
    try:
        submit_action.sync(created.id, client=second, body=SubmitActionRequest(action=legal.actions[0]))
        raise Failure("an action out of turn was not refused")
    except UmpireError as refused:
        expect(refused.status == HTTPStatus.UNPROCESSABLE_ENTITY, f"expected 422, got {refused.status}")
        expect(refused.code == "draft_cider.not_your_turn", f"unexpected violation code {refused.code!r}")
        expect(refused.rule == "draft_cider §2", f"unexpected rule {refused.rule!r}")
        expect(refused.rule_url == "/rules/draft_cider#s2", f"unexpected rule_url {refused.rule_url!r}")
        expect(refused.message.endswith("."), f"not a sentence: {refused.message!r}")
        sentence = refused.message
        print(
            f"python client: 422 caught as UmpireError(code={refused.code!r}, rule={refused.rule!r}, rule_url={refused.rule_url!r})",
            file=sys.stderr,
        )
    plain = AuthenticatedClient(base_url=base_url, token=tokens["1"])
    response = submit_action.sync_detailed(created.id, client=plain, body=SubmitActionRequest(action=legal.actions[0]))
    expect(response.status_code == HTTPStatus.UNPROCESSABLE_ENTITY, f"expected 422, got {response.status_code}")
    violation = response.parsed
    if not isinstance(violation, ErrorBody) or violation.code != "draft_cider.not_your_turn":
        raise Failure(f"the 422 body is not the typed ErrorBody: {violation!r}")
    expect(violation.message == sentence, f"UmpireError.message {sentence!r} is not the body's {violation.message!r}")
    expect(violation.rule_url == "/rules/draft_cider#s2", f"the body's rule_url: {violation.rule_url!r}")
    try:
        get_game.sync(uuid.uuid4(), client=connect(base_url))
        raise Failure("an unknown game was found")
    except UmpireError as missing:
        expect(missing.status == HTTPStatus.NOT_FOUND and missing.code == "game_not_found", f"unknown game: {missing}")
        expect(missing.rule is None and missing.rule_url is None, f"a rule for an unknown game: {missing.rule_url!r}")


def every_other_operation(base_url: str) -> None:
    """The operations a whole game does not use, each answer parsed into its
    game's generated models: the game types; a dry run; then export, import
    (the same archive again: validated, then refused as already stored),
    audit, what-if under other options, and scores of an array of archives."""
    spectator = spectator_client(base_url)
    types = list_game_types.sync(client=spectator)
    if not isinstance(types, GameTypes):
        raise Failure(f"list_game_types: {types!r}")
    expect(len(types.games) == 4, f"{len(types.games)} game types")
    for game_type in types.games:
        of_game(game_type, game_type.game, f"game type {game_type.game}")
    created = create(base_url, "arboretum", {}, 11)
    umpire = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    red = AuthenticatedClient(base_url=base_url, token=created.seat_tokens.additional_properties["red"])
    state = get_game_state.sync(created.id, client=red)
    if not isinstance(state, StateResponse):
        raise Failure(f"get_game_state: {state!r}")
    of_game(state, "arboretum", "get_game_state")
    # The check can fail: an Arboretum state is not in Treeblox's models.
    try:
        of_game(state, "treeblox", "an arboretum state as treeblox's")
        raise AssertionError("an Arboretum state passed as Treeblox's")
    except Failure:
        pass
    legal = list_legal_actions.sync(created.id, client=red)
    if not isinstance(legal, LegalActions) or not legal.actions:
        raise Failure(f"no legal action for red: {legal!r}")
    check = check_action.sync(created.id, client=red, body=CheckActionRequest(action=legal.actions[0]))
    if not isinstance(check, ActionCheck) or not check.legal:
        raise Failure(f"check_action: {check!r}")
    of_game(check, "arboretum", "check_action")
    accepted = submit_action.sync(created.id, client=red, body=SubmitActionRequest(action=legal.actions[0]))
    if not isinstance(accepted, ActionAccepted):
        raise Failure(f"submit_action: {accepted!r}")

    archive = export_game.sync(created.id, client=umpire)
    if not isinstance(archive, Archive):
        raise Failure(f"export_game: {archive!r}")
    of_game(archive, "arboretum", "export_game")
    expect(len(archive.events) == accepted.version, f"{len(archive.events)} events exported")
    again = import_game.sync_detailed(client=umpire, body=archive)
    expect(again.status_code == HTTPStatus.CONFLICT, f"import_game: {again.status_code} {again.content!r}")
    expect(isinstance(again.parsed, ErrorBody) and again.parsed.code == "game_already_exists", f"import_game: {again.parsed!r}")
    audit = get_game_audit.sync(created.id, client=umpire)
    if not isinstance(audit, AuditReport) or not audit.valid:
        raise Failure(f"get_game_audit: {audit!r}")
    of_game(audit, "arboretum", "get_game_audit")
    patch = WhatIfRequestOptions.from_dict({"dm_advantage": "blue"})
    what_if = run_game_what_if.sync(created.id, client=umpire, body=WhatIfRequest(options=patch))
    if not isinstance(what_if, WhatIfReport):
        raise Failure(f"run_game_what_if: {what_if!r}")
    of_game(what_if, "arboretum", "run_game_what_if")
    scores = score_archives.sync(client=spectator, body=[archive, archive])
    if not isinstance(scores, ScoreRows):
        raise Failure(f"score_archives: {scores!r}")
    expect(scores.games == 2 and len(scores.rows) == 2, f"score_archives: {scores!r}")
    print("python client: every other operation answered in its game's typed models", file=sys.stderr)


def main() -> int:
    base_url = sys.argv[1]
    failures = 0
    for index, (game, options) in enumerate(GAMES):
        try:
            play_whole_game(base_url, game, options, seed=index + 1)
        except Exception as failure:  # noqa: BLE001 - every failure is reported, then counted
            failures += 1
            print(f"python client: FAIL {game} {options}: {failure!r}", file=sys.stderr)
    checks = [
        ("typed errors", catch_typed_errors),
        ("other operations", every_other_operation),
        ("streams", lambda url: play_by_streams(url, "draft_cider", {"players": 3}, 12)),
        ("resumed stream", resume_after_a_dropped_stream),
    ]
    for name, check in checks:
        try:
            check(base_url)
        except Exception as failure:  # noqa: BLE001
            failures += 1
            print(f"python client: FAIL {name}: {failure!r}", file=sys.stderr)
    print(f"python client: {len(GAMES) + len(checks) - failures} passed, {failures} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
