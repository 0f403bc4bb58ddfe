//! The clock: a deadline for every seat the game is waiting for, derived
//! from the log alone, and the platform's actions on it.
//!
//! A game created with a clock records its [`ClockSettings`] as the last
//! event of its setup (`clock_set`). From then on the clock is a fold of
//! the log like the game's state: each event's recorded time and the status
//! after it say which seats are due and since when. A seat is *due* when
//! the game waits for it (`Status::to_act`) and the game would accept the
//! umpire's `timeout` for it; it has `per_move_ms` from that moment, then
//! its reserve (`reserve_ms` for the whole game, used only by moves that
//! run over, never refilled). A move ends when the seat acts, is timed out,
//! or is no longer waited for. So a restart loses nothing, and an audit
//! re-derives every deadline the clock enforced.
//!
//! The clock's own events (`clock_set`, `clock_paused`, `clock_resumed`,
//! `clock_time_added`) are public and the game's fold passes over them
//! ([`is_clock_event`]). A timeout the clock records is the game's own
//! `timeout { seat }` action, sent by the actor [`actor_label::CLOCK`] with
//! the `deadline` it enforced, decided by the game's rules as the umpire's
//! timeout is ([`decide`]).
//!
//! Pure: times are those written in the log, and the caller says when
//! "now" is.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::erased::{event_type, Decision, DynMatch, GameError};
use crate::record::{format_recorded_at, RecordedEvent};
use crate::status::StatusJson;
pub use crate::status::{ClockStatus, SeatClockStatus};
use crate::{actor_label, Actor, Violation};

/// The longest time per move or reserve a clock takes: 30 days.
pub const MAX_CLOCK_MS: u64 = 30 * 24 * 60 * 60 * 1000;
/// The shortest time per move: 100 ms.
pub const MIN_MOVE_MS: u64 = 100;
pub use crate::outside_the_rules::CLOCK_TYPE_PREFIX;

crate::violation_kinds! {
    /// The game was created without a clock.
    NOT_CLOCKED = ("clock.not_clocked", "clock §3", "the game was created without a clock");
    /// A seat sent an action on the clock.
    UMPIRE_ONLY = ("clock.umpire_only", "clock §3", "a seat sends an action on the clock, which only the umpire may");
    /// The clock is already paused.
    ALREADY_PAUSED = ("clock.already_paused", "clock §3", "the umpire pauses a clock that is paused");
    /// The clock is running.
    NOT_PAUSED = ("clock.not_paused", "clock §3", "the umpire resumes a clock that is running");
    /// The game is over: its clock has stopped for good.
    GAME_OVER = ("clock.game_over", "clock §3", "an action on the clock is sent after the game has ended");
    /// No such seat.
    UNKNOWN_SEAT = ("clock.unknown_seat", "clock §3", "extra time is given to a seat the game does not have");
    /// A time out of range.
    INVALID_TIME = ("clock.invalid_time", "clock §1", "a time per move, reserve or extra time is out of range");
    /// The clock timed out a seat it was not running for.
    SEAT_NOT_DUE = ("clock.seat_not_due", "clock §4", "the clock times out a seat that is not due, or, while it is paused, one whose deadline had not passed before the pause");
    /// The clock's deadline is not the one the log gives.
    WRONG_DEADLINE = ("clock.wrong_deadline", "clock §4", "the deadline a clock timeout names is not the seat's deadline as the log gives it");
    /// The clock timed a seat out before its deadline.
    EARLY = ("clock.early", "clock §4", "a clock timeout is recorded before the seat's deadline");
    /// Only the clock sends a timeout with a deadline.
    NOT_THE_CLOCK = ("clock.not_the_clock", "clock §4", "an action names a deadline but was not sent by the clock");
    /// The clock waits for the seats: nothing to pause or resume yet.
    NOT_STARTED = ("clock.not_started", "clock §5", "the umpire pauses or resumes a clock that has not started");
    /// The clock has started: no seat joins it, and it starts once.
    ALREADY_STARTED = ("clock.already_started", "clock §5", "a seat joins, or the umpire starts, a clock that has already started");
    /// The seat has joined already.
    ALREADY_JOINED = ("clock.already_joined", "clock §5", "a seat joins a clock it has already joined");
    /// Seats join; the umpire starts.
    SEATS_JOIN = ("clock.seats_join", "clock §5", "the umpire sends `clock_join`, which only a seat sends (the umpire starts the clock with `clock_start`)");
}

