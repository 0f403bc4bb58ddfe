//! Prometheus metrics served at `/metrics`: request counts and latency
//! histograms per endpoint (from actix-web-prom), plus what the event store
//! does: appends, group-commit batch sizes, version conflicts, rejected actions and pool usage.

use actix_web_prom::{PrometheusMetrics, PrometheusMetricsBuilder};
use prometheus::{Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, Opts};

/// Counters the service layer updates.
#[derive(Clone)]
pub struct Metrics {
    pub appends: IntCounter,
    pub appended_events: IntCounter,
    pub conflicts: IntCounter,
    /// Appends per statement written by the group commit.
    pub append_batch_size: Histogram,
    /// How long each such statement took, waiting for a connection included.
    pub append_batch_seconds: Histogram,
    pub rejections: IntCounterVec,
    pub pool_size: IntGauge,
    pub pool_available: IntGauge,
    pub pool_waiting: IntGauge,
}

impl Metrics {
    /// Metrics not registered anywhere, for callers without `/metrics`.
    pub fn unregistered() -> Self {
        Metrics {
            appends: IntCounter::new(
                "umpire_appends_total",
                "Successful appends (one per accepted action)",
            )
            .expect("valid metric"),
            appended_events: IntCounter::new("umpire_appended_events_total", "Events appended")
                .expect("valid metric"),
            conflicts: IntCounter::new(
                "umpire_version_conflicts_total",
                "Appends that lost a race or met a stale expected_version",
            )
            .expect("valid metric"),
            append_batch_size: Histogram::with_opts(
                HistogramOpts::new(
                    "umpire_append_batch_size",
                    "Appends written together in one statement (group commit)",
                )
                .buckets(vec![1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, 64.0]),
            )
            .expect("valid metric"),
            append_batch_seconds: Histogram::with_opts(
                HistogramOpts::new(
                    "umpire_append_batch_seconds",
                    "Time to write one group-commit statement, connection wait included",
                )
                .buckets(prometheus::exponential_buckets(0.000_25, 2.0, 14).expect("buckets")),
            )
            .expect("valid metric"),
            rejections: IntCounterVec::new(
                Opts::new(
                    "umpire_rejected_actions_total",
                    "Actions refused, by error code",
                ),
                &["code"],
            )
            .expect("valid metric"),
            pool_size: IntGauge::new("umpire_db_pool_connections", "Connections in the pool")
                .expect("valid metric"),
            pool_available: IntGauge::new(
                "umpire_db_pool_available",
                "Idle connections in the pool",
            )
            .expect("valid metric"),
            pool_waiting: IntGauge::new(
                "umpire_db_pool_waiting",
                "Requests waiting for a connection",
            )
            .expect("valid metric"),
        }
    }

    /// The actix-web-prom middleware, with these metrics in its registry.
    pub fn middleware(&self) -> PrometheusMetrics {
        let prometheus = PrometheusMetricsBuilder::new("umpire")
            .endpoint("/metrics")
            .mask_unmatched_patterns("UNKNOWN")
            .build()
            .expect("metrics middleware");
        let registry = &prometheus.registry;
        let _ = registry.register(Box::new(self.appends.clone()));
        let _ = registry.register(Box::new(self.appended_events.clone()));
        let _ = registry.register(Box::new(self.conflicts.clone()));
        let _ = registry.register(Box::new(self.append_batch_size.clone()));
        let _ = registry.register(Box::new(self.append_batch_seconds.clone()));
        let _ = registry.register(Box::new(self.rejections.clone()));
        let _ = registry.register(Box::new(self.pool_size.clone()));
        let _ = registry.register(Box::new(self.pool_available.clone()));
        let _ = registry.register(Box::new(self.pool_waiting.clone()));
        prometheus
    }

    pub fn observe_pool(&self, pool: &umpire_storage::Pool) {
        let status = pool.status();
        self.pool_size.set(status.size as i64);
        self.pool_available.set(status.available as i64);
        self.pool_waiting.set(status.waiting as i64);
    }
}
