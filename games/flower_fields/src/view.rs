//! What each viewer may see (§8): the state view and event redaction.
//!
//! A seat sees its own hand, garnets, submission and penalty choices, and
//! the cells, last piece, break notice and revealed piece of the two fields
//! it manages. A spectator sees none of that before the end. After the end
//! everything is public except the bag order, which stays umpire-only.

use serde::Serialize;
use umpire_domain::{SeatIndex, Viewer};
use utoipa::ToSchema;

use crate::flowers::{
    all_fields, all_seats, clockwise_field, counterclockwise_field, field_due, managers, manages,
    placer_of, FieldIndex, FlowerFieldsCell, FlowerFieldsFlower, FlowerFieldsPiece,
};
use crate::messages::{FlowerFieldsEvent, FlowerFieldsSubmission};
use crate::options::FlowerFieldsScoringMapping;
use crate::state::{
    FlowerFieldsBreakPayment, FlowerFieldsGarnets, FlowerFieldsHandPiece, FlowerFieldsLastPiece,
    FlowerFieldsPhase, FlowerFieldsPointPenalty, FlowerFieldsResult, FlowerFieldsRevealedPiece,
    FlowerFieldsRulingChange, FlowerFieldsState,
};

/// A planted cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsPlantedCell {
    pub cell: FlowerFieldsCell,
    pub flower: FlowerFieldsFlower,
}

/// One seat as the viewer sees it. Secret parts are absent, not blanked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsSeatView {
    pub seat: SeatIndex,
    pub clockwise_field: u8,
    pub counterclockwise_field: u8,
    /// The field this seat plays into this round (public: it follows from
    /// the round number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_due: Option<u8>,
    /// Whether the game still waits for this seat (public, as in the status).
    pub waiting_for_submission: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<FlowerFieldsHandPiece>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub garnets: Option<FlowerFieldsGarnets>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission: Option<FlowerFieldsSubmission>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed_this_round: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub penalties: Option<Vec<FlowerFieldsPointPenalty>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub break_payments: Option<Vec<FlowerFieldsBreakPayment>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded: Option<Vec<FlowerFieldsPiece>>,
}

/// One field as the viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsFieldView {
    pub field: u8,
    pub managers: [SeatIndex; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placer_this_round: Option<SeatIndex>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<FlowerFieldsPlantedCell>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_piece: Option<FlowerFieldsLastPiece>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_must_break: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revealed_piece: Option<FlowerFieldsRevealedPiece>,
}

/// The game as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct FlowerFieldsView {
    pub round: u8,
    pub phase: FlowerFieldsPhase,
    /// True once round 12 resolved and every field is revealed.
    pub ended: bool,
    pub scoring: FlowerFieldsScoringMapping,
    /// Whether the piece-replacement ruling is in force now (§6).
    pub piece_replacement: bool,
    /// Every switch of the ruling, for the audit.
    pub ruling_history: Vec<FlowerFieldsRulingChange>,
    pub seats: Vec<FlowerFieldsSeatView>,
    pub fields: Vec<FlowerFieldsFieldView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<FlowerFieldsResult>,
    /// Every bag in deal order (umpire only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bags: Option<Vec<Vec<FlowerFieldsPiece>>>,
}

fn sees_seat(state: &FlowerFieldsState, viewer: Viewer<SeatIndex>, seat: SeatIndex) -> bool {
    state.ended || viewer.sees_secrets_of(seat)
}

fn sees_field(state: &FlowerFieldsState, viewer: Viewer<SeatIndex>, field: FieldIndex) -> bool {
    state.ended
        || match viewer {
            Viewer::Umpire => true,
            Viewer::Seat(seat) => manages(seat, field),
            Viewer::Spectator => false,
        }
}

fn only_if<T>(visible: bool, value: impl FnOnce() -> T) -> Option<T> {
    if visible {
        Some(value())
    } else {
        None
    }
}

