//! What a client can make the service remember or write: the metrics' labels
//! and the log's lines stay bounded whatever request lines arrive.

use std::time::Duration;

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use umpire_api::ServiceOptions;

use crate::support::{Served, TestApp};

/// Sends `requests` (whole HTTP/1.1 requests) over one
/// connection, pipelined, and returns the status line of every answer.
async fn pipelined(address: &str, requests: Vec<String>) -> Vec<String> {
    let expected = requests.len();
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    // Written while the answers are read: the server stops reading once the
    // answers it has written fill the socket's buffers.
    let writing = tokio::spawn(async move {
        let mut batch = String::new();
        for request in requests {
            batch.push_str(&request);
            if batch.len() > 64 * 1024 {
                writer.write_all(batch.as_bytes()).await.unwrap();
                batch.clear();
            }
        }
        writer.write_all(batch.as_bytes()).await.unwrap();
        writer
    });
    let mut received = Vec::new();
    let mut statuses = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    while statuses.len() < expected {
        let read = tokio::time::timeout(Duration::from_secs(60), reader.read(&mut chunk))
            .await
            .expect("the server keeps answering")
            .unwrap();
        assert!(
            read > 0,
            "the server closed after {} answers",
            statuses.len()
        );
        received.extend_from_slice(&chunk[..read]);
        // Each answer is a head and a body of the length it announces.
        while let Some(head_end) = find(&received, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
            let length: usize = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().unwrap())
                })
                .expect("a content-length");
            if received.len() < head_end + 4 + length {
                break;
            }
            statuses.push(head.lines().next().unwrap().to_string());
            received.drain(..head_end + 4 + length);
        }
    }
    drop(writing.await.unwrap());
    statuses
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Ten thousand distinct made-up methods (each answered 405: the path is
/// served, with GET) and ten thousand distinct paths that lead nowhere
/// (each answered 404) add a handful of series to
/// `/metrics`, not one per method or path: before methods outside the
/// standard set shared one label, the answer grew by kilobytes per request
/// (588 MB after 30,000 requests with 1,000-character methods).
#[tokio::test]
async fn made_up_methods_and_unknown_paths_do_not_grow_the_metrics() {
    const DISTINCT: usize = 10_000;
    const METRICS_BOUND: usize = 64 * 1024;
    // Twenty thousand pipelined requests keep the one worker so busy that,
    // on a loaded machine, its keep-alive clock fell seconds behind and a
    // connection that went idle between two of the test's writes was closed
    // at once (see `umpire_api::startup::KEEP_ALIVE`): not what is tested.
    // By the same clock, the new connection that asks for `/metrics` right
    // after was answered 408 at once (CI, load 8).
    let app = TestApp::spawn_with(ServiceOptions {
        keep_alive: Duration::from_secs(60),
        request_head_timeout: Duration::from_secs(60),
        ..ServiceOptions::default()
    })
    .await;
    let address = app.address.trim_start_matches("http://").to_string();
    let requests: Vec<String> = (0..DISTINCT)
        .flat_map(|i| {
            [
                format!("M{i:0>120} /v1/game-types HTTP/1.1\r\nHost: x\r\n\r\n"),
                format!("GET /nowhere/{i:0>120} HTTP/1.1\r\nHost: x\r\n\r\n"),
            ]
        })
        .collect();
    // Four connections at once, so that the test takes seconds.
    let mut connections = Vec::new();
    for share in requests.chunks(requests.len() / 4) {
        connections.push(tokio::spawn(pipelined_owned(
            address.clone(),
            share.to_vec(),
        )));
    }
    for connection in connections {
        // Each connection's answers alternate as its requests do.
        for (index, status) in connection.await.unwrap().into_iter().enumerate() {
            let expected = if index % 2 == 0 {
                "HTTP/1.1 405 Method Not Allowed"
            } else {
                "HTTP/1.1 404 Not Found"
            };
            assert_eq!(status, expected);
        }
    }

    let metrics = app.get("/metrics", None).await;
    assert_eq!(metrics.status(), StatusCode::OK);
    let text = metrics.text().await.unwrap();
    assert!(
        text.len() < METRICS_BOUND,
        "/metrics answered {} bytes after {DISTINCT} distinct methods and paths",
        text.len()
    );
    let other = text
        .lines()
        .find(|line| line.starts_with("umpire_http_requests_total{") && line.contains("OTHER"))
        .unwrap_or_else(|| panic!("no series for the other methods in\n{text}"));
    assert!(
        other.contains(r#"endpoint="/v1/game-types""#) && other.ends_with(&format!(" {DISTINCT}")),
        "{other}"
    );
    let unknown = text
        .lines()
        .find(|line| {
            line.starts_with("umpire_http_requests_total{")
                && line.contains(r#"endpoint="UNKNOWN""#)
                && line.contains(r#"method="GET""#)
        })
        .unwrap_or_else(|| panic!("no series for unknown paths in\n{text}"));
    assert!(unknown.ends_with(&format!(" {DISTINCT}")), "{unknown}");
}

async fn pipelined_owned(address: String, requests: Vec<String>) -> Vec<String> {
    pipelined(&address, requests).await
}

/// Swagger UI's page and every file it loads, the viewer's files, unknown
/// paths, wrong methods and made-up methods log no warning at the default
/// level: a 404 is a client's mistake, not the operator's. (Opening `/docs/`
/// once logged 206 warnings that its route could not be labelled, and every
/// 404 a warning quoting the whole request method.)
#[tokio::test]
async fn browsing_the_docs_and_missing_pages_logs_no_warning() {
    let app = TestApp::spawn().await;
    let served = Served::start(&app.database_url, "info");
    let client = crate::support::client();
    let url = |path: &str| served.url(path);

    let page = client.get(url("/docs/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.unwrap();
    let mut paths = referenced_files(&page);
    assert!(paths.len() >= 5, "{paths:?}");
    paths.extend(
        [
            "/openapi.json",
            "/viewer/app.js",
            "/viewer/no-such-file.js",
            "/docs/no-such-file.js",
            "/games/not-a-game",
            "/nowhere",
            "/v1/games/6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90/nowhere",
        ]
        .map(String::from),
    );
    for path in &paths {
        client.get(url(path)).send().await.unwrap();
    }
    for path in [
        "/games/6f1c2a54-8d0e-4a43-9b0a-3c1f5e2d7a90",
        "/viewer/app.js",
    ] {
        let wrong_method = client.delete(url(path)).send().await.unwrap();
        assert_eq!(
            wrong_method.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{path}"
        );
    }
    let made_up = reqwest::Method::from_bytes(&[b'M'; 1000]).unwrap();
    let answer = client
        .request(made_up, url("/v1/game-types"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::METHOD_NOT_ALLOWED);

    let log = served.log_so_far().await;
    let warnings: Vec<&String> = log
        .iter()
        .filter(|line| line.contains(" WARN ") || line.contains(" ERROR "))
        .collect();
    assert!(
        warnings.is_empty(),
        "{} warnings, the first: {:?}",
        warnings.len(),
        warnings.first()
    );
}

/// At DEBUG, each refused request has one line, and what the client chose
/// (a 1,000-character method, a 10,000-character game name quoted in the
/// error) is not copied into it whole.
#[tokio::test]
async fn a_refused_request_logs_one_short_debug_line() {
    let app = TestApp::spawn().await;
    let served = Served::start(&app.database_url, "info,umpire_api=debug");
    let client = crate::support::client();
    let made_up = "M".repeat(1000);
    let answer = client
        .request(
            reqwest::Method::from_bytes(made_up.as_bytes()).unwrap(),
            served.url("/v1/game-types"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::METHOD_NOT_ALLOWED);
    let long_name = "g".repeat(10_000);
    let answer = client
        .post(served.url("/v1/games"))
        .json(&serde_json::json!({"game": long_name, "seed": 1}))
        .send()
        .await
        .unwrap();
    assert!(answer.status().is_client_error());

    let refused_lines = |log: &[String]| {
        log.iter()
            .filter(|line| line.contains("request refused"))
            .count()
    };
    let log = served.log_once(|log| refused_lines(log) >= 2).await;
    let refused: Vec<&String> = log
        .iter()
        .filter(|line| line.contains("request refused"))
        .collect();
    assert_eq!(refused.len(), 2, "{log:#?}");
    let line = refused[0];
    assert!(line.contains(" DEBUG "), "{line}");
    assert!(line.contains("method=OTHER"), "{line}");
    assert!(line.contains("status=405"), "{line}");
    assert!(line.contains("does not answer this method"), "{line}");
    assert!(!line.contains("MMMMMMMM"), "{line}");
    let line = refused[1];
    assert!(line.contains("There is no game called `ggg"), "{line}");
    for line in refused {
        assert!(line.len() < 1024, "{} bytes: {line}", line.len());
    }
}

/// The `href` and `src` of a page that lead to files beside it, as paths.
fn referenced_files(page: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for attribute in ["href=\"", "src=\""] {
        for (_, rest) in page
            .match_indices(attribute)
            .map(|(at, _)| page.split_at(at))
        {
            let value = rest[attribute.len()..].split('"').next().unwrap();
            if !value.contains("://") {
                paths.push(format!("/docs/{}", value.trim_start_matches("./")));
            }
        }
    }
    paths
}

/// Swagger UI's page loads: every file it references is served.
#[tokio::test]
async fn every_file_the_docs_page_references_is_served() {
    let app = TestApp::spawn().await;
    let page = app.get("/docs/", None).await.text().await.unwrap();
    let paths = referenced_files(&page);
    assert!(paths.iter().any(|path| path.ends_with(".js")), "{paths:?}");
    assert!(paths.iter().any(|path| path.ends_with(".css")), "{paths:?}");
    for path in &paths {
        let answer = app.get(path, None).await;
        assert_eq!(answer.status(), StatusCode::OK, "{path}");
    }
}
