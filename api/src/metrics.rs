//! Prometheus metrics served at `/metrics`: request counts and latency
//! histograms per endpoint, method and status, plus what the service counts
//! (`umpire_service::Metrics`).
//!
//! Every series is kept for the life of the process, so every label value
//! comes from a set the service chooses, never from what a client sent: the
//! endpoint is the route's template (`UNKNOWN` when no route's path matches),
//! the method one of the standard nine or `OTHER`, the status one the service
//! answered. (actix-web-prom, used before, labelled by the request's method
//! as sent: 30,000 made-up methods grew the process by 1.45 GB.)
//!
//! A request's duration runs to its answer's head: a live stream's lifetime
//! or an export's transfer is not latency.

use std::sync::Arc;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::{web, Error, HttpResponse};
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, Opts, Registry};
use umpire_service::Metrics;

/// The endpoint label of a request that matched no route's path.
pub const UNMATCHED_ENDPOINT: &str = "UNKNOWN";

/// The method label (and logged method) of every method outside the standard
/// set.
pub const OTHER_METHOD: &str = "OTHER";

/// `method` as a label or a log field: itself when it is one of the methods
/// HTTP defines (RFC 9110 and PATCH), else [`OTHER_METHOD`]. A method is any
/// token a client likes, as long as the request head allows.
pub fn method_label(method: &Method) -> &str {
    match *method {
        Method::GET
        | Method::HEAD
        | Method::POST
        | Method::PUT
        | Method::DELETE
        | Method::PATCH
        | Method::OPTIONS
        | Method::CONNECT
        | Method::TRACE => method.as_str(),
        _ => OTHER_METHOD,
    }
}

/// The request metrics and the registry `/metrics` renders.
pub struct RequestMetrics {
    registry: Registry,
    requests: IntCounterVec,
    durations: HistogramVec,
    /// Connections open now (`connections.rs`).
    pub connections_open: IntGauge,
    /// Connections answered 503 and closed unread, by why.
    pub connections_refused: IntCounterVec,
}

impl RequestMetrics {
    /// Request metrics in a registry of their own, beside the service's.
    pub fn new(service_metrics: &Metrics) -> Arc<RequestMetrics> {
        const LABELS: &[&str] = &["endpoint", "method", "status"];
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new("http_requests_total", "Total number of HTTP requests").namespace("umpire"),
            LABELS,
        )
        .expect("a valid counter");
        let durations = HistogramVec::new(
            HistogramOpts::new(
                "http_requests_duration_seconds",
                "Time from a request's arrival to its answer's head, in seconds",
            )
            .namespace("umpire"),
            LABELS,
        )
        .expect("a valid histogram");
        registry
            .register(Box::new(requests.clone()))
            .expect("registered once");
        registry
            .register(Box::new(durations.clone()))
            .expect("registered once");
        let connections_open = IntGauge::new(
            "umpire_connections_open",
            "HTTP connections this instance holds open",
        )
        .expect("a valid gauge");
        let connections_refused = IntCounterVec::new(
            Opts::new(
                "umpire_connections_refused_total",
                "Connections answered 503 and closed before they were read, by why: the \
                 instance had its limit open (instance), the client its own (client), or the \
                 memory budget was spent (memory)",
            ),
            &["reason"],
        )
        .expect("a valid counter");
        registry
            .register(Box::new(connections_open.clone()))
            .expect("registered once");
        registry
            .register(Box::new(connections_refused.clone()))
            .expect("registered once");
        for collector in service_metrics.collectors() {
            // Registering twice (a second server in one process) is harmless.
            let _ = registry.register(collector);
        }
        Arc::new(RequestMetrics {
            registry,
            requests,
            durations,
            connections_open,
            connections_refused,
        })
    }

    fn observe(&self, endpoint: &str, method: &Method, status: StatusCode, started: Instant) {
        let labels = [endpoint, method_label(method), status.as_str()];
        self.durations
            .with_label_values(&labels)
            .observe(started.elapsed().as_secs_f64());
        self.requests.with_label_values(&labels).inc();
    }

    /// Counts the request `service` answers, labelled from bounded sets.
    pub fn measure<S, B>(
        self: &Arc<Self>,
        request: ServiceRequest,
        service: &S,
    ) -> impl std::future::Future<Output = Result<ServiceResponse<B>, Error>> + 'static
    where
        S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
        S::Future: 'static,
        B: MessageBody,
    {
        let started = Instant::now();
        let method = request.method().clone();
        let metrics = Arc::clone(self);
        let answer = service.call(request);
        async move {
            let outcome = answer.await;
            match &outcome {
                Ok(response) => {
                    let endpoint = response.request().match_pattern();
                    metrics.observe(
                        endpoint.as_deref().unwrap_or(UNMATCHED_ENDPOINT),
                        &method,
                        response.status(),
                        started,
                    );
                }
                // An error that no handler turned into an answer carries no
                // request to read the route from.
                Err(error) => metrics.observe(
                    UNMATCHED_ENDPOINT,
                    &method,
                    error.as_response_error().status_code(),
                    started,
                ),
            }
            outcome
        }
    }

    fn render(&self) -> Vec<u8> {
        let mut text = Vec::new();
        prometheus::TextEncoder::new()
            .encode(&self.registry.gather(), &mut text)
            .expect("metrics encode as text");
        text
    }
}

/// `GET /metrics`: every series in the text exposition format.
pub async fn serve(metrics: web::Data<RequestMetrics>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(metrics.render())
}
