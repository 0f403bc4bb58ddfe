#!/usr/bin/env bash
# Two builds' native CPU per accepted action, side by side in one run:
# scripts/cpu-per-action.sh (the service's utime + stime from /proc over a
# fixed plan of 8 x 4,000 actions at 8 clients) for each build in turn,
# alternated ROUNDS times (3), then each build's median and the ratio.
#
#   scripts/cpu-per-action-ab.sh /work/umpire-before-35 target/release/umpire
#
# Alternating spreads whatever else the machine does over both builds;
# the medians are the figures of record, every run is printed.
set -euo pipefail
here="$(dirname "$0")"
old="${1:?usage: cpu-per-action-ab.sh OLD_BINARY NEW_BINARY}"
new="${2:?usage: cpu-per-action-ab.sh OLD_BINARY NEW_BINARY}"
rounds="${ROUNDS:-3}"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
    for build in old new; do
        binary="$old"
        [[ "$build" == new ]] && binary="$new"
        line="$(UMPIRE_BIN="$binary" "$here/cpu-per-action.sh")"
        printf '%s round %d: %s\n' "$build" "$round" "$line" >&2
        micros="$(sed -E 's/.*actions, ([0-9.]+) us of service CPU per action/\1/' <<<"$line")"
        actions="$(sed -E 's/.*: ([0-9]+) actions,.*/\1/' <<<"$line")"
        printf '%s %s %s\n' "$build" "$micros" "$actions" >>"$results"
    done
done
python3 - "$results" "$old" "$new" <<'PY'
import statistics
import sys

runs = [line.split() for line in open(sys.argv[1], encoding="utf-8")]
median = {build: statistics.median(float(m) for b, m, _ in runs if b == build) for build in ("old", "new")}
for build, binary in (("old", sys.argv[2]), ("new", sys.argv[3])):
    each = ", ".join(m for b, m, _ in runs if b == build)
    actions = ", ".join(a for b, _, a in runs if b == build)
    print(f"{build} ({binary}): median {median[build]:.1f} us of service CPU per action (runs: {each}; actions: {actions})")
print(f"new / old: {median['new'] / median['old']:.2f}")
PY
