//! Archives over HTTP: audit and export a game (umpire only), import an
//! archive (validated by replay before anything is stored), what-if re-runs,
//! and scoring archives sent in the body without storing them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Poll;

use actix_web::http::header::{self, ContentType};
use actix_web::web::Bytes;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::mpsc;
use umpire_archive::{Archive, AuditReport, AuditStop, ScoreRow, WhatIfReport};
use umpire_service::model::CreatedGame;
use umpire_service::{Charge, PagedRejections, ServiceError};
use umpire_storage::StoreError;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::principal;
use crate::error::{ApiError, ErrorBody};
use crate::AppState;

/// Largest archive body accepted by import and scoring: the largest archive
/// the commands read too, named once in `umpire_archive`. Archives are much
/// larger than actions, so these endpoints read their body themselves.
pub use umpire_archive::MAX_ARCHIVE_BYTES;

/// Most archives scored in one request. Rows are streamed, so memory does
/// not grow with their number, but time and the answer's size do: a body of
/// tiny junk lines would otherwise ask for millions of error rows. A real
/// archive is tens of kilobytes (74 KB on average for simulated games, see
/// `docs/benchmarks.md`), so a full body holds a few hundred: the cap leaves
/// room for very short games.
pub const MAX_ARCHIVES_PER_REQUEST: usize = 10_000;

/// A streamed answer is sent in chunks of about this size.
const CHUNK_BYTES: usize = 64 * 1024;

/// Chunks written but not yet sent. With [`CHUNK_BYTES`], what a slow
/// client can make one streamed answer hold.
const CHUNKS_IN_FLIGHT: usize = 4;

/// How long a streamed answer waits for its client to take the next chunk
/// before it is cut: a client that stops reading must not hold a thread, a
/// body and (for an audit) a game's log forever.
pub const READER_STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// Archive bodies (up to [`MAX_ARCHIVE_BYTES`] each, anonymous on
/// `/v1/scores`) handled at once; a request past them waits up to
/// [`ARCHIVE_BODY_WAIT`] for a turn, then is answered 503 `busy`. Without this
/// bound, memory per request is a constant but memory per instance is not.
pub const ARCHIVE_BODIES_AT_ONCE: usize = 4;
pub const ARCHIVE_BODY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// What handling an archive body holds besides its bytes, as a multiple of
/// them, charged to the memory budget once the body is read. Measured with
/// `scripts/rss.sh` (docs/benchmarks.md): a 32 MB JSON Lines import alone
/// took the process from about 20 MB to 139 MB (the body, its archives
/// parsed and replayed a batch at a time); a 30 MB scoring body about
/// 41 MB (one archive at a time).
const IMPORT_HANDLING: usize = 3;
const SCORING_HANDLING: usize = 1;

/// A turn to read and handle one archive body in this instance, and the
/// memory it is charged: its bytes as they arrive, then its handling.
struct BodyTurn {
    _permit: tokio::sync::OwnedSemaphorePermit,
    memory: umpire_service::Reservation,
}

