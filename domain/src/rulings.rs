//! The umpire's rulings written onto the record (`docs/rules/umpire.md`):
//! a note the umpire appends to a game's log at its current version, so
//! that a decision taken outside the rules ("the blue player's card was
//! shown by accident; play continues") is kept with the game it settles.
//!
//! The action `record_ruling { text }`, by the actor `umpire`, causes the
//! event `ruling_recorded { text }`. Like the clock's events and a seat's
//! token reissued, it is public and outside the game's rules: the game's
//! fold passes over it ([`is_ruling_event`]), archives replay and audit it
//! as any other action, and the hash chain covers it. Its text is the
//! umpire's words as sent; every reader escapes it as text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::erased::{event_type, Decision, DynMatch, GameError};
use crate::{Actor, Violation};

pub use crate::outside_the_rules::RULING_EVENT;
/// The umpire's action that causes it.
pub const RULING_ACTION: &str = "record_ruling";
/// The longest ruling, in characters (Unicode scalar values): a paragraph
/// or two, enough to settle a dispute, short enough that a log of rulings
/// cannot crowd out the game it is about.
pub const MAX_RULING_CHARS: usize = 2000;

crate::violation_kinds! {
    /// A seat tried to write a ruling.
    UMPIRE_ONLY = ("umpire.ruling_umpire_only", "umpire §1", "a seat records a ruling, which only the umpire may");
    /// Nothing but whitespace.
    EMPTY = ("umpire.ruling_empty", "umpire §1", "a ruling has no text, or only whitespace");
    /// Longer than [`MAX_RULING_CHARS`].
    TOO_LONG = ("umpire.ruling_too_long", "umpire §1", "a ruling is longer than 2,000 characters");
    /// The game is over: its log is closed.
    GAME_OVER = ("umpire.game_over", "umpire §1", "a ruling is recorded after the game has ended");
}

/// The event of a ruling: public, recorded in the log, passed over by the
/// game's fold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RulingEvent {
    /// The umpire ruled, in these words (at most 2,000 characters).
    RulingRecorded { text: String },
}

/// The umpire's action that records a ruling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RulingAction {
    /// Records the umpire's ruling, in these words (1 to 2,000
    /// characters, not only whitespace).
    RecordRuling { text: String },
}

/// Whether `event` is a ruling (see [`RulingEvent`]).
pub fn is_ruling_event(event: &Value) -> bool {
    event_type(event) == RULING_EVENT
}

/// Whether `event_type` is a ruling's, for stored text.
pub fn is_ruling_type(event_type: &str) -> bool {
    event_type == RULING_EVENT
}

/// Whether `action` records a ruling.
pub fn is_ruling_action(action: &Value) -> bool {
    event_type(action) == RULING_ACTION
}

/// Decides a ruling by `actor` on `game`: the umpire's only, while the
/// game is not over, its text neither blank nor longer than
/// [`MAX_RULING_CHARS`].
pub fn decide(
    game: &dyn DynMatch,
    actor: &Actor<String>,
    action: &Value,
) -> Result<Decision, GameError> {
    let RulingAction::RecordRuling { text } =
        serde_json::from_value(action.clone()).map_err(|e| GameError::Malformed {
            game: game.game_id(),
            what: crate::erased::Malformed::Action,
            message: e.to_string(),
        })?;
    if let Actor::Seat(by) = actor {
        return Err(refusal(UMPIRE_ONLY.with(format!(
            "Only the umpire may record a ruling, not seat {by}."
        ))));
    }
    if text.trim().is_empty() {
        return Err(refusal(EMPTY.with(
            "A ruling says something: its text is empty or only whitespace.",
        )));
    }
    let chars = text.chars().count();
    if chars > MAX_RULING_CHARS {
        return Err(refusal(TOO_LONG.with(format!(
            "A ruling is at most {MAX_RULING_CHARS} characters; this one has {chars}."
        ))));
    }
    if game.status().finished {
        return Err(refusal(GAME_OVER.with(
            "The game is over: its log is closed, and no ruling is added to it.",
        )));
    }
    let event = serde_json::to_value(RulingEvent::RulingRecorded { text })
        .expect("an enum of strings is JSON");
    Decision::outside_the_rules(game, event)
}

fn refusal(violation: Violation) -> GameError {
    violation.into()
}
