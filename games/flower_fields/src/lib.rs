//! Between Flower Fields (`flower_fields`): five seats in a ring plant
//! dominoes of flowers into the fields they share with their neighbours,
//! secretly, round by round. Rule book: `shared/rules/flower-fields.md`.
//!
//! # Shapes
//!
//! - Pieces are strings `"red-blue"`; the first flower goes on the first
//!   cell named. Cells are `"A1"`..`"E5"` (column letter, row number).
//! - A submission: `{"type": "submit", "field": 0, "piece": "red-blue",
//!   "cells": ["A1", "A2"], "broken": false, "revealed": {"piece": ..,
//!   "cells": [..], "broken": false}, "penalties": {"clockwise": "garnets",
//!   "counterclockwise": "points"}, "replaces_previous": false}`.
//!
//! # Rulings where the rule book is silent
//!
//! - **Explicit field and break.** A submission names the field it plays
//!   into (`wrong_field` when it is not the one due this round) and says
//!   `broken: true` to break a piece: a break with a domino placement left is
//!   `break_not_needed`; non-adjacent cells without `broken` are
//!   `cells_not_adjacent`.
//! - **Replacing a submission.** A second `submit` in the same round is
//!   refused with `already_submitted` unless it carries
//!   `replaces_previous: true`, which replaces the pending one until the
//!   round resolves. `replace_piece` after submitting is also
//!   `already_submitted` (replace first, then submit), so a pending
//!   submission always names a piece still in hand.
//! - **Penalty choices** are per field relative to the seat (`clockwise`,
//!   `counterclockwise`) and apply to every break in that field this round.
//!   Breaks are charged field by field in field order, the revealed piece
//!   before the placer's own; garnets are taken only if the balance still
//!   holds 3 at that moment, else points.
//! - **Duplicate pieces.** A replacement may duplicate a held piece; naming
//!   such a piece plays (or replaces) the older one, so duplicates never
//!   dodge the hold limit. A replacement keeps the original deal round, so
//!   the hold limit and the rounds 0–3 window still apply to it (it may be
//!   replaced again for another 3 garnets).
//!   Which piece leaves a hand, action by action: a submission and a
//!   replacement take the earliest-dealt piece of that kind (so of two
//!   identical pieces, the replaceable one when one is); a missed
//!   submission takes the seat's oldest piece of any kind. A replacement
//!   of one of two identical pieces is then refused only for the reasons
//!   its message names — most often the garnets: seats start with none by
//!   default and each replacement costs 3, so the one that made the pair
//!   has often spent them (held by a test over random games).
//! - **Amounts are in the events.** Garnets paid and points lost
//!   (`piece_replaced.garnets`, `submission_missed.points`,
//!   `break_penalty_taken.amount`) are written by `decide`; an event
//!   without them means the amounts of rules version 1 (3 garnets, 10
//!   points: `messages::recorded_v1`), so `apply` holds no rule.
//! - **Replacement window.** Only before the seat's submission in a round
//!   (rounds 1–12; round 0 has no action phase: setup deals rounds 0 and 1).
//! - **A replacement is not a move on the clock.** The seat's move in a
//!   round is its submission; a `replace_piece` before it only prepares
//!   it, so the seat's time runs on (`Game::ends_move`): the seed gives
//!   each round one deadline, and garnets do not buy time.
//! - **Missed submissions.** The umpire's `timeout { seat }` takes the
//!   seat's oldest piece out of its hand at once and charges 10 points; at
//!   resolution the piece is revealed to the other manager of the field it
//!   was due in (`piece_revealed`), or discarded after round 12. If that
//!   manager misses the next round too, the revealed piece is discarded
//!   (its cells end black). `close_round` times out every pending seat.
//!   A timed-out seat cannot submit for that round (`submission_missed`).
//! - **Elimination Candidate ties** (both the tie between the two seats
//!   opposite the winner and a tie for lowest without a winner) wait for the
//!   umpire's `choose_candidate { seat }` (phase `choosing_candidate`).
//! - **Garnets rule** applies to every type mapped to `garnets` (white by
//!   default); a field with none of the type earns nothing.
//! - **Information.** Whether a seat is still awaited is public (it is the
//!   game status). The fact of a miss is told to the absent seat; the other
//!   manager learns of it through the revealed piece. After the end
//!   everything is public except the bag order, which stays umpire-only as
//!   for every game. Before the end a seat's score sheet holds only its own
//!   line, computed from its two fields and its own penalties; garnets from
//!   white flowers are earned only at the end.

mod apply;
pub mod codes;
mod decide;
pub mod flowers;
mod legal;
pub mod messages;
pub mod options;
pub mod score;
pub mod state;
pub mod view;

use serde_json::json;
use umpire_domain::{
    Actor, Game, GameRng, GameSchemas, ScoreSummary, SeatIndex, Status, Viewer, Violation,
};

pub use decide::setup_with_bags;
pub use flowers::{FlowerFieldsCell, FlowerFieldsFlower, FlowerFieldsPiece};
pub use legal::placements;
pub use messages::{
    FlowerFieldsAction, FlowerFieldsEvent, FlowerFieldsPenalty, FlowerFieldsPenaltyChoices,
    FlowerFieldsPlacement, FlowerFieldsRuling, FlowerFieldsSubmission,
};
pub use options::{FlowerFieldsOptions, FlowerFieldsScoringMapping, FlowerFieldsScoringRule};
pub use score::FlowerFieldsScore;
pub use state::{FlowerFieldsPhase, FlowerFieldsState};
pub use view::FlowerFieldsView;