/// A turn to read and handle one archive body in this instance.
async fn archive_body_turn(state: &AppState) -> Result<BodyTurn, ApiError> {
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
async fn read_body(
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

/// Only the umpire may audit, export or re-run a game: each shows every
/// seat's secrets.
async fn require_umpire(
    state: &AppState,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<(), ApiError> {
    Ok(principal(&state.service, game_id, request)
        .await?
        .require_umpire()?)
}

/// What `/v1/scores` takes as `application/json`: one archive, or an array.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ArchivesToScore {
    One(Archive),
    Many(Vec<Archive>),
}

/// Audit by replay: the chain verified, every action re-decided with today's
/// rules, rejected attempts interleaved, the first divergence. Umpire only.
#[utoipa::path(
    operation_id = "get_game_audit",
    tag = "archives",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The audit report", body = AuditReport),
        (status = 401, description = "Missing or invalid token", body = ErrorBody),
        (status = 403, description = "Not the umpire token", body = ErrorBody),
        (status = 404, description = "No such game", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[get("/games/{id}/audit")]
pub async fn get_game_audit(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    require_umpire(&state, game_id, &request).await?;
    // Everything that can fail is tried before the first byte: once the
    // answer has started it can no longer become an error status.
    let mut memory = state
        .service
        .reserve_memory(Charge::Audits, AUDIT_FIRST_BYTES)?;
    let (log, opening) = state.service.audit_opening(game_id).await?;
    charge_log(&state, &mut memory, &log)?;
    let registry = state.service.registry().clone();
    let rejections = state.service.rejections(game_id).await?;
    let (mut body, response) = streamed_json();
    actix_web::rt::task::spawn_blocking(move || {
        let _memory = memory;
        if let Err(stop) = write_audit(&mut body, &registry, &log, &opening, rejections) {
            body.cut(game_id, "audit", &stop);
        }
    });
    Ok(response)
}

/// What an audit or export reserves before it reads the game's log; once
/// read, the log is measured and the rest charged. So a crowd of audits is
/// refused up front rather than each reading a log first.
const AUDIT_FIRST_BYTES: usize = 1024 * 1024;

/// Charges `memory` for what `log` measures (and the same again for the
/// audit's replay and the answer being written), beyond what it holds.
fn charge_log(
    state: &AppState,
    memory: &mut umpire_service::Reservation,
    log: &umpire_archive::Archive,
) -> Result<(), ApiError> {
    let measured = 2 * umpire_service::budget::archive_bytes(log);
    let more = measured.saturating_sub(memory.bytes());
    Ok(state.service.grow_reservation(memory, more)?)
}

/// Writes the report's fields known before the entries, the entries as they
/// are judged, then the fields that need all of them: the document
/// `umpire_archive::audit` gives, with its keys in that order.
fn write_audit(
    body: &mut JsonBody,
    registry: &umpire_domain::Registry,
    log: &umpire_archive::Archive,
    opening: &umpire_archive::AuditOpening,
    rejections: PagedRejections,
) -> Result<(), StreamStop> {
    body.write_fields_opening(opening)?;
    body.write(b",\"entries\":[")?;
    let mut first = true;
    let rejections = rejections.map(|rejection| rejection.map_err(StreamStop::Store));
    let closing = umpire_archive::audit_entries(registry, log, rejections, |entry| {
        body.write_element(&mut first, &entry)
    })
    .map_err(|stop| match stop {
        AuditStop::Stopped(stop) => stop,
        AuditStop::Unauditable(divergence) => StreamStop::Unauditable(divergence),
    })?;
    body.write(b"],")?;
    body.write_fields_closing(&closing)?;
    body.finish()
}

/// The whole game as an archive, with its hash chain. Umpire only.
#[utoipa::path(
    operation_id = "export_game",
    tag = "archives",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The archive", body = Archive),
        (status = 401, description = "Missing or invalid token", body = ErrorBody),
        (status = 403, description = "Not the umpire token", body = ErrorBody),
        (status = 404, description = "No such game", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[get("/games/{id}/export")]
pub async fn export_game_archive(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    require_umpire(&state, game_id, &request).await?;
    let mut memory = state
        .service
        .reserve_memory(Charge::Audits, AUDIT_FIRST_BYTES)?;
    let log = state.service.export_log(game_id).await?;
    charge_log(&state, &mut memory, &log)?;
    let rejections = state.service.rejections(game_id).await?;
    let (mut body, response) = streamed_json();
    actix_web::rt::task::spawn_blocking(move || {
        let _memory = memory;
        // `rejections` is the archive's last field: the log is written with
        // an empty list, which is then opened again for the pages.
        let written = serde_json::to_vec(&log)
            .map_err(StreamStop::Encoding)
            .and_then(|whole| {
                let head = whole
                    .strip_suffix(b"[]}")
                    .expect("an archive ends with its (empty) rejections");
                body.write(head)?;
                body.write(b"[")?;
                let mut first = true;
                for rejection in rejections {
                    body.write_element(&mut first, &rejection.map_err(StreamStop::Store)?)?;
                }
                body.write(b"]}")?;
                body.finish()
            });
        if let Err(stop) = written {
            body.cut(game_id, "export", &stop);
        }
    });
    Ok(response)
}

/// Import an archive: replayed and validated first (chain, setup, every
/// action), then stored whole with new tokens, keeping its id and hashes.
/// An invalid archive is refused with the first failing event and why.
///
/// Many archives at once: send JSON Lines (`Content-Type:
/// application/x-ndjson`, one archive a line, up to 10,000 and 32 MiB).
/// The answer is then `200` JSON Lines, streamed, one `ImportLine` per
/// archive: its new tokens, or why it alone was refused. Valid archives are
/// stored a batch at a time, each game whole or not at all.
#[utoipa::path(
    operation_id = "import_game",
    tag = "archives",
    // The Python client's generator is given the spec without the JSON
    // Lines body (openapi/generate-clients.sh).
    request_body(
        content(
            (Archive = "application/json"),
            (Archive = "application/x-ndjson"),
        ),
        description = "One archive as JSON; or JSON Lines (`application/x-ndjson`): one archive a line, each line the schema given for that type"
    ),
    security((), ("bearer" = [])),
    responses(
        (status = 201, description = "Imported (one archive): the id and new tokens", body = CreatedGame),
        (status = 200, description = "JSON Lines sent: one line per archive, streamed", content_type = "application/x-ndjson", body = ImportLine),
        (status = 400, description = "Not an archive", body = ErrorBody),
        (status = 401, description = "The service requires the admin token to import games", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 409, description = "A game with this id is already stored", body = ErrorBody),
        (status = 422, description = "Refused: the first failing event (`details.seq`, `details.version`) and why", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[post("/games/import")]
pub async fn import_game(
    state: web::Data<AppState>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    // Importing creates a game: the same admin token as create_game, if set.
    crate::auth::require_admin(state.admin_token.as_deref(), &request)?;
    let mut turn = archive_body_turn(&state).await?;
    let body = read_body(&state, &mut turn, &request, payload, IMPORT_HANDLING).await?;
    if is_json_lines(&request) {
        return import_many(state, turn, body.freeze()).await;
    }
    let _turn = turn;
    // Parsed off the async threads (seconds for the largest bodies, see
    // `GameService::import`). The bytes go once parsed, and the archive is
    // moved into the import, not copied: a large body is held once at a time.
    let archive: umpire_archive::Archive = web::block(move || serde_json::from_slice(&body))
        .await
        .map_err(|e| ApiError::internal(format!("parsing an archive failed: {e}")))?
        .map_err(|e| {
            ApiError::bad_request(
                "invalid_archive",
                format!("The body is not an archive: {e}."),
            )
        })?;
    let created = state.service.import(archive).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/games/{}", created.id)))
        .json(created))
}

/// How many archives `body` holds, read once off the async threads: an
/// error for a malformed body or more than [`MAX_ARCHIVES_PER_REQUEST`]
/// (`done` says what would have been done to them).
async fn counted_archives(body: &Bytes, done: &'static str) -> Result<usize, ApiError> {
    let games = web::block({
        let body = body.clone();
        move || {
            let mut games = 0;
            each_archive(&body, |_, _| {
                games += 1;
                Ok(())
            })?;
            Ok::<_, ApiError>(games)
        }
    })
    .await
    .map_err(|e| ApiError::internal(format!("counting archives failed: {e}")))??;
    if games > MAX_ARCHIVES_PER_REQUEST {
        return Err(ApiError::too_large(format!(
            "The body holds {games} archives; at most {MAX_ARCHIVES_PER_REQUEST} are {done} per request."
        )));
    }
    Ok(games)
}

/// Whether the body is JSON Lines (`application/x-ndjson` or
/// `application/jsonl`).
fn is_json_lines(request: &HttpRequest) -> bool {
    request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| {
            matches!(
                media.trim().to_ascii_lowercase().as_str(),
                "application/x-ndjson" | "application/jsonl" | "application/json-lines"
            )
        })
}

/// Games validated, then stored, together in one transaction.
const IMPORT_BATCH: usize = 64;

/// Many archives in one request (JSON Lines): each validated by replay,
/// stored a batch at a time, and answered with one JSON line per archive,
/// in the body's order, as it is decided: `{"source": "line N", "imported":
/// {id, tokens}}` or `{"source": …, "refused": {code, message, …}}`. A
/// refused archive does not stop the others.
async fn import_many(
    state: web::Data<AppState>,
    turn: BodyTurn,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    // Counted once before anything is stored: a malformed body or one with
    // too many archives is refused whole.
    counted_archives(&body, "imported").await?;
    let service = state.service.clone();
    let (mut output, response) = streamed(ContentType(mime_json_lines()));
    let runtime = tokio::runtime::Handle::current();
    actix_web::rt::task::spawn_blocking(move || {
        let _turn = turn;
        let mut batch: Vec<(String, umpire_service::archives::PreparedImport)> = Vec::new();
        let store_batch = |batch: &mut Vec<(String, umpire_service::archives::PreparedImport)>,
                           output: &mut JsonBody|
         -> Result<(), StreamStop> {
            if batch.is_empty() {
                return Ok(());
            }
            let (sources, prepared): (Vec<String>, Vec<_>) =
                std::mem::take(batch).into_iter().unzip();
            let outcomes = match runtime.block_on(service.store_prepared(&prepared)) {
                Ok(outcomes) => outcomes,
                // One game's fault must not refuse the others: each alone.
                Err(_) => prepared
                    .iter()
                    .map(|game| {
                        runtime
                            .block_on(service.store_prepared(std::slice::from_ref(game)))
                            .and_then(|mut one| {
                                one.pop().unwrap_or_else(|| {
                                    Err(ServiceError::Internal("an import answered nothing".into()))
                                })
                            })
                    })
                    .collect(),
            };
            for (source, outcome) in sources.into_iter().zip(outcomes) {
                write_import_line(output, &source, outcome.map_err(|e| e.body()))?;
            }
            Ok(())
        };
        let written = each_archive(&body, |text, source| {
            let source = source.label();
            let prepared = match serde_json::from_str::<Archive>(text) {
                Ok(archive) => service.prepare_import(archive),
                Err(e) => Err(ServiceError::invalid(
                    "invalid_archive",
                    format!("Not an archive: {e}."),
                )),
            };
            match prepared {
                // Refusals are answered at once; games to store wait for
                // their batch, so lines follow the body's order only
                // within each kind.
                Err(refusal) => write_import_line(&mut output, &source, Err(refusal.body())),
                Ok(prepared) => {
                    batch.push((source, prepared));
                    if batch.len() >= IMPORT_BATCH {
                        store_batch(&mut batch, &mut output)?;
                    }
                    Ok(())
                }
            }
        })
        .map_err(|refused| match refused {
            ArchivesRefused::Stopped(stop) => stop,
            ArchivesRefused::Malformed(error) => StreamStop::Encoding(de::Error::custom(error)),
        })
        .and_then(|()| store_batch(&mut batch, &mut output))
        .and_then(|()| output.finish());
        if let Err(stop) = written {
            output.cut(Uuid::nil(), "import", &stop);
        }
    });
    Ok(response)
}

fn mime_json_lines() -> actix_web::mime::Mime {
    "application/x-ndjson".parse().expect("a media type")
}

/// One line of the answer to a JSON Lines import: where the archive was in
/// the body, and its new tokens or why it was refused.
#[derive(Serialize, ToSchema)]
pub struct ImportLine {
    /// `body:N`, the line of the body.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported: Option<CreatedGame>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<umpire_service::ErrorBody>,
}

/// One line of a many-archive import's answer.
fn write_import_line(
    output: &mut JsonBody,
    source: &str,
    outcome: Result<CreatedGame, umpire_service::ErrorBody>,
) -> Result<(), StreamStop> {
    let (imported, refused) = match outcome {
        Ok(created) => (Some(created), None),
        Err(refusal) => (None, Some(refusal)),
    };
    let line = ImportLine {
        source: source.to_string(),
        imported,
        refused,
    };
    let mut text = serde_json::to_vec(&line)?;
    text.push(b'\n');
    output.write(&text)
}

/// Score archives sent in the body (one archive, a JSON array of archives,
/// or JSON Lines); nothing is stored. One bad archive is one error row.
#[utoipa::path(
    operation_id = "score_archives",
    tag = "archives",
    // openapi-python-client 0.29 generates code that does not import for
    // an operation with two request content types: its generator is given
    // the spec without the JSON Lines one (openapi/generate-clients.sh).
    request_body(
        content(
            (ArchivesToScore = "application/json"),
            (Archive = "application/x-ndjson"),
        ),
        description = "An archive or an array of archives as JSON; or JSON Lines (`application/x-ndjson`): one archive a line, each line the schema given for that type"
    ),
    responses(
        (status = 200, description = "One row per archive, in order", body = ScoreRows),
        (status = 400, description = "The body is not JSON", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 503, description = "Too many archive bodies at once (`busy`); retry after `Retry-After`", body = ErrorBody),
    )
)]
#[post("/scores")]
pub async fn score_archives(
    state: web::Data<AppState>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let mut turn = archive_body_turn(&state).await?;
    let body = read_body(&state, &mut turn, &request, payload, SCORING_HANDLING)
        .await?
        .freeze();
    // The whole body is read once without scoring: a malformed body or one
    // with too many archives is refused before the answer starts.
    let games = counted_archives(&body, "scored").await?;
    let registry = state.service.registry().clone();
    let (mut output, response) = streamed_json();
    actix_web::rt::task::spawn_blocking(move || {
        // The body is held until its last row is written.
        let _turn = turn;
        // One row at a time: memory stays that of the body and one row,
        // however many rows there are.
        let mut errors = 0;
        let mut first = true;
        let written = output
            .write(format!("{{\"games\":{games},\"rows\":[").as_bytes())
            .and_then(|()| {
                each_archive(&body, |text, source| {
                    let row = umpire_archive::score_archive_text(&registry, text, &source.label())
                        .bounded();
                    errors += usize::from(row.error.is_some());
                    output.write_element(&mut first, &row)
                })
                .map_err(|refused| match refused {
                    ArchivesRefused::Stopped(stop) => stop,
                    // The same body was read whole before the answer began.
                    ArchivesRefused::Malformed(error) => {
                        StreamStop::Encoding(de::Error::custom(error))
                    }
                })
            })
            .and_then(|()| output.write(format!("],\"errors\":{errors}}}").as_bytes()))
            .and_then(|()| output.finish());
        if let Err(stop) = written {
            output.cut(Uuid::nil(), "scores", &stop);
        }
    });
    Ok(response)
}

/// Where an archive stood in a scoring body, for its row's `source`.
#[derive(Clone, Copy)]
enum ArchiveSource {
    /// The index in a JSON array.
    Element(usize),
    /// The line (from 1) of JSON Lines, or line 1 for a single document.
    Line(usize),
}

impl ArchiveSource {
    fn label(self) -> String {
        match self {
            ArchiveSource::Element(index) => format!("body[{index}]"),
            ArchiveSource::Line(line) => format!("body:{line}"),
        }
    }
}

/// Why a scoring body was not read to its end.
enum ArchivesRefused {
    Malformed(String),
    Stopped(StreamStop),
}

impl From<ArchivesRefused> for ApiError {
    fn from(refused: ArchivesRefused) -> Self {
        match refused {
            ArchivesRefused::Malformed(message) => ApiError::bad_request("malformed_json", message),
            ArchivesRefused::Stopped(stop) => {
                ApiError::internal(format!("counting archives stopped: {stop}"))
            }
        }
    }
}

impl From<StreamStop> for ArchivesRefused {
    fn from(stop: StreamStop) -> Self {
        ArchivesRefused::Stopped(stop)
    }
}

/// Calls `each` with every archive of a scoring body (one archive, a JSON
/// array of archives, or JSON Lines) and where it stood, one at a time: an
/// array is walked element by element, never collected.
fn each_archive(
    body: &[u8],
    mut each: impl FnMut(&str, ArchiveSource) -> Result<(), StreamStop>,
) -> Result<(), ArchivesRefused> {
    let text = std::str::from_utf8(body)
        .map_err(|_| ArchivesRefused::Malformed("The body is not UTF-8.".into()))?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let mut stopped = None;
        let mut deserializer = serde_json::Deserializer::from_str(trimmed);
        let walked = EachElement {
            each: &mut each,
            stopped: &mut stopped,
        }
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
        if let Some(stop) = stopped {
            return Err(ArchivesRefused::Stopped(stop));
        }
        return walked.map_err(|e| ArchivesRefused::Malformed(format!("{e}.")));
    }
    // JSON Lines, or one archive (possibly spanning lines).
    if let Ok(raw) = serde_json::from_str::<&RawValue>(trimmed) {
        return Ok(each(raw.get(), ArchiveSource::Line(1))?);
    }
    for (index, line) in text.split('\n').enumerate() {
        if !line.trim().is_empty() {
            each(line, ArchiveSource::Line(index + 1))?;
        }
    }
    Ok(())
}

/// Walks a JSON array, handing each element's text to `each` as it is read.
struct EachElement<'a, F> {
    each: &'a mut F,
    /// Set when `each` stopped the walk (the walk itself then fails too).
    stopped: &'a mut Option<StreamStop>,
}

