#!/usr/bin/env python3
"""One game watched by many, for scripts/bench-fanout.sh (standard library only).

    fanout.py BASE_URL SERVER_PID --readers PATH [--streams 10000] [--seconds 120] [--interval 1]

1. Plays a whole Between Flower Fields game (five seats, the most hidden
   information) to record its moves, and creates a fresh game with the
   same deal.
2. Opens STREAMS spectator streams and one stream per seat on it, read by a
   compiled process of their own (`api/examples/stream_readers.rs`), waits
   until each has read the setup, and reads the service's RSS before and
   after: memory per stream.
3. Plays the recorded moves, one every INTERVAL seconds, for SECONDS (or to
   the game's end), and for every event the time from the 201 answer of the
   action that made it to its arrival at each stream (p50, p99, max; 0 when
   it arrived before the answer), and the service's CPU (utime + stime from
   /proc) per event delivered.
Prints `key=value` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
sys.path.insert(0, os.path.dirname(__file__))
from streams import Connection, cpu_seconds, rss_kib, start_readers, stop_readers, system_cpu_seconds  # noqa: E402
from umpire_http import Api, play_to_end  # noqa: E402


async def main_async(args: argparse.Namespace) -> None:
    api = Api(args.base_url)
    _, record = play_to_end(api, "flower_fields", {}, args.seed)
    created = api.create_game(record.game, record.options, record.seed)
    game_id, setup = created["id"], created["version"]
    tokens = dict(created["seat_tokens"])
    follows = [(game_id, None, setup)] * args.streams
    follows += [(game_id, token, setup) for token in tokens.values()]
    before = rss_kib(args.server_pid)
    opened = time.monotonic()
    readers = start_readers(args.readers, api.host, api.port, follows)
    assert readers.stdout is not None and readers.stdin is not None
    ready = await asyncio.wait_for(asyncio.to_thread(readers.stdout.readline), 600)
    if ready.strip() != "ready":
        raise RuntimeError(f"the streams did not all read their setup: {ready!r}")
    print(f"streams={len(follows)} ({args.streams} spectators, {len(tokens)} seats) "
          f"opened_and_caught_up_s={time.monotonic() - opened:.1f}")
    await asyncio.sleep(2)
    after = rss_kib(args.server_pid)
    print(f"rss_before_kib={before} rss_with_streams_kib={after} "
          f"kib_per_stream={(after - before) / len(follows):.2f}")

    connection = Connection(api.host, api.port)
    committed: dict[int, float] = {}
    readers.stdin.write("go\n")
    readers.stdin.flush()
    cpu, kernel, began = cpu_seconds(args.server_pid), system_cpu_seconds(args.server_pid), time.monotonic()
    moves = record.moves
    played = 0
    while played < len(moves) and time.monotonic() - began < args.seconds:
        due = began + played * args.interval
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        seat, action = moves[played]
        status, body = await connection.post(f"/v1/games/{game_id}/actions", tokens[seat], {"action": action})
        if status != 201:
            raise RuntimeError(f"refused: {status} {body}")
        answered = time.monotonic()
        first = body["version"] - len(body["events"]) + 1
        for version in range(first, body["version"] + 1):
            committed[version] = answered
        played += 1
    await asyncio.sleep(3)
    cpu = cpu_seconds(args.server_pid) - cpu
    kernel = system_cpu_seconds(args.server_pid) - kernel
    wall = time.monotonic() - began
    arrivals = stop_readers(readers)
    delays = sorted(max(0.0, at - committed[version])
                    for _, version, at in arrivals if version in committed)
    delivered = len(delays)
    expected = len(committed) * len(follows)
    print(f"actions={played} events={len(committed)} seconds={wall:.1f} "
          f"deliveries={delivered} (each event to each stream that may see it: "
          f"at most {expected}; an event hidden from a viewer is its placeholder, still delivered)")
    if delays:
        def pick(q: float) -> float:
            return delays[min(len(delays) - 1, int(q * len(delays)))] * 1000
        print(f"delivery_p50_ms={pick(0.50):.1f} delivery_p99_ms={pick(0.99):.1f} "
              f"delivery_max_ms={delays[-1] * 1000:.1f}")
        print(f"service_cpu_s={cpu:.2f} (kernel {kernel:.2f}) "
              f"service_cpu_us_per_delivery={cpu * 1e6 / delivered:.2f} "
              f"service_cpu_share={cpu / wall:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("server_pid", type=int)
    parser.add_argument("--readers", required=True)
    parser.add_argument("--streams", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
