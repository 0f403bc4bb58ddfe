-- wrk script for plain GET runs: prints one machine-readable RESULT line.
function done(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d non_2xx=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%.0f errors_connect=%d errors_timeout=%d\n",
    summary.requests, summary.errors.status, summary.duration,
    latency:percentile(50), latency:percentile(99), latency.mean,
    summary.errors.connect, summary.errors.timeout))
end
