#!/usr/bin/env python3
"""The soak: many cheap requests together, against one memory budget.

Usage: soak.py BASE_URL SERVER_PID SERVER_LOG BUDGET_MIB UMPIRE_BIN

Run by scripts/abuse.sh against a server started with `--memory-budget
BUDGET_MIB`MiB (and otherwise the defaults, but for the per-address limit on
creating games, which the tooling lifts). Each attack in turn, bounded in
count and time:

  labels   10,000+ requests with distinct long non-standard methods and
           distinct unknown paths, then /metrics must stay small;
  streams  many long unfinished Flower Fields games, each read once, then one
           anonymous spectator stream at the head of each, spread over
           127.0.0.X source addresses (the per-client cap counts addresses);
           one address, and one token, past the cap get 429;
  slots    one client trying to take every stream slot: a second client
           still gets a stream;
  bodies   concurrent ~30 MB JSON Lines imports and /v1/scores bodies;
  audits   audits in flight on the biggest games (the most refusals);

then the attacks on connections (soak_connections.py: `pipelines`, `flood`),
on cold work (soak_cold.py: `cold`, `longlog`) and on an open service's
limits (soak_limits.py: `extras`, `tokens`, `cursors`), and then all of
them at once for SOAK_ALL_SECONDS (60). Throughout, a seat plays Arboretum
games (both seats submit a legal action in turn, retrying only a 503 `busy`,
after its Retry-After, as the API documents), and /healthz is polled four
times a second (`soak_client.Watch`).

Fails (exit 1) if peak RSS (VmHWM) reaches the budget plus 64 MiB, if any
answer is a 5xx other than 503 `busy` with Retry-After (/healthz's too), if a
request gets no answer, if the service dies, or if the seat has any action
refused. Prints each phase's answers by status, its peak RSS, the service's
CPU, /healthz's worst latency, the peak charged to the budget, the seat's
latency and the memory series of /metrics at the end. Standard library only.

The environment may scale it (SOAK_LONG_GAMES, SOAK_ALL_SECONDS,
SOAK_JUNK_REQUESTS, SOAK_BODY_BYTES, SOAK_COLD_GAMES, SOAK_CURSORS) or pick
attacks (SOAK_ATTACKS, e.g. `streams,bodies`: each alone and then together)
to chase one finding.
"""

import collections
import concurrent.futures
import json
import os
import random
import sys
import threading
import time

import soak_client
import soak_cold
import soak_connections
import soak_limits
from reporting import alive as process_alive
from reporting import check, failures, log, status_mib
from soak_client import (Client, Stream, Watch, answers, bad_answers, body_of, call, call_until_not_busy,
                         charged_bytes, charged_summary, cpu_seconds, import_lines, lock, memory_series,
                         metrics_text, reset_peak, simulate, source_address)

BASE, PID, LOG, BUDGET_MIB, UMPIRE_BIN = sys.argv[1:6]
PID = int(PID)
BUDGET_MIB = int(BUDGET_MIB)
RSS_LIMIT_MIB = BUDGET_MIB + 64
soak_client.configure(BASE, PID, UMPIRE_BIN, LOG)

# The sizes, each small enough for the whole soak to take about 4 minutes
# on a shared 2-core machine; the environment may scale them.
LONG_GAMES = int(os.environ.get("SOAK_LONG_GAMES", "500"))
ALL_SECONDS = float(os.environ.get("SOAK_ALL_SECONDS", "60"))
JUNK_REQUESTS = int(os.environ.get("SOAK_JUNK_REQUESTS", "12000"))
BODY_BYTES = int(os.environ.get("SOAK_BODY_BYTES", str(30_000_000)))
# Which attacks to run (the streams phase, which imports the long games,
# runs whenever another needs them); `all` is the phase of all at once.
# The attacks of the other modules, each a phase and a job of all at once.
MODULES = (soak_connections, soak_cold, soak_limits)
ATTACKS = set(os.environ.get("SOAK_ATTACKS", ",".join(
    ["labels", "streams", "slots", "bodies", "audits"]
    + [name for module in MODULES for name in module.PHASES] + ["all"])).split(","))
if ATTACKS & {"slots", "audits", "all"}:
    ATTACKS.add("streams")
