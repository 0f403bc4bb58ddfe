//! Archives over HTTP: audit and export a game (umpire only), import an
//! archive (validated by replay before anything is stored), what-if re-runs,
//! and scoring archives sent in the body without storing them.

use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::{principal, Principal};
use crate::commands::{export_game, import_archive, refused};
use crate::error::{ApiError, ErrorBody};
use crate::model::CreatedGame;
use crate::AppState;

/// Largest archive body accepted by import and scoring. Archives are much
/// larger than actions, so these endpoints read their body themselves.
pub const MAX_ARCHIVE_BYTES: usize = 32 * 1024 * 1024;

async fn read_body(mut payload: web::Payload) -> Result<web::BytesMut, ApiError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::bad_request(
                "malformed_body",
                format!("The body could not be read: {e}."),
            )
        })?;
        if body.len() + chunk.len() > MAX_ARCHIVE_BYTES {
            return Err(ApiError::PayloadTooLarge {
                message: format!("The body is larger than the limit of {MAX_ARCHIVE_BYTES} bytes."),
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Only the umpire may audit or export: a seat would see the others' secrets.
async fn require_umpire(
    state: &AppState,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<(), ApiError> {
    state.service.record(game_id).await?;
    match principal(&state.service, game_id, request).await? {
        Principal::Umpire => Ok(()),
        Principal::Spectator => Err(ApiError::Unauthorized {
            code: "missing_token",
            message: "This needs the umpire token: Authorization: Bearer <token>.".into(),
        }),
        Principal::Seat(_) => Err(ApiError::Forbidden {
            code: "umpire_only",
            message: "Only the umpire may do this: it shows every seat's secrets.".into(),
        }),
    }
}

/// A JSON document defined by the archive crate (see `archive/README.md`).
#[derive(ToSchema)]
#[schema(value_type = Object)]
pub struct AuditReportBody(pub Value);

/// An archive: `{format, format_version, game_id, game, options, seed,
/// rules_version, created_at, events, rejections}` (see `archive/README.md`).
#[derive(ToSchema)]
#[schema(value_type = Object)]
pub struct ArchiveBody(pub Value);

/// The what-if report (see `archive/README.md`).
#[derive(ToSchema)]
#[schema(value_type = Object)]
pub struct WhatIfBody(pub Value);

/// Audit by replay: the chain verified, every action re-decided with today's
/// rules, rejected attempts interleaved, the first divergence. Umpire only.
#[utoipa::path(
    operation_id = "get_game_audit",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The audit report", body = AuditReportBody),
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
    let archive = export_game(&state.service.store, game_id).await?;
    let registry = state.service.registry.clone();
    let report = web::block(move || umpire_archive::audit(&registry, &archive))
        .await
        .map_err(|e| ApiError::Internal(format!("audit task failed: {e}")))?
        .map_err(|d| ApiError::Internal(format!("stored game {game_id} cannot be audited: {d}")))?;
    Ok(HttpResponse::Ok().json(report))
}

/// The whole game as an archive, with its hash chain. Umpire only.
#[utoipa::path(
    operation_id = "export_game",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The archive", body = ArchiveBody),
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
    let archive = export_game(&state.service.store, game_id).await?;
    Ok(HttpResponse::Ok().json(archive))
}

/// Import an archive: replayed and validated first (chain, setup, every
/// action), then stored whole with new tokens, keeping its id and hashes.
/// An invalid archive is refused with the first failing event and why.
#[utoipa::path(
    operation_id = "import_game",
    tag = "games",
    request_body = ArchiveBody,
    security((), ("bearer" = [])),
    responses(
        (status = 201, description = "Imported: the id and new tokens", body = CreatedGame),
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
    let body = read_body(payload).await?;
    let archive: umpire_archive::Archive = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(
            "invalid_archive",
            format!("The body is not an archive: {e}."),
        )
    })?;
    let created = import_archive(&state.service.store, &state.service.registry, &archive).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/games/{}", created.id)))
        .json(created))
}

