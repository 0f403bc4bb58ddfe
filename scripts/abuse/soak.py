#!/usr/bin/env python3
"""Issue 30's soak: many cheap requests together, against one memory budget.

Usage: soak.py BASE_URL SERVER_PID SERVER_LOG BUDGET_MIB UMPIRE_BIN

Run by scripts/abuse.sh against a server started with `--memory-budget
BUDGET_MIB`MiB. Each attack of issue 30 in turn, bounded in count and time:

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

then all of them at once for SOAK_ALL_SECONDS (60). Throughout, a seat plays
Arboretum games (both seats submit a legal action in turn, retrying only a
503 `busy`, after its Retry-After, as the API documents).

Fails (exit 1) if peak RSS (VmHWM) reaches the budget plus 64 MiB, if any
answer is a 5xx other than 503 `busy` with Retry-After, if a request gets no
answer, if the service dies, or if the seat has any action refused. Prints
each phase's answers by status, its peak RSS, the refusals, the seat's
latency and the memory series of /metrics at the end. Standard library only.

The environment may scale it (SOAK_LONG_GAMES, SOAK_ALL_SECONDS,
SOAK_JUNK_REQUESTS, SOAK_BODY_BYTES) or pick attacks (SOAK_ATTACKS, e.g.
`streams,bodies`: each alone and then together) to chase one finding.
"""

import collections
import concurrent.futures
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

from reporting import alive as process_alive
from reporting import check, failures, log, status_mib

BASE, PID, LOG, BUDGET_MIB, UMPIRE_BIN = sys.argv[1:6]
PID = int(PID)
BUDGET_MIB = int(BUDGET_MIB)
RSS_LIMIT_MIB = BUDGET_MIB + 64
HOST = urllib.parse.urlparse(BASE).hostname
PORT = urllib.parse.urlparse(BASE).port

# The sizes, each small enough for the whole soak to take about 4 minutes
# on a shared 2-core machine; the environment may scale them.
LONG_GAMES = int(os.environ.get("SOAK_LONG_GAMES", "500"))
ALL_SECONDS = float(os.environ.get("SOAK_ALL_SECONDS", "60"))
JUNK_REQUESTS = int(os.environ.get("SOAK_JUNK_REQUESTS", "12000"))
BODY_BYTES = int(os.environ.get("SOAK_BODY_BYTES", str(30_000_000)))
# Which attacks to run (the streams phase, which imports the long games,
# runs whenever another needs them); `all` is the phase of all at once.
ATTACKS = set(os.environ.get("SOAK_ATTACKS", "labels,streams,slots,bodies,audits,all").split(","))
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

lock = threading.Lock()
# phase -> "status" or "status code" -> count
answers = collections.defaultdict(collections.Counter)
# Every 5xx that is not a 503 `busy` with Retry-After, and every request that
# got no answer at all, with what was seen.
bad_answers = []
phase_peaks = {}


# --- Talking to the service -------------------------------------------------


class Answer:
    def __init__(self, status, headers, data, size):
        self.status = status
        self.headers = headers
        self.data = data
        self.size = size

    @property
    def json(self):
        try:
            return json.loads(self.data) if self.data else None
        except ValueError:
            return None

    @property
    def code(self):
        body = self.json
        return body.get("code") if isinstance(body, dict) else None

    @property
    def retry_after(self):
        try:
            return float(self.headers.get("retry-after", ""))
        except ValueError:
            return None

    @property
    def busy(self):
        return self.status == 503 and self.code == "busy" and self.retry_after is not None


def tally(phase, what, answer=None, detail=""):
    """Counts one answer (or a failure to get one) under its phase, and keeps
    every answer the soak does not allow."""
    with lock:
        if answer is None:
            answers[phase]["no answer"] += 1
            bad_answers.append(f"[{phase}] {what}: no answer ({detail})")
            return
        label = str(answer.status)
        if answer.status >= 400 and answer.code:
            label += f" {answer.code}"
        answers[phase][label] += 1
        if answer.status >= 500 and not answer.busy:
            bad_answers.append(f"[{phase}] {what} -> {answer.status} "
                               f"retry-after={answer.headers.get('retry-after')} {answer.data[:300]!r}")