pub fn view(state: &FlowerFieldsState, viewer: Viewer<SeatIndex>) -> FlowerFieldsView {
    let in_play = state.phase == FlowerFieldsPhase::Submitting;
    let seats = all_seats()
        .filter_map(|seat| {
            let seat_state = state.seat(seat)?;
            let visible = sees_seat(state, viewer, seat);
            Some(FlowerFieldsSeatView {
                seat,
                clockwise_field: clockwise_field(seat),
                counterclockwise_field: counterclockwise_field(seat),
                field_due: only_if(in_play, || field_due(seat, state.round)),
                waiting_for_submission: state.is_pending(seat),
                hand: only_if(visible, || seat_state.hand.clone()),
                garnets: only_if(visible, || seat_state.garnets),
                submission: if visible { seat_state.submission } else { None },
                missed_this_round: only_if(visible && in_play, || seat_state.missed_this_round),
                penalties: only_if(visible, || seat_state.penalties.clone()),
                break_payments: only_if(visible, || seat_state.break_payments.clone()),
                discarded: only_if(visible, || seat_state.discarded.clone()),
            })
        })
        .collect();
    let fields = all_fields()
        .filter_map(|field| {
            let field_state = state.field(field)?;
            let visible = sees_field(state, viewer, field);
            Some(FlowerFieldsFieldView {
                field,
                managers: managers(field),
                placer_this_round: only_if(in_play, || placer_of(field, state.round)),
                cells: only_if(visible, || {
                    FlowerFieldsCell::all()
                        .filter_map(|cell| {
                            field_state
                                .flower_at(cell)
                                .map(|flower| FlowerFieldsPlantedCell { cell, flower })
                        })
                        .collect()
                }),
                last_piece: if visible {
                    field_state.last_piece
                } else {
                    None
                },
                next_must_break: only_if(visible && in_play, || field_state.must_break()),
                revealed_piece: if visible { field_state.revealed } else { None },
            })
        })
        .collect();
    FlowerFieldsView {
        round: state.round,
        phase: state.phase,
        ended: state.ended,
        scoring: state.scoring,
        piece_replacement: state.piece_replacement,
        ruling_history: state.ruling_history.clone(),
        seats,
        fields,
        result: if state.ended {
            state.result.clone()
        } else {
            None
        },
        bags: only_if(viewer.is_umpire(), || state.bags.clone()),
    }
}

/// §8 for events: each event is shown whole to those who may see it and
/// hidden entirely from everyone else.
pub fn redact_event(
    now: &FlowerFieldsState,
    event: &FlowerFieldsEvent,
    viewer: Viewer<SeatIndex>,
) -> Option<FlowerFieldsEvent> {
    let visible = match event {
        // The bag order stays the umpire's, even after the end.
        FlowerFieldsEvent::BagsShuffled { .. } => viewer.is_umpire(),
        FlowerFieldsEvent::GameSetUp { .. }
        | FlowerFieldsEvent::RoundStarted { .. }
        | FlowerFieldsEvent::RulingSet { .. }
        | FlowerFieldsEvent::RoundResolved { .. }
        | FlowerFieldsEvent::GameEnded
        | FlowerFieldsEvent::ResultDeclared { .. }
        | FlowerFieldsEvent::CandidateChosen { .. } => true,
        FlowerFieldsEvent::PieceDealt { seat, .. }
        | FlowerFieldsEvent::SubmissionMade { seat, .. }
        | FlowerFieldsEvent::PieceReplaced { seat, .. }
        | FlowerFieldsEvent::SubmissionMissed { seat, .. }
        | FlowerFieldsEvent::BreakPenaltyTaken { seat, .. }
        | FlowerFieldsEvent::GarnetsEarned { seat, .. } => sees_seat(now, viewer, *seat),
        FlowerFieldsEvent::BreakNoticeGiven { field, .. }
        | FlowerFieldsEvent::PiecePlaced { field, .. }
        | FlowerFieldsEvent::PieceRevealed { field, .. } => sees_field(now, viewer, *field),
        FlowerFieldsEvent::PieceDiscarded { owner, field, .. } => match field {
            Some(field) => sees_field(now, viewer, *field),
            None => sees_seat(now, viewer, *owner),
        },
    };
    only_if(visible, || event.clone())
}
