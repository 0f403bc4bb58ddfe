"""What the soak's attacks share: answers tallied by phase (and every answer
the soak does not allow kept), keep-alive clients from any loopback source
address, live streams opened and held, the service process watched, and
archives simulated and imported. Used by soak.py and its attack modules.

`configure` is called once, before anything else, with the service's
address, its process id, the `umpire` binary and the service's log. Standard library only.
"""

import collections
import http.client
import json
import os
import socket
import subprocess
import threading
import time
import urllib.parse

HOST = None
PORT = None
PID = None
UMPIRE_BIN = None
LOG = None

lock = threading.Lock()
# phase -> "status" or "status code" -> count
answers = collections.defaultdict(collections.Counter)
# Every 5xx that is not a 503 `busy` with Retry-After, and every request that
# got no answer at all, with what was seen.
bad_answers = []


def configure(base, pid, umpire_bin, log_path):
    """Where the service is, which process it is, which binary simulates
    and where the service logs."""
    global HOST, PORT, PID, UMPIRE_BIN, LOG
    HOST = urllib.parse.urlparse(base).hostname
    PORT = urllib.parse.urlparse(base).port
    PID = pid
    UMPIRE_BIN = umpire_bin
    LOG = log_path

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


def block_address(block, index):
    """The index-th source address of a block of 250 (127.0.BLOCK.1 on):
    each attack its own block, so that no two count against one client's
    caps."""
    return f"127.0.{block + index // 250}.{1 + index % 250}"


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


def cpu_seconds():
    """The service's user and system CPU so far (/proc/PID/stat fields 14, 15)."""
    with open(f"/proc/{PID}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metrics_text(client=None):
    """/metrics, on `client`'s connection or a new one ("" when refused)."""
    answer = client.call("metrics", "GET", "/metrics") if client else call("metrics", "GET", "/metrics")
    return answer.data.decode(errors="replace") if answer and answer.status == 200 else ""


def memory_series(text):
    return [line for line in text.splitlines()
            if line.startswith(("umpire_memory_", "umpire_streams_refused_total"))]


def charged_bytes(text):
    """`umpire_memory_charged_bytes` by charge, in bytes."""
    prefix = 'umpire_memory_charged_bytes{charge="'
    charged = {}
    for line in text.splitlines():
        if line.startswith(prefix):
            label, _, value = line[len(prefix):].partition('"} ')
            charged[label] = float(value)
    return charged


def charged_summary(charged):
    """Charges (from `charged_bytes`) in MiB, on one line."""
    return ", ".join(f"{label} {value / 2**20:.1f}" for label, value in charged.items()) + \
        f"; in all {sum(charged.values()) / 2**20:.1f}"


class Watch:
    """Watches the service throughout the soak, each reading filed under the
    phase running: /healthz four times a second (a failure is an answer the
    soak does not allow, or none within 10 s), and /metrics every second
    for the peak of what is charged to the memory budget. Each on a
    keep-alive connection of its own, as a load balancer's health check
    holds one, so that it stays admitted while floods fill the caps."""

    def __init__(self):
        self.phase = "start"
        self.polls = collections.Counter()
        self.worst = collections.defaultdict(float)
        self.peak_charged = {}
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.health, daemon=True),
                        threading.Thread(target=self.charges, daemon=True)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)

    def health(self):
        client = Client("127.0.0.250", timeout=10)
        while not self.stop.is_set():
            phase = self.phase
            started = time.monotonic()
            answer = client.call("healthz", "GET", "/healthz")
            seconds = time.monotonic() - started
            with lock:
                self.polls[phase] += 1
                self.worst[phase] = max(self.worst[phase], seconds)
                if answer is not None and answer.status != 200 and not answer.busy:
                    bad_answers.append(f"[healthz during {phase}] {answer.status} {answer.data[:200]!r}")
            self.stop.wait(max(0.0, 0.25 - seconds))
        client.close()

    def charges(self):
        client = Client("127.0.0.251", timeout=10)
        while not self.stop.is_set():
            phase = self.phase
            charged = charged_bytes(metrics_text(client))
            with lock:
                if sum(charged.values()) > sum(self.peak_charged.get(phase, {}).values()):
                    self.peak_charged[phase] = charged
            self.stop.wait(1.0)
        client.close()

    def report(self, phase):
        """This phase's line: /healthz's worst latency, the peak charged."""
        return (f"/healthz {self.polls[phase]} polls, worst {self.worst[phase] * 1000:.0f} ms; "
                f"peak charged (MiB) {charged_summary(self.peak_charged.get(phase, {}))}")


# --- Archives ---------------------------------------------------------------


def simulate(game, count, seed, max_actions=None):
    command = [UMPIRE_BIN, "simulate", "--game", game, "--count", str(count), "--seed", str(seed)]
    if max_actions is not None:
        command += ["--max-actions", str(max_actions)]
    output = subprocess.run(command, check=True, capture_output=True).stdout
    return [line for line in output.split(b"\n") if line.strip()]




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
