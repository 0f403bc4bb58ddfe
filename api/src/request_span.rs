//! The span every request's log lines belong to.
//!
//! tracing-actix-web's default root span carries fifteen OpenTelemetry
//! fields (host, scheme, client address, user agent, target, ...), and the
//! fmt subscriber formats all of them into a string for every request, logged
//! or not: about 8 % of the service's CPU per action under load. This span
//! keeps what a person reading the log needs to follow one request: the
//! request id (on every line logged inside the request), the method, the
//! route template (never the path itself, which holds game ids) and, at the
//! end, the status and the error's message.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        // TracingLogger stores the id before calling this; recorded as it is,
        // without formatting it into a string of its own first.
        let request_id = request.extensions().get::<RequestId>().copied();
        tracing::info_span!(
            "request",
            request_id = request_id.map(tracing::field::display),
            method = %request.method(),
            route = request.match_pattern().as_deref().unwrap_or("default"),
            status = tracing::field::Empty,
            error = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        match outcome {
            Ok(response) => {
                span.record("status", response.status().as_u16());
                if let Some(error) = response.response().error() {
                    span.record("error", tracing::field::display(error));
                }
            }
            Err(error) => {
                span.record("status", error.as_response_error().status_code().as_u16());
                span.record("error", tracing::field::display(error));
            }
        }
    }
}
