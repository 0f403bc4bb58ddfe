"""The soak's attacks on cold work, which reads a whole log from storage and
folds it before anything is cached:

  cold     many stored games none of which is in memory: concurrent live
           streams opened at the head of each, then concurrent `events`
           pages and `state?at=` reads of as many others;
  longlog  logs at the cap of events per game (10,000): imported (one past
           the cap refused), lengthened to the cap by the umpire (then
           refused `log_full`), and read at versions across them, cold and
           concurrently, by anonymous clients.

Each is a phase of soak.py and a job of its phase of all at once.
Standard library only.
"""

import concurrent.futures
import json
import os
import random
import time

import long_log
from reporting import check, log
from soak_client import (Client, Stream, answers, block_address, call, call_until_not_busy, cpu_seconds,
                         import_lines, simulate)

# Stored games read cold: half followed by a stream, half read.
COLD_GAMES = int(os.environ.get("SOAK_COLD_GAMES", "1600"))
# Arboretum stopped after 40 actions: about 70 events, unfinished.
COLD_GAME_ACTIONS = 40
STREAM_OPENERS = 200
COLD_READERS = 64
# Under a spectator's cap (16 streams an address, `--max-streams-per-client`).
STREAMS_PER_ADDRESS = 12
# A log's cap (`MAX_EVENTS_PER_GAME`) and the long logs imported near it.
MAX_EVENTS_PER_GAME = 10_000
LONG_LOG_GAMES = 4
LONG_LOG_EVENTS = MAX_EVENTS_PER_GAME - 10
LONG_LOG_READS = 200
LONG_LOG_READERS = 50
COLD_STREAMS_BLOCK = 40
COLD_READS_BLOCK = 45
LONG_LOG_BLOCK = 46
ALL_COLD_BLOCK = 47


class Shared:
    cold_lines = []      # the cold games' archives
    cold_games = []      # their CreatedGame, once imported
    long_lines = []      # the long logs' archives, and one past the cap
    past_cap_line = b""
    long_games = []      # the long logs' CreatedGame


def prepare():
    """Simulates the cold games and makes the long logs, before the server
    is loaded."""
    started = time.monotonic()
    Shared.cold_lines = simulate("arboretum", COLD_GAMES, 4501, COLD_GAME_ACTIONS)
    # Arboretum stopped after 12 actions (unfinished), lengthened by the
    # umpire's reissues.
    short = simulate("arboretum", 1, 4502, 12)[0]
    Shared.long_lines = [long_log.lengthened(short, LONG_LOG_EVENTS) for _ in range(LONG_LOG_GAMES)]
    Shared.past_cap_line = long_log.lengthened(short, MAX_EVENTS_PER_GAME + 1)
    events = sum(len(json.loads(line)["events"]) for line in Shared.cold_lines)
    log(f"simulated {len(Shared.cold_lines)} games to read cold ({events / len(Shared.cold_lines):.0f} events "
        f"each) and {LONG_LOG_GAMES} logs of {LONG_LOG_EVENTS} events "
        f"({len(Shared.long_lines[0]) / 1e6:.1f} MB each) in {time.monotonic() - started:.1f} s")


