//! Build Your Arboretum: the rules engine (rule book `arboretum.md`, seed
//! `001_52fb6312c7f026e5.txt`). Pure: no IO, randomness only in `setup`.
//!
//! Rulings where the rule book and the seed are silent, decided as an
//! umpire would:
//!
//! - **Forced skips forfeit the round.** A seat whose turn offers no legal
//!   action for its plan is skipped automatically (`turn_skipped`, reason
//!   `no_legal_action`) and, as the seed says ("you have to skip the rest of
//!   the round"), loses its remaining turns this round too.
//! - **Every lost turn is an event.** Turns lost to an earlier skip, forced
//!   skip or timeout are recorded as `turn_skipped` with reason `forfeited`
//!   when the turn order reaches them, so the log reads turn by turn.
//! - **Timeouts.** In bidding the umpire may time out only a seat that has
//!   not bid yet (a submitted bid stands); in play only the seat whose turn
//!   it is (its clock only runs on its turns). Otherwise the timeout is
//!   refused with `arboretum.timeout_not_applicable`. Timeouts while the
//!   starting player is being chosen are `arboretum.wrong_phase`.
//! - **Choosing the start** by the seat without the DM Advantage is
//!   `arboretum.not_your_turn`.
//! - **Hire lists** must name distinct cards on the seat's ad board; a card
//!   listed twice is `arboretum.card_not_on_ad_board`. An empty list totals
//!   0 and is `arboretum.hire_total_too_low`.
//! - **Check order** for a turn: phase, turn, plan, then (dig/hire/start) the
//!   once-per-round rule, a full arboretum, the card's location, the cell.
//! - **Equal scoring paths**: the path whose cell sequence sorts first
//!   (cells ordered A1, A2, …, F6; a path sorts before the longer paths it
//!   begins) is shown on the score sheet.
//! - **Bid visibility.** Whether a seat has bid is public (the status names
//!   who may still act); the groups are not. A replaced bid is never
//!   revealed; the final bids are published by `bids_revealed`.
//! - **Status in bidding** lists both seats: the one that has bid may still
//!   replace its bid until the other's arrives.
//! - The score sheet is provisional before the end (no winner) and shows
//!   each suit's best path even where the seat lacks the right to score it.

mod apply;
pub mod cards;
pub mod cells;
pub mod codes;
mod decide;
mod legal;
pub mod model;
pub mod score;
pub mod state;
mod status;
pub mod turn_order;
mod view;

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use umpire_domain::{
    Actor, Game, GameRng, GameSchemas, ScoreSummary, Seat, Status, Viewer, Violation,
};

pub use cards::{ArboretumCard, ArboretumSuit};
pub use cells::ArboretumCell;
pub use model::{
    ArboretumAction, ArboretumEvent, ArboretumGroup, ArboretumOptions, ArboretumPlan,
    ArboretumRevealedBids, ArboretumSeat, ArboretumSkipReason, ArboretumTotals, ArboretumTurn,
};
pub use score::{ArboretumPath, ArboretumScore, ArboretumSeatScore, ArboretumSuitScore};
pub use state::{ArboretumPhase, ArboretumSpecials, ArboretumState, PlayerArea};
pub use view::{ArboretumPlantedCard, ArboretumSeatView, ArboretumView};

/// The game `arboretum`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Arboretum;

impl Game for Arboretum {
    const ID: &'static str = "arboretum";
    const RULES_VERSION: u32 = 1;
    const VIOLATIONS: &'static [umpire_domain::ViolationKind] = codes::ALL;

    type Seat = ArboretumSeat;
    type Options = ArboretumOptions;
    type State = ArboretumState;
    type Action = ArboretumAction;
    type Event = ArboretumEvent;
    type View = ArboretumView;
    type Score = ArboretumScore;

    fn validate_options(options: ArboretumOptions) -> Result<ArboretumOptions, Violation> {
        // Every value of the one option is valid; serde already refused
        // unknown fields and unknown seats.
        Ok(options)
    }

    fn seats(_options: &ArboretumOptions) -> Vec<ArboretumSeat> {
        ArboretumSeat::BOTH.to_vec()
    }

    fn initial_state(options: &ArboretumOptions) -> ArboretumState {
        ArboretumState::new(options.clone())
    }

