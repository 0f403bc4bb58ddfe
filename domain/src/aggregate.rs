//! A game as its log makes it: the rules' match and the platform's clock,
//! one thing that an action is decided against and a recorded event is
//! applied to. The service's folds, the archive's replay and what-if all
//! hold a game so; none pairs a match with a clock by hand.
//!
//! The seats' tokens are the platform's too, but only their reissues are in
//! the log (`seat_tokens`): a reissue is decided here like any action sent
//! by the umpire, and applied here, kept as where in the log each seat's
//! token was reissued ([`SeatTokens`]).

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::clock::{self, Clock};
use crate::erased::{Decision, DecodedEvent, DynMatch, GameError};
use crate::record::RecordedEvent;
use crate::seat_tokens::SeatTokens;
use crate::status::StatusJson;

/// A game's match, its clock (for a game created with one) and its seats'
/// tokens' reissues after the same recorded events.
#[derive(Clone)]
pub struct GameAggregate {
    pub state: Box<dyn DynMatch>,
    pub clock: Option<Clock>,
    pub seat_tokens: SeatTokens,
}

impl std::fmt::Debug for GameAggregate {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("GameAggregate")
            .field("game", &self.state.game_id())
            .field("version", &self.state.version())
            .field("clocked", &self.clock.is_some())
            .field("seat_tokens", &self.seat_tokens)
            .finish()
    }
}

impl GameAggregate {
    /// A game before any event: `state` as the rules set it up, no clock
    /// (a clock starts with its own recorded event, `clock_set`), no
    /// token reissued.
    pub fn start(state: Box<dyn DynMatch>) -> GameAggregate {
        GameAggregate {
            state,
            clock: None,
            seat_tokens: SeatTokens::default(),
        }
    }

    /// How many events have been applied.
    pub fn version(&self) -> u64 {
        self.state.version()
    }

    /// Who must act, with the clock.
    pub fn status(&self) -> StatusJson {
        self.state.status().with_clock(self.clock.as_ref())
    }

    /// Decides `action` sent by `actor` at `now`: the game's rules, the
    /// clock's, a seat's reissue or a ruling ([`clock::decide`]).
    pub fn decide(
        &self,
        actor: &str,
        action: &Value,
        now: DateTime<Utc>,
    ) -> Result<Decision, GameError> {
        clock::decide(self.state.as_ref(), self.clock.as_ref(), actor, action, now)
    }

    /// Decides an action as a log recorded it, a reissue's included
    /// ([`clock::decide_recorded`]): what a replay re-decides.
    pub fn decide_recorded(
        &self,
        actor: &str,
        action: &Value,
        now: DateTime<Utc>,
    ) -> Result<Decision, GameError> {
        clock::decide_recorded(self.state.as_ref(), self.clock.as_ref(), actor, action, now)
    }

    /// Applies one recorded event: to the match, then to the clock, which
    /// reads the status after it and the event's time, and to the seats'
    /// tokens.
    pub fn apply(&mut self, event: &RecordedEvent) -> Result<(), GameError> {
        self.state.apply_json(&event.payload)?;
        clock::fold(&mut self.clock, event, self.state.as_ref())?;
        self.seat_tokens.apply(event);
        Ok(())
    }

    /// [`GameAggregate::apply`], with the event in its game's type from
    /// `decoded` (or decoded into it): see `DynMatch::apply_decoded`.
    pub fn apply_decoded(
        &mut self,
        event: &RecordedEvent,
        decoded: &DecodedEvent,
    ) -> Result<(), GameError> {
        self.state.apply_decoded(&event.payload, decoded)?;
        clock::fold(&mut self.clock, event, self.state.as_ref())?;
        self.seat_tokens.apply(event);
        Ok(())
    }
}
