//! The headers that keep a browser from framing, sniffing or caching what the
//! service answers, outside `/v1` (the home page, Swagger UI) and on the
//! live stream.

use std::time::Duration;

use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::TestApp;

fn assert_hardened(path: &str, headers: &HeaderMap) {
    let policy = headers
        .get("content-security-policy")
        .unwrap_or_else(|| panic!("{path} has no Content-Security-Policy"))
        .to_str()
        .unwrap();
    for directive in ["default-src 'none'", "frame-ancestors 'none'"] {
        assert!(
            policy.contains(directive),
            "{path}: {policy} lacks {directive}"
        );
    }
    assert!(
        !policy.contains("script-src 'unsafe-inline'") && !policy.contains("unsafe-eval"),
        "{path}: {policy}"
    );
    assert_eq!(
        headers.get("x-content-type-options").map(|v| v.as_bytes()),
        Some(&b"nosniff"[..]),
        "{path}"
    );
}

#[tokio::test]
async fn the_home_page_and_swagger_ui_cannot_be_framed_or_sniffed() {
    let app = TestApp::spawn().await;
    for path in [
        "/",
        "/docs/",
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-initializer.js",
        "/openapi.json",
        "/nowhere",
    ] {
        let answer = app.get(path, None).await;
        assert_hardened(path, answer.headers());
    }
    // Swagger UI runs only its own files (no inline script), reads the
    // document from this origin, and styles its elements inline.
    let docs = app.get("/docs/", None).await;
    let policy = docs.headers()["content-security-policy"].to_str().unwrap();
    for directive in [
        "script-src 'self'",
        "connect-src 'self'",
        "style-src 'self' 'unsafe-inline'",
    ] {
        assert!(policy.contains(directive), "{policy} lacks {directive}");
    }
    assert!(!docs.text().await.unwrap().contains("<script>"));
    // The home page's form opens a game's page on this origin.
    let home = app.get("/", None).await;
    let policy = home.headers()["content-security-policy"].to_str().unwrap();
    assert!(policy.contains("form-action 'self'"), "{policy}");
}

#[tokio::test]
async fn head_of_the_home_page_is_answered_without_a_body() {
    let app = TestApp::spawn().await;
    let address = app.address.trim_start_matches("http://");
    let mut connection = tokio::net::TcpStream::connect(address).await.unwrap();
    connection
        .write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), connection.read_to_end(&mut answer))
        .await
        .expect("an answer")
        .unwrap();
    let answer = String::from_utf8(answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    assert!(body.is_empty(), "a body after HEAD: {body:?}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/html"),
        "{head}"
    );
}

/// A stream carries what its seat may see, secrets included: no cache may
/// keep it, as no cache may keep any other `/v1` answer.
#[tokio::test]
async fn a_live_stream_may_not_be_stored_by_any_cache() {
    let app = TestApp::spawn().await;
    let created = app.create("treeblox", json!(null), 1).await;
    let seat = &created.seat_tokens[0].1;
    let stream = app
        .get(&format!("/v1/games/{}/stream", created.id), Some(seat))
        .await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(stream.headers()["cache-control"], "no-store");
}