BODIES_AT_ONCE = 6
AUDITED_GAMES = 6
# The server's default stream caps (per client, per instance), which this
# soak leaves as they are.
STREAMS_PER_CLIENT = 16
MAX_STREAMS = 2048
# Streams opened per source address in the streams phase: under the cap.
STREAMS_PER_ADDRESS = 12
METRICS_LIMIT_BYTES = 256 * 1024
LOG_BYTES_PER_JUNK_REQUEST = 512
# Flower Fields stopped after 56 actions: about 265 events and unfinished,
# the games of the issue.
LONG_GAME_ACTIONS = 56

phase_peaks = {}
watch = Watch()


def run_phase(name, body):
    """Runs one phase, then prints its answers by status, its peak RSS, the
    service's CPU, /healthz's worst latency and the peak charged."""
    reset_peak()
    watch.phase = name
    started, cpu_started = time.monotonic(), cpu_seconds()
    log(f"phase {name}")
    try:
        body()
    except Exception as error:  # a phase that could not even run is a failure
        check(f"{name}: ran", False, f"{type(error).__name__}: {error}")
    if not process_alive(PID):
        check(f"{name}: the service is alive", False)
        return
    peak = status_mib(PID, "VmHWM")
    phase_peaks[name] = peak
    counts = ", ".join(f"{label}: {count}" for label, count in sorted(answers[name].items()))
    print(f"  {name}: {time.monotonic() - started:.1f} s, service CPU {cpu_seconds() - cpu_started:.1f} s, "
          f"peak RSS {peak:.0f} MiB, RSS now {status_mib(PID, 'VmRSS'):.0f} MiB; "
          f"{sum(answers[name].values())} answers: {counts}", flush=True)
    print(f"  {name}: {watch.report(name)}; charged now (MiB) "
          f"{charged_summary(charged_bytes(metrics_text()))}", flush=True)


# --- Archives ---------------------------------------------------------------


def with_refusals(line, most):
    """The archive with up to `most` distinct refusals, two at each version
    for each seat: an audit judges each against the state before it, as
    every seat saw it, so these are the costliest games to audit."""
    archive = json.loads(line)
    seats = sorted({event["actor"] for event in archive["events"] if event["actor"].startswith("seat:")})
    archive["rejections"] = [
        {"at_version": event["seq"], "actor": seat, "action": {"type": "submit", "attempt": attempt},
         "code": "flower_fields.not_your_turn", "message": "Soak: a refused attempt.",
         "rule": "flower_fields §3", "rules_version": archive["rules_version"],
         "recorded_at": event["recorded_at"], "repeats": 1}
        for event in archive["events"] for seat in seats for attempt in range(2)][:most]
    return json.dumps(archive).encode()


def import_biggest(line, deadline):
    """Imports the archive with as many refusals as the service accepts
    (halving them while it refuses the archive): (its CreatedGame, how many
    refusals it holds)."""
    most = 1 << 14
    while True:
        archive = with_refusals(line, most)
        answer = call_until_not_busy("audits: import", "POST", "/v1/games/import", deadline,
                                     raw=archive, content_type="application/json")
        if answer is not None and answer.status == 201:
            return answer.json, len(json.loads(archive)["rejections"])
        if answer is None or answer.status >= 500 or most == 0:
            raise RuntimeError(f"import: {answer and answer.status} {answer and answer.data[:300]!r}")
        most //= 2


# --- The seat playing throughout --------------------------------------------