class Client:
    """A keep-alive HTTP/1.1 connection from one source address."""

    def __init__(self, source="127.0.0.1", timeout=120):
        self.source = source
        self.timeout = timeout
        self.connection = None

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def call(self, phase, method, path, body=None, raw=None, content_type=None, token=None,
             keep=True):
        """One request: its Answer, or None (tallied) when none came. With
        keep=False the body is read and counted but not kept (audits)."""
        headers = {"Host": "soak"}
        if body is not None:
            raw = json.dumps(body).encode()
            content_type = "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        if token:
            headers["Authorization"] = f"Bearer {token}"
        what = f"{method[:24]} {path[:80]}"
        for attempt in range(2):
            fresh = self.connection is None
            if fresh:
                self.connection = http.client.HTTPConnection(
                    HOST, PORT, timeout=self.timeout, source_address=(self.source, 0))
            try:
                try:
                    self.connection.request(method, path, body=raw, headers=headers)
                except OSError:
                    # A server refusing a body may answer and close before
                    # reading it all: the answer is still there to read.
                    if raw is None or len(raw) < 1_000_000:
                        raise
                response = self.connection.getresponse()
                data = bytearray()
                size = 0
                while True:
                    chunk = response.read(256 * 1024)
                    if not chunk:
                        break
                    size += len(chunk)
                    # An error's body is always kept: its code is checked.
                    if keep or response.status != 200:
                        data += chunk
                answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()},
                                bytes(data), size)
                if response.will_close:
                    self.close()
                tally(phase, what, answer)
                return answer
            except (OSError, http.client.HTTPException) as error:
                self.close()
                # A kept-alive connection the server closed meanwhile is
                # tried once more on a new one; a new connection is not.
                if fresh or attempt == 1:
                    tally(phase, what, None, repr(error))
                    return None
        return None


def call(phase, method, path, **options):
    client = Client(options.pop("source", "127.0.0.1"))
    try:
        return client.call(phase, method, path, **options)
    finally:
        client.close()


def call_until_not_busy(phase, method, path, deadline, **options):
    """Retries a 503 `busy` after its Retry-After, as a client should, until
    the deadline; returns the last answer."""
    while True:
        answer = call(phase, method, path, **options)
        if answer is None or not answer.busy or time.monotonic() > deadline:
            return answer
        time.sleep(answer.retry_after)


