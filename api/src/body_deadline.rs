//! Request bodies time out like request heads do.
//!
//! actix answers 408 to a client that stalls while sending its request head,
//! but once the head is in, a body that never arrives (`Content-Length: 100`
//! and 20 bytes sent) held the connection and its worker's attention
//! forever. Every body is therefore read under two limits: no more than
//! [`BODY_IDLE`] between two chunks, and no more than [`BODY_TOTAL`] in all
//! (enough for the largest archive over a slow link). Past either, the body
//! reads fail with [`TimedOut`](std::io::ErrorKind::TimedOut), which
//! `error.rs` answers 408 `body_timeout`, and the connection is closed.

use std::time::Duration;

use std::pin::Pin;

use actix_web::dev::{Payload, ServiceRequest};
use actix_web::error::PayloadError;
use actix_web::web::Bytes;
use actix_web::HttpMessage;
use futures_util::StreamExt;
use tokio::time::Instant;

/// Longest pause allowed between two chunks of a body.
pub const BODY_IDLE: Duration = Duration::from_secs(5);
/// Longest time allowed to receive a whole body.
pub const BODY_TOTAL: Duration = Duration::from_secs(60);

/// The message of the error a timed-out body read fails with.
pub const TIMED_OUT: &str = "the request body did not arrive in time";

/// True when a body read failed because the body stalled.
pub fn timed_out(error: &PayloadError) -> bool {
    matches!(error, PayloadError::Io(io) if io.kind() == std::io::ErrorKind::TimedOut)
}

/// Puts the request's body, if it has one, under the deadlines.
pub fn limit_body(request: &mut ServiceRequest) {
    let payload = request.take_payload();
    if let Payload::None = payload {
        return;
    }
    request.set_payload(Payload::from(under_deadlines(payload)));
}

type BodyStream = Pin<Box<dyn futures_util::Stream<Item = Result<Bytes, PayloadError>>>>;

fn under_deadlines(payload: Payload) -> BodyStream {
    let deadline = Instant::now() + BODY_TOTAL;
    let chunks = futures_util::stream::unfold(Some(payload), move |payload| async move {
        let mut payload = payload?;
        let wait_until = deadline.min(Instant::now() + BODY_IDLE);
        match tokio::time::timeout_at(wait_until, payload.next()).await {
            Ok(Some(chunk)) => Some((chunk, Some(payload))),
            Ok(None) => None,
            // The body stalled: fail this read and end the stream.
            Err(_) => Some((
                Err(PayloadError::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    TIMED_OUT,
                ))),
                None,
            )),
        }
    });
    Box::pin(chunks)
}
