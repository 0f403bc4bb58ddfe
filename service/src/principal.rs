//! Who is calling: a seat token, the umpire token, or nobody (a spectator);
//! and the minting of tokens and seeds.
//!
//! Tokens are 256 random bits, shown once at game creation and stored only as
//! SHA-256 hashes. A presented token is hashed and looked up by
//! `(game_id, token_hash)`: the secret itself is never compared byte by byte,
//! so response timing says nothing about how much of a guess was right.

use umpire_domain::{Actor, ActorLabel, Viewer};

use crate::error::ServiceError;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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
    pub fn actor(&self) -> Result<Actor<String>, ServiceError> {
        self.actor_for("Submitting an action")
    }

    /// The actor for `doing` what only a seat or the umpire may ("Listing
    /// legal actions"), which a spectator's refusal names.
    pub fn actor_for(&self, doing: &str) -> Result<Actor<String>, ServiceError> {
        match self {
            Principal::Spectator => Err(ServiceError::Unauthenticated {
                code: "missing_token",
                message: format!(
                    "{doing} needs a seat or umpire token: Authorization: Bearer <token>."
                ),
            }),
            Principal::Seat(seat) => Ok(Actor::Seat(seat.clone())),
            Principal::Umpire => Ok(Actor::Umpire),
        }
    }

    /// How the actor is recorded with events and rejections; `None` for a
    /// spectator, who records nothing.
    pub fn label(&self) -> Option<ActorLabel> {
        match self {
            Principal::Spectator => None,
            Principal::Seat(seat) => Some(ActorLabel::Seat(seat.clone())),
            Principal::Umpire => Some(ActorLabel::Umpire),
        }
    }

    pub fn is_umpire(&self) -> bool {
        matches!(self, Principal::Umpire)
    }

    /// Only the umpire may audit, export or re-run a game: each shows every
    /// seat's secrets.
    pub fn require_umpire(&self) -> Result<(), ServiceError> {
        match self {
            Principal::Umpire => Ok(()),
            Principal::Spectator => Err(ServiceError::Unauthenticated {
                code: "missing_token",
                message: "This needs the umpire token: Authorization: Bearer <token>.".into(),
            }),
            Principal::Seat(_) => Err(ServiceError::Forbidden {
                code: "umpire_only",
                message: "Only the umpire may do this: it shows every seat's secrets.".into(),
            }),
        }
    }
}

/// Checks the admin token for game creation and import, when one is
/// configured. Compared in constant time: this one is not hashed at rest.
pub fn require_admin(
    configured: Option<&str>,
    presented: Option<&str>,
) -> Result<(), ServiceError> {
    let Some(expected) = configured else {
        return Ok(());
    };
    let Some(presented) = presented else {
        return Err(ServiceError::Unauthenticated {
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
        Err(ServiceError::Unauthenticated {
            code: "invalid_token",
            message: "This is not the admin token.".into(),
        })
    }
}

/// A new random token: 32 bytes from the operating system, hex.
pub fn new_token() -> Result<String, ServiceError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServiceError::Internal(format!("no randomness: {e}")))?;
    Ok(hex::encode(bytes))
}

/// A new random seed for a game created without one.
pub fn new_seed() -> Result<u64, ServiceError> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| ServiceError::Internal(format!("no randomness: {e}")))?;
    Ok(u64::from_le_bytes(bytes))
}