/// Score archives sent in the body (one archive, a JSON array of archives,
/// or JSON Lines); nothing is stored. One bad archive is one error row.
#[utoipa::path(
    operation_id = "score_archives",
    tag = "games",
    request_body(content = ArchiveBody, description = "An archive, an array of archives, or JSON Lines (application/x-ndjson)"),
    responses(
        (status = 200, description = "One row per archive, in order", body = ScoreRows),
        (status = 400, description = "The body is not JSON", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
    )
)]
#[post("/scores")]
pub async fn score_archives(
    state: web::Data<AppState>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let body = read_body(payload).await?;
    let registry = state.service.registry.clone();
    let rows = web::block(move || score_body(&registry, &body))
        .await
        .map_err(|e| ApiError::Internal(format!("scoring task failed: {e}")))??;
    let errors = rows.iter().filter(|r| r.error.is_some()).count();
    Ok(HttpResponse::Ok().json(ScoreRows {
        games: rows.len(),
        errors,
        rows: rows.into_iter().map(ScoreRowBody).collect(),
    }))
}

fn score_body(
    registry: &umpire_domain::Registry,
    body: &[u8],
) -> Result<Vec<umpire_archive::ScoreRow>, ApiError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| ApiError::bad_request("malformed_body", "The body is not UTF-8."))?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let archives: Vec<&serde_json::value::RawValue> = serde_json::from_str(trimmed)
            .map_err(|e| ApiError::bad_request("malformed_json", format!("{e}.")))?;
        return Ok(archives
            .iter()
            .enumerate()
            .map(|(index, raw)| {
                umpire_archive::score_archive_text(registry, raw.get(), &format!("body[{index}]"))
            })
            .collect());
    }
    // JSON Lines, or one archive (possibly spanning lines).
    if let Ok(raw) = serde_json::from_str::<&serde_json::value::RawValue>(trimmed) {
        return Ok(vec![umpire_archive::score_archive_text(
            registry,
            raw.get(),
            "body:1",
        )]);
    }
    Ok(text
        .split('\n')
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            umpire_archive::score_archive_text(registry, line, &format!("body:{}", index + 1))
        })
        .collect())
}

/// One scored archive: `{game_id, game, source, events, final, totals,
/// winners, error}`.
#[derive(serde::Serialize, ToSchema)]
#[schema(value_type = Object)]
pub struct ScoreRowBody(pub umpire_archive::ScoreRow);

#[derive(serde::Serialize, ToSchema)]
pub struct ScoreRows {
    pub games: usize,
    pub errors: usize,
    pub rows: Vec<ScoreRowBody>,
}

/// The body of a what-if: options to change, as a JSON merge patch.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"options": {"broken_tree": "minus_twenty"}}))]
pub struct WhatIfRequest {
    #[schema(value_type = Object)]
    pub options: Value,
}

/// Re-run the game's actions under other options; the first version where
/// the outcome differs and how the final scores change. Umpire only.
#[utoipa::path(
    operation_id = "run_game_what_if",
    tag = "games",
    params(("id" = Uuid, Path, description = "Game id")),
    request_body = WhatIfRequest,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The comparison", body = WhatIfBody),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "Missing or invalid token", body = ErrorBody),
        (status = 403, description = "Not the umpire token", body = ErrorBody),
        (status = 404, description = "No such game", body = ErrorBody),
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
    let archive = export_game(&state.service.store, game_id).await?;
    let registry = state.service.registry.clone();
    let patch = body.into_inner().options;
    let report = web::block(move || umpire_archive::what_if(&registry, &archive, &patch))
        .await
        .map_err(|e| ApiError::Internal(format!("what-if task failed: {e}")))?
        .map_err(|error| match error {
            umpire_archive::WhatIfError::Invalid(divergence) => refused(&divergence),
            umpire_archive::WhatIfError::Options(error) => ApiError::from(error),
        })?;
    Ok(HttpResponse::Ok().json(report))
}