/// When a game's clock starts running.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClockStart {
    /// When every seat has joined (redeemed its invitation, or sent
    /// `clock_join`), or when the umpire sends `clock_start`, whichever
    /// comes first: no seat's time runs before the players sit down.
    #[default]
    WhenSeated,
    /// At once, when the game is created: for games played by programs
    /// that hold every seat's token from the start.
    Now,
}

impl ClockStart {
    /// What a `clock_set` without `start` means: the clock of every log
    /// written before clocks waited ran from the setup on.
    fn now() -> ClockStart {
        ClockStart::Now
    }

    fn is_now(&self) -> bool {
        *self == ClockStart::Now
    }
}

/// A game's clock, chosen when it is created: the same for every seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"per_move_ms": 60000, "reserve_ms": 300000}))]
pub struct ClockSettings {
    /// How long a seat has for each move, from the moment the game waits
    /// for it, in milliseconds (100 ms to 30 days).
    #[schema(example = 60000, minimum = 100, maximum = 2592000000u64)]
    pub per_move_ms: u64,
    /// Each seat's reserve for the whole game, in milliseconds: used only
    /// once a move runs over its time per move, and never refilled
    /// (0 to 30 days; default 0).
    #[serde(default)]
    #[schema(example = 300000, maximum = 2592000000u64)]
    pub reserve_ms: u64,
    /// When the clock starts: `when_seated` (the default) or `now`.
    #[serde(default)]
    pub start: ClockStart,
}

impl ClockSettings {
    /// Refuses times out of range.
    pub fn validate(self) -> Result<ClockSettings, Violation> {
        RequestedClock::from(self).validate()
    }

    /// The event a game created with this clock ends its setup with.
    pub fn event(self) -> Value {
        to_json(&ClockEvent::ClockSet {
            per_move_ms: self.per_move_ms,
            reserve_ms: self.reserve_ms,
            start: self.start,
        })
    }
}

/// A clock as `create_game` asks for it: [`ClockSettings`] with any
/// integer for each time, so that one out of range — negative, or past 30
/// days — is refused by [`RequestedClock::validate`] as the rules refuse it
/// (`clock.invalid_time`), not as JSON of another shape. The document
/// shows it as [`ClockSettings`], whose ranges it states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestedClock {
    pub per_move_ms: i128,
    #[serde(default)]
    pub reserve_ms: i128,
    #[serde(default)]
    pub start: ClockStart,
}

impl RequestedClock {
    /// The settings asked for, if every time is in range (§1).
    pub fn validate(self) -> Result<ClockSettings, Violation> {
        Ok(ClockSettings {
            per_move_ms: in_range("time per move", self.per_move_ms, MIN_MOVE_MS)?,
            reserve_ms: in_range("reserve", self.reserve_ms, 0)?,
            start: self.start,
        })
    }
}

/// `ms` as a time of a clock, if it is between `min` and 30 days.
fn in_range(what: &str, ms: i128, min: u64) -> Result<u64, Violation> {
    u64::try_from(ms)
        .ok()
        .filter(|ms| (min..=MAX_CLOCK_MS).contains(ms))
        .ok_or_else(|| {
            INVALID_TIME.with(format!(
                "A clock's {what} is {ms} ms, which is not between {min} ms and 30 days."
            ))
        })
}

impl From<ClockSettings> for RequestedClock {
    fn from(settings: ClockSettings) -> RequestedClock {
        RequestedClock {
            per_move_ms: settings.per_move_ms.into(),
            reserve_ms: settings.reserve_ms.into(),
            start: settings.start,
        }
    }
}

