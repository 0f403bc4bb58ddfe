#!/usr/bin/env python3
"""Live streams under load, for scripts/bench-streams.sh (standard library only).

    streams.py BASE_URL SERVER_PID [--games 200] [--streams 1000] [--seconds 3] [--clients 8]
               [--rounds 3] --readers target/release/examples/stream_readers

1. Records whole games of every kind (seeds 1-3) and creates (2 x ROUNDS + 1)
   x GAMES fresh games with the same deals, so that every phase has moves to
   spare and games of its own.
2. Without streams: CLIENTS submitters play the first GAMES games for
   SECONDS (each takes the next game in turn and submits its next move);
   accepted actions/s.
3. Opens STREAMS streams on the other GAMES games (seats, the umpire and
   spectators, STREAMS / GAMES per game), read by a compiled process of
   their own (READERS, one epoll loop: 1,000 readers neither delay the
   submitters' event loop nor cost much CPU on the machine the service
   shares with them), waits until each has read the
   setup events and is idle, and reads the server's RSS before and after:
   memory per idle stream.
4. With the streams open: the same submitters play those games for SECONDS;
   accepted actions/s, and for every event the time from the 201 answer of
   the action that made it to its arrival at each stream that follows the
   game (p50, p99, max; 0 when it arrived before the answer).
5. With the streams closed again, the next GAMES games as in 2; the round's
   ratio compares 4 with the mean of 2 and 5. Then 3-5 again, ROUNDS times
   in all (each round's 5 is the next one's 2); the median ratio is the
   figure.
Prints `key=value` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import subprocess
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
sys.path.insert(0, os.path.dirname(__file__))
from driver import MIX  # noqa: E402  (the games the load plays)
from umpire_http import Api, play_to_end  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def system_cpu_seconds(pid: int) -> float:
    """The part of `cpu_seconds` spent in the kernel: for the service with
    streams open, mostly its loopback sends to the readers."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[12]) / os.sysconf("SC_CLK_TCK")


def postgres_cpu_seconds() -> float:
    """CPU time of every PostgreSQL process (the private cluster's, when it
    is the only one): what the database's side of a phase cost."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        if "(postgres)" in text or "(postmaster)" in text:
            fields = text.rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Connection:
    """One keep-alive HTTP/1.1 connection, asyncio."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, token: str, body: dict) -> tuple[int, dict]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        payload = json.dumps(body).encode()
        self.writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        return status, json.loads(data) if data else {}


class Game:
    def __init__(self, created: dict, moves: list) -> None:
        self.id = created["id"]
        self.tokens = dict(created["seat_tokens"])
        self.tokens["umpire"] = created["umpire_token"]
        self.moves = list(moves)
        self.next = 0


async def submit_for(seconds: float, games: list[Game], clients: int, host: str, port: int,
                     committed: dict[tuple[str, int], float] | None) -> tuple[int, float]:
    """CLIENTS submitters, each taking the next game with moves left in
    turn, for SECONDS or until the first finds no game left: from then on
    fewer would be busy, and the rate would measure the plan, not the
    service. Returns (accepted actions, seconds all were busy)."""
    queue: asyncio.Queue[Game] = asyncio.Queue()
    for game in games:
        queue.put_nowait(game)
    started = time.monotonic()
    deadline = started + seconds
    accepted = 0

    async def submitter() -> None:
        nonlocal accepted, deadline
        connection = Connection(host, port)
        while time.monotonic() < deadline:
            try:
                game = queue.get_nowait()
            except asyncio.QueueEmpty:
                deadline = min(deadline, time.monotonic())
                return
            seat, action = game.moves[game.next]
            status, body = await connection.post(
                f"/v1/games/{game.id}/actions", game.tokens[seat], {"action": action}
            )
            if status != 201:
                raise RuntimeError(f"refused: {status} {body}")
            if committed is not None:
                committed[(game.id, body["version"])] = time.monotonic()
            if time.monotonic() <= deadline:
                accepted += 1
            game.next += 1
            if game.next < len(game.moves):
                queue.put_nowait(game)

    await asyncio.gather(*(submitter() for _ in range(clients)))
    return accepted, deadline - started


