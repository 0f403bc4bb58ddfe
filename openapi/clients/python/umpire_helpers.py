"""Typed errors and live streams for the generated Umpire client.

The generated client (openapi-python-client, `umpire_client`) answers an
error as a value (an `ErrorBody` in `Response.parsed`), even with
`raise_on_unexpected_status=True`, which raises only for statuses the spec
does not list; and it cannot follow a live stream, whose body never ends.
This module adds what it lacks:

* `connect(base_url, token)`: the generated client, with every error answer
  raised as an `UmpireError` (its HTTP `status`, the stable `code`, the
  `message`, and the `rule`, `rule_url` and `details` some carry)::

      client = connect("http://127.0.0.1:8080", seat_token)
      try:
          submit_action.sync(game_id, client=client, body=SubmitActionRequest(action=action))
      except UmpireError as refused:
          print(refused.status, refused.code, refused.rule_url)   # 422 treeblox.not_your_turn /rules/treeblox#s2

* `follow_game(client, game_id, TreebloxStreamEvent.from_dict)`: a game's
  events as it is played (GET /v1/games/{id}/stream, Server-Sent Events),
  each parsed into the game's generated `StreamEvent` model, then the
  `StreamEnd` once the game is over. A dropped connection, or a stream the
  server ends for a reason that may resume (`idle`, `lifetime`, `error`), is
  opened again with `Last-Event-ID`, so that no event is missed or repeated::

      for entry in follow_game(client, game_id, TreebloxStreamEvent.from_dict):
          if isinstance(entry, StreamEnd):
              break                    # reason "finished": the game is over
          print(entry.seq, entry.status.to_act)

Use it in place of the generated `stream_game_events`, which reads the whole
body (it never ends) and cannot parse an event stream.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

import httpx
from umpire_client import AuthenticatedClient, Client
from umpire_client.models import ErrorBody, StreamEnd
from umpire_client.types import Unset

__all__ = ["UmpireError", "connect", "follow_game", "raise_for_error"]

Entry = TypeVar("Entry")


class UmpireError(Exception):
    """An error answer: `{code, message, rule?, rule_url?, details?}` and its
    status.

    `code` is stable and one of the codes the spec lists as `ErrorBody.code`
    (the platform's, and each game's violation codes such as
    `arboretum.cell_not_adjacent`); `message` is a sentence for a person;
    `rule` is the rule book section that decided a violation (`treeblox §2`)
    and `rule_url` where the service serves that section, a path on it
    (`/rules/treeblox#s2`); `details` the structured facts some errors carry
    (`{"expected": 3, "actual": 5}`).
    `retry_after` is the seconds `Retry-After` asks to wait (503, 429, 409
    `contended`), if it says."""

    def __init__(self, status: int, body: ErrorBody, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {body.code}: {body.message}")
        self.status = status
        self.body = body
        self.code: str = body.code
        self.message: str = body.message
        self.rule: str | None = body.rule if isinstance(body.rule, str) else None
        self.rule_url: str | None = body.rule_url if isinstance(body.rule_url, str) else None
        self.details: dict[str, Any] | None = None if isinstance(body.details, Unset) else body.details.to_dict()
        self.retry_after = retry_after


def raise_for_error(response: httpx.Response) -> None:
    """An httpx response hook: raises an error answer as an `UmpireError`.

    An answer that is not the service's error envelope (from a proxy in
    between, say) is left to the generated client."""
    if response.status_code < 400:
        return
    response.read()
    try:
        body = ErrorBody.from_dict(cast(Mapping[str, Any], response.json()))
    except (ValueError, KeyError, TypeError):
        return
    retry_after: float | None
    try:
        retry_after = float(response.headers["retry-after"])
    except (KeyError, ValueError):
        retry_after = None
    raise UmpireError(response.status_code, body, retry_after)


def connect(base_url: str, token: str | None = None, timeout: float = 30.0) -> AuthenticatedClient:
    """The generated client for `token` (a seat's, the umpire's or the
    admin's; none for a spectator), raising every error answer as an
    `UmpireError`, and any status the spec does not list as the generated
    `errors.UnexpectedStatus`. For the generated synchronous functions
    (`sync`, `sync_detailed`) and `follow_game`."""
    hooks = {"event_hooks": {"response": [raise_for_error]}}
    if token is None:
        # The spec lets a spectator call these without a token, but the
        # generator types every operation with any security as taking an
        # AuthenticatedClient (openapi-python-client issue #1372).
        return cast(
            AuthenticatedClient,
            Client(base_url=base_url, raise_on_unexpected_status=True, timeout=httpx.Timeout(timeout), httpx_args=hooks),
        )
    return AuthenticatedClient(
        base_url=base_url,
        token=token,
        raise_on_unexpected_status=True,
        timeout=httpx.Timeout(timeout),
        httpx_args=hooks,
    )


# A stream sends a heartbeat every 15 s: a minute without a byte is a
# connection gone quiet, to be opened again.
_STREAM_TIMEOUT = httpx.Timeout(10.0, read=60.0)


def follow_game(
    client: AuthenticatedClient | Client,
    game_id: str | UUID,
    parse: Callable[[dict[str, Any]], Entry],
    after: int = 0,
    reconnects: int = 5,
) -> Iterator[Entry | StreamEnd]:
    """The game's events (`game_id`: a `CreatedGame.id` as it is, or its
    text) after version `after`, then each new one as it is played, parsed
    with `parse` (the followed game's generated model:
    `ArboretumStreamEvent.from_dict`, `TreebloxStreamEvent.from_dict`, ...);
    then the `StreamEnd` (reason `finished`) once every event of the
    finished game has come, and nothing more.

    The stream is opened again with `Last-Event-ID` (the version of the last
    event received) when its connection drops, when opening it is answered
    502, 503 or 504 (the service without its database for a moment, as
    during a failover, or a proxy without the service), or when the server
    ends it for a reason that may resume (`idle`, `lifetime`, `error`),
    after the `retry:` the server asked for (2 s, longer than the 503's
    `Retry-After`): every event comes exactly once, in order.
    After `reconnects` attempts in a row that bring no event, the last
    failure is raised. An error answer (a bad token, an unknown game) is
    raised as an `UmpireError` when `client` came from `connect`."""
    last_id = after
    retry_seconds = 2.0
    failures = 0
    while True:
        headers = {"Last-Event-ID": str(last_id)} if last_id else {}
        # Whether this connection brought an event, or an end the server
        # asks to resume after: either way it was no failure.
        progressed = False
        lost: Exception | None = None
        try:
            with client.get_httpx_client().stream(
                "GET", f"/v1/games/{game_id}/stream", headers=headers, timeout=_STREAM_TIMEOUT
            ) as response:
                if response.status_code in _TRY_AGAIN:
                    raise _TryAgain(f"the stream was answered {response.status_code}")
                raise_for_error(response)
                response.raise_for_status()
                for message in _messages(response.iter_lines()):
                    if message.retry is not None:
                        retry_seconds = message.retry / 1000
                    if message.event == "end":
                        end = StreamEnd.from_dict(json.loads(message.data))
                        # Finished, or this seat's token reissued: nothing
                        # more for this client.
                        if end.reason in ("finished", "revoked"):
                            yield end
                            return
                        progressed = True
                        break  # idle, lifetime or error: resume
                    if message.data:
                        entry = parse(json.loads(message.data))
                        if message.id is not None:
                            last_id = message.id
                        progressed = True
                        yield entry
        except (httpx.TransportError, _TryAgain) as error:
            lost = error
        failures = 0 if progressed else failures + 1
        if failures > reconnects:
            raise ConnectionError(f"the stream of game {game_id} failed {failures} times in a row") from lost
        time.sleep(retry_seconds)


# Answers that say "not now" rather than "no": the stream is opened again.
_TRY_AGAIN = (502, 503, 504)


class _TryAgain(Exception):
    """Opening the stream was answered with one of `_TRY_AGAIN`."""


class _Message:
    """One Server-Sent Events message."""

    def __init__(self) -> None:
        self.id: int | None = None
        self.event: str | None = None
        self.data = ""
        self.retry: int | None = None


def _messages(lines: Iterator[str]) -> Iterator[_Message]:
    """The messages of an event stream's lines (comments, such as the
    heartbeats, skipped), each dispatched at its blank line."""
    message = _Message()
    data: list[str] = []
    for line in lines:
        if line == "":
            message.data = "\n".join(data)
            if data or message.event is not None or message.retry is not None:
                yield message
            message, data = _Message(), []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "id" and value.isdigit():
            message.id = int(value)
        elif field == "event":
            message.event = value
        elif field == "data":
            data.append(value)
        elif field == "retry" and value.isdigit():
            message.retry = int(value)
