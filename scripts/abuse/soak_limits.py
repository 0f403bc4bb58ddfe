"""The soak's attacks on the limits a stranger meets on an open service:

  extras   the umpire's actions outside the rules (pausing and resuming the
           clock, reissuing a seat's token) flooded on several games: each
           game takes a burst, then 429 `too_many_umpire_actions`;
  tokens   one address minting tokens (games created by it) and asking for
           a stream with each: it holds at most its address's cap, and a
           spectator elsewhere still gets a stream;
  cursors  malformed and out-of-range listing cursors: 400 `invalid_cursor`,
           never a 500, and no ERROR line in the log.

Each is a phase of soak.py and a job of its phase of all at once.
Standard library only.
"""

import collections
import concurrent.futures
import os
import random
import time
import urllib.parse

import soak_client
from reporting import check
from soak_client import Stream, block_address, call

# The service's pace for the umpire's actions outside the rules
# (`UMPIRE_EXTRAS_PER_GAME`): a burst of 30, then one every 2 s.
EXTRAS_BURST = 30
EXTRAS_PER_SECOND = 0.5
EXTRAS_GAMES = 8
EXTRAS_PER_GAME = 80
# Streams one address holds whatever its tokens (`--max-streams-per-address`),
# and connections one address holds (`--max-connections-per-client`): the
# same 64, so past it either refuses.
STREAMS_PER_ADDRESS = 64
MINTED_GAMES = 14
STREAMS_PER_TOKEN = 2
CURSORS = int(os.environ.get("SOAK_CURSORS", "2000"))
EARLIEST_POSTGRESQL_MICROS = -210_866_803_200_000_000
EXTRAS_BLOCK = 50
TOKENS_BLOCK = 51
CURSORS_BLOCK = 52
ALL_TOKENS_BLOCK = 53
# "now": nobody sits down here, and the umpire's pauses need a running clock.
CLOCK = {"per_move_ms": 600_000, "reserve_ms": 600_000, "start": "now"}


class Shared:
    extras_games = []
    paused = {}          # game id -> whether its clock is paused


def create(phase, game, source, clock=None):
    body = {"game": game, "seed": random.randrange(2**32)}
    if clock:
        body["clock"] = clock
    answer = call(phase, "POST", "/v1/games", body=body, source=source)
    return answer.json if answer is not None and answer.status == 201 else None


def flood_umpire_actions(phase, game, count, source):
    """`count` umpire actions on one game as fast as they are answered: a
    pause or resume (whichever the clock takes next), and every fourth a
    reissue. (accepted, refused 429 with Retry-After, anything else, seconds)."""
    paused = Shared.paused.get(game["id"], False)
    accepted, throttled, other = 0, 0, []
    started = time.monotonic()
    for index in range(count):
        if index % 4 == 3:
            answer = call(phase, "POST", f"/v1/games/{game['id']}/seats/{sorted(game['seat_tokens'])[0]}/reissue",
                          token=game["umpire_token"], source=source)
            ok = 200
        else:
            action = {"type": "clock_resume" if paused else "clock_pause"}
            answer = call(phase, "POST", f"/v1/games/{game['id']}/actions", body={"action": action},
                          token=game["umpire_token"], source=source)
            ok = 201
        if answer is not None and answer.status == ok:
            accepted += 1
            if index % 4 != 3:
                paused = not paused
        elif (answer is not None and answer.status == 429 and answer.code == "too_many_umpire_actions"
              and answer.retry_after is not None):
            throttled += 1
        else:
            other.append(f"{answer and answer.status} {answer and answer.code}")
    Shared.paused[game["id"]] = paused
    return accepted, throttled, other, time.monotonic() - started


