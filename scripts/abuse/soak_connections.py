"""The soak's attacks on connections themselves, before any handler runs:

  pipelines  many connections each pipelining thousands of requests for the
             large fixed documents (the OpenAPI document, the viewer's
             script, Swagger UI's bundle) and never reading an answer;
  flood      idle sockets: one address past its cap of connections, then
             many addresses past the instance's cap.

Each is a phase of soak.py and a job of its phase of all at once.
Standard library only.
"""

import socket
import time

import soak_client
from reporting import check, log
from soak_client import Answer, Client, answers, block_address, call, metrics_text, tally

# The documents an attacker asks for: the largest the service answers
# without a database read, each from bytes the service shares.
DOCUMENTS = ("/openapi.json", "/viewer/app.js", "/docs/swagger-ui-bundle.js")
# The attack: 600 connections, 2,000 pipelined requests each.
PIPELINING_CONNECTIONS = 600
PIPELINED_REQUESTS = 2000
PIPELINES_HELD_SECONDS = 8
# The service's defaults (`umpire serve --max-connections-per-client`,
# `--max-connections`), which the soak leaves as they are.
CONNECTIONS_PER_CLIENT = 64
MAX_CONNECTIONS = 4096
# Under the per-client cap: the pipelining connections are admitted.
PIPELINES_PER_ADDRESS = 50
# Idle sockets: one address past its cap, then the instance past its own.
ONE_ADDRESS_SOCKETS = CONNECTIONS_PER_CLIENT + 36
FLOOD_SOCKETS = MAX_CONNECTIONS + 200
FLOOD_PER_ADDRESS = 60
# A connection that sends no request is closed after this long
# (actix's client request timeout, 5 s), with some slack for a busy machine.
IDLE_CLOSED_WITHIN_SECONDS = 20
# Source address blocks (127.0.BLOCK.x), one per use.
PIPELINES_BLOCK = 20
ONE_ADDRESS_BLOCK = 22
FLOOD_BLOCK = 23
ALL_PIPELINES_BLOCK = 26
ALL_FLOOD_BLOCK = 27
FRESH_BLOCK = 29


class Pipeliner:
    """A connection that pipelines requests and never reads their answers
    (until `first_answer`, once it is done)."""

    def __init__(self, source, document, requests):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.request = f"GET {document} HTTP/1.1\r\nHost: soak\r\n\r\n".encode()
        self.pending = memoryview(self.request * requests)
        self.sent = 0
        self.sock.bind((source, 0))
        self.sock.settimeout(10)
        self.sock.connect((soak_client.HOST, soak_client.PORT))
        self.sock.setblocking(False)

    def push(self):
        """Sends what the kernel takes now."""
        while self.sent < len(self.pending):
            try:
                self.sent += self.sock.send(self.pending[self.sent:self.sent + 65536])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self.pending = self.pending[:self.sent]
                return

    @property
    def requests_sent(self):
        return self.sent // len(self.request)

    def first_answer(self):
        """The first answer's status and code, read only now (an Answer), or
        None if the service sent nothing."""
        received = b""
        self.sock.settimeout(2)
        try:
            while b"\r\n\r\n" not in received:
                chunk = self.sock.recv(4096)
                if not chunk:
                    break
                received += chunk
        except OSError:
            pass
        head, _, rest = received.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 "):
            return None
        lines = head.decode(errors="replace").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        status = int(lines[0].split(" ", 2)[1])
        # A refusal's body is small and sent whole (the answers after it
        # follow); a document's is not read.
        body = rest[:int(headers.get("content-length", "0"))] if status != 200 else b""
        return Answer(status, headers, body, len(body))

    def close(self):
        self.sock.close()


