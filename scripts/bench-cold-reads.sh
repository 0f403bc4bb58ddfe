#!/usr/bin/env bash
# What a cold `GET /v1/games/{id}/state?at=V` costs the service on a log at
# the cap of events per game (10,000): the service's CPU per read (utime +
# stime of the server's process, /proc/PID/stat) and the wall clock beside
# it, at several versions across the log.
#
# The logs: a simulated Arboretum game stopped after 12 actions, lengthened
# to EVENTS events by the umpire's reissues (scripts/abuse/long_log.py; no
# game played by its rules comes near the cap), one distinct game per read,
# all imported first. Cold means the game is in no cache: each read is of a
# game not read before, one read at a time. Warm reads (the same versions of
# games already read) are measured beside them. /proc's CPU times are in
# ticks of 10 ms, so each figure is the mean over READS reads.
#
# Usage: scripts/bench-cold-reads.sh   (EVENTS=10000 READS=20 VERSIONS="1 2500 5000 7500 10000"
#        UMPIRE_BIN=path, or UMPIRE_PROFILE=release, the default; extra arguments go to `umpire serve`)
# Results: printed, and target/bench-cold-reads/results.txt.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

EVENTS="${EVENTS:-10000}"
READS="${READS:-20}"
VERSIONS="${VERSIONS:-1 2500 5000 7500 10000}"
OUT="${BENCH_RESULTS_DIR:-$REPO_ROOT/target/bench-cold-reads}"
mkdir -p "$OUT"
binary="$(umpire_binary "${UMPIRE_PROFILE:-release}")"
make_work_dir
trap 'cleanup_keeping_log "$OUT"' EXIT

versions=($VERSIONS)
games=$((READS * ${#versions[@]}))
log "making $games logs of $EVENTS events"
"$binary" simulate --game arboretum --count 1 --seed 45 --max-actions 12 \
    | python3 "$REPO_ROOT/scripts/abuse/long_log.py" "$EVENTS" "$games" >"$WORK_DIR/long.jsonl"
start_server "$binary" "$WORK_DIR/data" "$@"
python3 - "$BASE_URL" "$SERVER_PID" "$WORK_DIR/long.jsonl" "$READS" "$EVENTS" "${versions[@]}" <<'PY' | tee "$OUT/results.txt"
import http.client, json, os, sys, time, urllib.parse

base, pid, archives, reads, events = sys.argv[1:6]
pid, reads, events = int(pid), int(reads), int(events)
versions = [int(v) for v in sys.argv[6:]]
url = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=300)

def request(method, path, body=None):
    headers = {"Content-Type": "application/json"} if body else {}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()

def cpu():
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

ids = []
started = time.monotonic()
with open(archives, "rb") as lines:
    for line in lines:
        status, body = request("POST", "/v1/games/import", line)
        if status != 201:
            sys.exit(f"import: {status} {body[:300]!r}")
        ids.append(json.loads(body)["id"])
print(f"imported {len(ids)} logs of {events} events in {time.monotonic() - started:.1f} s", flush=True)

def measure(plan):
    """Service CPU and wall clock per read, in ms, over the plan's reads."""
    time.sleep(1)
    cpu_before, wall = cpu(), 0.0
    for game_id, version in plan:
        started = time.monotonic()
        status, body = request("GET", f"/v1/games/{game_id}/state?at={version}")
        wall += time.monotonic() - started
        if status != 200:
            sys.exit(f"state?at={version}: {status} {body[:300]!r}")
    return (cpu() - cpu_before) * 1000 / len(plan), wall * 1000 / len(plan)

idle_before = cpu()
time.sleep(2)
idle = (cpu() - idle_before) * 1000 / 2
print(f"service CPU while idle: {idle:.1f} ms a second")
print(f"{'version':>8} {'cold CPU ms':>12} {'cold wall ms':>13} {'warm CPU ms':>12} {'warm wall ms':>13}")
for index, version in enumerate(versions):
    games = ids[index * reads:(index + 1) * reads]
    cold_cpu, cold_wall = measure([(game_id, version) for game_id in games])
    warm_cpu, warm_wall = measure([(game_id, version) for game_id in games])
    print(f"{version:>8} {cold_cpu:>12.1f} {cold_wall:>13.1f} {warm_cpu:>12.1f} {warm_wall:>13.1f}", flush=True)
PY