class Seat:
    """Plays Arboretum games for as long as the soak runs, as a well-behaved
    client: every action is a legal one, and only a 503 `busy` is retried."""

    def __init__(self):
        self.latencies = []
        self.refused = []
        self.games = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.random = random.Random(30)

    def ask(self, method, path, body=None, token=None):
        """The answer, after retrying `busy`; None when the request got no
        answer (tallied as a failure) or the soak is over."""
        while not self.stop.is_set():
            answer = call("seat", method, path, body=body, token=token)
            if answer is not None and answer.busy:
                time.sleep(answer.retry_after)
                continue
            return answer
        return None

    def run(self):
        try:
            while not self.stop.is_set():
                self.play_one()
        except Exception as error:
            self.refused.append(f"{type(error).__name__}: {error}")

    def play_one(self):
        created = self.ask("POST", "/v1/games", {"game": "arboretum", "seed": self.random.randrange(2**32)})
        if created is None:
            return
        if created.status != 201:
            self.refused.append(f"create: {created.status} {created.data[:200]!r}")
            self.stop.set()
            return
        game = created.json
        self.games += 1
        while not self.stop.is_set():
            summary = self.ask("GET", f"/v1/games/{game['id']}")
            if summary is None:
                return
            if summary.status != 200:
                self.refused.append(f"summary: {summary and summary.status}")
                return
            status = summary.json["status"]
            if status["finished"]:
                return
            seat = self.random.choice(sorted(status["to_act"])) if status["to_act"] else None
            token = game["seat_tokens"][seat] if seat else game["umpire_token"]
            legal = self.ask("GET", f"/v1/games/{game['id']}/legal-actions", token=token)
            if legal is None:
                return
            if legal.status != 200:
                self.refused.append(f"legal-actions: {legal and legal.status}")
                return
            action = self.random.choice(legal.json["actions"])
            started = time.monotonic()
            submitted = self.ask("POST", f"/v1/games/{game['id']}/actions", {"action": action}, token=token)
            if submitted is None:
                return
            self.latencies.append(time.monotonic() - started)
            if submitted.status != 201:
                self.refused.append(f"{action}: {submitted.status} {submitted.data[:200]!r}")
                return


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


# --- The attacks ------------------------------------------------------------


def junk_requests(phase, count, deadline, clients=4):
    """`count` requests, half with a distinct 1,000-character method, half
    to a distinct unknown path: each answered 4xx."""
    def send(worker):
        client = Client(f"127.0.0.{2 + worker}", timeout=30)
        for index in range(worker, count, clients):
            if time.monotonic() > deadline:
                break
            tag = f"{phase[:3]}{index:07d}"
            if index % 2:
                client.call(phase, "M" + tag * 100 + "X" * (999 - 10 * 100), "/v1/game-types")
            else:
                client.call(phase, "GET", f"/v1/unknown-{tag}/{'p' * 200}")
        client.close()

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(send, range(clients)))


def labels_phase():
    log_before = os.path.getsize(LOG)
    junk_requests("labels", JUNK_REQUESTS, time.monotonic() + 45)
    sent = sum(answers["labels"].values())
    unanswered = answers["labels"]["no answer"]
    check("labels: every junk request is answered 4xx", sent >= JUNK_REQUESTS and all(
        label.startswith("4") for label in answers["labels"] if answers["labels"][label]),
        f"{sent} sent, {unanswered} unanswered")
    answer = call("labels", "GET", "/metrics")
    size = answer.size if answer else -1
    check(f"labels: /metrics after {JUNK_REQUESTS} distinct methods and paths is under "
          f"{METRICS_LIMIT_BYTES // 1024} KiB", 0 <= size < METRICS_LIMIT_BYTES, f"{size} bytes")
    time.sleep(0.5)
    # A 404 may be logged, but not with its 1,000-character method whole.
    grown = os.path.getsize(LOG) - log_before
    check(f"labels: the log grew at most {LOG_BYTES_PER_JUNK_REQUEST} bytes a junk request",
          grown <= LOG_BYTES_PER_JUNK_REQUEST * JUNK_REQUESTS, f"{grown / JUNK_REQUESTS:.0f} bytes a request")
    with open(LOG, "rb") as server_log:
        server_log.seek(0, os.SEEK_END)
        before = server_log.tell()
        call("labels", "GET", "/docs/")
        time.sleep(0.5)
        server_log.seek(before)
        warnings = [line for line in server_log.read().split(b"\n") if b"WARN" in line and b"docs" in line]
    check("labels: opening /docs/ logs no WARN line", not warnings, f"{len(warnings)} WARN lines")


class Shared:
    long_games = []      # CreatedGame of each long unfinished game
    audited = []         # CreatedGame of the games with the most refusals
    bodies = []          # ~30 MB JSON Lines bodies, each of distinct games
    streams = []         # the streams phase's open streams, held to the end


