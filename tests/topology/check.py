"""Checks, after tests/topology/clients.py, the streams and the audits.

    PYTHONPATH=openapi/clients/python/generated:openapi/clients/python \
        python check.py BASE_URL CLIENTS_JSON [--expect-resumed]

For every game the clients played, through BASE_URL (nginx):
  * its stream, as its follower received it, holds every version from 1 to
    the game's last exactly once and in order, and ended `finished` after
    the last (a stream that lost a version or got one twice across a
    resumption fails here);
  * its audit (get_game_audit with the umpire's token, the generated
    client) re-decides every action validly and its hash chain is intact
    over every event.
With --expect-resumed, at least one stream must have been resumed with
Last-Event-ID (the run restarted an instance that held open streams; a
run in which none resumed did not test resumption).
Exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from umpire_client import AuthenticatedClient
from umpire_client.api.archives import get_game_audit


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("clients_json")
    parser.add_argument("--expect-resumed", action="store_true")
    args = parser.parse_args()
    with open(args.clients_json) as handle:
        run = json.load(handle)
    failures: list[str] = []
    streams: dict[str, dict[str, Any]] = {s["game_id"]: s for s in run["streams"]}
    totals = {"games": 0, "streams": 0, "stream_versions": 0, "connections": 0, "resumed": 0,
              "resumed_streams": 0, "audited_events": 0}
    for game in run["games"]:
        totals["games"] += 1
        umpire = AuthenticatedClient(base_url=args.base_url, token=game["umpire_token"])
        audit = get_game_audit.sync_detailed(game["id"], client=umpire)
        if audit.status_code != 200:
            failures.append(f"{game['id']}: audit answered {audit.status_code} {audit.content[:200]!r}")
            continue
        report = json.loads(audit.content)
        last = report["version"]
        if not report["valid"] or not report["chain"]["intact"] or report["chain"]["events"] != last:
            failures.append(f"{game['id']}: audit valid={report['valid']} chain={report['chain']}")
        totals["audited_events"] += last
        stream = streams.get(game["id"])
        if stream is None:
            failures.append(f"{game['id']}: no stream record")
            continue
        totals["streams"] += 1
        totals["stream_versions"] += len(stream["versions"])
        totals["connections"] += stream["connections"]
        totals["resumed"] += stream["resumed"]
        totals["resumed_streams"] += 1 if stream["resumed"] else 0
        if stream["error"]:
            failures.append(f"{game['id']}: the stream failed: {stream['error']}")
        if stream["versions"] != list(range(1, last + 1)):
            seen = stream["versions"]
            repeated = len(seen) - len(set(seen))
            missing = sorted(set(range(1, last + 1)) - set(seen))
            failures.append(f"{game['id']}: the stream brought {len(seen)} versions for {last} events "
                            f"({repeated} repeated, missing {missing[:5]}, resumed after {stream['last_event_ids']})")
        if stream["end"] != {"reason": "finished", "after": last}:
            failures.append(f"{game['id']}: the stream ended {stream['end']}, not finished after {last}")
    if args.expect_resumed and totals["resumed"] == 0:
        failures.append("no stream was resumed with Last-Event-ID: the restarts cut none")
    print(f"check: {totals}", file=sys.stderr)
    for failure in failures[:10]:
        print(f"check: FAIL {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