/// The clock's events: public, recorded in the log, passed over by the
/// game's fold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockEvent {
    /// The game's clock, the last event of its setup. Without `start`
    /// (every log written before clocks waited for their seats) it runs
    /// from the setup on.
    ClockSet {
        per_move_ms: u64,
        reserve_ms: u64,
        #[serde(
            default = "ClockStart::now",
            skip_serializing_if = "ClockStart::is_now"
        )]
        start: ClockStart,
    },
    /// A seat sat down: it redeemed its invitation, or sent `clock_join`.
    /// Recorded only while the clock waits for its seats.
    ClockSeatJoined { seat: String },
    /// The clock started: every seat had joined, or the umpire started it.
    ClockStarted,
    /// The umpire paused the clock: no time runs and no deadline falls.
    ClockPaused,
    /// The umpire resumed the clock: every due seat has the time it had
    /// left when the clock was paused.
    ClockResumed,
    /// The umpire gave a seat extra time, added to its reserve.
    ClockTimeAdded { seat: String, ms: u64 },
}

/// The umpire's actions on a game's clock, sent like any other action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClockAction {
    /// A seat says it has sat down (the service sends it for the seat when
    /// the seat's invitation is redeemed); the last seat to join starts
    /// the clock.
    ClockJoin,
    /// The umpire starts a clock that waits for its seats.
    ClockStart,
    /// Stops every seat's clock until `clock_resume`.
    ClockPause,
    /// Starts the clocks again where they stopped.
    ClockResume,
    /// Adds `ms` milliseconds to a seat's reserve: usable on its current
    /// move if it is due, otherwise on a later one.
    ClockAddTime {
        seat: String,
        #[schema(example = 30000, minimum = 1, maximum = 2592000000u64)]
        ms: u64,
    },
}

/// Whether `event` is one of the clock's events (see [`ClockEvent`]).
pub fn is_clock_event(event: &Value) -> bool {
    event_type(event).starts_with(CLOCK_TYPE_PREFIX)
}

/// Whether `event_type` is one of the clock's, for stored text.
pub fn is_clock_type(event_type: &str) -> bool {
    event_type.starts_with(CLOCK_TYPE_PREFIX)
}

/// One seat's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatClock {
    /// While the game waits for the seat: since when.
    due_since: Option<DateTime<Utc>>,
    reserve_left_ms: u64,
}

/// A game's clock at one version of its log. Serialized only for the
/// service's snapshots of a fold, beside the game's state (see
/// `erased::SNAPSHOT_FORMAT`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clock {
    settings: ClockSettings,
    /// Since when no time runs: the umpire's pause, or, while the clock
    /// waits for its seats, the end of the game's setup.
    paused_since: Option<DateTime<Utc>>,
    /// While the clock waits for its seats: those that have joined.
    waiting: Option<BTreeSet<String>>,
    seats: BTreeMap<String, SeatClock>,
}

/// A due seat's deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadline {
    pub seat: String,
    pub at: DateTime<Utc>,
}

fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("clock types serialise")
}

fn ms(duration: Duration) -> u64 {
    u64::try_from(duration.num_milliseconds()).unwrap_or(0)
}

fn millis(ms: u64) -> Duration {
    i64::try_from(ms)
        .ok()
        .and_then(Duration::try_milliseconds)
        .unwrap_or(Duration::MAX)
}

