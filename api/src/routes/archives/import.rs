//! `POST /v1/games/import`: one archive (answered `201` with its tokens), or
//! many as JSON Lines, imported by the service's one importer
//! (`umpire_service::import`) and answered line by line as it goes.

use actix_web::http::header::{self, ContentType};
use actix_web::{post, web, HttpRequest, HttpResponse};
use umpire_archive::reading::ArchiveText;
use umpire_archive::Archive;
use umpire_service::import::ImportLine;
use umpire_service::model::CreatedGame;
use umpire_service::ImportPace;
use uuid::Uuid;

use super::body::{
    archive_body_turn, archives_in_body, read_body, BodyText, BodyTurn, IMPORT_HANDLING,
};
use super::streamed::{streamed, StreamStop};
use crate::error::{ApiError, ErrorBody};
use crate::AppState;

/// Import lines made but not yet written to the answer.
const LINES_QUEUED: usize = 16;

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
        (status = 429, description = "Without an admin token: this address created its share of games for now (`too_many_games`, `Retry-After`)", body = ErrorBody),
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
    crate::auth::admit_creation(&state, &request)?;
    let mut turn = archive_body_turn(&state).await?;
    let body = read_body(&state, &mut turn, &request, payload, IMPORT_HANDLING).await?;
    if is_json_lines(&request) {
        return import_many(state, turn, body).await;
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

/// Many archives in one request (JSON Lines): each validated by replay and
/// stored a batch at a time by the service's importer, which answers one
/// [`ImportLine`] per archive in the body's order, written as each batch is
/// decided. A refused archive does not stop the others. The body is read
/// once before anything is stored: a malformed body or one with too many
/// archives is refused whole.
async fn import_many(
    state: web::Data<AppState>,
    turn: BodyTurn,
    body: web::BytesMut,
) -> Result<HttpResponse, ApiError> {
    let found = archives_in_body(body, "imported").await?;
    let texts: Vec<ArchiveText<BodyText>> = found
        .archives
        .into_iter()
        .map(|(span, place)| ArchiveText {
            source: place.label("body"),
            text: BodyText {
                body: found.text.clone(),
                span,
            },
        })
        .collect();
    drop(found.text);
    let service = state.service.clone();
    let (mut output, response) = streamed(ContentType(mime_json_lines()));
    let (lines, mut to_write) = tokio::sync::mpsc::channel::<ImportLine>(LINES_QUEUED);
    actix_web::rt::spawn(async move {
        // The body and its memory are held until the last line is written.
        let _turn = turn;
        let importing = service.import_archives(texts, ImportPace::one_at_a_time(), lines);
        // Owns the receiving end: once it stops (the client left), the
        // importer's next line finds nobody and the import stops too.
        let writing = async move {
            let mut written = Ok(());
            while let Some(line) = to_write.recv().await {
                written = output.write_line(&line).await;
                if written.is_err() {
                    break;
                }
            }
            (output, written)
        };
        let (imported, (mut output, written)) = tokio::join!(importing, writing);
        // A client that left stops the import: that is the cause to log.
        let finished = match written.and(imported.map_err(StreamStop::from)) {
            Ok(_) => output.finish_async().await,
            Err(stop) => Err(stop),
        };
        if let Err(stop) = finished {
            output.cut(Uuid::nil(), "import", &stop);
        }
    });
    Ok(response)
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

fn mime_json_lines() -> actix_web::mime::Mime {
    "application/x-ndjson".parse().expect("a media type")
}