impl<'de, F> DeserializeSeed<'de> for EachElement<'_, F>
where
    F: FnMut(&str, ArchiveSource) -> Result<(), StreamStop>,
{
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, F> Visitor<'de> for EachElement<'_, F>
where
    F: FnMut(&str, ArchiveSource) -> Result<(), StreamStop>,
{
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("an array of archives")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut elements: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(raw) = elements.next_element::<&RawValue>()? {
            if let Err(stop) = (self.each)(raw.get(), ArchiveSource::Element(index)) {
                *self.stopped = Some(stop);
                return Err(de::Error::custom("stopped"));
            }
            index += 1;
        }
        Ok(())
    }
}

/// Why a streamed answer ended before its end.
#[derive(Debug, thiserror::Error)]
enum StreamStop {
    #[error("the client went away")]
    ClientGone,
    #[error("the client stopped reading the answer for {} s", READER_STALL.as_secs())]
    ReaderStalled,
    #[error("reading the game failed: {0}")]
    Store(#[from] StoreError),
    #[error("the answer could not be encoded: {0}")]
    Encoding(#[from] serde_json::Error),
    #[error("the stored game cannot be audited: {0}")]
    Unauditable(umpire_archive::Divergence),
}

/// The writing end of a streamed JSON answer, for a blocking thread: bytes
/// are gathered into chunks of [`CHUNK_BYTES`] and handed to the response
/// through a channel of [`CHUNKS_IN_FLIGHT`], so a writer faster than its
/// client waits instead of piling the answer up in memory.
struct JsonBody {
    chunks: mpsc::Sender<Result<Bytes, std::io::Error>>,
    /// The runtime the response is sent from, to wait on the channel with a
    /// deadline from the writer's blocking thread.
    runtime: tokio::runtime::Handle,
    buffer: Vec<u8>,
    /// Set once the answer is whole. A body dropped without it (cut, or
    /// its writer panicked) ends the response with an error rather than
    /// with the end of the body: the status and part of the body are already
    /// sent, so the client must see the connection closed on an unfinished
    /// chunked body (and invalid JSON), never a complete-looking document.
    whole: Arc<AtomicBool>,
}

/// A streamed `200 application/json` answer and the body to write it with.
fn streamed_json() -> (JsonBody, HttpResponse) {
    streamed(ContentType::json())
}

/// A streamed `200` answer of `content_type` and the body to write it with.
fn streamed(content_type: ContentType) -> (JsonBody, HttpResponse) {
    let (chunks, mut receiver) = mpsc::channel(CHUNKS_IN_FLIGHT);
    let whole = Arc::new(AtomicBool::new(false));
    let mut ended = false;
    let stream = futures_util::stream::poll_fn({
        let whole = whole.clone();
        move |context| match receiver.poll_recv(context) {
            Poll::Ready(None) if !ended && !whole.load(Ordering::SeqCst) => {
                ended = true;
                Poll::Ready(Some(Err(std::io::Error::other(
                    "the answer was cut short; the cause is in the service's log",
                ))))
            }
            polled => polled,
        }
    });
    let response = HttpResponse::Ok()
        .content_type(content_type)
        .streaming(stream);
    let body = JsonBody {
        chunks,
        runtime: tokio::runtime::Handle::current(),
        buffer: Vec::with_capacity(CHUNK_BYTES),
        whole,
    };
    (body, response)
}

impl JsonBody {
    fn write(&mut self, bytes: &[u8]) -> Result<(), StreamStop> {
        self.buffer.extend_from_slice(bytes);
        self.send_when_full()
    }

    /// `value` as an element of an array being written: a comma before all
    /// but the first.
    fn write_element(
        &mut self,
        first: &mut bool,
        value: &impl Serialize,
    ) -> Result<(), StreamStop> {
        if !std::mem::take(first) {
            self.buffer.push(b',');
        }
        serde_json::to_writer(&mut self.buffer, value)?;
        self.send_when_full()
    }

    /// `{` and the fields of `object`, left open for more.
    fn write_fields_opening(&mut self, object: &impl Serialize) -> Result<(), StreamStop> {
        let text = serde_json::to_vec(object)?;
        self.write(text.strip_suffix(b"}").expect("an object ends with }"))
    }

    /// The fields of `object` and `}`, closing an object opened before.
    fn write_fields_closing(&mut self, object: &impl Serialize) -> Result<(), StreamStop> {
        let text = serde_json::to_vec(object)?;
        self.write(text.strip_prefix(b"{").expect("an object starts with {"))
    }

    fn send_when_full(&mut self) -> Result<(), StreamStop> {
        if self.buffer.len() >= CHUNK_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> Result<(), StreamStop> {
        let chunk = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES));
        let sent = self.runtime.block_on(tokio::time::timeout(
            READER_STALL,
            self.chunks.send(Ok(Bytes::from(chunk))),
        ));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(StreamStop::ClientGone),
            Err(_) => Err(StreamStop::ReaderStalled),
        }
    }

