"""Plays whole games through the generated Python client (openapi-python-client).

    PYTHONPATH=openapi/clients/python/generated python play.py BASE_URL

For each game below: creates it (create_game), then until get_game reports
`status.finished`, picks a seat from `status.to_act`, lists that seat's
legal actions (list_legal_actions) and submits one (submit_action, with an
Idempotency-Key), every seat with its own token. Then reads the final score
(get_game_score) and the umpire's event log (list_game_events). Also submits
an action out of turn and reads the 422's `code` and `rule` as typed fields
of the generated ErrorBody model, and takes a game through every archive
operation (export, import, audit, what-if, scores) and the rest
(list_game_types, get_game_state, check_action). Type-checked with mypy
(`--strict`) by openapi/test-clients.sh. Exits non-zero on any failure.

Run by openapi/test-clients.sh, which generates the client and starts the server.
"""

from __future__ import annotations

import random
import sys
import uuid
from http import HTTPStatus

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
    ActionAccepted,
    ActionCheck,
    Archive,
    AuditReport,
    CheckActionRequest,
    GameTypes,
    ScoreRows,
    StateResponse,
    WhatIfReport,
    WhatIfRequest,
    WhatIfRequestOptions,
    ArboretumOptions,
    DraftCiderOptions,
    FlowerFieldsOptions,
    TreebloxOptions,
    CreateGameRequest,
    CreatedGame,
    ErrorBody,
    EventPage,
    GameSummary,
    LegalActions,
    ScoreResponse,
    SubmitActionRequest,
)

# Draft & Cider for one and for two players are short; the other games are
# played too so that every game's action shapes round-trip through the
# generated models.
GAMES = [
    ("draft_cider", {"players": 1}),
    ("draft_cider", {"players": 2}),
    ("treeblox", {}),
    ("flower_fields", {}),
    ("arboretum", {}),
]
MAX_MOVES = 2000


