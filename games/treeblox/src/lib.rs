//! Treeblox (Philip Olenyk, 2022) for Umpire: two trees of cubes compete for
//! light. The rule book is `shared/rules/treeblox.md`; this crate is pure.
//!
//! # Model
//! Cubes occupy integer cells `[x, y, z]` (treeblox §1). The board's holes
//! are `(0..=3, 0..=3, 0)`; a branch offers every empty face neighbour at
//! `z ≥ 0` to its own seat (including the cell below it, and cells outside
//! the 4×4 footprint); a leaf offers nothing. The topmost cube of a column,
//! when it is a leaf, is that seat's active leaf.
//!
//! # Events
//! `game_set_up` (the only setup event: nothing is random), `cube_placed`
//! per cube, `turn_passed`, `turn_started` (who acts next, which kind of
//! turn, and the growth rate fixed at that moment) and `game_ended`
//! (reason, winner or `null` for a draw, active leaves of both seats).
//!
//! # Umpire rulings where the rule book is silent
//! - **Timeout.** The umpire's `{"type": "timeout", "seat": ...}` makes the
//!   seat to act pass (`turn_passed` with `timed_out: true`). It counts as a
//!   pass for the two-pass end. In the first turn the seat simply places no
//!   leaf: if dark times out, light still takes its first turn and dark then
//!   starts its first main turn with no active leaf and loses; if light times
//!   out, dark's next placement leaves light without an active leaf and light
//!   loses; if both time out the two passes end the game, a 0–0 draw. A
//!   timeout during the final growth ends the final growth and the game,
//!   scored on active leaves as they stand. Timing out a seat that is not to
//!   act is refused with `treeblox.not_your_turn`; a seat sending a timeout
//!   gets `treeblox.umpire_only`, the umpire sending a `grow` gets
//!   `treeblox.not_a_seat_action`.
//! - **First turn.** Anything but exactly one leaf in a board hole
//!   (including a pass or two cubes) is
//!   `treeblox.first_turn_must_be_leaf_on_board`; a leaf in the hole the
//!   other seat already took is `treeblox.cell_occupied`.
//! - **Checking order.** A turn longer than the growth rate is refused before
//!   any placement is looked at. Each placement is then checked against the
//!   position left by the ones before it, in this order: below ground,
//!   occupied, not reachable, no cube of that kind. The first failing
//!   placement refuses the whole turn.
//! - **Immediate loss.** After a placement the placer is checked first, then
//!   the opponent (one cube can shade at most one leaf, so both can never be
//!   bare at once). Placements after the fatal one are neither applied nor
//!   examined: they are not recorded and cannot cause a refusal.
//! - **Final growth.** It starts when the seat that just finished a main
//!   turn holds no cube. Its growth rate is `null` (no cap). A list with more
//!   cubes than the seat holds is refused with `treeblox.no_cubes_of_kind`
//!   at the first placement lacking a cube; a list that stops while a cube
//!   and an available cell remain is `treeblox.final_growth_incomplete`.
//!   When the seat entering the final growth can place nothing at all (no
//!   cube or no available cell) the game ends at once without waiting for an
//!   empty turn. The two-pass rule plays no part in it.
//! - **Turn-start loss** is checked whenever a main turn would start, so it
//!   applies to the first main turn as well.

mod apply;
mod board;
mod cell;
pub mod codes;
mod decide;
mod legal;
mod model;
mod score;
mod seat;
mod state;
mod view;

use serde_json::json;
use umpire_domain::{Actor, Game, GameRng, GameSchemas, ScoreSummary, Status, Viewer, Violation};

pub use board::{PlacedCube, Position, Supply};
pub use cell::TreebloxCell;
pub use model::{
    TreebloxAction, TreebloxCubeKind, TreebloxEndReason, TreebloxEvent, TreebloxLeafTally,
    TreebloxOptions, TreebloxPlacement, TreebloxTurnKind, BRANCHES_PER_SEAT, LEAVES_PER_SEAT,
};
pub use score::{TreebloxScore, TreebloxSeatScore};
pub use seat::TreebloxSeat;
pub use state::{TreebloxOutcome, TreebloxPhase, TreebloxState};
pub use view::{TreebloxCubeView, TreebloxSeatView, TreebloxView};

