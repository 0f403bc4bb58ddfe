//! The error answers whole families of operations share, declared once for
//! their OpenAPI descriptions: reading a game (a token is optional), acting
//! in one (a seat or umpire token is needed), and what only its umpire may
//! do. An operation lists the family it belongs to beside the answers that
//! are its own (`responses((status = 200, ..), ReadingAGame)`).

use utoipa::IntoResponses;

use crate::error::ErrorBody;

/// Reading a game, which a spectator may do without a token.
#[derive(IntoResponses)]
pub enum ReadingAGame {
    #[response(status = 401, description = "Invalid token")]
    InvalidToken(ErrorBody),
    #[response(status = 404, description = "No such game")]
    NoSuchGame(ErrorBody),
    #[response(status = 503, description = "Database unavailable")]
    Unavailable(ErrorBody),
}

/// Acting in a game, or asking what one may do there: a seat or umpire
/// token is needed.
#[derive(IntoResponses)]
pub enum ActingInAGame {
    #[response(status = 401, description = "Missing or invalid token")]
    MissingOrInvalidToken(ErrorBody),
    #[response(status = 404, description = "No such game")]
    NoSuchGame(ErrorBody),
    #[response(status = 503, description = "Database unavailable")]
    Unavailable(ErrorBody),
}

/// What only a game's umpire may do: each shows every seat's secrets.
#[derive(IntoResponses)]
pub enum UmpireOnly {
    #[response(status = 401, description = "Missing or invalid token")]
    MissingOrInvalidToken(ErrorBody),
    #[response(status = 403, description = "Not the umpire token")]
    NotTheUmpire(ErrorBody),
    #[response(status = 404, description = "No such game")]
    NoSuchGame(ErrorBody),
    #[response(status = 503, description = "Database unavailable")]
    Unavailable(ErrorBody),
}
