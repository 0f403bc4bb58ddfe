//! `GET /v1/games/{id}/audit`: a stored game audited by replay, streamed
//! entry by entry as each is judged.

use crate::routes::error_answers::UmpireOnly;
use actix_web::{get, web, HttpRequest, HttpResponse};
use umpire_archive::{AuditReport, AuditStop};
use umpire_service::PagedRejections;
use uuid::Uuid;

use super::stored::{read_for_umpire, StoredForUmpire};
use super::streamed::{streamed_json, JsonBody, StreamStop};
use crate::error::ApiError;
use crate::AppState;

/// Audit by replay: the chain verified, every action re-decided with today's
/// rules, rejected attempts interleaved, the first divergence. Umpire only.
#[utoipa::path(
    operation_id = "get_game_audit",
    tag = "archives",
    params(("id" = Uuid, Path, description = "Game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The audit report", body = AuditReport),
        UmpireOnly,
    )
)]
#[get("/games/{id}/audit")]
pub async fn get_game_audit(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let game_id = id.into_inner();
    let stored = read_for_umpire(&state, &request, game_id, |service| {
        Box::pin(service.audit_opening(game_id))
    })
    .await?;
    let registry = state.service.registry().clone();
    let (mut body, response) = streamed_json();
    actix_web::rt::task::spawn_blocking(move || {
        let StoredForUmpire {
            memory: _memory,
            log,
            made: opening,
            rejections,
        } = stored;
        if let Err(stop) = write_audit(&mut body, &registry, &log, &opening, rejections) {
            body.cut(game_id, "audit", &stop);
        }
    });
    Ok(response)
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