def open_streams(phase, games, block, threads=STREAM_OPENERS):
    """A spectator's stream at the head of each game, opened concurrently
    (`STREAMS_PER_ADDRESS` from each address): the Streams."""
    def follow(indexed):
        index, game = indexed
        return Stream(phase, game["id"], game["version"], block_address(block, index // STREAMS_PER_ADDRESS))

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return list(pool.map(follow, enumerate(games)))


def read_cold(phase, games, block, threads=COLD_READERS):
    """Each game read once, concurrently: an events page of the whole log,
    or the state halfway."""
    def read(indexed):
        index, game = indexed
        client = Client(block_address(block, index % 32), timeout=120)
        if index % 2:
            client.call(phase, "GET", f"/v1/games/{game['id']}/events?after=0&limit=1000", keep=False)
        else:
            client.call(phase, "GET", f"/v1/games/{game['id']}/state?at={max(1, game['version'] // 2)}",
                        keep=False)
        client.close()

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(read, enumerate(games)))


def cold_phase():
    phase = "cold"
    Shared.cold_games = import_lines(f"{phase}: import", Shared.cold_lines, time.monotonic() + 120)
    check(f"cold: {COLD_GAMES} games imported", len(Shared.cold_games) == COLD_GAMES,
          str(len(Shared.cold_games)))
    half = len(Shared.cold_games) // 2
    started = time.monotonic()
    streams = open_streams(phase, Shared.cold_games[:half], COLD_STREAMS_BLOCK)
    opened = sum(1 for stream in streams if stream.socket)
    seconds = time.monotonic() - started
    for stream in streams:
        stream.close()
    streamed = dict(answers[phase])
    print(f"  cold: {len(streams)} concurrent streams at the heads of as many cold games in {seconds:.1f} s: "
          f"{opened} open, {streamed}", flush=True)
    check("cold: every stream at a cold game's head is open or refused busy",
          all(stream.socket is not None or stream.status == 200 or stream.code == "busy" for stream in streams)
          and opened >= 1, str(streamed))
    started = time.monotonic()
    read_cold(phase, Shared.cold_games[half:], COLD_READS_BLOCK)
    print(f"  cold: {len(Shared.cold_games) - half} concurrent cold `events` and `state?at=` reads in "
          f"{time.monotonic() - started:.1f} s", flush=True)
    check("cold: every answer is 200 or 503 busy", set(answers[phase]) <= {"200", "503 busy"},
          str(dict(answers[phase])))


def read_long_logs(phase, reads, threads, block):
    """`reads` anonymous `state?at=` reads at random versions of the long
    logs, `threads` at once: the statuses' Counter is in `answers`."""
    randomness = random.Random(45)
    plan = [(randomness.choice(Shared.long_games), randomness.randrange(1, LONG_LOG_EVENTS + 1))
            for _ in range(reads)]

    def read(indexed):
        index, (game, version) = indexed
        call(phase, "GET", f"/v1/games/{game['id']}/state?at={version}",
             source=block_address(block, index % 50), keep=False)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        list(pool.map(read, enumerate(plan)))


def longlog_phase():
    phase = "longlog"
    deadline = time.monotonic() + 120
    for line in Shared.long_lines:
        answer = call_until_not_busy(phase, "POST", "/v1/games/import", deadline, raw=line,
                                     content_type="application/json")
        if answer is not None and answer.status == 201:
            Shared.long_games.append(answer.json)
    check(f"longlog: {LONG_LOG_GAMES} logs of {LONG_LOG_EVENTS} events imported",
          len(Shared.long_games) == LONG_LOG_GAMES, str(dict(answers[phase])))
    past = call_until_not_busy(phase, "POST", "/v1/games/import", deadline, raw=Shared.past_cap_line,
                               content_type="application/json")
    check(f"longlog: a log of {MAX_EVENTS_PER_GAME + 1} events is refused 422 log_full",
          past is not None and past.status == 422 and past.code == "log_full",
          f"{past and past.status} {past and past.code}")
    if not Shared.long_games:
        return
    # The umpire lengthens one to the cap; the next reissue is refused.
    game = Shared.long_games[0]
    seat = sorted(game["seat_tokens"])[0]
    statuses = []
    for _ in range(MAX_EVENTS_PER_GAME - LONG_LOG_EVENTS + 1):
        answer = call(phase, "POST", f"/v1/games/{game['id']}/seats/{seat}/reissue", token=game["umpire_token"])
        statuses.append(f"{answer and answer.status} {answer and answer.code or ''}".strip())
    check(f"longlog: the umpire's reissues take a log to {MAX_EVENTS_PER_GAME} events, then 422 log_full",
          statuses[:-1] == ["200"] * (len(statuses) - 1) and statuses[-1] == "422 log_full", str(statuses))
    # Reads across them, each game cold at its first read, concurrently.
    cpu_started, started = cpu_seconds(), time.monotonic()
    before = sum(answers[phase].values())
    read_long_logs(phase, LONG_LOG_READS, LONG_LOG_READERS, LONG_LOG_BLOCK)
    cpu = cpu_seconds() - cpu_started
    reads = sum(answers[phase].values()) - before
    print(f"  longlog: {reads} concurrent anonymous `state?at=` reads across {len(Shared.long_games)} logs of "
          f"{LONG_LOG_EVENTS} events in {time.monotonic() - started:.1f} s, {cpu * 1000 / max(1, reads):.1f} ms "
          f"of service CPU a read", flush=True)
    check("longlog: every read is answered 200 or 503 busy (no 408: the workers read every head)",
          answers[phase]["200"] >= 1 and not any(label.startswith(("408", "5")) and label != "503 busy"
                                                  for label in answers[phase]),
          str(dict(answers[phase])))


def cold_during(deadline):
    """All at once: streams opened at cold games' heads and cold reads, in
    rounds over the games the cold phase imported (the fold cache cannot
    hold them all, so most are cold again)."""
    games = Shared.cold_games
    index = 0
    while games and time.monotonic() < deadline:
        batch = [games[(index + offset) % len(games)] for offset in range(100)]
        index += 100
        streams = open_streams("all", batch[:50], ALL_COLD_BLOCK, threads=25)
        read_cold("all", batch[50:], ALL_COLD_BLOCK + 1, threads=8)
        for stream in streams:
            stream.close()


def longlog_during(deadline):
    """All at once: reads at random versions of the long logs."""
    while Shared.long_games and time.monotonic() < deadline:
        read_long_logs("all", 40, 4, LONG_LOG_BLOCK + 1)


PHASES = {"cold": cold_phase, "longlog": longlog_phase}
DURING_ALL = {"cold": cold_during, "longlog": longlog_during}