/// The game of Treeblox.
#[derive(Debug, Clone, Copy, Default)]
pub struct Treeblox;

impl Game for Treeblox {
    const ID: &'static str = "treeblox";
    const RULES_VERSION: u32 = 1;
    const VIOLATIONS: &'static [umpire_domain::ViolationKind] = codes::ALL;

    type Seat = TreebloxSeat;
    type Options = TreebloxOptions;
    type State = TreebloxState;
    type Action = TreebloxAction;
    type Event = TreebloxEvent;
    type View = TreebloxView;
    type Score = TreebloxScore;

    fn validate_options(options: TreebloxOptions) -> Result<TreebloxOptions, Violation> {
        // There is nothing to choose: every well-formed options object is valid.
        Ok(options)
    }

    fn seats(_options: &TreebloxOptions) -> Vec<TreebloxSeat> {
        TreebloxSeat::ALL.to_vec()
    }

    fn initial_state(_options: &TreebloxOptions) -> TreebloxState {
        TreebloxState::new()
    }

    fn setup(_options: &TreebloxOptions, _rng: &mut GameRng) -> Vec<TreebloxEvent> {
        // No randomness: the board starts empty and dark moves first.
        vec![TreebloxEvent::GameSetUp {
            branches_per_seat: BRANCHES_PER_SEAT,
            leaves_per_seat: LEAVES_PER_SEAT,
            first_to_act: TreebloxSeat::Dark,
        }]
    }

    fn decide(
        state: &TreebloxState,
        actor: Actor<TreebloxSeat>,
        action: &TreebloxAction,
    ) -> Result<Vec<TreebloxEvent>, Violation> {
        decide::decide(state, actor, action)
    }

    fn apply(state: &mut TreebloxState, event: &TreebloxEvent) {
        apply::apply(state, event);
    }

    fn status(state: &TreebloxState) -> Status<TreebloxSeat> {
        Status {
            to_act: state.to_act.into_iter().collect(),
            phase: state.phase.name(),
            finished: state.is_finished(),
        }
    }

    fn view(state: &TreebloxState, _viewer: Viewer<TreebloxSeat>) -> TreebloxView {
        // Everything is public (treeblox rule book header).
        view::view(state)
    }

    /// Treeblox has no secrets.
    const PUBLIC_EVENTS: &'static [&'static str] = &[
        "game_set_up",
        "cube_placed",
        "turn_passed",
        "turn_started",
        "game_ended",
    ];

    fn redact_event(
        _now: &TreebloxState,
        event: &TreebloxEvent,
        _viewer: Viewer<TreebloxSeat>,
    ) -> Option<TreebloxEvent> {
        Some(event.clone())
    }

    fn timeout(seat: TreebloxSeat) -> TreebloxAction {
        TreebloxAction::Timeout { seat }
    }

    fn legal_actions(state: &TreebloxState, actor: Actor<TreebloxSeat>) -> Vec<TreebloxAction> {
        legal::legal_actions(state, actor)
    }

    fn score(state: &TreebloxState, _viewer: Viewer<TreebloxSeat>) -> TreebloxScore {
        score::score(state)
    }

    fn summary(state: &TreebloxState) -> ScoreSummary {
        score::summary(state)
    }

    fn schemas() -> GameSchemas {
        GameSchemas::of::<TreebloxOptions, TreebloxAction, TreebloxEvent, TreebloxView, TreebloxScore>(
            vec![
                (
                    "grow".into(),
                    json!({"type": "grow", "placements": [
                        {"kind": "branch", "cell": [1, 0, 0]},
                        {"kind": "leaf", "cell": [1, 0, 1]}
                    ]}),
                ),
                ("pass".into(), json!({"type": "grow", "placements": []})),
                (
                    "timeout".into(),
                    json!({"type": "timeout", "seat": "light"}),
                ),
            ],
        )
    }
}
