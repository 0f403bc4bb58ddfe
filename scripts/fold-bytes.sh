#!/usr/bin/env bash
# What the fold cache charges the memory budget against what it costs the
# process: N simulated games of GAME (default 300 Flower Fields) imported, the
# service restarted, then each game's state read once; prints the charged
# `folds` bytes beside the growth of the service's RSS (docs/benchmarks.md,
# "The memory budget").
#
# With the default budget (8GiB) nothing is evicted: the charge is the whole
# cache. With a budget the games do not fit in (BUDGET=256MiB N=3000), the
# cache evicts as it fills, as in the soak; the figures are then taken at
# rest (RSS settled once the reads are done) and set beside every charge.
#
# LOGS=long reads logs at the cap of events instead (10,000 events each:
# an Arboretum game lengthened by the umpire's reissues,
# scripts/abuse/long_log.py), whose folds keep a state every 256 events.
#
# Usage: scripts/fold-bytes.sh   (N=1000 for more; BUDGET=256MiB to evict;
#        GAME=arboretum; LOGS=long N=20 for long logs)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
N="${N:-300}"
BUDGET="${BUDGET:-8GiB}"
binary="$(umpire_binary "${UMPIRE_PROFILE:-release}")"
make_work_dir
trap 'stop_server; cleanup_work_dir' EXIT
if [[ "${LOGS:-}" == long ]]; then
    "$binary" simulate --game arboretum --count 1 --seed 5 --max-actions 12 \
        | python3 "$REPO_ROOT/scripts/abuse/long_log.py" 10000 "$N" >"$WORK_DIR/games.jsonl"
    split -l 1 "$WORK_DIR/games.jsonl" "$WORK_DIR/part."
else
    "$binary" simulate --game "${GAME:-flower_fields}" --count "$N" --seed 5 --out "$WORK_DIR/games.jsonl" >/dev/null
    split -l 20 "$WORK_DIR/games.jsonl" "$WORK_DIR/part."
fi
start_server "$binary" "$WORK_DIR/data" --memory-budget 8GiB
for part in "$WORK_DIR"/part.*; do
    curl -sf -o /dev/null -H 'content-type: application/x-ndjson' \
        --data-binary @"$part" "$BASE_URL/v1/games/import"
done
# Restarted, so that the imports' memory is not counted.
stop_server
unset SERVER_PORT
start_server "$binary" "$WORK_DIR/data" --memory-budget "$BUDGET"
python3 -c 'import json,sys; [print(json.loads(l)["game_id"]) for l in open(sys.argv[1])]' \
    "$WORK_DIR/games.jsonl" >"$WORK_DIR/ids"
curl -sf -o /dev/null "$BASE_URL/v1/games/$(head -n 1 "$WORK_DIR/ids")/state"
python3 - "$BASE_URL" "$SERVER_PID" "$WORK_DIR/ids" "$WORK_DIR/games.jsonl" "$BUDGET" <<'PY'
import http.client, json, sys, time, urllib.parse

base, pid, ids_file, games_file, budget = sys.argv[1:6]
url = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)

def get(path):
    # Waiting for RSS to settle may outlast the server's keep-alive: a
    # connection it closed meanwhile is opened again.
    try:
        connection.request("GET", path)
        response = connection.getresponse()
    except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
        connection.close()
        connection.request("GET", path)
        response = connection.getresponse()
    return response.status, response.read()

def rss():
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))

def settled():
    """RSS once it stopped moving (under 0.5 MiB over 3 s, at most 30 s)."""
    readings = [rss()]
    for _ in range(30):
        time.sleep(1)
        readings.append(rss())
        if len(readings) >= 4 and max(readings[-4:]) - min(readings[-4:]) < 2**19:
            break
    return readings[-1]

def charged():
    prefix = 'umpire_memory_charged_bytes{charge="'
    text = get("/metrics")[1].decode()
    return {line[len(prefix):].split('"')[0]: float(line.split()[-1])
            for line in text.splitlines() if line.startswith(prefix)}

ids = open(ids_file).read().split()
events = sum(len(json.loads(line)["events"]) for line in open(games_file))
before_rss, before = settled(), charged()
for game_id in ids:
    status, body = get(f"/v1/games/{game_id}/state")
    if status != 200:
        sys.exit(f"state: {status} {body[:200]!r}")
after_rss, after = settled(), charged()
growth = after_rss - before_rss
folds = after["folds"] - before["folds"]
mib = 2**20
print(f"budget {budget}: {len(ids)} games, {events} events read, each once")
print(f"RSS             {before_rss / mib:8.1f} MiB before, {after_rss / mib:8.1f} MiB at rest after")
print(f"charged in all  {sum(before.values()) / mib:8.1f} MiB before, {sum(after.values()) / mib:8.1f} MiB after "
      f"({', '.join(f'{name} {value / mib:.1f}' for name, value in after.items() if value)})")
print(f"RSS growth      {growth / mib:8.1f} MiB")
print(f"folds charged   {folds / mib:8.1f} MiB more ({after['folds'] / mib:.1f} MiB held)")
print(f"charged / growth {folds / growth:.3f}; RSS / charged in all at rest {after_rss / sum(after.values()):.3f}")
PY
