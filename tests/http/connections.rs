//! Connections admitted like requests (`api/src/connections.rs`): a client
//! past its own limit, or any past the instance's, is answered 503 `busy`
//! with Retry-After and closed; a client that sends pipelined
//! requests and never reads the answers holds a bounded amount of the
//! process's memory, however many it sends.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use umpire_api::connections::ConnectionLimits;
use umpire_api::ServiceOptions;

use crate::support::{metric, Served, TestApp};

/// A connection to `app` from the loopback address `from` (127.0.0.0/8 is
/// all loopback: each address is another client).
async fn connect_from(server: SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(SocketAddr::new(from.parse::<IpAddr>().unwrap(), 0))
        .unwrap();
    socket.connect(server).await.unwrap()
}

fn server_address(app: &TestApp) -> SocketAddr {
    app.address
        .trim_start_matches("http://")
        .parse()
        .expect("an address")
}

/// Asks `/healthz` on `stream` and reads the whole answer (its head says
/// its length): the connection then counts as held, whatever its status.
async fn ask_health(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    read_answer(stream).await
}

/// One answer's head and body, or what came before the connection closed.
async fn read_answer(stream: &mut TcpStream) -> String {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(60), stream.read(&mut buffer))
            .await
            .expect("an answer or a close within a minute")
            .unwrap_or(0);
        if read == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&bytes);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| {
                    let (name, value) = line.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length {
                break;
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reads until the server closes `stream`.
async fn until_closed(stream: &mut TcpStream) {
    let mut buffer = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(60), stream.read(&mut buffer))
            .await
            .expect("closed within a minute")
            .unwrap_or(0);
        if read == 0 {
            return;
        }
    }
}

fn limited(max_open: usize, max_per_client: usize) -> ServiceOptions {
    ServiceOptions {
        connections: ConnectionLimits {
            max_open,
            max_per_client,
        },
        // Held connections stay open however slowly the test runs.
        keep_alive: Duration::from_secs(600),
        ..ServiceOptions::default()
    }
}

/// Given a limit of three connections a client, when 127.0.0.9 holds
/// three, its fourth is answered 503 `busy` with Retry-After and closed;
/// another address is still served, and once one of the three closes,
/// 127.0.0.9 is served again.
#[tokio::test]
async fn a_client_past_its_connection_limit_is_answered_busy_and_closed() {
    let app = TestApp::spawn_with(limited(100, 3)).await;
    let server = server_address(&app);
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = connect_from(server, "127.0.0.9").await;
        let answer = ask_health(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        held.push(stream);
    }

    let mut fourth = connect_from(server, "127.0.0.9").await;
    let answer = ask_health(&mut fourth).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("retry-after: 1"), "{answer}");
    assert!(answer.contains(r#""code":"busy""#), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    until_closed(&mut fourth).await;

    let mut other = connect_from(server, "127.0.0.10").await;
    let answer = ask_health(&mut other).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    drop(held.pop());
    // The server sees the close when it next reads: wait for it.
    let served_again = async {
        loop {
            let mut stream = connect_from(server, "127.0.0.9").await;
            let answer = ask_health(&mut stream).await;
            if answer.starts_with("HTTP/1.1 200") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), served_again)
        .await
        .expect("served again once one of its connections closed");

    let metrics = app.get("/metrics", None).await.text().await.unwrap();
    assert!(
        metric(
            &metrics,
            "umpire_connections_refused_total{reason=\"client\"}"
        ) >= 1.0
    );
}

/// Given a limit of three connections in all, when three clients hold one
/// each, a fourth client is answered 503 `busy`.
#[tokio::test]
async fn the_instance_limit_counts_every_clients_connections() {
    // The test's own client keeps one connection of its own open (the
    // server was probed on connections it closed).
    let app = TestApp::spawn_with(limited(3, 10)).await;
    let server = server_address(&app);
    let mut held = Vec::new();
    for from in ["127.0.0.21", "127.0.0.22", "127.0.0.23"] {
        let mut stream = connect_from(server, from).await;
        let answer = ask_health(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{from}: {answer}");
        held.push(stream);
    }
    let mut fourth = connect_from(server, "127.0.0.24").await;
    let answer = ask_health(&mut fourth).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("as many connections as it may"), "{answer}");
}

/// Given the real `umpire serve`, when 40 connections each send 1,000
/// pipelined requests for the OpenAPI document (430 KB) and Swagger UI's
/// bundle and never read an answer, the process grows by far less than the
/// answers asked for (40 × 1,000 × 430 KB ≈ 17 GB): each connection holds
/// at most a slice of answer beyond actix's buffers, and the documents are
/// shared bytes. It still answers others meanwhile.
#[tokio::test]
async fn pipelined_requests_whose_answers_are_never_read_hold_bounded_memory() {
    let url = umpire_storage::testing::fresh_database_url().await;
    let served = Served::start(&url, "info");
    let server: SocketAddr = served.address.parse().unwrap();
    let client = crate::support::client();
    let health = client.get(served.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let before_kib = served.rss_kib();

    let mut requests = Vec::new();
    for index in 0..1000 {
        let path = if index % 2 == 0 {
            "/openapi.json"
        } else {
            "/docs/swagger-ui-bundle.js"
        };
        requests.extend_from_slice(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes());
    }
    let mut unread = Vec::new();
    for index in 0..40 {
        // Spread over addresses, as 40 clients (the per-client limit is not
        // what is tested here).
        let from = format!("127.0.1.{}", 1 + index % 8);
        let mut stream = connect_from(server, &from).await;
        stream.write_all(&requests).await.unwrap();
        unread.push(stream);
    }
    // The server writes what the sockets take and holds the rest: wait
    // until its memory has stopped growing for a second (at most a minute).
    let mut peak_kib = before_kib;
    let mut still = 0;
    for _ in 0..600 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now_kib = served.rss_kib();
        if now_kib > peak_kib + 256 {
            still = 0;
        } else {
            still += 1;
        }
        peak_kib = peak_kib.max(now_kib);
        if still >= 10 {
            break;
        }
    }
    let health = client.get(served.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200, "others are still served");
    let grown_mib = peak_kib.saturating_sub(before_kib) / 1024;
    assert!(
        grown_mib < 48,
        "grew by {grown_mib} MiB for 40 connections that never read"
    );
    drop(unread);
}

/// Given a head timeout of one second, a connection that sends no request
/// is answered 408 (or closed) and let go: a client that opens connections
/// and sends nothing holds each for a bounded time. Given a long one, a
/// connection that sends its request later than actix's default (5 s) is
/// still served: the option is the server's.
#[tokio::test]
async fn a_connection_that_sends_no_request_is_let_go_after_the_head_timeout() {
    let brief = TestApp::spawn_with(ServiceOptions {
        request_head_timeout: Duration::from_secs(1),
        ..ServiceOptions::default()
    })
    .await;
    let mut silent = TcpStream::connect(server_address(&brief)).await.unwrap();
    let answer = read_answer(&mut silent).await;
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    until_closed(&mut silent).await;

    let patient = TestApp::spawn_with(ServiceOptions {
        request_head_timeout: Duration::from_secs(600),
        ..ServiceOptions::default()
    })
    .await;
    let mut late = TcpStream::connect(server_address(&patient)).await.unwrap();
    tokio::time::sleep(umpire_api::startup::REQUEST_HEAD_TIMEOUT + Duration::from_secs(2)).await;
    let answer = ask_health(&mut late).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
