//! Prometheus metrics served at `/metrics`: request counts and latency
//! histograms per endpoint (from actix-web-prom), plus what the service
//! counts (`umpire_service::Metrics`).

use actix_web_prom::{PrometheusMetrics, PrometheusMetricsBuilder};
use umpire_service::Metrics;

/// The actix-web-prom middleware, with the service's metrics in its registry.
pub fn middleware(metrics: &Metrics) -> PrometheusMetrics {
    let prometheus = PrometheusMetricsBuilder::new("umpire")
        .endpoint("/metrics")
        .mask_unmatched_patterns("UNKNOWN")
        .build()
        .expect("metrics middleware");
    for collector in metrics.collectors() {
        // Registering twice (a second server in one process) is harmless.
        let _ = prometheus.registry.register(collector);
    }
    prometheus
}
