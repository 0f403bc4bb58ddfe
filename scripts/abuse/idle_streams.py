#!/usr/bin/env python3
"""What idle live streams cost: the measurement run by
scripts/idle-streams.sh.

Usage: idle_streams.py import BASE_URL UMPIRE_BIN STREAMS GAMES_FILE
       idle_streams.py measure BASE_URL SERVER_PID GAMES_FILE

`import`: STREAMS long unfinished Flower Fields games (stopped after 56
actions: about 265 events each) are imported, their ids and versions written
to GAMES_FILE. The service is then restarted, so that what the imports
allocated is not part of the measurement. `measure`: each game is read once
(the fold cache holds what it may of them); then one anonymous
spectator stream is opened at the head of each, spread over 127.0.X.Y source
addresses (10 each, under the per-client cap), and left idle. Prints the
service's RSS before the streams, once they are open, after 35 s idle and
after they are closed; RSS per idle stream; the service's CPU over 60 s idle
with every stream open (utime + stime from /proc/PID/stat); and the memory
series of /metrics at each step. Exits 1 if a stream could not be opened or
was cut, or if a target of the issue is missed: under 64 KiB of RSS per idle
stream, under 5 % of a core for the idle streams. Standard library only.
"""

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse

from reporting import check, failures, log

MODE, BASE = sys.argv[1:3]
HOST = urllib.parse.urlparse(BASE).hostname
PORT = urllib.parse.urlparse(BASE).port
STREAMS_PER_ADDRESS = 10
IDLE_SECONDS_FOR_RSS = 35
IDLE_SECONDS_FOR_CPU = 60
TARGET_BYTES_PER_STREAM = 64 * 1024
TARGET_CORE_FRACTION = 0.05