    /// §2: the whole deck is shuffled once and recorded; every later deal
    /// takes the next cards of this order.
    fn setup(_options: &ArboretumOptions, rng: &mut GameRng) -> Vec<ArboretumEvent> {
        let mut deck = cards::full_deck();
        deck.shuffle(rng);
        vec![ArboretumEvent::DeckShuffled {
            card_count: u8::try_from(deck.len()).unwrap_or(u8::MAX),
            deck: Some(deck),
        }]
    }

    fn decide(
        state: &ArboretumState,
        actor: Actor<ArboretumSeat>,
        action: &ArboretumAction,
    ) -> Result<Vec<ArboretumEvent>, Violation> {
        decide::decide(state, actor, action)
    }

    fn apply(state: &mut ArboretumState, event: &ArboretumEvent) {
        apply::apply(state, event);
    }

    fn status(state: &ArboretumState) -> Status<ArboretumSeat> {
        status::status(state)
    }

    fn view(state: &ArboretumState, viewer: Viewer<ArboretumSeat>) -> ArboretumView {
        view::view(state, viewer)
    }

    /// All but the deck's order and a bid's groups (see `view::redact_event`).
    const PUBLIC_EVENTS: &'static [&'static str] = &[
        "starting_player_chosen",
        "round_started",
        "cards_dealt",
        "bid_timed_out",
        "bids_revealed",
        "card_planted",
        "card_dug",
        "card_taken",
        "parrot_hired",
        "start_taken",
        "turn_skipped",
        "round_ended",
        "game_ended",
    ];

    fn redact_event(
        _now: &ArboretumState,
        event: &ArboretumEvent,
        viewer: Viewer<ArboretumSeat>,
    ) -> Option<ArboretumEvent> {
        view::redact_event(event, viewer)
    }

    fn timeout(seat: ArboretumSeat) -> ArboretumAction {
        ArboretumAction::Timeout { seat }
    }

    fn legal_actions(state: &ArboretumState, actor: Actor<ArboretumSeat>) -> Vec<ArboretumAction> {
        legal::legal_actions(state, actor)
    }

    fn score(state: &ArboretumState, _viewer: Viewer<ArboretumSeat>) -> ArboretumScore {
        // Everything scoring uses is public information (§6).
        score::score_sheet(state)
    }

    fn summary(state: &ArboretumState) -> ScoreSummary {
        let sheet = score::score_sheet(state);
        let mut totals = BTreeMap::new();
        totals.insert(ArboretumSeat::Red.name(), sheet.red.total);
        totals.insert(ArboretumSeat::Blue.name(), sheet.blue.total);
        ScoreSummary {
            totals,
            winners: sheet.winners.iter().map(Seat::name).collect(),
            is_final: sheet.is_final,
        }
    }

    fn schemas() -> GameSchemas {
        GameSchemas::of::<
            ArboretumOptions,
            ArboretumAction,
            ArboretumEvent,
            ArboretumView,
            ArboretumScore,
        >(action_examples())
    }
}

/// One named example per action type, for the OpenAPI document.
pub fn action_examples() -> Vec<(String, serde_json::Value)> {
    use serde_json::json;
    vec![
        (
            "choose_start".into(),
            json!({"type": "choose_start", "seat": "red"}),
        ),
        (
            "bid".into(),
            json!({"type": "bid", "groups": [
                {"size": 3, "plan": "bulletin"},
                {"size": 2, "plan": "garden"},
                {"size": 1, "plan": "garden"}
            ]}),
        ),
        (
            "plant".into(),
            json!({"type": "plant", "card": "Q7", "cell": "D5"}),
        ),
        (
            "dig".into(),
            json!({"type": "dig", "card": "V1", "cell": "D1"}),
        ),
        (
            "take".into(),
            json!({"type": "take", "card": "T4", "discard": "S2"}),
        ),
        (
            "hire".into(),
            json!({"type": "hire", "cards": ["Q7", "T4"]}),
        ),
        ("start".into(), json!({"type": "start"})),
        ("skip".into(), json!({"type": "skip"})),
        ("timeout".into(), json!({"type": "timeout", "seat": "blue"})),
    ]
}
