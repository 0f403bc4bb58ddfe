#!/usr/bin/env python3
"""Adds N distinct refusals to one archive read from JSON Lines.

usage: refusals.py ARCHIVES.jsonl N OUT.json

Picks the first archive with room for N distinct (version, seat, action)
triples and appends that many rejections: a seat seen acting in the log, a
version within the log, an action seen in some game of the same kind (its log
or its rejections), the code and message of a rejection the game already has,
and a parseable time. These are refusals of the kind an import accepts; today's
rules may judge some of them differently (the audit then lists them as
disputed), which costs the audit the same work.
Exits 1 when no archive has room.
"""
import itertools
import json
import sys


def main():
    path, wanted, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path) as lines:
        archives = [json.loads(line) for line in lines]
    pools = {}
    for archive in archives:
        actions, seen = pools.setdefault(archive["game"], ([], set()))
        for action in itertools.chain(
            (e["action"] for e in archive["events"]),
            (r["action"] for r in archive["rejections"]),
        ):
            key = json.dumps(action, sort_keys=True)
            if action is not None and key not in seen:
                seen.add(key)
                actions.append(action)
    for archive in archives:
        if not archive.get("rejections"):
            continue
        seats = sorted({e["actor"] for e in archive["events"] if e["actor"].startswith("seat:")})
        actions = pools[archive["game"]][0]
        versions = len(archive["events"]) + 1
        if versions * len(seats) * len(actions) < wanted:
            continue
        model = archive["rejections"][0]
        triples = itertools.product(range(versions), seats, actions)
        for at_version, seat, action in itertools.islice(triples, wanted):
            archive["rejections"].append({
                "at_version": at_version,
                "actor": seat,
                "action": action,
                "code": model["code"],
                "message": model["message"],
                "rule": model.get("rule"),
                "rules_version": model["rules_version"],
                "recorded_at": model["recorded_at"],
            })
        with open(out, "w") as target:
            json.dump(archive, target, separators=(",", ":"))
        print(f'{archive["game"]} {archive["game_id"]}: {len(archive["events"])} events, '
              f'{len(archive["rejections"])} rejections', file=sys.stderr)
        return 0
    print(f"no archive has room for {wanted} distinct refusals", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
