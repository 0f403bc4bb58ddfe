//! Connections a client keeps alive between requests: the service either
//! keeps serving them or says `Connection: close` before it closes one, so
//! that a client never sends a request into a connection the server is
//! closing (and never has to guess whether a POST it sent there was done).
//! Read on raw TCP, as a client's connection pool would reuse them.

use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use umpire_api::ServiceOptions;

use crate::archive_support::{refusal, simulated};
use crate::support::TestApp;

/// An answer read off a connection: its head (lower case) and body.
struct Answer {
    head: String,
    body: String,
}

impl Answer {
    fn status(&self) -> &str {
        self.head.split(' ').nth(1).unwrap_or("")
    }

    fn says_close(&self) -> bool {
        self.head.lines().any(|line| line == "connection: close")
    }
}

/// Reads one answer (its head, then a `Content-Length` body) off `stream`;
/// an error if the server closes the connection first.
async fn read_answer(stream: &mut TcpStream) -> std::io::Result<Answer> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "the server closed the connection after {:?}",
                    String::from_utf8_lossy(&head)
                ),
            ));
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head)
        .to_ascii_lowercase()
        .replace("\r\n", "\n");
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map(|value| value.trim().parse().expect("a length"))
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).await?;
    Ok(Answer {
        head,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .expect("a connection")
}

/// Whether the server closes `stream` (within 30 s), reading what is left.
async fn closed_by_the_server(stream: &mut TcpStream) -> bool {
    let mut rest = Vec::new();
    matches!(
        tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut rest)).await,
        Ok(Ok(_)) | Ok(Err(_))
    )
}

/// A refusal that comes before the body is read (no admin token; a body
/// longer than a JSON request may be) says `Connection: close`, and the
/// server then closes: the rest of the body is never taken for a request.
#[tokio::test]
async fn an_answer_given_before_the_body_is_read_says_connection_close() {
    let app = TestApp::spawn_with(ServiceOptions {
        admin_token: Some("the admin token".into()),
        ..ServiceOptions::default()
    })
    .await;
    let early_answers = [
        (
            "POST /v1/games/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Content-Length: 100000\r\n\r\n{\"game_id\": ",
            "401",
        ),
        (
            "POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             Authorization: Bearer the admin token\r\nContent-Length: 100000\r\n\r\n{\"game\": ",
            "413",
        ),
    ];
    for (request, status) in early_answers {
        let mut stream = connect(&app).await;
        stream.write_all(request.as_bytes()).await.unwrap();
        let answer = read_answer(&mut stream).await.expect("an answer");
        assert_eq!(answer.status(), status, "{}{}", answer.head, answer.body);
        assert!(
            answer.says_close(),
            "an answer before the whole body says Connection: close:\n{}",
            answer.head
        );
        assert!(closed_by_the_server(&mut stream).await);
    }
}

/// A JSON body of a valid archive whose second rejection copies its first,
/// 131,072 times: as large an archive body as the service reads (just
/// under 32 MiB), parsed whole before it is refused.
fn a_large_refused_archive() -> String {
    let mut archive = simulated("arboretum", 1);
    let mut copy = refusal(&archive, "seat:red", archive.version(), 1_000_000);
    copy.action = json!({"type": "choose_start", "seat": "red"});
    archive.rejections = vec![copy; 131_072];
    serde_json::to_string(&archive).unwrap()
}

/// Imports `body` on a new connection, then asks for `/healthz` on the
/// same connection as soon as the import is answered.
async fn import_then_ask_again(app: &TestApp, body: &str) -> (Answer, std::io::Result<Answer>) {
    let mut stream = connect(app).await;
    let head = format!(
        "POST /v1/games/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let imported = read_answer(&mut stream).await.expect("the import's answer");
    let again = match stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
    {
        Ok(()) => read_answer(&mut stream).await,
        Err(error) => Err(error),
    };
    (imported, again)
}

/// An import takes seconds of work on a body this large. Once it is
/// answered without `Connection: close`, the connection serves the next
/// request, however long the import took: the work is done off the
/// server's worker, whose clock (actix measures keep-alive by it) would
/// otherwise stand still meanwhile and the connection be closed right after
/// its answer. Two imports at once on a one-worker server, so that each
/// waited for the other's work too.
#[tokio::test]
async fn a_connection_kept_alive_serves_the_next_request_after_a_long_import() {
    let app = TestApp::spawn().await;
    let body = a_large_refused_archive();
    let (first, second) = tokio::join!(
        import_then_ask_again(&app, &body),
        import_then_ask_again(&app, &body)
    );
    for (imported, again) in [first, second] {
        assert_eq!(imported.status(), "422", "{}", imported.body);
        assert!(
            imported.body.contains("archive_rejection_duplicate"),
            "{}",
            imported.body
        );
        assert!(!imported.says_close(), "{}", imported.head);
        let again = again.expect("the connection kept alive answers the next request");
        assert_eq!(again.status(), "200", "{}", again.head);
    }
}
