//! `GET /v1/games/{id}/audit`: a stored game audited by replay, streamed
//! entry by entry as each is judged.

use actix_web::{get, web, HttpRequest, HttpResponse};
use umpire_archive::{AuditReport, AuditStop};
use umpire_service::{Charge, PagedRejections};
use uuid::Uuid;

use super::require_umpire;
use super::streamed::{streamed_json, JsonBody, StreamStop};
use crate::error::{ApiError, ErrorBody};
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
pub(super) const AUDIT_FIRST_BYTES: usize = 1024 * 1024;

/// Charges `memory` for what `log` measures (and the same again for the
/// audit's replay and the answer being written), beyond what it holds.
pub(super) fn charge_log(
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