/// `since` plus the time per move and the reserve left; the end of time
/// rather than an overflow for a reserve grown past any calendar (extra
/// time given again and again).
fn deadline_after(since: DateTime<Utc>, per_move_ms: u64, reserve_left_ms: u64) -> DateTime<Utc> {
    since
        .checked_add_signed(millis(per_move_ms.saturating_add(reserve_left_ms)))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The time a recorded event carries; a log whose times do not parse is
/// not one the store wrote.
pub fn recorded_time(event: &RecordedEvent) -> Result<DateTime<Utc>, GameError> {
    DateTime::parse_from_rfc3339(&event.recorded_at)
        .map(|time| time.with_timezone(&Utc))
        .map_err(|e| GameError::Malformed {
            game: "clock",
            what: crate::erased::Malformed::Event,
            message: format!("recorded_at `{}`: {e}", event.recorded_at),
        })
}

/// Whether the game waits for `seat` and would accept the umpire's timeout
/// for it: the seats the clock runs for.
fn timeable(game: &dyn DynMatch, seat: &str) -> bool {
    game.timeout_action(seat)
        .and_then(|action| game.decide(&Actor::Umpire, &action))
        .is_ok()
}

impl Clock {
    /// The clock `settings` start at `at`, `game` being the state after
    /// setup: every seat of the game with its whole reserve, whether or not
    /// it is due yet.
    pub fn start(settings: ClockSettings, at: DateTime<Utc>, game: &dyn DynMatch) -> Clock {
        let waits = settings.start == ClockStart::WhenSeated;
        let mut clock = Clock {
            settings,
            // A clock that waits is stopped from the start: it starts as a
            // pause ends, every due seat with all its time.
            paused_since: waits.then_some(at),
            waiting: waits.then(BTreeSet::new),
            seats: BTreeMap::new(),
        };
        for seat in game.seats() {
            clock.seat(seat);
        }
        clock.settle(at, game);
        clock
    }

    /// The seat's clock, from its full reserve if it has not been due yet.
    fn seat(&mut self, seat: &str) -> &mut SeatClock {
        let reserve_ms = self.settings.reserve_ms;
        self.seats.entry(seat.to_string()).or_insert(SeatClock {
            due_since: None,
            reserve_left_ms: reserve_ms,
        })
    }

    /// The seat's deadline while it is due, paused or not.
    fn deadline_while_due(&self, clock: &SeatClock) -> Option<DateTime<Utc>> {
        clock
            .due_since
            .map(|since| deadline_after(since, self.settings.per_move_ms, clock.reserve_left_ms))
    }

    /// Whether a deadline at `at` is enforced now: always while the clock
    /// runs; while it is paused only if it had passed before the pause
    /// began (a pause stops only time still running, §R).
    fn enforces(&self, at: DateTime<Utc>) -> bool {
        self.paused_since.is_none_or(|paused| at <= paused)
    }

    pub fn settings(&self) -> ClockSettings {
        self.settings
    }

    /// Whether the umpire has paused the clock (not: waits for its seats).
    pub fn is_paused(&self) -> bool {
        self.paused_since.is_some() && self.waiting.is_none()
    }

    /// Whether the clock waits for its seats before it starts (§5).
    pub fn is_waiting(&self) -> bool {
        self.waiting.is_some()
    }

    /// Whether `seat` has joined a clock that waits for its seats.
    fn has_joined(&self, seat: &str) -> bool {
        self.waiting
            .as_ref()
            .is_some_and(|joined| joined.contains(seat))
    }

    /// Whether `seat` joining would leave no seat to wait for.
    fn is_last_to_join(&self, seat: &str) -> bool {
        self.waiting.as_ref().is_some_and(|joined| {
            self.seats
                .keys()
                .all(|name| name == seat || joined.contains(name))
        })
    }

    /// Folds one recorded event, `game` being the state after it.
    pub fn observe(&mut self, event: &RecordedEvent, game: &dyn DynMatch) -> Result<(), GameError> {
        let at = recorded_time(event)?;
        if is_clock_type(&event.event_type) {
            self.apply(&event.payload, at);
        } else if let Some(mover) = mover(event) {
            // The seat that acted (or was timed out) ended its move, even
            // if the game waits for it again at once (a solo pick), unless
            // the action only prepared the move the game still waits for.
            if game.ends_move(&event.action) {
                self.end_move(&mover, at);
            }
        }
        self.settle(at, game);
        Ok(())
    }

    fn apply(&mut self, payload: &Value, at: DateTime<Utc>) {
        let Ok(event) = serde_json::from_value::<ClockEvent>(payload.clone()) else {
            return;
        };
        match event {
            ClockEvent::ClockSet { .. } => {}
            ClockEvent::ClockSeatJoined { seat } => {
                if let Some(joined) = self.waiting.as_mut() {
                    joined.insert(seat);
                }
            }
            ClockEvent::ClockStarted => {
                if self.waiting.take().is_some() {
                    self.run_from(at);
                }
            }
            ClockEvent::ClockPaused => {
                self.paused_since.get_or_insert(at);
            }
            ClockEvent::ClockResumed => self.run_from(at),
            ClockEvent::ClockTimeAdded { seat, ms } => {
                let seat = self.seat(&seat);
                seat.reserve_left_ms = seat.reserve_left_ms.saturating_add(ms);
            }
        }
    }

    /// The clock stopped runs again from `at`. The time stopped does not
    /// count: each due seat is due from as much before now as it was when
    /// the clock stopped; but a deadline that had passed before a pause
    /// stays where it fell (§R), its timeout owed.
    fn run_from(&mut self, at: DateTime<Utc>) {
        let Some(paused_since) = self.paused_since.take() else {
            return;
        };
        let per_move_ms = self.settings.per_move_ms;
        for seat in self.seats.values_mut() {
            let reserve_left_ms = seat.reserve_left_ms;
            if let Some(since) = seat.due_since.as_mut() {
                if deadline_after(*since, per_move_ms, reserve_left_ms) > paused_since {
                    *since = *since + (at - paused_since.max(*since));
                }
            }
        }
    }

    /// Seats the game waits for (and could time out) are due from `at` if
    /// they were not; seats it no longer waits for end their move.
    fn settle(&mut self, at: DateTime<Utc>, game: &dyn DynMatch) {
        let status = game.status();
        let mut names: Vec<String> = self.seats.keys().cloned().collect();
        names.extend(
            status
                .to_act
                .iter()
                .filter(|seat| !self.seats.contains_key(*seat))
                .cloned(),
        );
        for name in names {
            let due = !status.finished && status.to_act.contains(&name) && timeable(game, &name);
            let was_due = self
                .seats
                .get(&name)
                .is_some_and(|seat| seat.due_since.is_some());
            if due && !was_due {
                self.seat(&name).due_since = Some(at);
            } else if !due && was_due {
                self.end_move(&name, at);
            }
        }
    }

    /// The seat's move ends at `at`: what ran over its time per move comes
    /// out of its reserve.
    fn end_move(&mut self, seat: &str, at: DateTime<Utc>) {
        let per_move = self.settings.per_move_ms;
        let counted_until = self.paused_since.map_or(at, |paused| paused.min(at));
        if let Some(clock) = self.seats.get_mut(seat) {
            if let Some(since) = clock.due_since.take() {
                let used = ms(counted_until - since);
                let over = used.saturating_sub(per_move);
                clock.reserve_left_ms = clock.reserve_left_ms.saturating_sub(over);
            }
        }
    }

    /// Every due seat's deadline the clock enforces, earliest first: while
    /// it is paused, only those that had passed before the pause.
    pub fn deadlines(&self) -> Vec<Deadline> {
        let mut deadlines: Vec<Deadline> = self
            .seats
            .iter()
            .filter_map(|(seat, clock)| {
                let at = self.deadline_while_due(clock)?;
                self.enforces(at).then(|| Deadline {
                    seat: seat.clone(),
                    at,
                })
            })
            .collect();
        deadlines.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.seat.cmp(&b.seat)));
        deadlines
    }

    /// The seat's deadline, if it is due and the clock enforces it.
    pub fn deadline_of(&self, seat: &str) -> Option<DateTime<Utc>> {
        self.deadlines()
            .into_iter()
            .find(|deadline| deadline.seat == seat)
            .map(|deadline| deadline.at)
    }

    /// The clock as everyone may see it: every seat of the game.
    pub fn status(&self) -> ClockStatus {
        let seats = self
            .seats
            .iter()
            .map(|(seat, clock)| {
                let deadline = self.deadline_while_due(clock);
                let left_ms = match (deadline, clock.due_since, self.paused_since) {
                    (Some(deadline), Some(since), Some(paused)) => {
                        Some(ms(deadline - since.max(paused)))
                    }
                    _ => None,
                };
                let deadline = deadline
                    .filter(|at| self.enforces(*at))
                    .map(|at| format_recorded_at(&at));
                (
                    seat.clone(),
                    SeatClockStatus {
                        reserve_left_ms: clock.reserve_left_ms,
                        due_since: clock.due_since.map(|since| format_recorded_at(&since)),
                        deadline,
                        left_ms,
                    },
                )
            })
            .collect();
        let waiting_for = self.waiting.as_ref().map(|joined| {
            self.seats
                .keys()
                .filter(|seat| !joined.contains(*seat))
                .cloned()
                .collect()
        });
        ClockStatus {
            per_move_ms: self.settings.per_move_ms,
            reserve_ms: self.settings.reserve_ms,
            paused_since: self
                .paused_since
                .filter(|_| self.waiting.is_none())
                .map(|at| format_recorded_at(&at)),
            waiting_for,
            seats,
        }
    }
}

