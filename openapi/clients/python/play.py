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

Every answer whose shape depends on the game must parse into that game's
own models, never another's (`of_game`); the spec's game-discriminated
unions (`StateResponse` is one of `ArboretumStateResponse`, ...) make that
possible. Type-checked with mypy (`--strict`) by openapi/test-clients.sh.
Exits non-zero on any failure.

Run by openapi/test-clients.sh, which generates the client and starts the server.
"""

from __future__ import annotations

import json
import random
import sys
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
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
STREAM_EVENT_MODELS: dict[str, type[StreamEvent]] = {
    "arboretum": ArboretumStreamEvent,
    "draft_cider": DraftCiderStreamEvent,
    "flower_fields": FlowerFieldsStreamEvent,
    "treeblox": TreebloxStreamEvent,
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
        body=CreateGameRequest(game=game, options=OPTIONS_MODELS[game].from_dict(options), seed=seed),
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
    read_everything(base_url, game, created, summary.version)
    print(f"python client: {game} {options} finished after {moves} moves, {summary.version} events, every answer in {prefix_of(game)} models", file=sys.stderr)


def sse_messages(lines: Iterator[str]) -> Iterator[tuple[str | None, str]]:
    """Server-Sent Events from a response's lines: (event name, data) per
    message, heartbeats and `retry:` skipped."""
    event: str | None = None
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield event, "\n".join(data)
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)


def play_by_streams(base_url: str, game: str, options: dict[str, Any], seed: int) -> None:
    """A whole game in which each seat waits on its live stream
    (GET /v1/games/{id}/stream) instead of polling: after every action, each
    seat reads its stream until the new version arrives, and the status in
    that event says who acts next. The generated `stream_game_events` would
    wait for the end of an endless body, so the stream is read with the
    client's own httpx client, and each `data:` is parsed into the game's
    generated StreamEvent model. Every stream ends with `event: end`,
    reason `finished`."""
    created = create(base_url, game, options, seed)
    seats = created.seat_tokens.additional_properties
    umpire = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    clients = {seat: AuthenticatedClient(base_url=base_url, token=token) for seat, token in seats.items()}
    model = STREAM_EVENT_MODELS[game]
    rng = random.Random(seed)
    with ExitStack() as open_streams:
        streams: dict[str, Iterator[tuple[str | None, str]]] = {}
        for seat, client in clients.items():
            response = open_streams.enter_context(
                client.get_httpx_client().stream("GET", f"/v1/games/{created.id}/stream", timeout=30.0)
            )
            expect(response.status_code == HTTPStatus.OK, f"{game}: seat {seat}'s stream: {response.status_code}")
            streams[seat] = sse_messages(response.iter_lines())

        positions = {seat: 0 for seat in streams}

        def wait_for(version: int) -> StatusJson:
            """Every seat reads its stream up to `version`; the status after it."""
            status: StatusJson | None = None
            for seat, stream in streams.items():
                seen = positions[seat]
                while seen < version:
                    event, data = next(stream)
                    expect(event is None, f"{game}: seat {seat}'s stream ended early: {data}")
                    streamed = model.from_dict(json.loads(data))
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
            event, data = next(stream)
            end = StreamEnd.from_dict(json.loads(data))
            expect(event == "end" and end.reason == "finished" and end.after == version, f"{game}: seat {seat}'s stream ended with {event} {data}")
    print(f"python client: {game} {options} played by {len(seats)} seats waiting on their streams, {moves} moves, {version} events", file=sys.stderr)


def read_typed_violation(base_url: str) -> None:
    """Seat 1 plays seat 0's legal pick out of turn: a 422 whose code the
    generated ErrorBody carries as a typed `str` field."""
    created = create(base_url, "draft_cider", {"players": 2}, 5)
    tokens = created.seat_tokens.additional_properties
    first = AuthenticatedClient(base_url=base_url, token=tokens["0"])
    second = AuthenticatedClient(base_url=base_url, token=tokens["1"])
    legal = list_legal_actions.sync(created.id, client=first)
    if not isinstance(legal, LegalActions) or not legal.actions:
        raise Failure(f"no legal action for seat 0: {legal!r}")
    response = submit_action.sync_detailed(created.id, client=second, body=SubmitActionRequest(action=legal.actions[0]))
    expect(response.status_code == HTTPStatus.UNPROCESSABLE_ENTITY, f"expected 422, got {response.status_code} {response.content!r}")
    violation = response.parsed
    if not isinstance(violation, ErrorBody):
        raise Failure(f"the 422 body is not an ErrorBody: {violation!r}")
    code: str = violation.code
    expect(code == "draft_cider.not_your_turn", f"unexpected violation code {code!r}")
    expect(isinstance(violation.rule, str) and violation.rule.startswith("draft_cider"), f"unexpected rule {violation.rule!r}")
    print(f"python client: 422 read as ErrorBody(code={code!r}, rule={violation.rule!r})", file=sys.stderr)


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
        ("typed violation", read_typed_violation),
        ("other operations", every_other_operation),
        ("streams", lambda url: play_by_streams(url, "draft_cider", {"players": 3}, 12)),
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
