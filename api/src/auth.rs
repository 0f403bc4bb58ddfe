//! Who is calling: a seat token, the umpire token, or nobody (a spectator).
//!
//! Tokens are 256 random bits, shown once at game creation and stored only as
//! SHA-256 hashes. A presented token is hashed and looked up by
//! `(game_id, token_hash)`: the secret itself is never compared byte by byte,
//! so response timing says nothing about how much of a guess was right.

use actix_web::http::header;
use actix_web::HttpRequest;
use umpire_domain::{Actor, Viewer};
use umpire_storage::TokenRole;
use uuid::Uuid;

use crate::error::ApiError;
use crate::service::GameService;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    Spectator,
    Seat(String),
    Umpire,
}

impl Principal {
    pub fn viewer(&self) -> Viewer<String> {
        match self {
            Principal::Spectator => Viewer::Spectator,
            Principal::Seat(seat) => Viewer::Seat(seat.clone()),
            Principal::Umpire => Viewer::Umpire,
        }
    }

    /// The actor for submitting actions; spectators may not act.
    pub fn actor(&self) -> Result<Actor<String>, ApiError> {
        match self {
            Principal::Spectator => Err(ApiError::Unauthorized {
                code: "missing_token",
                message: "Submitting an action needs a seat or umpire token: Authorization: Bearer <token>.".into(),
            }),
            Principal::Seat(seat) => Ok(Actor::Seat(seat.clone())),
            Principal::Umpire => Ok(Actor::Umpire),
        }
    }

    /// How the actor is recorded with events and rejections.
    pub fn label(&self) -> String {
        match self {
            Principal::Spectator => "spectator".into(),
            Principal::Seat(seat) => format!("seat:{seat}"),
            Principal::Umpire => "umpire".into(),
        }
    }

    pub fn is_umpire(&self) -> bool {
        matches!(self, Principal::Umpire)
    }
}

/// The bearer token of a request, if any. A malformed header is an error
/// rather than silently treated as a spectator.
pub fn bearer_token(request: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let invalid = || ApiError::Unauthorized {
        code: "invalid_token",
        message: "The Authorization header must be `Bearer <token>`.".into(),
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

/// Resolves a request's token for one game.
pub async fn principal(
    service: &GameService,
    game_id: Uuid,
    request: &HttpRequest,
) -> Result<Principal, ApiError> {
    let Some(token) = bearer_token(request)? else {
        return Ok(Principal::Spectator);
    };
    match service.token_role(game_id, &token).await? {
        Some((TokenRole::Umpire, _)) => Ok(Principal::Umpire),
        Some((TokenRole::Seat, Some(seat))) => Ok(Principal::Seat(seat)),
        _ => Err(ApiError::Unauthorized {
            code: "invalid_token",
            message: "This token is not valid for this game.".into(),
        }),
    }
}

/// A new random token: 32 bytes from the operating system, hex.
pub fn new_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    Ok(hex::encode(bytes))
}

/// A new random seed for a game created without one.
pub fn new_seed() -> Result<u64, ApiError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    Ok(u64::from_le_bytes(bytes))
}

/// Checks the admin token for game creation and import, when one is
/// configured. Compared in constant time: this one is not hashed at rest.
pub fn require_admin(configured: Option<&str>, request: &HttpRequest) -> Result<(), ApiError> {
    let Some(expected) = configured else {
        return Ok(());
    };
    let Some(presented) = bearer_token(request)? else {
        return Err(ApiError::Unauthorized {
            code: "missing_token",
            message: "Creating games needs the admin token: Authorization: Bearer <admin token>."
                .into(),
        });
    };
    let matches: bool =
        subtle::ConstantTimeEq::ct_eq(presented.as_bytes(), expected.as_bytes()).into();
    if matches {
        Ok(())
    } else {
        Err(ApiError::Unauthorized {
            code: "invalid_token",
            message: "This is not the admin token.".into(),
        })
    }
}
