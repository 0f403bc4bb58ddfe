//! Draft & Cider for Umpire: a drafting game where each player picks apple
//! cards from a communal hand and places them at once in one of eight
//! scoring batches. Pure rules, no IO. The rule book is
//! `shared/rules/draft-cider.md`; this crate follows it section by section.
//!
//! # Code map
//! - `cards`: the 75 cards and their `gold h3 s5` spelling.
//! - `options`: setup options and the round numbers they imply.
//! - `batches`: the eight batches, their placement rules and scores (§3).
//! - `messages`: actions and events (the JSON vocabulary).
//! - `state`, `apply`: the state and how events fold into it.
//! - `decide`: every rule, status and legal actions.
//! - `view`, `score`: what each viewer sees, and the score sheet.
//!
//! # Rulings where the rule book and seed are silent
//! - **Default player count is 2** (`players` left out means a 2-player game);
//!   `players` outside 1–6 or `first_picker >= players` is
//!   `draft_cider.invalid_option`.
//! - **Clockwise** is increasing seat index: after seat `n−1` comes seat 0.
//!   Round `r` is first picked by seat `(first_picker + r − 1) mod n`.
//! - **The first round is dealt by setup**, after the setup record and the
//!   umpire-only `deck_shuffled` event; every later round is dealt by the
//!   `decide` call whose pick emptied the communal hand, and the last such
//!   pick also emits `game_finished` with the final totals and winners.
//! - **The deck order stays umpire-only for good**, even after the game: the
//!   cards that were never dealt are never revealed. Dealt cards are public
//!   in `round_dealt` events.
//! - **Timeouts** may only be declared for the seat whose pick it is (another
//!   seat: `draft_cider.not_your_turn`); a seat sending `timeout` gets
//!   `draft_cider.umpire_only`, the umpire sending `pick` gets
//!   `draft_cider.not_a_seat_action`. A seat index beyond the table is
//!   `draft_cider.unknown_seat`; acting before the first deal (only possible
//!   on a state without setup events) is `draft_cider.not_started`.
//! - **Feather chain**: the live values are those of the first card (a match
//!   means equal values, so they never change); a card that matches a live
//!   attribute keeps the chain going.
//! - **Special Colour Tree**: "another card of its colour" means any card of
//!   that colour in Monochrome, Feather, Unlucky, Fortepiano, Sweet Couple or
//!   Steady; cards of that colour in Bad are harmless, before or after the
//!   tree is planted. An empty tree scores 0.
//! - **Unlucky**: any first card may start it; the spread rule compares every
//!   card of the batch (max − min ≤ 1). An empty batch scores 0.
//! - **Fortepiano / Sweet Couple**: a trailing unpaired card scores nothing
//!   and constrains only the card that completes its pair.
//! - **Steady Height**: "the previous card" is the one placed last in the batch.
//! - **Solo result**: a solo game has no winner (`winners` is empty and
//!   `decided_by` is `solo`); its result is the total (§4).
//! - **Provisional scores** before the end are computed the same way from the
//!   cards placed so far, with no winners.

mod apply;
pub mod batches;
pub mod cards;
pub mod codes;
mod decide;
pub mod messages;
pub mod options;
pub mod score;
pub mod state;
mod view;

use umpire_domain::{
    Actor, Game, GameRng, GameSchemas, ScoreSummary, SeatIndex, Status, Viewer, Violation,
};

pub use batches::{DraftCiderBatch, DraftCiderFeatherChain, DraftCiderOrchard};
pub use cards::{DraftCiderCard, DraftCiderColour};
pub use messages::{DraftCiderAction, DraftCiderDecidedBy, DraftCiderEvent};
pub use options::{DraftCiderBrokenTree, DraftCiderOptions, DraftCiderRoundPreset};
pub use score::{DraftCiderBatchScore, DraftCiderScore, DraftCiderSeatScore};
pub use state::DraftCiderState;
pub use view::{DraftCiderOrchardView, DraftCiderView};

/// The game `draft_cider`.
#[derive(Debug, Clone, Copy, Default)]
pub struct DraftCider;

impl Game for DraftCider {
    const ID: &'static str = "draft_cider";
    const RULES_VERSION: u32 = 1;
    const VIOLATIONS: &'static [umpire_domain::ViolationKind] = codes::ALL;

    type Seat = SeatIndex;
    type Options = DraftCiderOptions;
    type State = DraftCiderState;
    type Action = DraftCiderAction;
    type Event = DraftCiderEvent;
    type View = DraftCiderView;
    type Score = DraftCiderScore;

    fn validate_options(options: DraftCiderOptions) -> Result<DraftCiderOptions, Violation> {
        options::validate(options)
    }

    fn seats(options: &DraftCiderOptions) -> Vec<SeatIndex> {
        options::seats(options)
    }

    fn initial_state(options: &DraftCiderOptions) -> DraftCiderState {
        DraftCiderState::initial(options)
    }

    fn setup(options: &DraftCiderOptions, rng: &mut GameRng) -> Vec<DraftCiderEvent> {
        decide::setup(options, rng)
    }

    fn decide(
        state: &DraftCiderState,
        actor: Actor<SeatIndex>,
        action: &DraftCiderAction,
    ) -> Result<Vec<DraftCiderEvent>, Violation> {
        decide::decide(state, actor, action)
    }

    fn apply(state: &mut DraftCiderState, event: &DraftCiderEvent) {
        apply::apply(state, event)
    }

    fn status(state: &DraftCiderState) -> Status<SeatIndex> {
        decide::status(state)
    }

    fn view(state: &DraftCiderState, viewer: Viewer<SeatIndex>) -> DraftCiderView {
        view::view(state, viewer)
    }

    /// All but the deck's order (see `view::redact_event`).
    const PUBLIC_EVENTS: &'static [&'static str] =
        &["game_set_up", "round_dealt", "card_picked", "game_finished"];

    fn redact_event(
        now: &DraftCiderState,
        event: &DraftCiderEvent,
        viewer: Viewer<SeatIndex>,
    ) -> Option<DraftCiderEvent> {
        view::redact_event(now, event, viewer)
    }

    fn timeout(seat: SeatIndex) -> DraftCiderAction {
        DraftCiderAction::Timeout { seat }
    }

    fn legal_actions(state: &DraftCiderState, actor: Actor<SeatIndex>) -> Vec<DraftCiderAction> {
        decide::legal_actions(state, actor)
    }

    /// The score sheet is public in full (§5), so every viewer gets the same.
    fn score(state: &DraftCiderState, _viewer: Viewer<SeatIndex>) -> DraftCiderScore {
        score::score_sheet(state)
    }

    fn summary(state: &DraftCiderState) -> ScoreSummary {
        score::summary(state)
    }

    fn schemas() -> GameSchemas {
        GameSchemas::of::<
            DraftCiderOptions,
            DraftCiderAction,
            DraftCiderEvent,
            DraftCiderView,
            DraftCiderScore,
        >(vec![
            (
                "pick".to_string(),
                serde_json::json!({"type": "pick", "card": "gold h3 s5", "batch": "feather"}),
            ),
            (
                "timeout".to_string(),
                serde_json::json!({"type": "timeout", "seat": 1}),
            ),
        ])
    }
}