def extras_phase():
    phase = "extras"
    Shared.extras_games = [game for game in (create(phase, "arboretum", block_address(EXTRAS_BLOCK, 0), CLOCK)
                                             for _ in range(EXTRAS_GAMES)) if game]
    check(f"extras: {EXTRAS_GAMES} clocked games created", len(Shared.extras_games) == EXTRAS_GAMES)
    with concurrent.futures.ThreadPoolExecutor(len(Shared.extras_games) or 1) as pool:
        results = list(pool.map(
            lambda indexed: flood_umpire_actions(phase, indexed[1], EXTRAS_PER_GAME,
                                                 block_address(EXTRAS_BLOCK, 1 + indexed[0])),
            enumerate(Shared.extras_games)))
    print("  extras: per game accepted/throttled: "
          + ", ".join(f"{accepted}/{throttled} in {seconds:.1f} s" for accepted, throttled, _, seconds in results),
          flush=True)
    check(f"extras: each game takes its burst of {EXTRAS_BURST} and then about one every "
          f"{1 / EXTRAS_PER_SECOND:.0f} s; the rest are 429 too_many_umpire_actions with Retry-After",
          bool(results) and all(
              EXTRAS_BURST <= accepted <= EXTRAS_BURST + EXTRAS_PER_SECOND * seconds + 1 and not other
              and accepted + throttled == EXTRAS_PER_GAME
              for accepted, throttled, other, seconds in results),
          "; ".join(f"{accepted} accepted, {throttled} throttled, others {other[:3]}"
                    for accepted, throttled, other, _ in results))


def mint_and_follow(phase, source, games, per_token):
    """One address creates `games` Flower Fields games and opens a stream
    with each of their tokens `per_token` times, holding what opens: the
    Streams."""
    minted = [game for game in (create(phase, "flower_fields", source) for _ in range(games)) if game]
    tokens = [(game, token) for game in minted
              for token in [game["umpire_token"]] + sorted(game["seat_tokens"].values())]
    streams = []
    for game, token in tokens:
        for _ in range(per_token):
            streams.append(Stream(phase, game["id"], game["version"], source, token))
    return minted, tokens, streams


def tokens_phase():
    phase = "tokens"
    source = block_address(TOKENS_BLOCK, 0)
    minted, tokens, streams = mint_and_follow(phase, source, MINTED_GAMES, STREAMS_PER_TOKEN)
    spectator = Stream(phase, minted[0]["id"], minted[0]["version"], block_address(TOKENS_BLOCK, 1)) \
        if minted else None
    outcomes = collections.Counter(f"{stream.status} {stream.code or ''}".strip() for stream in streams)
    print(f"  tokens: one address created {len(minted)} games, {len(tokens)} tokens, and asked for "
          f"{len(streams)} streams: {dict(outcomes)}", flush=True)
    check(f"tokens: one address minting {len(tokens)} tokens holds at most {STREAMS_PER_ADDRESS} streams, "
          "the rest refused 429 too_many_streams or 503 busy",
          outcomes["200"] <= STREAMS_PER_ADDRESS
          and set(outcomes) <= {"200", "429 too_many_streams", "503 busy"} and outcomes["200"] >= 1,
          str(dict(outcomes)))
    check("tokens: a spectator at another address still gets a stream",
          spectator is not None and spectator.status == 200, f"{spectator and spectator.status}")
    for stream in streams + [spectator]:
        if stream:
            stream.close()


def fuzzed_cursor(randomness):
    """A cursor the list never gave: junk, the wrong length, or 48 hex
    digits naming a time PostgreSQL (or chrono) cannot hold."""
    kind = randomness.randrange(6)
    if kind == 0:
        return "".join(randomness.choice("0123456789abcdef") for _ in range(randomness.choice([1, 47, 49, 96])))
    if kind == 1:
        micros = randomness.choice([-2**63, 2**63 - 1, EARLIEST_POSTGRESQL_MICROS - 1, -2**62,
                                    EARLIEST_POSTGRESQL_MICROS - randomness.randrange(1, 2**40)])
        return (micros % 2**64).to_bytes(8, "big").hex() + os.urandom(16).hex()
    if kind == 2:
        return "".join(randomness.choice("ghijklmnopqrstuvwxyz-_=+/ ") for _ in range(48))
    if kind == 3:
        return "%" + "%".join(f"{randomness.randrange(256):02x}" for _ in range(24))
    if kind == 4:
        return "f" * randomness.choice([4096, 8000])
    return os.urandom(24).hex().upper()[:-1] + "\u00e9"


