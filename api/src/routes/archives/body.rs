//! Archive bodies: a turn to handle one (four per instance), its bytes read
//! and charged to the memory budget as they arrive, and the archives found
//! in it (`umpire_archive::reading`), refused before the answer starts when
//! the body is malformed or holds too many.

use std::convert::Infallible;
use std::ops::Range;
use std::sync::Arc;

use actix_web::http::header;
use actix_web::{web, HttpRequest};
use futures_util::StreamExt;
use umpire_archive::reading::{each_archive_text, span_in, Place, ReadStop};
use umpire_service::{Charge, ServiceError};

use super::{
    ARCHIVE_BODIES_AT_ONCE, ARCHIVE_BODY_WAIT, MAX_ARCHIVES_PER_REQUEST, MAX_ARCHIVE_BYTES,
};
use crate::error::ApiError;
use crate::AppState;

/// What handling an archive body holds besides its bytes, as a multiple of
/// them, charged to the memory budget once the body is read. Measured with
/// `scripts/rss.sh` (docs/benchmarks.md): a 32 MB JSON Lines import alone
/// took the process from about 20 MB to 139 MB (the body, its archives
/// parsed and replayed a batch at a time); a 30 MB scoring body about
/// 41 MB (one archive at a time).
pub(super) const IMPORT_HANDLING: usize = 3;
pub(super) const SCORING_HANDLING: usize = 1;

/// A turn to read and handle one archive body in this instance, and the
/// memory it is charged: its bytes as they arrive, then its handling.
pub(super) struct BodyTurn {
    _permit: tokio::sync::OwnedSemaphorePermit,
    memory: umpire_service::Reservation,
}

/// A turn to read and handle one archive body in this instance.
pub(super) async fn archive_body_turn(state: &AppState) -> Result<BodyTurn, ApiError> {
    let permit = match tokio::time::timeout(
        ARCHIVE_BODY_WAIT,
        state.archive_bodies.clone().acquire_owned(),
    )
    .await
    {
        Ok(Ok(permit)) => permit,
        _ => {
            return Err(ServiceError::Busy {
                message: format!(
                    "{ARCHIVE_BODIES_AT_ONCE} archive bodies are being handled already; send it again shortly."
                ),
            }
            .into())
        }
    };
    let memory = state.service.reserve_memory(Charge::Bodies, 0)?;
    Ok(BodyTurn {
        _permit: permit,
        memory,
    })
}

/// Reads an archive body whole, charging its bytes to the turn's memory as
/// they arrive (all at once when the client says how many): past the
/// budget, 503 `busy` before the rest is read. Then charges the handling,
/// `handling` times the body.
pub(super) async fn read_body(
    state: &AppState,
    turn: &mut BodyTurn,
    request: &HttpRequest,
    mut payload: web::Payload,
    handling: usize,
) -> Result<web::BytesMut, ApiError> {
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<usize>().ok())
        .filter(|length| *length <= MAX_ARCHIVE_BYTES)
        .unwrap_or(0);
    state
        .service
        .grow_reservation(&mut turn.memory, announced)?;
    let mut body = web::BytesMut::with_capacity(announced);
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            if crate::body_deadline::timed_out(&e) {
                ApiError::body_timeout()
            } else {
                ApiError::bad_request(
                    "malformed_body",
                    format!("The body could not be read: {e}."),
                )
            }
        })?;
        if body.len() + chunk.len() > MAX_ARCHIVE_BYTES {
            return Err(ApiError::too_large(format!(
                "The body is larger than the limit of {MAX_ARCHIVE_BYTES} bytes."
            )));
        }
        body.extend_from_slice(&chunk);
        // Charged as the buffer grows (it doubles): what it holds, not
        // only what it was sent.
        let unpaid = body.capacity().saturating_sub(turn.memory.bytes());
        state.service.grow_reservation(&mut turn.memory, unpaid)?;
    }
    state
        .service
        .grow_reservation(&mut turn.memory, body.len() * handling)?;
    Ok(body)
}

/// A body's archives, found once off the async threads (one archive, a JSON
/// array, or JSON Lines): where each lies in the body and its place, for
/// its row's or line's `source` (`body:N`, `body[N]`). A body that is not
/// UTF-8, a malformed array, or more than [`MAX_ARCHIVES_PER_REQUEST`]
/// archives is refused whole (`done` says what would have been done to
/// them).
pub(super) async fn archives_in_body(
    body: web::BytesMut,
    done: &'static str,
) -> Result<ArchivesInBody, ApiError> {
    web::block(move || {
        let text = String::from_utf8(Vec::from(body)).map_err(|_| not_utf8())?;
        let mut archives = Vec::new();
        let mut count = 0usize;
        each_archive_text(text.as_bytes(), |archive, place| {
            count += 1;
            if count <= MAX_ARCHIVES_PER_REQUEST {
                archives.push((span_in(&text, archive), place));
            }
            Ok::<_, Infallible>(())
        })
        .map_err(|stop| match stop {
            ReadStop::NotUtf8 => not_utf8(),
            ReadStop::Malformed(error) => ApiError::bad_request("malformed_json", format!("{error}.")),
            ReadStop::Stopped(never) => match never {},
        })?;
        if count > MAX_ARCHIVES_PER_REQUEST {
            return Err(ApiError::too_large(format!(
                "The body holds {count} archives; at most {MAX_ARCHIVES_PER_REQUEST} are {done} per request."
            )));
        }
        Ok(ArchivesInBody {
            text: Arc::new(text),
            archives,
        })
    })
    .await
    .map_err(|e| ApiError::internal(format!("reading the archives of a body failed: {e}")))?
}

fn not_utf8() -> ApiError {
    ApiError::bad_request("malformed_json", "The body is not UTF-8.")
}

/// A body read whole and the archives found in it.
pub(super) struct ArchivesInBody {
    pub text: Arc<String>,
    /// Where each archive lies in `text`, and its place, in the body's order.
    pub archives: Vec<(Range<usize>, Place)>,
}

/// One archive's text in a body shared by the threads that handle it.
pub(super) struct BodyText {
    pub body: Arc<String>,
    pub span: Range<usize>,
}

impl AsRef<str> for BodyText {
    fn as_ref(&self) -> &str {
        &self.body[self.span.clone()]
    }
}