class Stream:
    """A live stream's socket, opened and answered: status, code, socket."""

    def __init__(self, phase, game_id, after, source, token=None):
        self.status = None
        self.code = None
        self.socket = None
        request = (f"GET /v1/games/{game_id}/stream?after={after} HTTP/1.1\r\nHost: soak\r\n"
                   + (f"Authorization: Bearer {token}\r\n" if token else "") + "\r\n")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.settimeout(30)
            sock.bind((source, 0))
            sock.connect((HOST, PORT))
            sock.sendall(request.encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(4096)
                if not chunk:
                    raise ConnectionError("closed before the answer's head")
                head += chunk
        except OSError as error:
            sock.close()
            tally(phase, f"stream {game_id} from {source}", None, repr(error))
            return
        head, _, rest = head.partition(b"\r\n\r\n")
        lines = head.decode(errors="replace").split("\r\n")
        self.status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if self.status == 200:
            self.socket = sock
            tally(phase, "stream", Answer(200, headers, b"", 0))
            return
        length = int(headers.get("content-length", "0"))
        try:
            while len(rest) < length:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                rest += chunk
        except OSError:
            pass
        sock.close()
        answer = Answer(self.status, headers, rest, len(rest))
        self.code = answer.code
        tally(phase, f"stream {game_id} from {source}", answer)

    def state(self):
        """What the server did with an open stream so far: `open`, `ended
        REASON` (it sent `event: end`) or `cut` (closed without an end)."""
        self.socket.setblocking(False)
        received = b""
        try:
            while True:
                chunk = self.socket.recv(65536)
                if not chunk:
                    break
                received += chunk
        except BlockingIOError:
            return "open" if b"event: end" not in received else self.ended(received)
        except OSError:
            return "cut"
        return self.ended(received) if b"event: end" in received else "cut"

    @staticmethod
    def ended(received):
        data = received.split(b"event: end", 1)[1].split(b"data:", 1)[-1].split(b"\n", 1)[0]
        try:
            return f"ended {json.loads(data).get('reason')}"
        except ValueError:
            return "ended"

    def close(self):
        if self.socket is not None:
            self.socket.close()
            self.socket = None


def source_address(index):
    """The index-th loopback source address from 127.0.1.1: each is a client
    of its own to the per-address stream cap."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


# --- The process ------------------------------------------------------------


def reset_peak():
    """Resets VmHWM (writing 5 to clear_refs), so each phase has its own peak;
    False where that is not allowed (the overall peak is then all we have)."""
    try:
        with open(f"/proc/{PID}/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def metrics_text():
    answer = call("metrics", "GET", "/metrics")
    return answer.data.decode(errors="replace") if answer and answer.status == 200 else ""


def memory_series(text):
    return [line for line in text.splitlines()
            if line.startswith(("umpire_memory_", "umpire_streams_refused_total"))]


def charged_summary(text):
    """`umpire_memory_charged_bytes` by charge, in MiB, on one line."""
    prefix = 'umpire_memory_charged_bytes{charge="'
    charged = {}
    for line in text.splitlines():
        if line.startswith(prefix):
            label, _, value = line[len(prefix):].partition('"} ')
            charged[label] = float(value) / 2**20
    return ", ".join(f"{label} {value:.1f}" for label, value in charged.items()) + \
        f"; in all {sum(charged.values()):.1f}"


def run_phase(name, body):
    """Runs one phase, then prints its answers by status and its peak RSS."""
    reset_peak()
    started = time.monotonic()
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
    print(f"  {name}: {time.monotonic() - started:.1f} s, peak RSS {peak:.0f} MiB, RSS now "
          f"{status_mib(PID, 'VmRSS'):.0f} MiB; answers {counts}", flush=True)
    print(f"  {name}: charged now (MiB) {charged_summary(metrics_text())}", flush=True)


# --- Archives ---------------------------------------------------------------


def simulate(game, count, seed, max_actions=None):
    command = [UMPIRE_BIN, "simulate", "--game", game, "--count", str(count), "--seed", str(seed)]
    if max_actions is not None:
        command += ["--max-actions", str(max_actions)]
    output = subprocess.run(command, check=True, capture_output=True).stdout
    return [line for line in output.split(b"\n") if line.strip()]


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


def body_of(lines, limit):
    """JSON Lines of as many of `lines` as fit in `limit` bytes."""
    body, size = [], 0
    for line in lines:
        if size + len(line) + 1 > limit:
            break
        body.append(line)
        size += len(line) + 1
    return b"\n".join(body) + b"\n"


def import_lines(phase, lines, deadline):
    """Imports archives in bodies of up to 16 MB: the new games (CreatedGame)."""
    created = []
    while lines:
        body = body_of(lines, 16_000_000)
        count = body.count(b"\n")
        lines = lines[count:]
        answer = call_until_not_busy(phase, "POST", "/v1/games/import", deadline, raw=body,
                                     content_type="application/x-ndjson")
        if answer is None or answer.status != 200:
            raise RuntimeError(f"import: {answer.status if answer else 'no answer'} "
                               f"{answer.data[:200] if answer else b''!r}")
        for row in answer.data.split(b"\n"):
            if row.strip():
                imported = json.loads(row).get("imported")
                if imported:
                    created.append(imported)
    return created


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
    jobs = [job for name, job in jobs.items() if name in ATTACKS or name == "reads"]
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        for future in [pool.submit(job) for job in jobs]:
            future.result()
    check("all: a second client got a stream (or busy) in every round while one held its cap",
          "slots" not in ATTACKS or getattr(Shared, "fair_rounds", 0) > 0 and Shared.fair_failures == 0,
          f"{getattr(Shared, 'fair_failures', 0)} failed of {getattr(Shared, 'fair_rounds', 0)} rounds")


# --- The soak ---------------------------------------------------------------


def main():
    prepare_archives()
    seat = Seat()
    seat.thread.start()
    soak_started = time.monotonic()
    for name, body in [("labels", labels_phase), ("streams", streams_phase), ("slots", slots_phase),
                       ("bodies", bodies_phase), ("audits", audits_phase), ("all", all_at_once_phase)]:
        if name in ATTACKS:
            run_phase(name, body)
        if not process_alive(PID):
            break
    seat.stop.set()
    seat.thread.join(timeout=60)
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
    print(f"  peak RSS by phase (MiB): "
          + ", ".join(f"{name} {value:.0f}" for name, value in phase_peaks.items()), flush=True)
    check(f"peak RSS {peak:.0f} MiB under the budget plus 64 MiB ({RSS_LIMIT_MIB} MiB)", peak < RSS_LIMIT_MIB)
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
