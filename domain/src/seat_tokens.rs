//! Seats' tokens in the log: the umpire's reissue of a seat's token, which
//! revokes every earlier token of that seat (`docs/rules/seats.md`).
//!
//! The tokens themselves are never in the log (they are stored hashed, in
//! the service's own tables); the log records only that the umpire
//! reissued a seat's token, and when: `seat_token_reissued { seat }`, by
//! the actor `umpire`, caused by the action `reissue_seat_token { seat }`.
//! Like the clock's events it is public and outside the game's rules: the
//! game's fold passes over it ([`is_seat_token_event`]), archives replay
//! and audit it as any other action, and the hash chain covers it.
//!
//! Only the service's reissue operation may record it, since it must
//! revoke the tokens in the same transaction: the action is refused when
//! sent as an ordinary action ([`not_an_action`], by
//! [`crate::clock::decide`], the one entry for actions sent).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::erased::{event_type, Decision, DynMatch, GameError};
use crate::record::RecordedEvent;
use crate::{Actor, Violation};

pub use crate::outside_the_rules::REISSUED_EVENT;
/// The umpire's action that causes it.
pub const REISSUE_ACTION: &str = "reissue_seat_token";

crate::violation_kinds! {
    /// A seat asked to reissue a token.
    UMPIRE_ONLY = ("seats.umpire_only", "seats §2", "a seat reissues a seat's token, which only the umpire may");
    /// The game is over: its log is closed.
    GAME_OVER = ("seats.game_over", "seats §2", "a seat's token is reissued after the game has ended");
    /// No such seat.
    UNKNOWN_SEAT = ("seats.unknown_seat", "seats §2", "the token of a seat the game does not have is reissued");
    /// Sent as an ordinary action rather than by the reissue operation.
    NOT_AN_ACTION = ("seats.reissue_not_an_action", "seats §2", "a reissue is sent as an action; it is made by `POST /v1/games/{id}/seats/{seat}/reissue`, which also revokes the tokens");
}

/// The event of a reissue: public, recorded in the log, passed over by the
/// game's fold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeatTokenEvent {
    /// The umpire reissued this seat's token: every earlier token of the
    /// seat is revoked, and the seat has a new invitation.
    SeatTokenReissued { seat: String },
}

/// The action the log records as the cause of a reissue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeatTokenAction {
    /// Reissues the seat's token.
    ReissueSeatToken { seat: String },
}

/// The action that reissues `seat`'s token.
pub fn reissue_action(seat: &str) -> Value {
    serde_json::json!({"type": REISSUE_ACTION, "seat": seat})
}

/// The seats' tokens as a game's log makes them: for each seat whose
/// token was reissued, the version of its latest reissue (the tokens
/// themselves are never in the log). At most one entry a seat, however
/// many reissues the log holds: a log may be thousands of them (the
/// umpire's), and this is copied with every state a fold keeps. Part of a
/// game's aggregate ([`crate::aggregate::GameAggregate`]), applied event by
/// event with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SeatTokens {
    latest: Vec<(String, u64)>,
}

impl SeatTokens {
    /// Notes `event` if it reissues a seat's token.
    pub fn apply(&mut self, event: &RecordedEvent) {
        if !is_seat_token_type(&event.event_type) {
            return;
        }
        let Some(seat) = event.payload.get("seat").and_then(Value::as_str) else {
            return;
        };
        match self
            .latest
            .iter_mut()
            .find(|(reissued, _)| reissued == seat)
        {
            Some((_, at)) => *at = event.seq,
            None => self.latest.push((seat.to_string(), event.seq)),
        }
    }

    /// Whether `seat`'s token was reissued after version `version`: what
    /// may have revoked a token found valid when the log held `version`
    /// events.
    pub fn reissued_after(&self, seat: &str, version: u64) -> bool {
        self.latest
            .iter()
            .any(|(reissued, at)| *at > version && reissued == seat)
    }

    /// What they hold in memory, beyond their slot.
    pub fn bytes(&self) -> usize {
        self.latest.capacity() * std::mem::size_of::<(String, u64)>()
            + self
                .latest
                .iter()
                .map(|(seat, _)| seat.capacity())
                .sum::<usize>()
    }
}

/// Whether `event` is a seat token event (see [`SeatTokenEvent`]).
pub fn is_seat_token_event(event: &Value) -> bool {
    event_type(event) == REISSUED_EVENT
}

