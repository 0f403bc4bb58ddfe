//! The pure core of Umpire: what a game is, how its rulings are reported, and
//! how the service handles any game without knowing its types.
//!
//! Nothing in this crate performs IO, reads a clock or owns a random number
//! generator: randomness enters as a seed handed to [`Game::setup`], whose
//! draws are recorded as events, so a replay never re-rolls.

pub mod actor_label;
pub mod aggregate;
pub mod chain;
pub mod clock;
pub mod dry_run;
pub mod erased;
pub mod game;
pub mod memory;
pub mod outside_the_rules;
pub mod record;
pub mod rng;
pub mod rulings;
pub mod schema_names;
pub mod seat;
pub mod seat_tokens;
pub mod status;
#[cfg(feature = "testing")]
pub mod testing;
pub mod text_schema;
pub mod violation;

pub use dry_run::{dry_run, DryRun};
pub use erased::{Decision, DynGame, DynMatch, GameError, GameSchemas, Registry};
pub use game::{Game, ScoreSummary, Status};
pub use record::RecordedEvent;
pub use rng::GameRng;
pub use seat::{Actor, Seat, SeatIndex, Viewer};
pub use status::StatusJson;
pub use violation::{Violation, ViolationKind};