    fn finish(&mut self) -> Result<(), StreamStop> {
        self.send()?;
        self.whole.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Ends the answer early, with the cause in the log.
    fn cut(self, game_id: Uuid, answer: &str, stop: &StreamStop) {
        if let StreamStop::ClientGone | StreamStop::ReaderStalled = stop {
            tracing::debug!(%game_id, answer, cause = %stop, "the client left before the end of the answer");
        } else {
            tracing::error!(%game_id, answer, cause = %stop, "a streamed answer was cut short");
        }
    }
}

/// The answer of `/v1/scores` (streamed: `games`, then the rows as they
/// are scored, then `errors`).
#[derive(serde::Serialize, ToSchema)]
pub struct ScoreRows {
    /// Archives in the body.
    pub games: usize,
    /// Rows with an error.
    pub errors: usize,
    /// One row per archive, in the body's order.
    pub rows: Vec<ScoreRow>,
}

/// The body of a what-if: options to change, as a JSON merge patch.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"options": {"broken_tree": "minus_twenty"}}))]
pub struct WhatIfRequest {
    /// A JSON merge patch over the game's options: the options to change.
    #[schema(schema_with = options_patch)]
    pub options: Value,
}

/// Any object: some of a game's options, with other values.
fn options_patch() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .build()
}

/// Re-run the game's actions under other options; the first version where
/// the outcome differs and how the final scores change. Umpire only.
#[utoipa::path(
    operation_id = "run_game_what_if",
    tag = "archives",
    params(("id" = Uuid, Path, description = "Game id")),
    request_body = WhatIfRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The comparison", body = WhatIfReport),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "Missing or invalid token", body = ErrorBody),
        (status = 403, description = "Not the umpire token", body = ErrorBody),
        (status = 404, description = "No such game", body = ErrorBody),
        (status = 415, description = "The body was sent without `Content-Type: application/json`", body = ErrorBody),
        (status = 422, description = "The options are refused, or the stored game does not replay", body = ErrorBody),
        (status = 503, description = "Database unavailable", body = ErrorBody),
    )
)]
#[post("/games/{id}/what-if")]
pub async fn run_game_what_if(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
    body: web::Json<WhatIfRequest>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    require_umpire(&state, game_id, &request).await?;
    let report = state
        .service
        .what_if(game_id, body.into_inner().options)
        .await?;
    Ok(HttpResponse::Ok().json(report))
}
