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

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use actix_web::{test, web, App, HttpResponse};
    use tracing_actix_web::TracingLogger;

    use super::RequestSpan;

    /// Collects what the subscriber writes.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[actix_web::test]
    async fn every_line_logged_in_a_request_names_its_id_and_route() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(App::new().wrap(TracingLogger::<RequestSpan>::new()).route(
            "/games/{id}",
            web::get().to(|| async {
                tracing::info!("inside the handler");
                HttpResponse::Ok().finish()
            }),
        ))
        .await;

        let response = test::call_service(
            &app,
            test::TestRequest::get().uri("/games/g-1").to_request(),
        )
        .await;

        assert!(response.status().is_success());
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line = log
            .lines()
            .find(|line| line.contains("inside the handler"))
            .unwrap_or_else(|| panic!("the handler's line is missing from {log:?}"));
        let id = line
            .split("request_id=")
            .nth(1)
            .and_then(|rest| rest.get(..36))
            .unwrap_or_else(|| panic!("no request id in {line:?}"));
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{id:?} is not a uuid");
        assert!(line.contains("route=\"/games/{id}\""), "{line}");
        assert!(!line.contains("g-1"), "the path is not logged: {line}");
    }
}
