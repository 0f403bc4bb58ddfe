//! The error answers whole families of operations share, declared once for
//! their OpenAPI descriptions: reading a game (a token is optional), acting
//! in one (a seat or umpire token, or the seat's cookie from the game's
//! page, is needed), and what only its umpire may do. An operation lists the family it belongs to beside the answers that
//! are its own (`responses((status = 200, ..), ReadingAGame)`).

use utoipa::IntoResponses;

use crate::error::ErrorBody;

/// Reading a game, which a spectator may do without a token.
#[derive(IntoResponses)]
pub enum ReadingAGame {
    #[response(
        status = 401,
        description = "Invalid token, or a seat's cookie that has ended (`page_session_ended`; the answer clears it)"
    )]
    InvalidToken(ErrorBody),
    #[response(
        status = 403,
        description = "The seat's cookie, sent from another origin (`cross_site_request`)"
    )]
    CrossSite(ErrorBody),
    #[response(status = 404, description = "No such game")]
    NoSuchGame(ErrorBody),
    #[response(status = 503, description = "Database unavailable")]
    Unavailable(ErrorBody),
}

/// Acting in a game, or asking what one may do there: a seat or umpire
/// token is needed.
#[derive(IntoResponses)]
pub enum ActingInAGame {
    #[response(
        status = 401,
        description = "Missing or invalid token, or a seat's cookie that has ended (`page_session_ended`; the answer clears it)"
    )]
    MissingOrInvalidToken(ErrorBody),
    #[response(
        status = 403,
        description = "The seat's cookie, sent from another origin (`cross_site_request`); for a seat's own operations, not a seat (`seat_only`)"
    )]
    CrossSiteOrNotASeat(ErrorBody),
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
    #[response(
        status = 403,
        description = "Not the umpire token, or the seat's cookie sent from another origin (`cross_site_request`)"
    )]
    NotTheUmpire(ErrorBody),
    #[response(status = 404, description = "No such game")]
    NoSuchGame(ErrorBody),
    #[response(status = 503, description = "Database unavailable")]
    Unavailable(ErrorBody),
}
