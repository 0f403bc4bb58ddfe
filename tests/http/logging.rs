//! What the service writes to its log: one line per record whatever a
//! client sent, and every line of a request naming its id and route.

mod escaping {
    use std::io::{self, Write};

    use std::sync::{Arc, Mutex};
    use umpire_api::log_lines::EscapedLines;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_client_string_with_newlines_and_escapes_stays_on_its_records_line() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer(EscapedLines(move || writer.clone()))
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let game = "chess\n2026-11-23T00:00:00Z  INFO umpire: admin logged in\u{1b}[2J";
            tracing::warn!(game, "There is no game called `{game}`.");
            tracing::info!("next record");
        });
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 2, "{log:?}");
        assert!(lines[0].contains("chess\\n2026"), "{}", lines[0]);
        assert!(!log.contains('\u{1b}'), "{log:?}");
        assert!(lines[0].contains("\\u{1b}[2J"), "{}", lines[0]);
        assert!(lines[1].contains("next record"));
    }
}

mod request_spans {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use actix_web::web::Bytes;
    use actix_web::{test, web, App, HttpResponse};
    use futures_util::stream;

    use umpire_api::request_span::RequestSpan;
    use umpire_api::wrong_method::KnownPaths;

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
        // tracing caches each callsite's interest for the whole process, and
        // the other tests of this binary run the request span's callsite on
        // server threads that have no subscriber: if one of them registers it
        // first, it is cached as "never" and this test sees no span. A global
        // registry that records nothing makes every thread interested, so the
        // cache no longer depends on which test gets there first.
        let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
        let _guard = tracing::subscriber::set_default(subscriber);
        // The service's own list of routes names `/games/{id}`; actix names
        // `/seats/{seat}`, which the list lacks.
        let known = KnownPaths::new(&serde_json::json!({"paths": {"/games/{id}": {"get": {}}}}));
        let app = test::init_service(
            App::new()
                .app_data(web::Data::new(known))
                .wrap(RequestSpan)
                .route(
                    "/games/{id}",
                    web::get().to(|| async {
                        tracing::info!("inside the handler");
                        HttpResponse::Ok().finish()
                    }),
                )
                .route(
                    "/seats/{seat}",
                    web::get().to(|| async {
                        tracing::info!("inside the seats handler");
                        HttpResponse::Ok().finish()
                    }),
                )
                .route(
                    "/export",
                    web::get().to(|| async { body_logging("export", "application/x-ndjson") }),
                )
                .route(
                    "/stream",
                    web::get().to(|| async { body_logging("stream", "text/event-stream") }),
                ),
        )
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

        let response = test::call_service(
            &app,
            test::TestRequest::get().uri("/seats/red").to_request(),
        )
        .await;
        assert!(response.status().is_success());
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line = log
            .lines()
            .find(|line| line.contains("inside the seats handler"))
            .unwrap_or_else(|| panic!("the handler's line is missing from {log:?}"));
        assert!(line.contains("route=\"/seats/{seat}\""), "{line}");

        // A body written as it goes is polled inside its request's span,
        // but an event stream's, polled for every delivery for hours, is
        // polled outside it (what a stream logs names its request itself).
        for (path, in_span) in [("/export", true), ("/stream", false)] {
            let response =
                test::call_service(&app, test::TestRequest::get().uri(path).to_request()).await;
            let body = test::read_body(response).await;
            assert_eq!(body, Bytes::from_static(b"one two "), "{path}");
            let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
            let polled: Vec<&str> = log
                .lines()
                .filter(|line| line.contains(&format!("polling the {} body", &path[1..])))
                .collect();
            assert_eq!(polled.len(), 2, "{path}: {log}");
            for line in polled {
                assert_eq!(line.contains("request_id="), in_span, "{path}: {line}");
            }
        }
    }

    /// An answer whose body logs a line each time it is polled for a chunk.
    fn body_logging(name: &'static str, content_type: &'static str) -> HttpResponse {
        let chunks = stream::unfold(["one ", "two "].into_iter(), move |mut chunks| async move {
            let chunk = chunks.next()?;
            tracing::info!("polling the {name} body");
            Some((
                Ok::<_, actix_web::Error>(Bytes::from_static(chunk.as_bytes())),
                chunks,
            ))
        });
        HttpResponse::Ok()
            .content_type(content_type)
            .streaming(chunks)
    }
}