def send_cursors(phase, count, source, seed):
    """`count` listing requests with fuzzed cursors: (the answers' labels of
    `/v1/games`, of the home page)."""
    randomness = random.Random(seed)
    api, home = collections.Counter(), collections.Counter()
    for index in range(count):
        cursor = urllib.parse.quote(fuzzed_cursor(randomness), safe="")
        limit = randomness.choice(["", "&limit=1", "&limit=200", "&limit=0", "&limit=201", "&limit=-1"])
        if index % 4 == 3:
            answer = call(phase, "GET", f"/?after={cursor}", source=source, keep=False)
            home[f"{answer and answer.status}"] += 1
        else:
            answer = call(phase, "GET", f"/v1/games?after={cursor}{limit}", source=source)
            api[f"{answer and answer.status} {answer and answer.code}"] += 1
    return api, home


def cursors_phase():
    phase = "cursors"
    with open(soak_client.LOG, "rb") as server_log:
        server_log.seek(0, os.SEEK_END)
        before = server_log.tell()
        api, home = send_cursors(phase, CURSORS, block_address(CURSORS_BLOCK, 0), 4503)
        time.sleep(0.5)
        server_log.seek(before)
        errors = [line for line in server_log.read().split(b"\n") if b"ERROR" in line]
    print(f"  cursors: {sum(api.values())} to /v1/games: {dict(api)}; {sum(home.values())} to /: {dict(home)}",
          flush=True)
    check("cursors: every fuzzed cursor to /v1/games is 400 invalid_cursor (or invalid_limit, or "
          "invalid_query for a query string that is not one)",
          set(api) <= {"400 invalid_cursor", "400 invalid_limit", "400 invalid_query"}
          and api["400 invalid_cursor"] >= 1, str(dict(api)))
    check("cursors: every fuzzed cursor to the home page is 400", set(home) == {"400"}, str(dict(home)))
    check("cursors: no ERROR line logged", not errors, f"{len(errors)}: {errors[:2]!r}")


def extras_during(deadline):
    """All at once: the umpire's actions flooded on the phase's games."""
    while Shared.extras_games and time.monotonic() < deadline:
        for game in Shared.extras_games:
            flood_umpire_actions("all", game, 8, block_address(EXTRAS_BLOCK, 20))
            if time.monotonic() > deadline:
                break


def tokens_during(deadline):
    """All at once: one address minting tokens for streams, in rounds; a
    spectator elsewhere still gets one each round."""
    rounds = 0
    while time.monotonic() < deadline:
        _, _, streams = mint_and_follow("all", block_address(ALL_TOKENS_BLOCK, 0), 3, 4)
        spectator = Stream("all", Shared.extras_games[0]["id"], 1, block_address(ALL_TOKENS_BLOCK, 1 + rounds % 100)) \
            if Shared.extras_games else None
        if spectator is not None and spectator.status not in (200, 503):
            Shared.refused_spectators = getattr(Shared, "refused_spectators", 0) + 1
        for stream in streams + [spectator]:
            if stream:
                stream.close()
        rounds += 1
        time.sleep(1)


def cursors_during(deadline):
    seed = 0
    while time.monotonic() < deadline:
        send_cursors("all", 50, block_address(CURSORS_BLOCK, 1), seed)
        seed += 1


def during_all_checks():
    check("all: a spectator elsewhere got a stream (or busy) in every round of minted tokens",
          getattr(Shared, "refused_spectators", 0) == 0, str(getattr(Shared, "refused_spectators", 0)))


PHASES = {"extras": extras_phase, "tokens": tokens_phase, "cursors": cursors_phase}
DURING_ALL = {"extras": extras_during, "tokens": tokens_during, "cursors": cursors_during}