def start_readers(readers: str, host: str, port: int,
                  follows: list[tuple[str, str | None, int]]) -> subprocess.Popen:
    """The readers, a compiled process of their own (`api/examples/
    stream_readers.rs`: one thread, one epoll loop), so that reading 1,000
    streams neither delays the submitters' event loop nor costs the machine
    the service shares with them more than a reader must: each message's
    arrival is noted when its `id:` line comes in (CLOCK_MONOTONIC, which
    `time.monotonic` reads too)."""
    process = subprocess.Popen([readers, host, str(port)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None
    process.stdin.write("".join(f"{game_id} {token or '-'} {setup}\n" for game_id, token, setup in follows))
    process.stdin.write("\n")
    process.stdin.flush()
    return process


def stop_readers(process: subprocess.Popen) -> list[tuple[str, int, float]]:
    """Every arrival since `go`, and the readers gone."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("stop\n")
    process.stdin.flush()
    arrivals = []
    for line in process.stdout:
        if line.strip() == "end":
            break
        game_id, version, at = line.split()
        arrivals.append((game_id, int(version), float(at)))
    process.wait(timeout=30)
    return arrivals


async def streams_closed(api: Api) -> None:
    """Waits until the server holds no stream open: one whose reader left
    is noticed when the server next writes to it, a heartbeat at the
    latest (15 s)."""
    for _ in range(400):
        api.close()  # the server may have closed it, idle since the games were made
        metrics = api.request("GET", "/metrics").body
        found = re.search(r"^umpire_streams_open (\S+)$", str(metrics), re.MULTILINE)
        if found is None or float(found.group(1)) == 0:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the previous round's streams are still open after 40 s")


async def main_async(args: argparse.Namespace) -> None:
    api = Api(args.base_url)
    host, port = api.host, api.port
    recordings = []
    for game, options in MIX:
        for seed in (1, 2, 3):
            created, record = play_to_end(api, game, options, seed)
            recordings.append(record)
    # Phases without streams alternate with phases with them, each on GAMES
    # fresh games: W S W S ... W. Each phase with streams is compared with
    # the mean of the phases without on either side of it, since the
    # machine's speed drifts by more than the effect measured.
    phases = 2 * args.rounds + 1
    games: list[Game] = []
    setups: dict[str, int] = {}
    for record in itertools.islice(itertools.cycle(recordings), phases * args.games):
        created = api.create_game(record.game, record.options, record.seed)
        games.append(Game(created, record.moves))
        setups[created["id"]] = created["version"]
    batches = [games[i * args.games:(i + 1) * args.games] for i in range(phases)]
    print(f"games={args.games} per phase, moves each phase: {sum(len(g.moves) for g in batches[0])}, "
          f"rounds={args.rounds}", file=sys.stderr)
    busy_times: list[float] = []

    async def phase(name: str, games: list[Game], committed: dict[tuple[str, int], float] | None,
                    readers_pid: int | None = None) -> float:
        """Plays GAMES for SECONDS; prints and returns actions/s. Also prints
        the CPU every process on the machine spent per action (the service,
        PostgreSQL, the submitters and, with streams, the readers): on a
        saturated machine the ratio of two phases' rates is about the
        inverse ratio of these."""
        def readers_cpu() -> float:
            return cpu_seconds(readers_pid) if readers_pid else 0.0
        server_cpu, driver_cpu, db_cpu = cpu_seconds(args.server_pid), own_cpu_seconds(), postgres_cpu_seconds()
        server_sys, readers = system_cpu_seconds(args.server_pid), readers_cpu()
        accepted, busy = await submit_for(args.seconds, games, args.clients, host, port, committed)
        server_cpu, driver_cpu = cpu_seconds(args.server_pid) - server_cpu, own_cpu_seconds() - driver_cpu
        db_cpu = postgres_cpu_seconds() - db_cpu
        server_sys, readers = system_cpu_seconds(args.server_pid) - server_sys, readers_cpu() - readers
        busy_times.append(busy)
        per_action = 1e6 / max(accepted, 1)
        print(f"actions_per_s_{name}={accepted / busy:.0f} "
              f"server_cpu_us_per_action={server_cpu * per_action:.0f} "
              f"(in the kernel {server_sys * per_action:.0f}) "
              f"server_cpu_share={server_cpu / busy:.2f} postgres_cpu_share={db_cpu / busy:.2f} "
              f"driver_cpu_share={driver_cpu / busy:.2f} seconds={busy:.2f}")
        readers_part = f" readers {readers * per_action:.0f}" if readers_pid else ""
        print(f"machine_cpu_us_per_action={(server_cpu + db_cpu + driver_cpu + readers) * per_action:.0f}: "
              f"service {server_cpu * per_action:.0f} postgres {db_cpu * per_action:.0f} "
              f"submitters {driver_cpu * per_action:.0f}{readers_part}")
        return accepted / busy

    async def with_streams(round_: int, streamed: list[Game]) -> tuple[float, list, float]:
        """Opens the streams on STREAMED, plays them; (actions/s, arrivals, committed)."""
        await streams_closed(api)
        before = rss_kib(args.server_pid)
        follows = []
        for index in range(args.streams):
            game = streamed[index % args.games]
            viewers = [None, *game.tokens.values()]
            token = viewers[(index // args.games) % len(viewers)]
            follows.append((game.id, token, setups[game.id]))
        readers = start_readers(args.readers, host, port, follows)
        assert readers.stdout is not None and readers.stdin is not None
        ready = await asyncio.wait_for(asyncio.to_thread(readers.stdout.readline), 120)
        if ready.strip() != "ready":
            raise RuntimeError(f"the streams did not all read their setup: {ready!r}")
        await asyncio.sleep(2)
        after = rss_kib(args.server_pid)
        print(f"round={round_} streams_open={args.streams} ({max(1, args.streams // args.games)} per game) "
              f"rss_before_kib={before} rss_with_idle_streams_kib={after} "
              f"kib_per_idle_stream={(after - before) / args.streams:.1f}")
        committed: dict[tuple[str, int], float] = {}
        readers.stdin.write("go\n")
        readers.stdin.flush()
        readers_cpu, began = cpu_seconds(readers.pid), time.monotonic()
        rate = await phase("with_streams", streamed, committed, readers.pid)
        await asyncio.sleep(1)
        readers_cpu_share = (cpu_seconds(readers.pid) - readers_cpu) / (time.monotonic() - began)
        arrivals = stop_readers(readers)
        delivered = sum(1 for game, version, _ in arrivals if (game, version) in committed)
        print(f"readers_cpu_share={readers_cpu_share:.2f} "
              f"deliveries_per_action={delivered / max(1.0, rate * busy_times[-1]):.1f}")
        await asyncio.sleep(1)
        return rate, arrivals, committed

    delays: list[float] = []
    ratios: list[float] = []
    rate_before = await phase("without_streams", batches[0], None)
    for round_ in range(1, args.rounds + 1):
        rate_with, arrivals, committed = await with_streams(round_, batches[2 * round_ - 1])
        rate_after = await phase("without_streams", batches[2 * round_], None)
        ratio = rate_with / ((rate_before + rate_after) / 2)
        ratios.append(ratio)
        print(f"round={round_} ratio={ratio:.2f} (with streams / mean of the phases without on either side)")
        delays.extend(max(0.0, at - committed[(game, version)])
                      for game, version, at in arrivals if (game, version) in committed)
        rate_before = rate_after
    print(f"ratio_median={statistics.median(ratios):.2f} ratios={' '.join(f'{r:.2f}' for r in ratios)}")
    delays.sort()
    if delays:
        def pick(q: float) -> float:
            return delays[min(len(delays) - 1, int(q * len(delays)))] * 1000
        print(f"deliveries={len(delays)} delivery_p50_ms={pick(0.50):.2f} "
              f"delivery_p99_ms={pick(0.99):.2f} delivery_max_ms={delays[-1] * 1000:.2f}")
    if min(busy_times) < args.seconds:
        print("note=a phase ended early, when its games ran out of moves; its rate is over the time "
              "every submitter was busy", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("server_pid", type=int)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--readers", required=True,
                        help="the stream_readers binary (cargo build --release -p umpire-api --features bench --example stream_readers)")
    args = parser.parse_args()
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
