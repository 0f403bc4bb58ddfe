//! The game trait, in the decider style.
//!
//! A game is a set of pure functions over its own types:
//! `setup` draws the deals from a seeded generator and returns them as events;
//! `decide` holds every rule and turns an action into events or a violation;
//! `apply` folds an event into the state and holds no rules at all;
//! `view`, `redact_event` and `score` say what a given viewer may see.

use std::collections::BTreeMap;

use serde::{de::DeserializeOwned, Serialize};

use crate::{Actor, GameRng, Seat, Viewer, Violation};

/// Who must act now, and whether the game is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status<S> {
    /// The seats whose action the game is waiting for. Several for
    /// simultaneous phases (secret bids); empty when only the umpire can
    /// move the game on, or when it is finished.
    pub to_act: Vec<S>,
    /// A short name of the phase, e.g. `bidding`, `playing`, `finished`.
    pub phase: &'static str,
    pub finished: bool,
}

/// The part of any score sheet that bulk scoring needs: totals and winners.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct ScoreSummary {
    /// Total per seat name.
    pub totals: BTreeMap<String, i64>,
    /// The winning seats: one, several for a shared win, none for a draw or
    /// while the game is not finished.
    pub winners: Vec<String>,
    /// True once the game is over and the score is final.
    #[serde(rename = "final")]
    pub is_final: bool,
}

/// A board game's rules. Implementations are unit structs; all state lives in
/// `State`, which is only ever changed by `apply`.
pub trait Game: Send + Sync + 'static {
    /// The game id used in URLs and stored streams, e.g. `arboretum`.
    const ID: &'static str;
    /// Bumped whenever a rule changes how an action is decided; recorded with
    /// each event so an audit knows which rules decided it.
    const RULES_VERSION: u32;
    /// Every way `decide` and `validate_options` can refuse (see
    /// [`crate::violation_kinds!`]).
    const VIOLATIONS: &'static [crate::ViolationKind];

    type Seat: Seat;
    /// Setup options, as sent by clients. Every field has a default.
    type Options: Serialize + DeserializeOwned + Clone + Default + Send + Sync;
    /// Everything the events have established. Serialized only so that
    /// the service may keep a fold between folds (`DynMatch::snapshot`, a
    /// derived table, never the log): its JSON must give back the same
    /// state (a property test per game holds it), and a change to what it
    /// holds bumps `erased::SNAPSHOT_FORMAT`. Its `GetSize` says what it
    /// holds in memory: what the service's fold cache charges the memory
    /// budget for each state it keeps.
    type State: Clone + Send + Sync + Serialize + DeserializeOwned + get_size2::GetSize;
    /// An action, tagged by `type` in snake_case.
    type Action: Serialize + DeserializeOwned + Clone + Send + Sync;
    /// An event, a past-tense fact tagged by `type` in snake_case.
    type Event: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    /// The state as one viewer may see it.
    type View: Serialize;
    /// The score sheet as one viewer may see it.
    type Score: Serialize;

    /// Checks the options and fills in what they imply; refuses impossible
    /// combinations (e.g. seven players) with a violation.
    fn validate_options(options: Self::Options) -> Result<Self::Options, Violation>;

    /// The seats this game is played with under these options, in table order.
    fn seats(options: &Self::Options) -> Vec<Self::Seat>;

    /// The state before any event.
    fn initial_state(options: &Self::Options) -> Self::State;

    /// The first events of a game: the setup record and every shuffle or
    /// deal drawn from `rng`. Nothing after setup may draw randomness.
    fn setup(options: &Self::Options, rng: &mut GameRng) -> Vec<Self::Event>;

    /// Every rule lives here: an action becomes events, or is refused.
    fn decide(
        state: &Self::State,
        actor: Actor<Self::Seat>,
        action: &Self::Action,
    ) -> Result<Vec<Self::Event>, Violation>;

    /// Folds one event into the state. Holds no rules. Must not panic on any
    /// event `decide` or `setup` produced; a stored log is re-validated by
    /// re-deciding its actions, not by `apply`.
    fn apply(state: &mut Self::State, event: &Self::Event);

    fn status(state: &Self::State) -> Status<Self::Seat>;

    fn view(state: &Self::State, viewer: Viewer<Self::Seat>) -> Self::View;

    /// The `type` tags of the events every viewer sees whole at every
    /// moment (see [`Game::redact_event`]). Only an optimisation: an event
    /// left out is redacted as usual.
    const PUBLIC_EVENTS: &'static [&'static str] = &[];

    /// The event as `viewer` may see it at the moment described by `now`
    /// (the latest state the viewer is looking at, so that everything can
    /// become public once a game ends). `None` hides the event entirely.
    ///
    /// The umpire sees every event whole: for `Viewer::Umpire` this must be
    /// `Some(event.clone())`, and so must it be for every viewer and every
    /// `now` when the event's `type` is one of [`Game::PUBLIC_EVENTS`]. The
    /// service relies on both and shows such a stored event as it is,
    /// without calling this (a decode and an encode saved per event and
    /// viewer, on every read of the log and every live stream);
    /// `testing::assert_unredacted_events_are_whole` holds a game to it.
    fn redact_event(
        now: &Self::State,
        event: &Self::Event,
        viewer: Viewer<Self::Seat>,
    ) -> Option<Self::Event>;

    /// Legal actions for `actor`. Complete where the space is small; where it
    /// is huge (bids, multi-placement turns) a varied sample. Every listed
    /// action must be accepted by `decide`.
    fn legal_actions(state: &Self::State, actor: Actor<Self::Seat>) -> Vec<Self::Action>;

    /// The umpire's timeout of `seat`: what the clock sends when the
    /// seat's time runs out, decided by `decide` like the umpire's own.
    fn timeout(seat: Self::Seat) -> Self::Action;

    /// Whether a seat's accepted `action` ends its move on the clock
    /// (`docs/rules/clock.md` §2): every action does, but one that only
    /// prepares the move the game still waits for, after which the seat's
    /// time runs on (a Flower Fields replacement before the round's
    /// submission) rather than starting again.
    fn ends_move(action: &Self::Action) -> bool {
        let _ = action;
        true
    }

    /// The score sheet, final or provisional, as `viewer` may see it.
    fn score(state: &Self::State, viewer: Viewer<Self::Seat>) -> Self::Score;

    /// Totals and winners, from the umpire's (complete) view.
    fn summary(state: &Self::State) -> ScoreSummary;

    /// Schemas for the OpenAPI document: the options, action, event, view and
    /// score types with everything they reference.
    fn schemas() -> crate::GameSchemas;
}