/// The seat whose move the event's action ended: the seat that sent it, or
/// the seat a timeout names.
fn mover(event: &RecordedEvent) -> Option<String> {
    match actor_label::read(&event.actor) {
        Some(Actor::Seat(seat)) => Some(seat),
        _ if event_type(&event.action) == "timeout" => event
            .action
            .get("seat")
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

impl ClockSettings {
    /// The settings a `clock_set` event records, if it is one.
    pub fn recorded_in(event: &Value) -> Option<ClockSettings> {
        match serde_json::from_value::<ClockEvent>(event.clone()) {
            Ok(ClockEvent::ClockSet {
                per_move_ms,
                reserve_ms,
                start,
            }) => Some(ClockSettings {
                per_move_ms,
                reserve_ms,
                start,
            }),
            _ => None,
        }
    }
}

/// A game's clock as its log folds: none until the setup's `clock_set`.
/// Call [`fold`] with each event after applying it to the game.
pub fn fold(
    clock: &mut Option<Clock>,
    event: &RecordedEvent,
    game: &dyn DynMatch,
) -> Result<(), GameError> {
    match clock {
        Some(clock) => clock.observe(event, game),
        None if event.event_type == "clock_set" => {
            let settings =
                ClockSettings::recorded_in(&event.payload).ok_or_else(|| GameError::Malformed {
                    game: "clock",
                    what: crate::erased::Malformed::Event,
                    message: "clock_set without its settings".into(),
                })?;
            *clock = Some(Clock::start(settings, recorded_time(event)?, game));
            Ok(())
        }
        None => Ok(()),
    }
}

/// Decides an action sent to a game and its clock, by the actor the log
/// labels `actor` (`seat:<name>`, `umpire`, or `clock`), at `now`: the one
/// entry for the service's actions, its dry runs and the clock's timeouts,
/// and for the audit's re-decision of every refusal they recorded, so the
/// audit refuses what the service refused, for the same reason.
///
/// - `reissue_seat_token` is refused ([`crate::seat_tokens::NOT_AN_ACTION`]):
///   only the reissue operation records it, since it also revokes the
///   seat's tokens ([`decide_recorded`] re-decides what it recorded);
/// - the clock's `timeout { seat, deadline }` is checked against the
///   clock (the seat due, the deadline the log gives, `now` not before
///   it), then decided as the umpire's `timeout { seat }` by the game;
/// - the umpire's `clock_pause`, `clock_resume` and `clock_add_time` are
///   decided by the clock;
/// - the umpire's `record_ruling` is decided by [`crate::rulings::decide`]
///   (the umpire's only, bounded text);
/// - every other action goes to the game as it is.
pub fn decide(
    game: &dyn DynMatch,
    clock: Option<&Clock>,
    actor: &str,
    action: &Value,
    now: DateTime<Utc>,
) -> Result<Decision, GameError> {
    if crate::seat_tokens::is_seat_token_action(action) {
        return Err(crate::seat_tokens::not_an_action().into());
    }
    if actor == actor_label::CLOCK {
        return decide_timeout(game, clock, action, now);
    }
    let actor = actor_label::read(actor).ok_or_else(|| GameError::Malformed {
        game: game.game_id(),
        what: crate::erased::Malformed::Action,
        message: format!("`{actor}` is not an actor"),
    })?;
    if crate::rulings::is_ruling_action(action) {
        return crate::rulings::decide(game, &actor, action);
    }
    if event_type(action).starts_with(CLOCK_TYPE_PREFIX) {
        return decide_on_clock(game, clock, &actor, action);
    }
    if action.get("deadline").is_some() && event_type(action) == "timeout" {
        return Err(NOT_THE_CLOCK
            .with("Only the clock names a deadline with a timeout; the umpire's timeout names only the seat.")
            .into());
    }
    game.decide_and_apply(&actor, action)
}

/// Decides again an action the log records, as it was decided when it was
/// recorded (the replay of an archive, its import and its audit): a
/// `reissue_seat_token`, which only the reissue operation records, as that
/// operation decides it ([`crate::seat_tokens::decide`]); every other
/// action by [`decide`].
pub fn decide_recorded(
    game: &dyn DynMatch,
    clock: Option<&Clock>,
    actor: &str,
    action: &Value,
    now: DateTime<Utc>,
) -> Result<Decision, GameError> {
    if !crate::seat_tokens::is_seat_token_action(action) {
        return decide(game, clock, actor, action, now);
    }
    let actor = actor_label::read(actor).ok_or_else(|| GameError::Malformed {
        game: game.game_id(),
        what: crate::erased::Malformed::Action,
        message: format!("`{actor}` is not an actor"),
    })?;
    crate::seat_tokens::decide(game, &actor, action)
}

fn decide_timeout(
    game: &dyn DynMatch,
    clock: Option<&Clock>,
    action: &Value,
    now: DateTime<Utc>,
) -> Result<Decision, GameError> {
    let clock = clock.ok_or_else(|| {
        NOT_CLOCKED.with("The clock timed a seat out in a game that has no clock.")
    })?;
    let malformed = |message: &str| GameError::Malformed {
        game: game.game_id(),
        what: crate::erased::Malformed::Action,
        message: message.to_string(),
    };
    if event_type(action) != "timeout" {
        return Err(malformed("the clock sends only timeouts"));
    }
    let seat = action
        .get("seat")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("a clock timeout names its seat"))?;
    let named = action
        .get("deadline")
        .and_then(Value::as_str)
        .and_then(|text| DateTime::parse_from_rfc3339(text).ok())
        .map(|time| time.with_timezone(&Utc))
        .ok_or_else(|| malformed("a clock timeout names its deadline as an RFC 3339 time"))?;
    let Some(deadline) = clock.deadline_of(seat) else {
        return Err(SEAT_NOT_DUE
            .with(if clock.is_paused() {
                format!("The clock timed out seat {seat} while it was paused, its deadline not passed before the pause.")
            } else {
                format!("The clock timed out seat {seat}, which was not due.")
            })
            .into());
    };
    if named != deadline {
        return Err(WRONG_DEADLINE
            .with(format!(
                "The clock timed out seat {seat} for the deadline {}, but the log gives {}.",
                format_recorded_at(&named),
                format_recorded_at(&deadline)
            ))
            .into());
    }
    if now < deadline {
        return Err(EARLY
            .with(format!(
                "The clock timed out seat {seat} at {}, before its deadline {}.",
                format_recorded_at(&now),
                format_recorded_at(&deadline)
            ))
            .into());
    }
    game.decide_and_apply(&Actor::Umpire, &game.timeout_action(seat)?)
}

fn decide_on_clock(
    game: &dyn DynMatch,
    clock: Option<&Clock>,
    actor: &Actor<String>,
    action: &Value,
) -> Result<Decision, GameError> {
    let action: ClockAction =
        serde_json::from_value(action.clone()).map_err(|e| GameError::Malformed {
            game: game.game_id(),
            what: crate::erased::Malformed::Action,
            message: e.to_string(),
        })?;
    match (actor, &action) {
        (Actor::Seat(_), ClockAction::ClockJoin) => {}
        (Actor::Seat(seat), _) => {
            return Err(UMPIRE_ONLY
                .with(format!(
                    "Only the umpire may start, pause, resume or give time on the clock, not seat {seat}."
                ))
                .into())
        }
        (_, ClockAction::ClockJoin) => {
            return Err(SEATS_JOIN
                .with("Seats join the clock; the umpire starts it with clock_start.")
                .into())
        }
        _ => {}
    }
    let clock = clock.ok_or_else(|| NOT_CLOCKED.with("This game was created without a clock."))?;
    if game.status().finished {
        return Err(GAME_OVER
            .with("The game is over, and so is its clock.")
            .into());
    }
    let not_started = || {
        NOT_STARTED.with(
            "The clock has not started: it waits for every seat to join, or for the umpire's clock_start.",
        )
    };
    let events = match action {
        ClockAction::ClockJoin | ClockAction::ClockStart if !clock.is_waiting() => {
            return Err(ALREADY_STARTED
                .with("The clock has already started.")
                .into())
        }
        ClockAction::ClockJoin => {
            let Actor::Seat(seat) = actor else {
                unreachable!("only seats join, checked above")
            };
            if clock.has_joined(seat) {
                return Err(ALREADY_JOINED
                    .with(format!("Seat {seat} has already joined the clock."))
                    .into());
            }
            let mut events = vec![ClockEvent::ClockSeatJoined { seat: seat.clone() }];
            if clock.is_last_to_join(seat) {
                events.push(ClockEvent::ClockStarted);
            }
            events
        }
        ClockAction::ClockStart => vec![ClockEvent::ClockStarted],
        ClockAction::ClockPause | ClockAction::ClockResume if clock.is_waiting() => {
            return Err(not_started().into())
        }
        action => vec![decide_stop_or_time(game, clock, action)?],
    };
    let events: Vec<Value> = events.iter().map(to_json).collect();
    let mut after = game.clone_box();
    for event in &events {
        after.apply_json(event)?;
    }
    Ok(Decision {
        events,
        decoded: Vec::new(),
        after,
    })
}

/// The umpire's pause, resume or extra time on a clock that has started.
fn decide_stop_or_time(
    game: &dyn DynMatch,
    clock: &Clock,
    action: ClockAction,
) -> Result<ClockEvent, GameError> {
    Ok(match action {
        ClockAction::ClockPause if clock.is_paused() => {
            return Err(ALREADY_PAUSED.with("The clock is already paused.").into())
        }
        ClockAction::ClockPause => ClockEvent::ClockPaused,
        ClockAction::ClockResume if !clock.is_paused() => {
            return Err(NOT_PAUSED
                .with("The clock is running: there is nothing to resume.")
                .into())
        }
        ClockAction::ClockResume => ClockEvent::ClockResumed,
        ClockAction::ClockAddTime { seat, .. } if !game.has_seat(&seat) => {
            return Err(UNKNOWN_SEAT
                .with(format!("This game has no seat {seat:?} to give time to."))
                .into())
        }
        ClockAction::ClockAddTime { ms, .. } if !(1..=MAX_CLOCK_MS).contains(&ms) => {
            return Err(INVALID_TIME
                .with(format!(
                    "Extra time of {ms} ms is not between 1 ms and 30 days."
                ))
                .into())
        }
        ClockAction::ClockAddTime { seat, ms } => ClockEvent::ClockTimeAdded { seat, ms },
        ClockAction::ClockJoin | ClockAction::ClockStart => {
            unreachable!("joins and starts are decided by the caller")
        }
    })
}

impl StatusJson {
    /// This status with the game's clock, if it has one.
    pub fn with_clock(mut self, clock: Option<&Clock>) -> StatusJson {
        self.clock = clock.map(Clock::status);
        self
    }
}
