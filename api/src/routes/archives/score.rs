//! `POST /v1/scores`: archives sent in the body scored one at a time, each
//! one's hash chain checked first unless the caller trusts it (as `umpire
//! score` does, by the same function), rows streamed as they are made;
//! nothing is stored.

use actix_web::{post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use umpire_archive::{Archive, ScoreRow};
use utoipa::ToSchema;
use uuid::Uuid;

use super::body::{archive_body_turn, archives_in_body, read_body, SCORING_HANDLING};
use super::streamed::streamed_json;
use crate::error::{ApiError, ErrorBody};
use crate::params::ScoresQuery;
use crate::AppState;

/// What `/v1/scores` takes as `application/json`: one archive, or an array.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
pub enum ArchivesToScore {
    One(Archive),
    Many(Vec<Archive>),
}

/// Score archives sent in the body (one archive, a JSON array of archives,
/// or JSON Lines); nothing is stored. Each archive's hash chain is checked
/// before it is scored, unless `trust_chain=true`. One bad archive is one
/// error row, with its `error` and its `code`.
#[utoipa::path(
    operation_id = "score_archives",
    tag = "archives",
    params(ScoresQuery),
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
        (status = 400, description = "The body is not JSON, or the query is not `trust_chain` (`invalid_query`)", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 503, description = "Too many archive bodies at once (`busy`); retry after `Retry-After`", body = ErrorBody),
    )
)]
#[post("/scores")]
pub async fn score_archives(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<ScoresQuery>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let chain = query.chain();
    let mut turn = archive_body_turn(&state).await?;
    let body = read_body(&state, &mut turn, &request, payload, SCORING_HANDLING).await?;
    // The whole body is read once without scoring: a malformed body or one
    // with too many archives is refused before the answer starts.
    let found = archives_in_body(body, "scored").await?;
    let registry = state.service.registry().clone();
    let (mut output, response) = streamed_json();
    actix_web::rt::task::spawn_blocking(move || {
        // The body is held until its last row is written.
        let _turn = turn;
        // One row at a time: memory stays that of the body and one row,
        // however many rows there are.
        let mut errors = 0;
        let mut first = true;
        let games = found.archives.len();
        let written = output
            .write(format!("{{\"games\":{games},\"rows\":[").as_bytes())
            .and_then(|()| {
                found.archives.iter().try_for_each(|(span, place)| {
                    let text = &found.text[span.clone()];
                    let row =
                        umpire_archive::score_archive(&registry, text, &place.label("body"), chain)
                            .bounded();
                    errors += usize::from(row.error.is_some());
                    output.write_element(&mut first, &row)
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
