"""A tiny standard-library HTTP client for the Umpire API, shared by the load
and fault drivers (they must run with nothing but python3 installed).

Not a replacement for the generated clients (openapi/): it exists so the
drivers measure the service, not a client library, and so they can see raw
statuses, headers and connection failures.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def code(self) -> str | None:
        """The error envelope's `code`, if this is an error response."""
        if isinstance(self.body, dict):
            return self.body.get("code")
        return None


class ConnectionFailed(Exception):
    """The request got no HTTP response (refused, reset, timed out)."""


class Api:
    """One keep-alive connection to the service."""

    def __init__(self, base_url: str, timeout: float = 10.0) -> None:
        parsed = urlparse(base_url)
        self.host = parsed.hostname or "127.0.0.1"
        self.port = parsed.port or 80
        self.timeout = timeout
        self.connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
    ) -> Response:
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(
                    self.host, self.port, timeout=timeout or self.timeout
                )
            elif timeout is not None and self.connection.sock is not None:
                self.connection.sock.settimeout(timeout)
            self.connection.request(method, path, body=payload, headers=headers)
            raw = self.connection.getresponse()
            data = raw.read()
        except (OSError, http.client.HTTPException, socket.timeout) as error:
            self.close()
            raise ConnectionFailed(f"{method} {path}: {error!r}") from error
        response_headers = {name.lower(): value for name, value in raw.getheaders()}
        if response_headers.get("connection", "").lower() == "close":
            self.close()
        parsed: Any = None
        if data:
            try:
                parsed = json.loads(data)
            except ValueError:
                parsed = data.decode(errors="replace")
        return Response(raw.status, response_headers, parsed)

    # The endpoints the drivers use.

    def create_game(self, game: str, options: dict, seed: int) -> dict:
        # A service with an admin token (the reference deployment's) creates
        # games only with it: UMPIRE_ADMIN_TOKEN in the environment.
        response = self.request("POST", "/v1/games", {"game": game, "options": options, "seed": seed},
                                token=os.environ.get("UMPIRE_ADMIN_TOKEN") or None)
        if response.status != 201:
            raise RuntimeError(f"create_game {game}: {response.status} {response.body}")
        return response.body

    def summary(self, game_id: str) -> dict:
        response = self.request("GET", f"/v1/games/{game_id}")
        if response.status != 200:
            raise RuntimeError(f"get_game: {response.status} {response.body}")
        return response.body

    def legal_actions(self, game_id: str, token: str) -> dict:
        response = self.request("GET", f"/v1/games/{game_id}/legal-actions", token=token)
        if response.status != 200:
            raise RuntimeError(f"list_legal_actions: {response.status} {response.body}")
        return response.body

    def all_events(self, game_id: str, token: str | None) -> list[dict]:
        events: list[dict] = []
        after = 0
        while True:
            response = self.request(
                "GET", f"/v1/games/{game_id}/events?after={after}&limit=1000", token=token
            )
            if response.status != 200:
                raise RuntimeError(f"list_game_events: {response.status} {response.body}")
            events.extend(response.body["events"])
            next_after = response.body.get("next_after")
            if next_after is None:
                return events
            after = next_after


@dataclass
class RecordedGame:
    """A whole game's moves, replayable on a new game with the same seed."""

    game: str
    options: dict
    seed: int
    moves: list[tuple[str, Any]] = field(default_factory=list)  # (seat, action)


def play_to_end(api: Api, game: str, options: dict, seed: int, max_moves: int = 5000) -> tuple[dict, RecordedGame]:
    """Creates a game and plays it to the end, every seat picking a legal
    action with an RNG seeded from `seed`; returns the creation response and
    the moves, in order."""
    created = api.create_game(game, options, seed)
    record = RecordedGame(game, options, seed)
    choose = random.Random(seed)
    for _ in range(max_moves):
        summary = api.summary(created["id"])
        status = summary["status"]
        if status["finished"]:
            return created, record
        # A random seat of those the game waits for: some games let a seat
        # replace its move (Arboretum's bids), so always taking the first
        # seat could loop forever.
        if status["to_act"]:
            seat = choose.choice(sorted(status["to_act"]))
            token = created["seat_tokens"][seat]
        else:
            seat, token = "umpire", created["umpire_token"]
        actions = api.legal_actions(created["id"], token)["actions"]
        if not actions:
            raise RuntimeError(f"{game}: seat {seat} must act but has no legal action")
        action = choose.choice(actions)
        response = api.request("POST", f"/v1/games/{created['id']}/actions", {"action": action}, token=token)
        if response.status != 201:
            raise RuntimeError(f"{game}: legal action {action} refused: {response.status} {response.body}")
        record.moves.append((seat, action))
    raise RuntimeError(f"{game}: not finished after {max_moves} moves")