def prepare_archives():
    """Simulates every archive the soak sends, before the server is loaded."""
    started = time.monotonic()
    long_lines = simulate("flower_fields", LONG_GAMES + AUDITED_GAMES, 3001, LONG_GAME_ACTIONS)
    Shared.long_lines = long_lines[:LONG_GAMES]
    Shared.audited_lines = long_lines[LONG_GAMES:]
    per_body = 1 + BODY_BYTES // 150_000
    whole = simulate("flower_fields", per_body * 4, 3002)
    Shared.bodies = [body_of(whole[i * per_body:(i + 1) * per_body], BODY_BYTES) for i in range(4)]
    log(f"simulated {len(long_lines)} long games and 4 bodies of "
        f"{', '.join(f'{len(body) / 1e6:.1f} MB' for body in Shared.bodies)} "
        f"in {time.monotonic() - started:.1f} s")


def streams_phase():
    deadline = time.monotonic() + 90
    Shared.long_games = import_lines("streams", Shared.long_lines, deadline)
    check(f"streams: {LONG_GAMES} long unfinished games imported", len(Shared.long_games) == LONG_GAMES,
          str(len(Shared.long_games)))

    def read(game):
        call_until_not_busy("streams", "GET", f"/v1/games/{game['id']}/state", deadline)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(read, Shared.long_games))

    def follow(indexed):
        index, game = indexed
        return Stream("streams", game["id"], game["version"], source_address(index // STREAMS_PER_ADDRESS))

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        opened = list(pool.map(follow, enumerate(Shared.long_games)))
    Shared.streams = [stream for stream in opened if stream.socket]
    busy = sum(1 for stream in opened if stream.status == 503)
    print(f"  streams: {len(Shared.streams)} open at the head of {len(opened)} long games "
          f"from {1 + (len(opened) - 1) // STREAMS_PER_ADDRESS} addresses, {busy} refused busy", flush=True)
    check("streams: every spectator stream is open or refused busy",
          all(stream.socket or stream.status == 503 for stream in opened))
    check("streams: most spectator streams are open", len(Shared.streams) >= len(opened) // 2,
          f"{len(Shared.streams)} of {len(opened)}")

    # One address, then one token from many addresses, past the cap.
    game = Shared.long_games[0]
    held = [Stream("streams", game["id"], game["version"], "127.0.0.200") for _ in range(STREAMS_PER_CLIENT + 1)]
    statuses = [stream.status for stream in held]
    check(f"streams: one address gets {STREAMS_PER_CLIENT} streams, then 429 too_many_streams",
          statuses[:-1] == [200] * STREAMS_PER_CLIENT and held[-1].code == "too_many_streams",
          f"{collections.Counter(statuses)}, last {held[-1].status} {held[-1].code}")
    seat, token = sorted(game["seat_tokens"].items())[0]
    held += [Stream("streams", game["id"], game["version"], f"127.0.0.{201 + index % 8}", token)
             for index in range(STREAMS_PER_CLIENT + 1)]
    check(f"streams: one seat token from 8 addresses gets {STREAMS_PER_CLIENT} streams, then 429",
          held[-1].code == "too_many_streams"
          and [stream.status for stream in held[-STREAMS_PER_CLIENT - 1:-1]] == [200] * STREAMS_PER_CLIENT,
          f"last {held[-1].status} {held[-1].code}")
    for stream in held:
        stream.close()


def grab_every_slot(phase, greedy_source, fair_source, attempts):
    """One client opens `attempts` streams; another still gets one. Returns
    (the greedy client's statuses, the fair client's Stream)."""
    greedy = []
    for index in range(attempts):
        game = Shared.long_games[index % len(Shared.long_games)]
        greedy.append(Stream(phase, game["id"], game["version"], greedy_source))
    game = Shared.long_games[-1]
    fair = Stream(phase, game["id"], game["version"], fair_source)
    statuses = collections.Counter(f"{stream.status} {stream.code or ''}".strip() for stream in greedy)
    for stream in greedy:
        stream.close()
    fair.close()
    return statuses, fair


def slots_phase():
    # As many as the instance holds: without a per-client cap, this client
    # would take every slot left and the next would be refused.
    statuses, fair = grab_every_slot("slots", "127.0.0.210", "127.0.0.211", MAX_STREAMS)
    check(f"slots: one client asking for {MAX_STREAMS} streams gets at most its cap, the rest 429",
          statuses.get("200", 0) <= STREAMS_PER_CLIENT
          and sum(count for label, count in statuses.items() if label != "200")
          == statuses.get("429 too_many_streams", 0) + statuses.get("503 busy", 0),
          str(dict(statuses)))
    check("slots: a second client still gets a stream", fair.status == 200, f"{fair.status} {fair.code}")


def send_bodies(phase, deadline, rounds):
    """BODIES_AT_ONCE concurrent archive bodies (imports and /v1/scores),
    `rounds` each or until the deadline."""
    def send(worker):
        client = Client(f"127.0.0.{20 + worker}", timeout=300)
        for round_ in range(rounds):
            if time.monotonic() > deadline:
                break
            # Four imports of distinct games (the first round stores them,
            # later rounds find them stored) and the rest scores.
            body = Shared.bodies[(worker + round_) % len(Shared.bodies)]
            path = "/v1/games/import" if worker < len(Shared.bodies) else "/v1/scores"
            client.call(phase, "POST", path, raw=body, content_type="application/x-ndjson", keep=False)
        client.close()

    with concurrent.futures.ThreadPoolExecutor(BODIES_AT_ONCE) as pool:
        list(pool.map(send, range(BODIES_AT_ONCE)))


def bodies_phase():
    send_bodies("bodies", time.monotonic() + 60, 1)
    done = sum(count for label, count in answers["bodies"].items() if label.startswith("200"))
    check(f"bodies: {BODIES_AT_ONCE} concurrent ~30 MB bodies are answered 200 or 503 busy",
          set(answers["bodies"]) <= {"200", "503 busy"} and done >= 1, str(dict(answers["bodies"])))


def audit_all(phase, deadline, rounds, clients=AUDITED_GAMES):
    def audit(worker):
        client = Client(f"127.0.0.{40 + worker}", timeout=300)
        for round_ in range(rounds):
            if time.monotonic() > deadline:
                break
            game = Shared.audited[(worker + round_) % len(Shared.audited)]
            answer = client.call(phase, "GET", f"/v1/games/{game['id']}/audit", token=game["umpire_token"],
                                 keep=False)
            if answer is not None and answer.status == 200:
                with lock:
                    Shared.audit_bytes = max(getattr(Shared, "audit_bytes", 0), answer.size)
        client.close()

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(audit, range(clients)))


def audits_phase():
    deadline = time.monotonic() + 60
    imported = [import_biggest(line, deadline) for line in Shared.audited_lines]
    Shared.audited = [game for game, _ in imported]
    print(f"  audits: {len(imported)} long games imported with "
          f"{', '.join(str(refusals) for _, refusals in imported)} refusals", flush=True)
    audit_all("audits", time.monotonic() + 30, 2)
    check("audits: concurrent audits of the biggest games are answered 200 or 503 busy",
          set(answers["audits"]) <= {"200", "503 busy"} and answers["audits"]["200"] >= 1,
          f"{dict(answers['audits'])}, largest {getattr(Shared, 'audit_bytes', 0) / 1e6:.1f} MB")


def all_at_once_phase():
    deadline = time.monotonic() + ALL_SECONDS
    phase = "all"

    def churn_streams():
        # Open streams at the heads of the long games from many addresses,
        # hold them briefly, close them: the live part of the load.
        index = 0
        while time.monotonic() < deadline:
            batch = []
            for _ in range(40):
                game = Shared.long_games[index % len(Shared.long_games)]
                batch.append(Stream(phase, game["id"], game["version"], source_address(100 + index % 200)))
                index += 1
            time.sleep(1)
            for stream in batch:
                stream.close()

    def grab_slots():
        rounds = 0
        while time.monotonic() < deadline:
            statuses, fair = grab_every_slot(phase, "127.0.0.212", f"127.0.0.{213 + rounds % 20}", 40)
            rounds += 1
            with lock:
                Shared.fair_failures = getattr(Shared, "fair_failures", 0) + (fair.status not in (200, 503))
                Shared.fair_rounds = rounds
            time.sleep(2)

    def read_games():
        client = Client("127.0.0.60")
        games = Shared.long_games + Shared.audited
        index = 0
        while time.monotonic() < deadline:
            game = games[index % len(games)]
            client.call(phase, "GET", f"/v1/games/{game['id']}/state")
            index += 7
        client.close()

    jobs = {
        "labels": lambda: junk_requests(phase, 10**9, deadline, clients=2),
        "streams": churn_streams,
        "slots": grab_slots,
        "reads": read_games,
        "bodies": lambda: send_bodies(phase, deadline, 10**9),
        "audits": lambda: audit_all(phase, deadline, 10**9, clients=3),
    }
    for module in MODULES:
        jobs.update({name: (lambda job=job: job(deadline)) for name, job in module.DURING_ALL.items()})
    jobs = [job for name, job in jobs.items() if name in ATTACKS or name == "reads"]
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        for future in [pool.submit(job) for job in jobs]:
            future.result()
    check("all: a second client got a stream (or busy) in every round while one held its cap",
          "slots" not in ATTACKS or getattr(Shared, "fair_rounds", 0) > 0 and Shared.fair_failures == 0,
          f"{getattr(Shared, 'fair_failures', 0)} failed of {getattr(Shared, 'fair_rounds', 0)} rounds")
    if "tokens" in ATTACKS:
        soak_limits.during_all_checks()


# --- The soak ---------------------------------------------------------------


def main():
    prepare_archives()
    if ATTACKS & {"cold", "longlog"}:
        soak_cold.prepare()
    watch.start()
    seat = Seat()
    seat.thread.start()
    soak_started = time.monotonic()
    phases = [("labels", labels_phase), ("streams", streams_phase), ("slots", slots_phase),
              ("bodies", bodies_phase), ("audits", audits_phase)]
    phases += [phase for module in MODULES for phase in module.PHASES.items()]
    for name, body in phases + [("all", all_at_once_phase)]:
        if name in ATTACKS:
            run_phase(name, body)
        if not process_alive(PID):
            break
    watch.phase = "end"
    seat.stop.set()
    seat.thread.join(timeout=60)
    watch.finish()
    if Shared.streams:
        states = collections.Counter(stream.state() for stream in Shared.streams)
        check(f"the streams phase's {len(Shared.streams)} streams were never cut (open or ended with "
              f"`event: end`)", "cut" not in states, str(dict(states)))
    for stream in Shared.streams:
        stream.close()
    print(f"  soak took {time.monotonic() - soak_started:.0f} s", flush=True)

    check("the service is alive at the end", process_alive(PID))
    if not process_alive(PID):
        return
    text = metrics_text()
    print("  /metrics at the end:")
    for line in memory_series(text):
        print(f"    {line}")
    peak = max(list(phase_peaks.values()) + [status_mib(PID, "VmHWM")])
    print("  peak RSS by phase (MiB): "
          + ", ".join(f"{name} {value:.0f}" for name, value in phase_peaks.items()), flush=True)
    check(f"peak RSS {peak:.0f} MiB under the budget plus 64 MiB ({RSS_LIMIT_MIB} MiB)", peak < RSS_LIMIT_MIB)
    worst = max(watch.worst.values(), default=0)
    print(f"  /healthz: {sum(watch.polls.values())} polls, answers "
          + ", ".join(f"{label}: {count}" for label, count in sorted(answers["healthz"].items()))
          + "; worst latency by phase (ms): "
          + ", ".join(f"{name} {seconds * 1000:.0f}" for name, seconds in watch.worst.items()), flush=True)
    check(f"/healthz was answered throughout (worst {worst * 1000:.0f} ms)",
          sum(watch.polls.values()) > 0 and set(answers["healthz"]) <= {"200", "503 busy"},
          str(dict(answers["healthz"])))
    check("no 5xx but 503 busy with Retry-After, and every request answered", not bad_answers,
          f"{len(bad_answers)}: " + "; ".join(bad_answers[:10]))
    for line in bad_answers[10:50]:
        print(f"    {line}")
    seconds = seat.latencies
    print("  seat: answers " + ", ".join(f"{label}: {count}" for label, count in sorted(answers["seat"].items())))
    print(f"  seat: {seat.games} Arboretum games, {len(seconds)} actions, latency p50 "
          f"{percentile(seconds, 0.5) * 1000:.0f} ms, p99 {percentile(seconds, 0.99) * 1000:.0f} ms, "
          f"max {max(seconds, default=0) * 1000:.0f} ms", flush=True)
    check("the seat had every action accepted", bool(seconds) and not seat.refused,
          "; ".join(seat.refused[:5]))


main()
print(f"soak: {len(failures)} failed" if failures else "soak: every check held", flush=True)
sys.exit(1 if failures else 0)
