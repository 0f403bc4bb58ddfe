//! Credentials as HTTP carries them: the bearer token of a request, resolved
//! by the service into who is calling.

use actix_web::http::header;
use actix_web::HttpRequest;
use umpire_domain::Viewer;
use umpire_service::{access, Credential, GameService, ServiceError};
use uuid::Uuid;

use crate::error::ApiError;

/// The bearer token of a request, if any. A malformed header is an error
/// rather than silently treated as a spectator.
pub fn bearer_token(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let invalid = || {
        ApiError::from(ServiceError::Unauthenticated {
            code: "invalid_token",
            message: "The Authorization header must be `Bearer <token>`.".into(),
        })
    };
    let value = value.to_str().map_err(|_| invalid())?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .ok_or_else(invalid)?
        .trim();
    if token.is_empty() || token.len() > 256 {
        return Err(invalid());
    }
    Ok(Some(token.to_string()))
}

/// Who sends `request` to a game: 404 for an unknown game before anything
/// about the token is said (so a stranger's token cannot tell games apart),
/// 401 for a token that is not valid there, a spectator without one.
pub async fn viewer(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<Viewer<String>, ApiError> {
    match bearer_token(request) {
        Ok(token) => Ok(service.viewer(game_id, token.as_deref()).await?),
        Err(malformed) => {
            service.record(game_id).await?;
            Err(malformed)
        }
    }
}

/// Who sends an action to a game: as [`viewer`], a seat's grant possibly
/// remembered and confirmed by the submission itself
/// (`umpire_service::Credential`).
pub async fn credential(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<Credential, ApiError> {
    match bearer_token(request) {
        Ok(token) => Ok(service.credential(game_id, token.as_deref()).await?),
        Err(malformed) => {
            service.record(game_id).await?;
            Err(malformed)
        }
    }
}

/// Only the umpire may audit, export or re-run a game: each shows every
/// seat's secrets.
pub async fn require_umpire(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<(), ApiError> {
    Ok(access::require_umpire(
        &viewer(service, game_id, request).await?,
    )?)
}

/// Checks the admin token for game creation and import, when one is set.
pub fn require_admin(configured: Option<&str>, request: &HttpRequest) -> Result<(), ApiError> {
    let presented = bearer_token(request)?;
    Ok(umpire_service::access::require_admin(
        configured,
        presented.as_deref(),
    )?)
}

/// Admits a game's creation or import: the admin token when one is set;
/// without one anyone may create games, each client address only so often
/// (`umpire_service::throttle`).
pub fn admit_creation(state: &crate::AppState, request: &HttpRequest) -> Result<(), ApiError> {
    require_admin(state.admin_token.as_deref(), request)?;
    if state.admin_token.is_none() {
        state
            .service
            .admit_creation(state.trusted_proxies.client_of(request))?;
    }
    Ok(())
}

/// Checks the admin token for `doing` ("Listing games"), when one is set.
pub fn require_admin_to(
    doing: &str,
    configured: Option<&str>,
    request: &HttpRequest,
) -> Result<(), ApiError> {
    let presented = bearer_token(request)?;
    Ok(umpire_service::access::require_admin_to(
        doing,
        configured,
        presented.as_deref(),
    )?)
}