class Failure(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


# Each game's generated options model. `CreateGameRequest.options` is a
# oneOf of every game's options with nothing to tell them apart, so parsing a
# plain dict through CreateGameRequest.from_dict picks the first model that
# fits (ArboretumOptions) and silently drops `players`: build the right one.
OPTIONS_MODELS = {
    "arboretum": ArboretumOptions,
    "draft_cider": DraftCiderOptions,
    "flower_fields": FlowerFieldsOptions,
    "treeblox": TreebloxOptions,
}


def options_model(game: str, options: dict):
    """The generated options model for a game, built from a plain dict."""
    return OPTIONS_MODELS[game].from_dict(options)


def create(base_url: str, game: str, options: dict, seed: int) -> CreatedGame:
    response = create_game.sync_detailed(
        client=Client(base_url=base_url),
        body=CreateGameRequest(game=game, options=options_model(game, options), seed=seed),
    )
    expect(response.status_code == HTTPStatus.CREATED, f"create_game {game}: {response.status_code} {response.content!r}")
    expect(isinstance(response.parsed, CreatedGame), f"create_game {game}: not a CreatedGame")
    return response.parsed


def play_whole_game(base_url: str, game: str, options: dict, seed: int) -> None:
    created = create(base_url, game, options, seed)
    expected_seats = options.get("players")
    seats = created.seat_tokens.additional_properties
    if expected_seats is not None:
        expect(len(seats) == expected_seats, f"{game}: {len(seats)} seats, not the {expected_seats} asked for")
    clients = {seat: AuthenticatedClient(base_url=base_url, token=token) for seat, token in seats.items()}
    umpire = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    spectator = Client(base_url=base_url)
    rng = random.Random(seed)
    moves = 0
    while True:
        summary = get_game.sync(created.id, client=spectator)
        expect(isinstance(summary, GameSummary), f"{game}: get_game did not return a GameSummary: {summary}")
        if summary.status.finished:
            break
        expect(moves < MAX_MOVES, f"{game}: not finished after {MAX_MOVES} moves")
        seat = rng.choice(sorted(summary.status.to_act)) if summary.status.to_act else None
        client = clients[seat] if seat is not None else umpire
        legal = list_legal_actions.sync(created.id, client=client)
        expect(isinstance(legal, LegalActions), f"{game}: list_legal_actions: {legal}")
        expect(len(legal.actions) > 0, f"{game}: seat {seat} must act but has no legal action")
        action = rng.choice(legal.actions)
        response = submit_action.sync_detailed(
            created.id,
            client=client,
            body=SubmitActionRequest(action=action),
            idempotency_key=str(uuid.uuid4()),
        )
        if not isinstance(response.parsed, ActionAccepted):
            raise Failure(
                f"{game}: seat {seat}'s legal action {action.to_dict()} was refused: "
                f"{response.status_code} {response.content!r}"
            )
        moves += 1
    score = get_game_score.sync(created.id, client=spectator)
    expect(isinstance(score, ScoreResponse) and score.final, f"{game}: no final score: {score}")
    page = list_game_events.sync(created.id, client=umpire, limit=1000)
    expect(isinstance(page, EventPage), f"{game}: list_game_events: {page}")
    expect(len(page.events) == summary.version, f"{game}: {len(page.events)} events, version {summary.version}")
    print(f"python client: {game} {options} finished after {moves} moves, {summary.version} events", file=sys.stderr)


def read_typed_violation(base_url: str) -> None:
    """Seat 1 plays seat 0's legal pick out of turn: a 422 whose code the
    generated ErrorBody carries as a typed `str` field."""
    created = create(base_url, "draft_cider", {"players": 2}, 5)
    tokens = created.seat_tokens.additional_properties
    first = AuthenticatedClient(base_url=base_url, token=tokens["0"])
    second = AuthenticatedClient(base_url=base_url, token=tokens["1"])
    legal = list_legal_actions.sync(created.id, client=first)
    expect(isinstance(legal, LegalActions) and legal.actions, "no legal action for seat 0")
    response = submit_action.sync_detailed(created.id, client=second, body=SubmitActionRequest(action=legal.actions[0]))
    expect(response.status_code == HTTPStatus.UNPROCESSABLE_ENTITY, f"expected 422, got {response.status_code} {response.content!r}")
    violation = response.parsed
    expect(isinstance(violation, ErrorBody), f"the 422 body is not an ErrorBody: {violation!r}")
    code: str = violation.code
    expect(code == "draft_cider.not_your_turn", f"unexpected violation code {code!r}")
    expect(isinstance(violation.rule, str) and violation.rule.startswith("draft_cider"), f"unexpected rule {violation.rule!r}")
    print(f"python client: 422 read as ErrorBody(code={code!r}, rule={violation.rule!r})", file=sys.stderr)


def every_other_operation(base_url: str) -> None:
    """The operations a whole game does not use, each answer parsed into its
    generated model: the game types; state and a dry run; then export, import
    (the same archive again: validated, then refused as already stored),
    audit, what-if under other options, and scores of an array of archives."""
    spectator = Client(base_url=base_url)
    types = list_game_types.sync(client=spectator)
    expect(isinstance(types, GameTypes), f"list_game_types: {types!r}")
    expect(len(types.games) == 4, f"{len(types.games)} game types")
    created = create(base_url, "arboretum", {}, 11)
    umpire = AuthenticatedClient(base_url=base_url, token=created.umpire_token)
    red = AuthenticatedClient(base_url=base_url, token=created.seat_tokens.additional_properties["red"])
    state = get_game_state.sync(created.id, client=red)
    expect(isinstance(state, StateResponse), f"get_game_state: {state!r}")
    legal = list_legal_actions.sync(created.id, client=red)
    expect(isinstance(legal, LegalActions) and len(legal.actions) > 0, f"list_legal_actions: {legal!r}")
    check = check_action.sync(created.id, client=red, body=CheckActionRequest(action=legal.actions[0]))
    expect(isinstance(check, ActionCheck) and check.legal, f"check_action: {check!r}")
    accepted = submit_action.sync(created.id, client=red, body=SubmitActionRequest(action=legal.actions[0]))
    expect(isinstance(accepted, ActionAccepted), f"submit_action: {accepted!r}")

    archive = export_game.sync(created.id, client=umpire)
    expect(isinstance(archive, Archive), f"export_game: {archive!r}")
    assert isinstance(archive, Archive)
    expect(len(archive.events) == accepted.version, f"{len(archive.events)} events exported")
    again = import_game.sync_detailed(client=umpire, body=archive)
    expect(again.status_code == HTTPStatus.CONFLICT, f"import_game: {again.status_code} {again.content!r}")
    expect(isinstance(again.parsed, ErrorBody) and again.parsed.code == "game_already_exists", f"import_game: {again.parsed!r}")
    audit = get_game_audit.sync(created.id, client=umpire)
    expect(isinstance(audit, AuditReport) and audit.valid, f"get_game_audit: {audit!r}")
    patch = WhatIfRequestOptions.from_dict({"dm_advantage": "blue"})
    what_if = run_game_what_if.sync(created.id, client=umpire, body=WhatIfRequest(options=patch))
    expect(isinstance(what_if, WhatIfReport), f"run_game_what_if: {what_if!r}")
    scores = score_archives.sync(client=spectator, body=[archive, archive])
    expect(isinstance(scores, ScoreRows) and scores.games == 2 and len(scores.rows) == 2, f"score_archives: {scores!r}")
    print("python client: every other operation answered with its typed model", file=sys.stderr)


def main() -> int:
    base_url = sys.argv[1]
    failures = 0
    for index, (game, options) in enumerate(GAMES):
        try:
            play_whole_game(base_url, game, options, seed=index + 1)
        except Exception as failure:  # noqa: BLE001 - every failure is reported, then counted
            failures += 1
            print(f"python client: FAIL {game} {options}: {failure!r}", file=sys.stderr)
    for name, check in [("typed violation", read_typed_violation), ("other operations", every_other_operation)]:
        try:
            check(base_url)
        except Exception as failure:  # noqa: BLE001
            failures += 1
            print(f"python client: FAIL {name}: {failure!r}", file=sys.stderr)
    print(f"python client: {len(GAMES) + 2 - failures} passed, {failures} failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
