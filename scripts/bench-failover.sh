#!/usr/bin/env bash
# Failover figures of the HA deployment (docs/deployment.md, "High
# availability"): scripts/failover-test.sh with FAILOVER_KILLS primaries
# SIGKILLed (6), FAILOVER_POSTMASTER_KILLS postmasters SIGKILLed alone (3),
# then the clients' throughput with synchronous against asynchronous
# replication, FAILOVER_THROUGHPUT_SECONDS (30) each, alternately
# FAILOVER_THROUGHPUT_ROUNDS (2) times. Every check of the test holds here
# too. Prints the figures (lines starting `figure`), kept with the rest in
# target/failover/summary.txt.
#
#   scripts/measure bench failover     (UMPIRE_PROFILE=release by default here)
set -euo pipefail
export UMPIRE_PROFILE="${UMPIRE_PROFILE:-release}"
export FAILOVER_KILLS="${FAILOVER_KILLS:-6}"
export FAILOVER_POSTMASTER_KILLS="${FAILOVER_POSTMASTER_KILLS:-3}"
export FAILOVER_THROUGHPUT_SECONDS="${FAILOVER_THROUGHPUT_SECONDS:-30}"
export FAILOVER_THROUGHPUT_ROUNDS="${FAILOVER_THROUGHPUT_ROUNDS:-2}"
status=0
bash "$(dirname "$0")/failover-test.sh" || status=$?
out="${FAILOVER_RESULTS_DIR:-${CARGO_TARGET_DIR:-$(cd "$(dirname "$0")/.." && pwd)/target}/failover}"
printf '\nfigures (Patroni ttl %s, loop_wait %s, retry_timeout %s; load %s):\n' \
    "${UMPIRE_HA_TTL:-10}" "${UMPIRE_HA_LOOP_WAIT:-2}" "${UMPIRE_HA_RETRY_TIMEOUT:-4}" "$(cut -d' ' -f1-3 /proc/loadavg)"
grep '^figure' "$out/summary.txt" || true
exit "$status"