def request(method, path, body=None, content_type=None, timeout=300):
    connection = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    headers = {"Content-Type": content_type} if content_type else {}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def rss_mib():
    with open(f"/proc/{PID}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds():
    """The service's user and system CPU so far (/proc/PID/stat fields 14, 15)."""
    with open(f"/proc/{PID}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_series():
    status, data = request("GET", "/metrics")
    return [line for line in data.decode().splitlines()
            if line.startswith(("umpire_memory_charged_bytes", "umpire_streams_refused_total"))]


def settled_rss(most_seconds=30):
    """RSS once it stopped moving (under 0.5 MiB over 3 s): what an import
    freed may take a moment to leave the process."""
    deadline = time.monotonic() + most_seconds
    readings = [rss_mib()]
    while time.monotonic() < deadline:
        time.sleep(1)
        readings.append(rss_mib())
        if len(readings) >= 4 and max(readings[-4:]) - min(readings[-4:]) < 0.5:
            break
    return readings[-1]


def streams_charged():
    for line in memory_series():
        if line.startswith('umpire_memory_charged_bytes{charge="streams"}'):
            return float(line.split()[-1])
    return None


def report(step):
    rss = rss_mib()
    print(f"  {step}: RSS {rss:.1f} MiB", flush=True)
    for line in memory_series():
        print(f"    {line}", flush=True)
    return rss


def import_games(count, games_file):
    started = time.monotonic()
    output = subprocess.run([UMPIRE_BIN, "simulate", "--game", "flower_fields", "--count", str(count),
                             "--seed", "30", "--max-actions", "56"], check=True, capture_output=True).stdout
    lines = [line for line in output.split(b"\n") if line.strip()]
    events = sum(len(json.loads(line)["events"]) for line in lines)
    log(f"simulated {len(lines)} unfinished Flower Fields games, {events / len(lines):.0f} events each "
        f"on average, in {time.monotonic() - started:.1f} s")
    games = []
    while lines:
        batch, size = [], 0
        while lines and size + len(lines[0]) < 16_000_000:
            size += len(lines[0]) + 1
            batch.append(lines.pop(0))
        status, data = request("POST", "/v1/games/import", b"\n".join(batch) + b"\n", "application/x-ndjson")
        if status != 200:
            raise RuntimeError(f"import: {status} {data[:300]!r}")
        for row in data.split(b"\n"):
            if row.strip() and json.loads(row).get("imported"):
                games.append(json.loads(row)["imported"])
    log(f"imported {len(games)} games")
    if len(games) != count:
        raise RuntimeError(f"{len(games)} of {count} games imported")
    with open(games_file, "w") as out:
        json.dump([{"id": game["id"], "version": game["version"]} for game in games], out)


def read_games(games_file):
    with open(games_file) as games:
        games = json.load(games)
    for game in games:
        status, data = request("GET", f"/v1/games/{game['id']}/state")
        if status != 200:
            raise RuntimeError(f"state: {status} {data[:300]!r}")
    log(f"read each of {len(games)} games once")
    return games


def open_stream(game, index):
    source = f"127.0.{1 + index // 250}.{1 + index % 250}"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.bind((source, 0))
    sock.connect((HOST, PORT))
    sock.sendall(f"GET /v1/games/{game['id']}/stream?after={game['version']} HTTP/1.1\r\n"
                 f"Host: idle\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError(f"stream {index}: closed before its head")
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"stream {index} from {source}: {head[:300]!r}")
    return sock


def drain(sockets):
    """Reads what each stream sent so far: (heartbeats seen, streams cut)."""
    heartbeats, cut = 0, 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    cut += 1
                    break
                heartbeats += chunk.count(b": heartbeat")
        except BlockingIOError:
            pass
    return heartbeats, cut


def measure(games_file):
    games = read_games(games_file)
    settled_rss()
    before = report("before the streams")
    sockets = []
    for index, game in enumerate(games):
        sockets.append(open_stream(game, index // STREAMS_PER_ADDRESS))
    log(f"opened {len(sockets)} streams from {1 + (len(sockets) - 1) // STREAMS_PER_ADDRESS} addresses")
    time.sleep(2)
    opened = report(f"{len(sockets)} streams open")
    cpu_started, clock_started = cpu_seconds(), time.monotonic()
    time.sleep(IDLE_SECONDS_FOR_RSS)
    idle = report(f"after {IDLE_SECONDS_FOR_RSS} s idle")
    time.sleep(max(0.0, IDLE_SECONDS_FOR_CPU - (time.monotonic() - clock_started)))
    cpu = (cpu_seconds() - cpu_started) / (time.monotonic() - clock_started)
    heartbeats, cut = drain(sockets)
    for sock in sockets:
        sock.close()
    # The service notices a closed stream when it next writes to it: at the
    # latest its next heartbeat.
    closed_at = time.monotonic()
    while streams_charged() and time.monotonic() < closed_at + 40:
        time.sleep(1)
    print(f"  the streams' charge was given back {time.monotonic() - closed_at:.0f} s after closing",
          flush=True)
    settled_rss(10)
    closed = report("after closing them")

    per_stream_open = (opened - before) * 2**20 / len(sockets)
    per_stream_idle = (idle - before) * 2**20 / len(sockets)
    print(f"  RSS per stream: {per_stream_open / 1024:.1f} KiB once open, "
          f"{per_stream_idle / 1024:.1f} KiB after {IDLE_SECONDS_FOR_RSS} s idle; "
          f"{closed - before:+.1f} MiB after closing against before", flush=True)
    print(f"  CPU with {len(sockets)} idle streams: {cpu * 100:.2f} % of a core over "
          f"{IDLE_SECONDS_FOR_CPU} s; {heartbeats} heartbeats received", flush=True)
    check("no stream was cut", cut == 0, f"{cut} cut")
    check("the streams' charge is given back once they are closed", streams_charged() == 0)
    check("every stream got heartbeats", heartbeats >= len(sockets), f"{heartbeats} heartbeats")
    check(f"under {TARGET_BYTES_PER_STREAM // 1024} KiB of RSS per idle stream",
          max(per_stream_open, per_stream_idle) < TARGET_BYTES_PER_STREAM)
    check(f"under {TARGET_CORE_FRACTION:.0%} of a core for {len(sockets)} idle streams",
          cpu < TARGET_CORE_FRACTION)


if MODE == "import":
    UMPIRE_BIN, COUNT, GAMES_FILE = sys.argv[3:6]
    import_games(int(COUNT), GAMES_FILE)
else:
    PID, GAMES_FILE = int(sys.argv[3]), sys.argv[4]
    measure(GAMES_FILE)
sys.exit(1 if failures else 0)
