"""Archives of long logs, made from a simulated game: what the soak's long-log
attack imports and what scripts/bench-cold-reads.sh reads.

No game played by its rules comes near a log's cap (10,000 events); what
does is a log lengthened by the umpire's actions outside the rules. So a
simulated unfinished game (`umpire simulate --max-actions`) is lengthened
here by the umpire reissuing its seats' tokens, one `seat_token_reissued`
event per action, each hashed into the chain as the store would
(`domain/src/chain.rs`: SHA-256 of the RFC 8785 JSON of the link). The
import replays and re-decides every one of them, so the service holds these
logs to the same rules as any other.

The chain is hashed again from the first event, so one simulated game gives
as many distinct games as wanted (each with an id of its own). For the
values simulated logs hold (ASCII strings, integers) RFC 8785 is Python's
compact JSON with sorted keys; `lengthened` checks that it gives the hashes
the simulation wrote before it trusts it. Standard library only.

Usage as a command: long_log.py EVENTS COUNT < simulated.jsonl > long.jsonl
(COUNT games of EVENTS events each, from the first archive read).
"""

import hashlib
import json
import multiprocessing
import sys
import uuid
from datetime import datetime, timedelta, timezone

LINK_FIELDS = ("game_id", "seq", "event_type", "payload", "actor", "action", "decided_at",
               "rules_version", "recorded_at", "prev_hash")
FIRST_PREV_HASH = "0" * 64
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def link_hash(game_id, event):
    link = {field: event[field] for field in LINK_FIELDS if field != "game_id"}
    link["game_id"] = game_id
    return hashlib.sha256(canonical(link)).hexdigest()


def lengthened(line, events, game_id=None):
    """The archive `line` (an unfinished game) with the umpire's reissues
    appended until its log holds `events` events, under `game_id` (a new
    one unless given), its whole chain hashed again: JSON Lines bytes."""
    archive = json.loads(line)
    original = archive["events"]
    for event in original:
        if link_hash(archive["game_id"], event) != event["hash"]:
            raise ValueError(f"event {event['seq']}: this encoding does not give the archive's hash")
    if len(original) > events:
        raise ValueError(f"the archive already holds {len(original)} events")
    seats = sorted({event["actor"][len("seat:"):] for event in original if event["actor"].startswith("seat:")})
    if not seats:
        raise ValueError("the archive has no seat's event to take a seat's name from")
    game_id = game_id or str(uuid.uuid4())
    last = datetime.strptime(original[-1]["recorded_at"], TIME_FORMAT).replace(tzinfo=timezone.utc)
    log = [dict(event) for event in original]
    for seq in range(len(log) + 1, events + 1):
        seat = seats[seq % len(seats)]
        # One millisecond apart, as the simulation spaces its own events.
        last += timedelta(milliseconds=1)
        log.append({
            "seq": seq,
            "event_type": "seat_token_reissued",
            "payload": {"type": "seat_token_reissued", "seat": seat},
            "actor": "umpire",
            "action": {"type": "reissue_seat_token", "seat": seat},
            "decided_at": seq - 1,
            "rules_version": archive["rules_version"],
            "recorded_at": last.strftime(TIME_FORMAT),
        })
    prev_hash = FIRST_PREV_HASH
    for event in log:
        event["prev_hash"] = prev_hash
        event["hash"] = prev_hash = link_hash(game_id, event)
    archive["game_id"] = game_id
    archive["events"] = log
    archive["rejections"] = []
    return json.dumps(archive, separators=(",", ":")).encode()


def _lengthened_first(arguments):
    line, events = arguments
    return lengthened(line, events)


if __name__ == "__main__":
    wanted_events, count = int(sys.argv[1]), int(sys.argv[2])
    first = next(line for line in sys.stdin.buffer if line.strip())
    with multiprocessing.Pool() as pool:
        for archive in pool.imap(_lengthened_first, [(first, wanted_events)] * count):
            sys.stdout.buffer.write(archive + b"\n")
