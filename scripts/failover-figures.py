#!/usr/bin/env python3
"""Figures of scripts/failover-test.sh, from what its clients recorded.

    failover-figures.py switches EVENTS_TSV CLIENTS_JSON
    failover-figures.py throughput THROUGHPUT_TSV

switches: for each switch in EVENTS_TSV (kind, node, when, the leader
after, when Patroni named it), the seconds from the switch (the kill done,
or the switchover asked for) to Patroni's new leader, to the first action
accepted whose answered attempt was sent after the switch, and the longest
time without an acceptance in the minute after it (the service's outage
as the clients saw it); then p50/p99 of each kind.

throughput: for each run in THROUGHPUT_TSV (synchronous_mode, round, start,
seconds, clients json), the actions acknowledged per second within its
window and the p50/p99 of an action's answered attempt.
"""

from __future__ import annotations

import itertools
import json
import sys


def quantile(values: list[float], q: float) -> float:
    """Nearest rank: the smallest value with at least q of them at or below."""
    ordered = sorted(values)
    rank = max(1, -(-int(q * 1000) * len(ordered) // 1000))
    return ordered[min(rank, len(ordered)) - 1]


def acks(clients_json: str) -> list[dict]:
    with open(clients_json) as handle:
        games = json.load(handle)["games"]
    return [ack for game in games for ack in game["acknowledged"] if "sent_at" in ack]


def switches(events_tsv: str, clients_json: str) -> int:
    answered = acks(clients_json)
    by_kind: dict[str, list[float]] = {}
    with open(events_tsv) as handle:
        lines = handle.readlines()
    for line in lines:
        kind, node, when, leader, named = line.rstrip("\n").split("\t")
        t = float(when)
        after = [a["answered_at"] for a in answered if a["sent_at"] >= t]
        first = min(after) - t if after else float("nan")
        to_leader = float(named) - t if named else float("nan")
        # A switchover stops the primary some seconds after it is asked
        # for: the longest time without an acceptance in the minute after
        # the switch is its outage as the clients saw it.
        times = sorted([t] + [a["answered_at"] for a in answered if t <= a["answered_at"] <= t + 60])
        pause = max(b - a for a, b in itertools.pairwise(times)) if len(times) > 1 else float("nan")
        by_kind.setdefault(kind, []).append((first, pause))
        print(f"figure {kind} node {node}: leader node {leader} after {to_leader:.1f} s; "
              f"first action accepted {first:.1f} s after; longest pause in acceptances {pause:.1f} s")
    for kind, pairs in by_kind.items():
        firsts = [first for first, _ in pairs]
        pauses = [pause for _, pause in pairs]
        print(f"figure {kind}: first action accepted after p50 {quantile(firsts, 0.5):.1f} s, "
              f"p99 {quantile(firsts, 0.99):.1f} s, max {max(firsts):.1f} s; longest pause p50 "
              f"{quantile(pauses, 0.5):.1f} s, p99 {quantile(pauses, 0.99):.1f} s; over {len(pairs)}")
    return 0


def throughput(throughput_tsv: str) -> int:
    with open(throughput_tsv) as handle:
        lines = handle.readlines()
    for line in lines:
        mode, round_, start, seconds, clients_json = line.rstrip("\n").split("\t")
        t0, length = float(start), float(seconds)
        inside = [a for a in acks(clients_json) if t0 <= a["answered_at"] <= t0 + length]
        latencies = [(a["answered_at"] - a["sent_at"]) * 1000 for a in inside]
        if not latencies:
            print(f"figure throughput synchronous_mode={mode} round {round_}: nothing acknowledged")
            continue
        print(f"figure throughput synchronous_mode={mode} round {round_}: {len(inside) / length:.1f} actions/s, "
              f"action p50 {quantile(latencies, 0.5):.0f} ms, p99 {quantile(latencies, 0.99):.0f} ms "
              f"({len(inside)} actions in {length:.0f} s)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "switches":
        sys.exit(switches(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 3 and sys.argv[1] == "throughput":
        sys.exit(throughput(sys.argv[2]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
