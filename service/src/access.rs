//! Who may do what: a game's token makes its bearer a seat or the umpire
//! (a [`Viewer`], who acts as an [`Actor`]), no token a spectator; acting
//! needs a seat or the umpire, archives the umpire, creating games the
//! admin token. And the minting of tokens and seeds.
//!
//! Tokens are 256 random bits, shown once at game creation and stored only as
//! SHA-256 hashes. A presented token is hashed and looked up by
//! `(game_id, token_hash)`: the secret itself is never compared byte by byte,
//! so response timing says nothing about how much of a guess was right.

use std::collections::BTreeMap;

use umpire_domain::{Actor, Viewer};
use umpire_storage::NewToken;

use crate::error::ServiceError;

/// The actor `viewer` submits actions as: its seat, or the umpire. A
/// spectator may not act.
pub fn acting(viewer: &Viewer<String>) -> Result<Actor<String>, ServiceError> {
    acting_for(viewer, "Submitting an action")
}

/// The actor `viewer` does what only a seat or the umpire may as
/// (`doing`: "Listing legal actions"), which a spectator's refusal names.
pub fn acting_for(viewer: &Viewer<String>, doing: &str) -> Result<Actor<String>, ServiceError> {
    match viewer.actor() {
        Some(actor) => Ok(actor.cloned()),
        None => Err(ServiceError::Unauthenticated {
            code: "missing_token",
            message: format!(
                "{doing} needs a seat or umpire token: Authorization: Bearer <token>."
            ),
        }),
    }
}

/// Only the umpire may audit, export or re-run a game: each shows every
/// seat's secrets.
pub fn require_umpire(viewer: &Viewer<String>) -> Result<(), ServiceError> {
    match viewer {
        Viewer::Umpire => Ok(()),
        Viewer::Spectator => Err(ServiceError::Unauthenticated {
            code: "missing_token",
            message: "This needs the umpire token: Authorization: Bearer <token>.".into(),
        }),
        Viewer::Seat(_) => Err(ServiceError::Forbidden {
            code: "umpire_only",
            message: "Only the umpire may do this: it shows every seat's secrets.".into(),
        }),
    }
}

/// Whom a read is answered for when its caller asks to look `as` someone
/// (`?as=red`, `?as=spectator`, `?as=umpire`): the umpire may look as any
/// seat, so that it settles a dispute over what a seat could see without
/// holding the seat's token; anyone may look as a spectator, or as itself,
/// which shows it nothing it could not already see. A seat asking to look
/// as another seat, or as the umpire, is refused (403 `umpire_only`); a
/// spectator, asked for a token (401 `missing_token`). A name that is not
/// a seat of the game is refused by the game when it is read as one (400
/// `unknown_seat`).
pub fn looking_as(
    viewer: Viewer<String>,
    looking: Option<&str>,
) -> Result<Viewer<String>, ServiceError> {
    let Some(looking) = looking else {
        return Ok(viewer);
    };
    let asked = match looking {
        LOOKING_AS_SPECTATOR => return Ok(Viewer::Spectator),
        LOOKING_AS_UMPIRE => Viewer::Umpire,
        seat => Viewer::Seat(seat.to_string()),
    };
    match viewer {
        Viewer::Umpire => Ok(asked),
        own if own == asked => Ok(own),
        Viewer::Spectator => Err(ServiceError::Unauthenticated {
            code: "missing_token",
            message: format!(
                "Looking as `{looking}` needs the umpire token: Authorization: Bearer <token>."
            ),
        }),
        Viewer::Seat(seat) => Err(ServiceError::Forbidden {
            code: "umpire_only",
            message: format!(
                "Only the umpire may look as another seat; seat {seat} may not look as `{looking}`."
            ),
        }),
    }
}

/// What `as` names the spectator by.
pub const LOOKING_AS_SPECTATOR: &str = "spectator";
/// What `as` names the umpire by.
pub const LOOKING_AS_UMPIRE: &str = "umpire";

/// Checks the admin token for game creation and import, when one is
/// configured. Compared in constant time: this one is not hashed at rest.
pub fn require_admin(
    configured: Option<&str>,
    presented: Option<&str>,
) -> Result<(), ServiceError> {
    require_admin_to("Creating games", configured, presented)
}

/// Checks the admin token for `doing` ("Listing games"), which a refusal
/// names, when one is configured: with none, the service is open and
/// anyone may.
pub fn require_admin_to(
    doing: &str,
    configured: Option<&str>,
    presented: Option<&str>,
) -> Result<(), ServiceError> {
    let Some(expected) = configured else {
        return Ok(());
    };
    let Some(presented) = presented else {
        return Err(ServiceError::Unauthenticated {
            code: "missing_token",
            message: format!("{doing} needs the admin token: Authorization: Bearer <admin token>."),
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

/// New tokens for a game's umpire and each of its seats.
pub(crate) struct MintedTokens {
    /// What to store: hashes only.
    pub stored: Vec<NewToken>,
    /// What to show once.
    pub umpire: String,
    pub seats: BTreeMap<String, String>,
}

pub(crate) fn mint_tokens(seats: Vec<String>) -> Result<MintedTokens, ServiceError> {
    let umpire_token = new_token()?;
    let mut tokens = vec![NewToken {
        token_hash: umpire_storage::hash_token(&umpire_token),
        grant: Actor::Umpire,
    }];
    let mut seat_tokens = BTreeMap::new();
    for seat in seats {
        let token = new_token()?;
        tokens.push(NewToken {
            token_hash: umpire_storage::hash_token(&token),
            grant: Actor::Seat(seat.clone()),
        });
        seat_tokens.insert(seat, token);
    }
    Ok(MintedTokens {
        stored: tokens,
        umpire: umpire_token,
        seats: seat_tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str) -> Viewer<String> {
        Viewer::Seat(name.to_string())
    }

    fn code(result: Result<Viewer<String>, ServiceError>) -> &'static str {
        match result {
            Err(
                ServiceError::Forbidden { code, .. } | ServiceError::Unauthenticated { code, .. },
            ) => code,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn without_as_a_reader_is_who_its_credential_says() {
        assert_eq!(looking_as(seat("red"), None).unwrap(), seat("red"));
        assert_eq!(looking_as(Viewer::Umpire, None).unwrap(), Viewer::Umpire);
    }

    #[test]
    fn the_umpire_looks_as_any_seat_the_umpire_or_a_spectator() {
        assert_eq!(
            looking_as(Viewer::Umpire, Some("blue")).unwrap(),
            seat("blue")
        );
        assert_eq!(
            looking_as(Viewer::Umpire, Some("umpire")).unwrap(),
            Viewer::Umpire
        );
        assert_eq!(
            looking_as(Viewer::Umpire, Some("spectator")).unwrap(),
            Viewer::Spectator
        );
    }

    #[test]
    fn a_seat_looks_only_as_itself_or_a_spectator() {
        assert_eq!(looking_as(seat("red"), Some("red")).unwrap(), seat("red"));
        assert_eq!(
            looking_as(seat("red"), Some("spectator")).unwrap(),
            Viewer::Spectator
        );
        assert_eq!(code(looking_as(seat("red"), Some("blue"))), "umpire_only");
        assert_eq!(code(looking_as(seat("red"), Some("umpire"))), "umpire_only");
    }

    #[test]
    fn a_spectator_is_asked_for_the_umpires_token() {
        assert_eq!(
            code(looking_as(Viewer::Spectator, Some("red"))),
            "missing_token"
        );
        assert_eq!(
            looking_as(Viewer::Spectator, Some("spectator")).unwrap(),
            Viewer::Spectator
        );
    }
}
