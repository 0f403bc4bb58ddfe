#!/usr/bin/env python3
"""Checks, after scripts/faults.sh, that the service kept its promises.

    verify.py BASE_URL DRIVER_JSON [--report OUT_JSON]

For every game the fault driver played, with the umpire token:
  * the event log's seq runs 1..N without a gap;
  * the hash chain links: the first prev_hash is the genesis hash and every
    other prev_hash is the previous event's hash;
  * every hash recomputes client-side: SHA-256 over the RFC 8785 canonical
    JSON of the chain link (domain/src/chain.rs). The envelope does not carry
    `decided_at`, so it is inferred: an event either continues the previous
    event's append (same decided_at) or starts a new one (decided_at = seq-1);
    exactly one of the two must give the stored hash;
  * every acknowledged (201) action appears exactly once, in order: the
    acknowledged versions increase, the events between one acknowledged
    version and the next were all caused by that action and that actor, and
    the log ends at the last acknowledged version (nothing unacknowledged or
    duplicated after it, unless the driver gave up on an action whose outcome
    it could not learn, which is reported).
and, for up to REPLAY_GAMES games, that submitting the last acknowledged
action again with its Idempotency-Key returns the original result (201,
Idempotent-Replayed: true, the same version) and appends nothing.
Exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from umpire_http import Api  # noqa: E402

GENESIS_HASH = "0" * 64
REPLAY_GAMES = 20


def canonical(value) -> bytes:
    """RFC 8785 for the values the chain holds (strings, integers, objects,
    arrays, booleans, null): sorted keys, no whitespace, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def link_hash(game_id: str, event: dict, decided_at: int, prev_hash: str) -> str:
    link = {
        "game_id": game_id,
        "seq": event["seq"],
        "event_type": event["type"],
        "payload": event["payload"],
        "actor": event["actor"],
        "action": event.get("action"),
        "decided_at": decided_at,
        "rules_version": event["rules_version"],
        "recorded_at": event["recorded_at"],
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical(link)).hexdigest()


def verify_chain(game_id: str, events: list[dict]) -> list[str]:
    problems = []
    decided_at = 0
    previous_hash = GENESIS_HASH
    for index, event in enumerate(events):
        seq = event["seq"]
        if seq != index + 1:
            problems.append(f"seq {seq} at position {index + 1}: the log has a gap or a repeat")
            break
        if "hash" not in event or "prev_hash" not in event:
            problems.append(f"seq {seq}: no hash/prev_hash for the umpire")
            break
        if event["prev_hash"] != previous_hash:
            problems.append(f"seq {seq}: prev_hash {event['prev_hash'][:12]}… is not the previous hash {previous_hash[:12]}…")
        candidates = [decided_at] if seq == 1 else [decided_at, seq - 1]
        matches = [c for c in dict.fromkeys(candidates) if link_hash(game_id, event, c, event["prev_hash"]) == event["hash"]]
        if not matches:
            problems.append(f"seq {seq}: hash does not recompute (decided_at tried {candidates})")
        else:
            decided_at = matches[-1] if len(matches) == 1 else decided_at
        previous_hash = event["hash"]
    return problems


def verify_acknowledged(record: dict, events: list[dict]) -> list[str]:
    problems = []
    previous_version = record["setup_version"]
    by_seq = {event["seq"]: event for event in events}
    for ack in record["acknowledged"]:
        version = ack["version"]
        if version <= previous_version:
            problems.append(f"ack {ack['key']}: version {version} does not follow {previous_version}: acknowledged twice or out of order")
            continue
        actor = "umpire" if ack["seat"] == "umpire" else f"seat:{ack['seat']}"
        for seq in range(previous_version + 1, version + 1):
            event = by_seq.get(seq)
            if event is None:
                problems.append(f"ack {ack['key']}: event {seq} is missing from the log (acknowledged action lost)")
                break
            if event.get("action") != ack["action"] or event["actor"] != actor:
                problems.append(f"ack {ack['key']}: event {seq} was caused by {event['actor']} {event.get('action')}, not the acknowledged {actor} {ack['action']}")
                break
        for seq in ack["event_seqs"]:
            if not previous_version < seq <= version:
                problems.append(f"ack {ack['key']}: returned event seq {seq} outside ({previous_version}, {version}]")
        previous_version = version
    if len(events) != previous_version:
        extra = len(events) - previous_version
        if record.get("unknown") and extra > 0:
            tail = events[previous_version]
            if tail.get("action") != record["unknown"]["action"]:
                problems.append(f"{extra} events after the last acknowledged version were not caused by the one unacknowledged action")
        else:
            problems.append(f"the log has {len(events)} events but the last acknowledged version is {previous_version}: "
                            f"{'unacknowledged or duplicated events' if extra > 0 else 'acknowledged events lost'}")
    return problems


def verify_replay(api: Api, record: dict) -> list[str]:
    """Re-sends the last acknowledged action with its key: it must be
    answered from the idempotency record, not decided again."""
    if not record["acknowledged"]:
        return []
    ack = record["acknowledged"][-1]
    token = record["umpire_token"] if ack["seat"] == "umpire" else record["seat_tokens"][ack["seat"]]
    response = api.request("POST", f"/v1/games/{record['id']}/actions", {"action": ack["action"]},
                           token=token, idempotency_key=ack["key"])
    problems = []
    if response.status != 201 or response.headers.get("idempotent-replayed") != "true":
        problems.append(f"replaying key {ack['key']}: {response.status} {response.headers.get('idempotent-replayed')} {response.body}")
    elif response.body["version"] != ack["version"]:
        problems.append(f"replaying key {ack['key']}: version {response.body['version']}, originally {ack['version']}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("driver_json")
    parser.add_argument("--report")
    args = parser.parse_args()
    with open(args.driver_json) as handle:
        driven = json.load(handle)
    api = Api(args.base_url)
    failures: dict[str, list[str]] = {}
    totals = {"games": 0, "events": 0, "acknowledged": 0, "unknown": 0, "hashes_recomputed": 0, "replays_checked": 0}
    for index, record in enumerate(driven["games"]):
        replay_problems = []
        if index < REPLAY_GAMES and record["acknowledged"]:
            replay_problems = verify_replay(api, record)
            totals["replays_checked"] += 1
        events = api.all_events(record["id"], record["umpire_token"])
        problems = replay_problems + verify_chain(record["id"], events) + verify_acknowledged(record, events)
        totals["games"] += 1
        totals["events"] += len(events)
        totals["acknowledged"] += len(record["acknowledged"])
        totals["unknown"] += 1 if record.get("unknown") else 0
        if not any("recompute" in p for p in problems):
            totals["hashes_recomputed"] += len(events)
        if problems:
            failures[record["id"]] = problems
    report = {"totals": totals, "failures": failures}
    if args.report:
        with open(args.report, "w") as handle:
            json.dump(report, handle, indent=1)
    print(f"verify: {totals}", file=sys.stderr)
    for game_id, problems in list(failures.items())[:10]:
        for problem in problems[:5]:
            print(f"verify: FAIL game {game_id}: {problem}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