/// Whether `event_type` is a seat token event's, for stored text.
pub fn is_seat_token_type(event_type: &str) -> bool {
    event_type == REISSUED_EVENT
}

/// Whether `action` is the reissue action, which only the service's
/// reissue operation may record.
pub fn is_seat_token_action(action: &Value) -> bool {
    event_type(action) == REISSUE_ACTION
}

/// The refusal of a reissue sent as an ordinary action: only the reissue
/// operation also revokes the seat's tokens.
pub fn not_an_action() -> Violation {
    NOT_AN_ACTION.with(
        "A seat's token is reissued by POST /v1/games/{id}/seats/{seat}/reissue, \
         not sent as an action.",
    )
}

/// Decides a reissue by `actor` on `game`: the umpire's only, for a seat
/// the game has, while the game is not over.
pub fn decide(
    game: &dyn DynMatch,
    actor: &Actor<String>,
    action: &Value,
) -> Result<Decision, GameError> {
    let SeatTokenAction::ReissueSeatToken { seat } = serde_json::from_value(action.clone())
        .map_err(|e| GameError::Malformed {
            game: game.game_id(),
            what: crate::erased::Malformed::Action,
            message: e.to_string(),
        })?;
    if let Actor::Seat(by) = actor {
        return Err(refusal(UMPIRE_ONLY.with(format!(
            "Only the umpire may reissue a seat's token, not seat {by}."
        ))));
    }
    if !game.has_seat(&seat) {
        return Err(refusal(UNKNOWN_SEAT.with(format!(
            "This game has no seat {seat:?} whose token could be reissued."
        ))));
    }
    if game.status().finished {
        return Err(refusal(GAME_OVER.with(
            "The game is over: its log is closed, and no seat's token is reissued.",
        )));
    }
    let event = serde_json::to_value(SeatTokenEvent::SeatTokenReissued { seat })
        .expect("an enum of strings is JSON");
    Decision::outside_the_rules(game, event)
}

fn refusal(violation: Violation) -> GameError {
    violation.into()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn recorded(seq: u64, payload: Value) -> RecordedEvent {
        RecordedEvent {
            seq,
            event_type: event_type(&payload).to_string(),
            payload,
            actor: "umpire".into(),
            action: Arc::new(Value::Null),
            decided_at: seq - 1,
            rules_version: 1,
            recorded_at: "2026-11-29T10:00:00.000000Z".into(),
            prev_hash: String::new(),
            hash: String::new(),
            encoded: Default::default(),
        }
    }

    /// Given a log with reissues among other events, the seats' tokens
    /// note where each seat's latest reissue is (and no other event): a
    /// token found valid before a reissue of its seat is revoked by it, one
    /// found valid after it, or of another seat, is not; and a log of
    /// thousands of reissues keeps one entry a seat.
    #[test]
    fn the_seats_tokens_note_each_seats_latest_reissue() {
        let mut tokens = SeatTokens::default();
        let log = [
            json!({"type": "card_drawn", "seat": "red"}),
            json!({"type": REISSUED_EVENT, "seat": "red"}),
            json!({"type": "clock_paused"}),
            json!({"type": REISSUED_EVENT, "seat": "blue"}),
        ];
        for (seq, payload) in (1..).zip(log) {
            tokens.apply(&recorded(seq, payload));
        }
        assert!(tokens.reissued_after("red", 1));
        assert!(!tokens.reissued_after("red", 2), "valid after its reissue");
        assert!(tokens.reissued_after("blue", 3));
        assert!(!tokens.reissued_after("green", 0), "no such reissue");
        assert_eq!(
            serde_json::to_value(&tokens).unwrap(),
            json!([["red", 2], ["blue", 4]]),
            "kept in a snapshot as a list of [seat, version]"
        );

        for seq in 5..10_005 {
            let seat = if seq % 2 == 0 { "red" } else { "blue" };
            tokens.apply(&recorded(
                seq,
                json!({"type": REISSUED_EVENT, "seat": seat}),
            ));
        }
        assert!(tokens.reissued_after("red", 10_003));
        assert!(!tokens.reissued_after("red", 10_004));
        assert!(tokens.reissued_after("blue", 10_002));
        assert!(!tokens.reissued_after("blue", 10_003));
        assert_eq!(
            serde_json::to_value(&tokens).unwrap(),
            json!([["red", 10_004], ["blue", 10_003]]),
            "one entry a seat"
        );
    }
}
