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
//! Any other 5xx logs one line at ERROR.
//!
//! The span is entered whenever the handler is polled, and whenever the
//! answer's body is when it is made as it is written (bytes held whole log
//! nothing as they are written), except an event stream's: a stream is polled once
//! for every delivery for hours, and entering and leaving the span each
//! time cost about 230 instructions a delivery (tracing-actix-web, which
//! this replaces, wraps every body so and cannot be told not to). What a
//! stream logs names its request by the span it keeps from its opening
//! (`umpire_service::GameStream`).

use std::borrow::Cow;
use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, EitherBody, MessageBody};
use actix_web::dev::{forward_ready, Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::{header, StatusCode};
use actix_web::web::Bytes;
use actix_web::{web, Error, HttpMessage};
use futures_util::future::LocalBoxFuture;
use tracing::Span;
use uuid::Uuid;

use crate::metrics::method_label;
use crate::wrong_method::KnownPaths;

/// The longest error message a log line carries, in characters.
pub const LOGGED_ERROR_CHARS: usize = 240;

/// The middleware that puts every request in its span.
pub struct RequestSpan;

/// A request's id: on every line logged in the request.
#[derive(Clone, Copy, Debug)]
pub struct RequestId(Uuid);

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<S, B> Transform<S, ServiceRequest> for RequestSpan
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<InSpan<B>, B>>;
    type Error = Error;
    type Transform = RequestSpanService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestSpanService {
            service: Rc::new(service),
        }))
    }
}

pub struct RequestSpanService<S> {
    service: Rc<S>,
}

impl<S, B> Service<ServiceRequest> for RequestSpanService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<InSpan<B>, B>>;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Error>>;

    forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        let request_id = RequestId(Uuid::new_v4());
        request.extensions_mut().insert(request_id);
        let span = request_span(&request, request_id);
        let answer = span.in_scope(|| self.service.call(request));
        Box::pin(async move {
            let outcome = PolledInSpan {
                future: answer,
                span: &span,
            }
            .await;
            on_request_end(&span, &outcome);
            outcome.map(|response| {
                response.map_body(|head, body| {
                    if written_as_it_goes(&body) && !is_event_stream(head.headers()) {
                        EitherBody::left(InSpan { body, span })
                    } else {
                        EitherBody::right(body)
                    }
                })
            })
        })
    }
}

/// Whether an answer's body is made as it is written (a stream, which may
/// log as it goes), not bytes held whole (nearly every answer, which logs
/// nothing when polled: entering the span for it cost two entries and
/// exits, about 1,100 instructions an action).
fn written_as_it_goes(body: &impl MessageBody) -> bool {
    matches!(body.size(), BodySize::Stream)
}

/// Whether an answer is an event stream: its body is polled outside the
/// request's span.
fn is_event_stream(headers: &header::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"))
}

pin_project_lite::pin_project! {
    /// The handler's future, polled inside its request's span. tracing's
    /// `Instrumented` also enters its span to drop the future it holds: an
    /// entry and exit more a request, for a future that has finished.
    struct PolledInSpan<'a, F> {
        #[pin]
        future: F,
        span: &'a Span,
    }
}

impl<F: Future> Future for PolledInSpan<'_, F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let _in_request = this.span.enter();
        this.future.poll(cx)
    }
}

pin_project_lite::pin_project! {
    /// An answer's body, polled inside its request's span: what the body
    /// logs as it is written names the request.
    pub struct InSpan<B> {
        #[pin]
        body: B,
        span: Span,
    }
}

impl<B: MessageBody> MessageBody for InSpan<B> {
    type Error = B::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.project();
        let _in_request = this.span.enter();
        this.body.poll_next(cx)
    }

    fn try_into_bytes(self) -> Result<Bytes, Self>
    where
        Self: Sized,
    {
        let InSpan { body, span } = self;
        body.try_into_bytes().map_err(|body| InSpan { body, span })
    }
}

/// The request's span: its id, method and route; its status and error
/// recorded at its end.
fn request_span(request: &ServiceRequest, request_id: RequestId) -> Span {
    // Named from the service's own list of routes where one there answers
    // the request: it is not routed yet, and actix would match it against
    // its regular expressions once more, first to last. A wrong method, an
    // unknown path, or a service without the list is named as actix names
    // it.
    let route = request
        .app_data::<web::Data<KnownPaths>>()
        .and_then(|known| known.route(request.method(), request.path()))
        .map(Cow::Borrowed)
        .or_else(|| request.match_pattern().map(Cow::Owned));
    tracing::info_span!(
        "request",
        request_id = %request_id,
        method = %method_label(request.method()),
        route = route.as_deref().unwrap_or("default"),
        status = tracing::field::Empty,
        error = tracing::field::Empty,
    )
}

fn on_request_end<B: MessageBody>(span: &Span, outcome: &Result<ServiceResponse<B>, Error>) {
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

/// `message` cut to [`LOGGED_ERROR_CHARS`] characters, marked where it was cut.
fn shortened(mut message: String) -> String {
    if let Some((cut, _)) = message.char_indices().nth(LOGGED_ERROR_CHARS) {
        message.truncate(cut);
        message.push('…');
    }
    message
}
