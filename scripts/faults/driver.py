#!/usr/bin/env python3
"""Bounded load for scripts/faults.sh: worker threads play games to the end
through the real API, every action submitted with an Idempotency-Key and
retried with the same key and body until it is acknowledged (201), and every
acknowledgement recorded client-side.

    driver.py BASE_URL OUT_JSON STOP_FILE [--workers N] [--max-seconds S]

It runs until STOP_FILE exists (then finishes the move in hand) or
--max-seconds pass, and writes OUT_JSON: games (id, tokens, setup version,
acknowledged actions in order), and observations (every 5xx and whether it
carried Retry-After, connection failures, the slowest answer, requests that
got no answer within the client timeout).
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

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from umpire_http import Api, ConnectionFailed  # noqa: E402

GAMES = [
    ("draft_cider", {"players": 2}),
    ("draft_cider", {"players": 1}),
]
# How long one action keeps being retried before the driver gives up on it
# (and reports its outcome as unknown).
RETRY_BUDGET_SECONDS = 90.0
CLIENT_TIMEOUT_SECONDS = 10.0


class Observations:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0
        self.by_status: dict[str, int] = {}
        self.unavailable_without_retry_after = 0
        self.unavailable_examples: list[dict] = []
        self.connection_failures: list[dict] = []
        self.timeouts = 0
        self.slowest_seconds = 0.0
        self.slowest_request = ""
        self.unexpected: list[dict] = []
        self.replayed = 0

    def record(self, method: str, path: str, started: float, status: int | None, headers=None, body=None, error: str | None = None) -> None:
        elapsed = time.time() - started
        with self.lock:
            self.requests += 1
            key = str(status) if status is not None else "no_response"
            self.by_status[key] = self.by_status.get(key, 0) + 1
            if elapsed > self.slowest_seconds:
                self.slowest_seconds = elapsed
                self.slowest_request = f"{method} {path} -> {key}"
            if status is not None and status >= 500:
                if "retry-after" not in (headers or {}):
                    self.unavailable_without_retry_after += 1
                if len(self.unavailable_examples) < 5:
                    self.unavailable_examples.append(
                        {"at": started, "request": f"{method} {path}", "status": status,
                         "retry_after": (headers or {}).get("retry-after"), "body": body,
                         "seconds": round(elapsed, 3)})
            if error is not None:
                if "timed out" in error:
                    self.timeouts += 1
                self.connection_failures.append({"at": round(started, 3), "seconds": round(elapsed, 3), "error": error[:200]})


def call(api: Api, observations: Observations, stop_at: float, method: str, path: str, **kwargs):
    """One request, retried on no answer and on 5xx (honouring Retry-After),
    with the same arguments (so the same Idempotency-Key) every time."""
    deadline = time.time() + RETRY_BUDGET_SECONDS
    while True:
        started = time.time()
        try:
            response = api.request(method, path, timeout=CLIENT_TIMEOUT_SECONDS, **kwargs)
        except ConnectionFailed as error:
            observations.record(method, path, started, None, error=str(error))
            if time.time() > deadline:
                return None
            time.sleep(0.2)
            continue
        observations.record(method, path, started, response.status, response.headers, response.body)
        # 5xx, and 409 `contended` (the game's turn did not come within the
        # service's deadline, nothing applied): both say "send it again".
        contended = response.status == 409 and isinstance(response.body, dict) \
            and response.body.get("code") == "contended"
        if response.status >= 500 or contended:
            if time.time() > deadline:
                return None
            try:
                pause = float(response.headers.get("retry-after", "1"))
            except ValueError:
                pause = 1.0
            time.sleep(min(pause, 1.0))
            continue
        return response


def worker(index: int, base_url: str, stop_file: str, stop_at: float, games: list, observations: Observations, lock: threading.Lock) -> None:
    api = Api(base_url, timeout=CLIENT_TIMEOUT_SECONDS)
    rng = random.Random(index)
    round_number = 0
    while not os.path.exists(stop_file) and time.time() < stop_at:
        game, options = GAMES[(index + round_number) % len(GAMES)]
        round_number += 1
        created = call(api, observations, stop_at, "POST", "/v1/games",
                       body={"game": game, "options": options, "seed": rng.randrange(1 << 31)})
        if created is None or created.status != 201:
            continue
        body = created.body
        record = {"id": body["id"], "game": game, "umpire_token": body["umpire_token"],
                  "seat_tokens": body["seat_tokens"],
                  "setup_version": body["version"], "acknowledged": [], "unknown": None,
                  "finished": False}
        with lock:
            games.append(record)
        while not os.path.exists(stop_file) and time.time() < stop_at:
            summary = call(api, observations, stop_at, "GET", f"/v1/games/{record['id']}")
            if summary is None:
                break
            status = summary.body["status"]
            if status["finished"]:
                record["finished"] = True
                break
            if status["to_act"]:
                seat = rng.choice(sorted(status["to_act"]))
                token = body["seat_tokens"][seat]
            else:
                seat, token = "umpire", body["umpire_token"]
            legal = call(api, observations, stop_at, "GET", f"/v1/games/{record['id']}/legal-actions", token=token)
            if legal is None or legal.status != 200 or not legal.body["actions"]:
                observations.unexpected.append({"game": record["id"], "legal_actions": legal and legal.status})
                break
            action = rng.choice(legal.body["actions"])
            key = str(uuid.uuid4())
            submitted = time.time()
            response = call(api, observations, stop_at, "POST", f"/v1/games/{record['id']}/actions",
                            body={"action": action}, token=token, idempotency_key=key)
            if response is None:
                record["unknown"] = {"key": key, "action": action, "seat": seat}
                break
            if response.status != 201:
                observations.unexpected.append({"game": record["id"], "status": response.status, "body": response.body, "action": action})
                break
            if response.headers.get("idempotent-replayed") == "true":
                with observations.lock:
                    observations.replayed += 1
            record["acknowledged"].append({
                "key": key, "seat": seat, "action": action, "version": response.body["version"],
                "event_seqs": [event["seq"] for event in response.body["events"]],
                "submitted_at": round(submitted, 3), "acknowledged_at": round(time.time(), 3),
            })
    api.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("out_json")
    parser.add_argument("stop_file")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--max-seconds", type=float, default=300)
    args = parser.parse_args()
    stop_at = time.time() + args.max_seconds
    games: list = []
    lock = threading.Lock()
    observations = Observations()
    threads = [threading.Thread(target=worker, args=(i, args.base_url, args.stop_file, stop_at, games, observations, lock), daemon=True)
               for i in range(args.workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out = {
        "games": games,
        "observations": {k: v for k, v in vars(observations).items() if k != "lock"},
    }
    with open(args.out_json, "w") as handle:
        json.dump(out, handle, indent=1)
    acknowledged = sum(len(g["acknowledged"]) for g in games)
    print(f"driver: {len(games)} games, {acknowledged} acknowledged actions, {observations.requests} requests, "
          f"statuses {observations.by_status}, {observations.replayed} idempotent replays", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