def open_pipeliners(phase, count, block, requests, first=0):
    """`count` pipelining connections, `PIPELINES_PER_ADDRESS` from each
    address of the block from its `first // PIPELINES_PER_ADDRESS`-th on
    (modulo the block's 250)."""
    pipeliners = []
    for index in range(first, first + count):
        document = DOCUMENTS[index % len(DOCUMENTS)]
        try:
            pipeliners.append(Pipeliner(block_address(block, (index // PIPELINES_PER_ADDRESS) % 250), document,
                                        requests))
        except OSError as error:
            tally(phase, f"pipelining connection {index}", None, repr(error))
    return pipeliners


def hold_pipelines(phase, pipeliners, seconds):
    """Pushes every connection's requests for `seconds`, never reading; then
    tallies each connection's first answer and closes it. The requests the
    service's side took."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        for pipeliner in pipeliners:
            pipeliner.push()
        time.sleep(0.05)
    sent = sum(pipeliner.requests_sent for pipeliner in pipeliners)
    for index, pipeliner in enumerate(pipeliners):
        answer = pipeliner.first_answer()
        if answer is None:
            tally(phase, f"pipelining connection {index}", None, "no answer to its first request")
        else:
            tally(phase, f"pipelining connection {index}", answer)
        pipeliner.close()
    return sent


def whole_document(phase, path):
    """A well-behaved client's read of a document: its status and whether
    the body is as long as announced."""
    client = Client("127.0.0.240", timeout=60)
    answer = client.call(phase, "GET", path)
    client.close()
    if answer is None:
        return None, False
    return answer.status, str(len(answer.data)) == answer.headers.get("content-length", str(len(answer.data)))


def pipelines_phase():
    started = time.monotonic()
    pipeliners = open_pipeliners("pipelines", PIPELINING_CONNECTIONS, PIPELINES_BLOCK, PIPELINED_REQUESTS)
    log(f"opened {len(pipeliners)} pipelining connections in {time.monotonic() - started:.1f} s")
    for pipeliner in pipeliners:
        pipeliner.push()
    # While they hold their connections, a well-behaved client still gets
    # every document whole.
    served = [whole_document("pipelines", path) for path in DOCUMENTS]
    sent = hold_pipelines("pipelines", pipeliners, PIPELINES_HELD_SECONDS)
    print(f"  pipelines: {len(pipeliners)} connections from "
          f"{1 + (len(pipeliners) - 1) // PIPELINES_PER_ADDRESS} addresses pipelined "
          f"{sent} requests ({sent / max(1, len(pipeliners)):.0f} each taken by the service's side) "
          f"for {', '.join(DOCUMENTS)}, never reading for {PIPELINES_HELD_SECONDS} s", flush=True)
    check(f"pipelines: {len(pipeliners)} connections opened", len(pipeliners) == PIPELINING_CONNECTIONS)
    check("pipelines: a client that reads gets every document whole meanwhile",
          all(status == 200 and whole for status, whole in served), str(served))
    first = answers["pipelines"]
    check("pipelines: each pipelining connection's first answer is 200 (or 503 busy)",
          set(first) <= {"200", "503 busy"} and first["200"] >= 1, str(dict(first)))


def idle_sockets(phase, count, block, per_address, first_index=0):
    """`count` connections that send nothing, `per_address` from each
    address of the block."""
    sockets = []
    for index in range(first_index, first_index + count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((block_address(block, index // per_address), 0))
            sock.settimeout(10)
            sock.connect((soak_client.HOST, soak_client.PORT))
            sockets.append(sock)
        except OSError as error:
            sock.close()
            tally(phase, f"idle socket {index}", None, repr(error))
    return sockets


def closed_by_the_service(sockets, closed):
    """Adds to the set `closed` the sockets the service has closed (end of
    stream read, or a reset); returns how many it holds."""
    for sock in sockets:
        if sock in closed:
            continue
        sock.setblocking(False)
        try:
            while True:
                chunk = sock.recv(4096)
                if not chunk:
                    closed.add(sock)
                    break
        except BlockingIOError:
            pass
        except OSError:
            closed.add(sock)
    return len(closed)


def refused_connections(reason):
    """`umpire_connections_refused_total{reason}` now."""
    prefix = f'umpire_connections_refused_total{{reason="{reason}"}} '
    for line in metrics_text().splitlines():
        if line.startswith(prefix):
            return float(line[len(prefix):])
    return 0.0


def flood_phase():
    phase = "flood"
    # One address past its cap: the next request from it is refused, a
    # request from anyone else is answered.
    refused_before = refused_connections("client")
    own = idle_sockets(phase, ONE_ADDRESS_SOCKETS, ONE_ADDRESS_BLOCK, ONE_ADDRESS_SOCKETS)
    # The service counts a connection once a worker takes it up: wait until
    # it has refused those past the cap (a moment; the idle ones are closed
    # after 5 s).
    deadline = time.monotonic() + 4
    while (refused_connections("client") - refused_before < ONE_ADDRESS_SOCKETS - CONNECTIONS_PER_CLIENT
           and time.monotonic() < deadline):
        time.sleep(0.1)
    past_cap = call(phase, "GET", "/healthz", source=block_address(ONE_ADDRESS_BLOCK, 0))
    other = call(phase, "GET", "/healthz", source=block_address(FRESH_BLOCK, 0))
    check(f"flood: one address holding {len(own)} idle connections (cap {CONNECTIONS_PER_CLIENT}) is "
          "refused 503 busy with Retry-After", past_cap is not None and past_cap.busy,
          f"{past_cap and past_cap.status} {past_cap and past_cap.code}")
    check("flood: another address is served meanwhile", other is not None and other.status == 200,
          f"{other and other.status}")
    for sock in own:
        sock.close()

    # Many addresses past the instance's cap.
    started = time.monotonic()
    flood = idle_sockets(phase, FLOOD_SOCKETS, FLOOD_BLOCK, FLOOD_PER_ADDRESS)
    opened = time.monotonic() - started
    full = call(phase, "GET", "/healthz", source=block_address(FRESH_BLOCK, 1))
    print(f"  flood: {len(own)} idle sockets from one address, then {len(flood)} from "
          f"{1 + (len(flood) - 1) // FLOOD_PER_ADDRESS} addresses in {opened:.1f} s; a new client "
          f"then: {full and full.status} {full and full.code}", flush=True)
    check(f"flood: {FLOOD_SOCKETS} idle sockets opened", len(flood) == FLOOD_SOCKETS, str(len(flood)))
    check(f"flood: past the instance's {MAX_CONNECTIONS} connections a new client is answered "
          "(200, or 503 busy with Retry-After)", full is not None and (full.status == 200 or full.busy),
          f"{full and full.status}")
    # Idle connections do not hold their slots: the service closes them.
    deadline = time.monotonic() + IDLE_CLOSED_WITHIN_SECONDS
    gone = set()
    while time.monotonic() < deadline and closed_by_the_service(flood, gone) < len(flood):
        time.sleep(1)
    closed = len(gone)
    check(f"flood: the service closed every idle socket within {IDLE_CLOSED_WITHIN_SECONDS} s",
          closed == len(flood), f"{closed} of {len(flood)} after {time.monotonic() - started:.0f} s")
    for sock in flood:
        sock.close()
    after = call(phase, "GET", "/healthz", source=block_address(FRESH_BLOCK, 2))
    check("flood: a new client is served once the flood has gone", after is not None and after.status == 200,
          f"{after and after.status}")


def pipelines_during(deadline):
    """All at once: a hundred pipelining connections at a time, each held
    a few seconds."""
    round_ = 0
    while time.monotonic() < deadline:
        pipeliners = open_pipeliners("all", 100, ALL_PIPELINES_BLOCK, PIPELINED_REQUESTS, first=100 * round_)
        hold_pipelines("all", pipeliners, min(4.0, max(0.0, deadline - time.monotonic())))
        round_ += 1


def flood_during(deadline):
    """All at once: 600 idle sockets at a time from ten addresses, each
    batch held until the service closes it."""
    while time.monotonic() < deadline:
        sockets = idle_sockets("all", 600, ALL_FLOOD_BLOCK, 60)
        until = min(deadline, time.monotonic() + 6)
        gone = set()
        while time.monotonic() < until and closed_by_the_service(sockets, gone) < len(sockets):
            time.sleep(0.5)
        for sock in sockets:
            sock.close()


PHASES = {"pipelines": pipelines_phase, "flood": flood_phase}
DURING_ALL = {"pipelines": pipelines_during, "flood": flood_during}
