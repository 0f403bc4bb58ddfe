//! Credentials as HTTP carries them: the bearer token of a request, or the
//! seat's cookie a game's page keeps (`seat_cookie.rs`), resolved by the
//! service into who is calling.

use actix_web::http::{header, Method};
use actix_web::HttpRequest;
use umpire_domain::Viewer;
use umpire_service::{access, Credential, GameService, Presented, ServiceError};
use uuid::Uuid;

use crate::error::ApiError;
use crate::seat_cookie;

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

/// What `request` presents to say who sends it: its bearer token, which
/// wins; else the seat's cookie, only from the game's own page (403
/// `cross_site_request` from anywhere else, `seat_cookie.rs`); else nothing.
pub fn presented(request: &HttpRequest) -> Result<Presented, ApiError> {
    if let Some(token) = bearer_token(request)? {
        return Ok(Presented::Token(token));
    }
    let Some(secret) = seat_cookie::value(request)? else {
        return Ok(Presented::Nothing);
    };
    let safe = matches!(*request.method(), Method::GET | Method::HEAD);
    if !seat_cookie::from_own_origin(request, safe) {
        return Err(seat_cookie::cross_site());
    }
    Ok(Presented::PageSession(secret))
}

/// A page session's refusal answered with its cookie cleared; any other
/// error as it is.
pub fn clearing_an_ended_cookie(
    error: ServiceError,
    game_id: Uuid,
    request: &HttpRequest,
) -> ApiError {
    match error {
        ServiceError::Unauthenticated {
            code: "page_session_ended",
            ..
        } => ApiError::SeatCookieEnded {
            error: Box::new(error),
            clear_cookie: seat_cookie::cleared(game_id, seat_cookie::from_https_page(request)),
        },
        other => other.into(),
    }
}

/// Who sends `request` to a game: 404 for an unknown game before anything
/// about the token or cookie is said (so a stranger's token cannot tell
/// games apart), 401 for a token or a seat's cookie that is not valid
/// there, a spectator without either.
pub async fn viewer(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<Viewer<String>, ApiError> {
    match presented(request) {
        Ok(presented) => service
            .viewer_of(game_id, &presented)
            .await
            .map_err(|error| clearing_an_ended_cookie(error, game_id, request)),
        Err(refused) => {
            service.record(game_id).await?;
            Err(refused)
        }
    }
}

/// Whom a read of a game is answered for: its caller ([`viewer`]), or
/// whom it asks to look as (`?as=`, `umpire_service::access::looking_as`).
pub async fn viewer_looking_as(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
    looking: Option<&str>,
) -> Result<Viewer<String>, ApiError> {
    let caller = viewer(service, game_id, request).await?;
    Ok(access::looking_as(caller, looking)?)
}

/// Who sends an action to a game: as [`viewer`], a seat's grant possibly
/// remembered and confirmed by the submission itself
/// (`umpire_service::Credential`).
pub async fn credential(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<Credential, ApiError> {
    match presented(request) {
        Ok(presented) => service
            .credential_of(game_id, &presented)
            .await
            .map_err(|error| clearing_an_ended_cookie(error, game_id, request)),
        Err(refused) => {
            service.record(game_id).await?;
            Err(refused)
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
