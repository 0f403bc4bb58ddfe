#!/usr/bin/env python3
"""Prepares the work for scripts/load.sh; wrk does the measuring.

    driver.py plan BASE_URL OUT_PREFIX --threads N --actions-per-thread K
        Records one whole game per (game, seed) by playing random legal
        actions, then creates fresh games with the same game, options and
        seed (so the same deal) and writes one plan file per wrk thread,
        OUT_PREFIX<i>.tsv, listing each action submission in order:
        path <TAB> seat token <TAB> JSON body. Each thread's plan is a string
        of whole games, so N threads play N games at a time.

    driver.py long-game BASE_URL --events 500
        Creates an Arboretum game and drives it to at least that many events
        (the bidding seat replaces its bid, which the rules allow, so the log
        grows without the game ending) and prints `game_id <TAB> seat_token`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from umpire_http import Api, play_to_end  # noqa: E402

# The mix of games the load plays: every registered game, seeds 1-3 each.
MIX = [
    ("draft_cider", {"players": 2}),
    ("treeblox", {}),
    ("flower_fields", {}),
    ("arboretum", {}),
]
SEEDS = [1, 2, 3]


def plan(args: argparse.Namespace) -> int:
    api = Api(args.base_url)
    recordings = []
    for game, options in MIX:
        for seed in SEEDS:
            _, record = play_to_end(api, game, options, seed)
            recordings.append(record)
    total_moves = sum(len(r.moves) for r in recordings)
    print(f"plan: recorded {len(recordings)} games, {total_moves} moves", file=sys.stderr)
    # Each thread's plan repeats every `total_moves` lines (the same games,
    # deals and moves, in fresh games): a harness comparing two windows of
    # a plan compares the same work when they are this far apart.
    with open(f"{args.out_prefix}cycle", "w") as handle:
        handle.write(f"{total_moves}\n")
    games_created = 0
    for thread in range(args.threads):
        lines = []
        planned = 0
        turn = thread
        while planned < args.actions_per_thread:
            record = recordings[turn % len(recordings)]
            turn += 1
            created = api.create_game(record.game, record.options, record.seed)
            games_created += 1
            path = f"/v1/games/{created['id']}/actions"
            for seat, action in record.moves:
                token = created["umpire_token"] if seat == "umpire" else created["seat_tokens"][seat]
                body = json.dumps({"action": action}, separators=(",", ":"))
                lines.append(f"{path}\t{token}\t{body}\n")
            planned += len(record.moves)
        with open(f"{args.out_prefix}{thread}.tsv", "w") as handle:
            handle.writelines(lines)
    print(f"plan: {games_created} games created for {args.threads} threads", file=sys.stderr)
    return 0


def long_game(args: argparse.Namespace) -> int:
    api = Api(args.base_url)
    created = api.create_game("arboretum", {}, 11)
    game_id = created["id"]
    version = created["version"]
    # The first seat to bid keeps replacing its bid (the rules allow it until
    # the other seat bids, and the game is not waiting for it), so the log
    # grows without the game moving on.
    bidder = None
    while version < args.events:
        status = api.summary(game_id)["status"]
        if status["finished"]:
            raise SystemExit("long-game: the game finished before reaching the wanted length")
        seat = bidder or sorted(status["to_act"])[0]
        token = created["seat_tokens"][seat]
        action = api.legal_actions(game_id, token)["actions"][0]
        response = api.request("POST", f"/v1/games/{game_id}/actions", {"action": action}, token=token)
        if response.status != 201:
            raise SystemExit(f"long-game: {response.status} {response.body}")
        if action["type"] == "bid":
            bidder = seat
        version = response.body["version"]
    seat_token = next(iter(created["seat_tokens"].values()))
    print(f"{game_id}\t{seat_token}\t{version}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("plan")
    p.add_argument("base_url")
    p.add_argument("out_prefix")
    p.add_argument("--threads", type=int, required=True)
    p.add_argument("--actions-per-thread", type=int, required=True)
    p.set_defaults(run=plan)
    g = commands.add_parser("long-game")
    g.add_argument("base_url")
    g.add_argument("--events", type=int, default=500)
    g.set_defaults(run=long_game)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
