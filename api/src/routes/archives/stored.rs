//! A stored game read for the umpire before an audit or an export starts
//! its streamed answer: everything that can fail is tried before the first
//! byte, since once the answer has started it can no longer become an error
//! status.

use actix_web::HttpRequest;
use futures_util::future::BoxFuture;
use umpire_archive::Archive;
use umpire_service::{Charge, GameService, PagedRejections, Reservation, ServiceError};
use uuid::Uuid;

use crate::auth::require_umpire;
use crate::error::ApiError;
use crate::AppState;

/// What an audit or export reserves before it reads the game's log; once
/// read, the log is measured and the rest charged. So a crowd of audits is
/// refused up front rather than each reading a log first.
const AUDIT_FIRST_BYTES: usize = 1024 * 1024;

/// A stored game's log as `read` gave it (with what else it made of it),
/// its rejections' first page read, and the memory both are charged.
pub(super) struct StoredForUmpire<T> {
    pub memory: Reservation,
    pub log: Archive,
    pub made: T,
    pub rejections: PagedRejections,
}

/// Checks that the caller is the game's umpire, reserves memory, reads the
/// log with `read` (charging what it measures, twice: the audit's replay
/// and the answer being written hold as much again) and the rejections'
/// first page.
pub(super) async fn read_for_umpire<T>(
    state: &AppState,
    request: &HttpRequest,
    game_id: Uuid,
    read: impl for<'a> FnOnce(&'a GameService) -> BoxFuture<'a, Result<(Archive, T), ServiceError>>,
) -> Result<StoredForUmpire<T>, ApiError> {
    require_umpire(&state.service, game_id, request).await?;
    let mut memory = state
        .service
        .reserve_memory(Charge::Audits, AUDIT_FIRST_BYTES)?;
    let (log, made) = read(&state.service).await?;
    let measured = 2 * umpire_service::budget::archive_bytes(&log);
    let more = measured.saturating_sub(memory.bytes());
    state.service.grow_reservation(&mut memory, more)?;
    let rejections = state.service.rejections(game_id).await?;
    Ok(StoredForUmpire {
        memory,
        log,
        made,
        rejections,
    })
}
