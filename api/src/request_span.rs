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
//!
//! What a client chose is kept short: a method outside the standard set is
//! logged as `OTHER` (a method may be kilobytes long), and an error's message
//! is cut to [`LOGGED_ERROR_CHARS`]. A refused request (4xx, or a 503 the
//! service chose: busy, full, database away, each logged where it is chosen)
//! logs one line at DEBUG: it is the client's mistake or the load's, and a
//! line at WARN per request would let any client fill the operator's disk.
//! Any other 5xx logs one line at ERROR. (tracing-actix-web's own line per
//! error, a WARN for every 4xx, is turned off in the workspace manifest.)

use std::borrow::Cow;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::{web, Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

use crate::metrics::method_label;
use crate::wrong_method::KnownPaths;

/// The longest error message a log line carries, in characters.
pub const LOGGED_ERROR_CHARS: usize = 240;

pub struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        // TracingLogger stores the id before calling this; recorded as it is,
        // without formatting it into a string of its own first.
        let request_id = request.extensions().get::<RequestId>().copied();
        // Named from the service's own list of routes where one there
        // answers the request: it is not routed yet, and actix would match
        // it against its regular expressions once more, first to last. A
        // wrong method, an unknown path, or a service without the list is
        // named as actix names it.
        let route = request
            .app_data::<web::Data<KnownPaths>>()
            .and_then(|known| known.route(request.method(), request.path()))
            .map(Cow::Borrowed)
            .or_else(|| request.match_pattern().map(Cow::Owned));
        tracing::info_span!(
            "request",
            request_id = request_id.map(tracing::field::display),
            method = %method_label(request.method()),
            route = route.as_deref().unwrap_or("default"),
            status = tracing::field::Empty,
            error = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let (status, error) = match outcome {
            Ok(response) => (response.status(), response.response().error()),
            Err(error) => (error.as_response_error().status_code(), Some(error)),
        };
        span.record("status", status.as_u16());
        let Some(error) = error else { return };
        span.record(
            "error",
            tracing::field::display(shortened(error.to_string())),
        );
        let _in_request = span.enter();
        if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
            tracing::error!("request failed");
        } else {
            tracing::debug!("request refused");
        }
    }
}

/// `message` cut to [`LOGGED_ERROR_CHARS`] characters, marked where it was cut.
fn shortened(mut message: String) -> String {
    if let Some((cut, _)) = message.char_indices().nth(LOGGED_ERROR_CHARS) {
        message.truncate(cut);
        message.push('…');
    }
    message
}