/// The rules of Between Flower Fields.
pub struct FlowerFields;

impl Game for FlowerFields {
    const ID: &'static str = "flower_fields";
    const RULES_VERSION: u32 = 1;
    const VIOLATIONS: &'static [umpire_domain::ViolationKind] = codes::ALL;

    type Seat = SeatIndex;
    type Options = FlowerFieldsOptions;
    type State = FlowerFieldsState;
    type Action = FlowerFieldsAction;
    type Event = FlowerFieldsEvent;
    type View = FlowerFieldsView;
    type Score = FlowerFieldsScore;

    fn validate_options(options: FlowerFieldsOptions) -> Result<FlowerFieldsOptions, Violation> {
        options::validate(options)
    }

    fn seats(_options: &FlowerFieldsOptions) -> Vec<SeatIndex> {
        flowers::all_seats().collect()
    }

    fn initial_state(options: &FlowerFieldsOptions) -> FlowerFieldsState {
        FlowerFieldsState::new(options)
    }

    fn setup(options: &FlowerFieldsOptions, rng: &mut GameRng) -> Vec<FlowerFieldsEvent> {
        decide::setup(options, rng)
    }

    fn decide(
        state: &FlowerFieldsState,
        actor: Actor<SeatIndex>,
        action: &FlowerFieldsAction,
    ) -> Result<Vec<FlowerFieldsEvent>, Violation> {
        decide::decide(state, actor, action)
    }

    fn apply(state: &mut FlowerFieldsState, event: &FlowerFieldsEvent) {
        apply::apply(state, event);
    }

    fn status(state: &FlowerFieldsState) -> Status<SeatIndex> {
        let phase = match state.phase {
            FlowerFieldsPhase::Setup => "setup",
            FlowerFieldsPhase::Submitting => "submitting",
            FlowerFieldsPhase::ChoosingCandidate => "choosing_candidate",
            FlowerFieldsPhase::Finished => "finished",
        };
        Status {
            to_act: flowers::all_seats()
                .filter(|seat| state.is_pending(*seat))
                .collect(),
            phase,
            finished: state.phase == FlowerFieldsPhase::Finished,
        }
    }

    fn view(state: &FlowerFieldsState, viewer: Viewer<SeatIndex>) -> FlowerFieldsView {
        view::view(state, viewer)
    }

    /// The table's own events; a seat's or a field's are shown by §8 (see
    /// `view::redact_event`).
    const PUBLIC_EVENTS: &'static [&'static str] = &[
        "game_set_up",
        "round_started",
        "ruling_set",
        "round_resolved",
        "game_ended",
        "result_declared",
        "candidate_chosen",
    ];

    fn redact_event(
        now: &FlowerFieldsState,
        event: &FlowerFieldsEvent,
        viewer: Viewer<SeatIndex>,
    ) -> Option<FlowerFieldsEvent> {
        view::redact_event(now, event, viewer)
    }

    fn timeout(seat: SeatIndex) -> FlowerFieldsAction {
        FlowerFieldsAction::Timeout { seat }
    }

    fn ends_move(action: &FlowerFieldsAction) -> bool {
        !matches!(action, FlowerFieldsAction::ReplacePiece { .. })
    }

    fn legal_actions(
        state: &FlowerFieldsState,
        actor: Actor<SeatIndex>,
    ) -> Vec<FlowerFieldsAction> {
        legal::legal_actions(state, actor)
    }

    fn score(state: &FlowerFieldsState, viewer: Viewer<SeatIndex>) -> FlowerFieldsScore {
        score::score(state, viewer)
    }

    fn summary(state: &FlowerFieldsState) -> ScoreSummary {
        score::summary(state)
    }

    fn schemas() -> GameSchemas {
        let examples = vec![
            (
                "submit".to_string(),
                json!({"type": "submit", "field": 0, "piece": "red-blue", "cells": ["A1", "A2"],
                       "penalties": {"clockwise": "garnets", "counterclockwise": "points"}}),
            ),
            (
                "submit_with_revealed_piece".to_string(),
                json!({"type": "submit", "field": 4, "piece": "white-yellow", "cells": ["C3", "D3"],
                       "revealed": {"piece": "blue-orange", "cells": ["A1", "B1"]}}),
            ),
            (
                "submit_broken".to_string(),
                json!({"type": "submit", "field": 0, "piece": "red-purple", "cells": ["A1", "E5"],
                       "broken": true, "penalties": {"clockwise": "garnets"}, "replaces_previous": true}),
            ),
            (
                "replace_piece".to_string(),
                json!({"type": "replace_piece", "piece": "red-blue", "with": "red-red"}),
            ),
            ("timeout".to_string(), json!({"type": "timeout", "seat": 3})),
            ("close_round".to_string(), json!({"type": "close_round"})),
            (
                "set_ruling".to_string(),
                json!({"type": "set_ruling", "rule": "piece_replacement", "enabled": true}),
            ),
            (
                "choose_candidate".to_string(),
                json!({"type": "choose_candidate", "seat": 2}),
            ),
        ];
        GameSchemas::of::<
            FlowerFieldsOptions,
            FlowerFieldsAction,
            FlowerFieldsEvent,
            FlowerFieldsView,
            FlowerFieldsScore,
        >(examples)
    }
}
