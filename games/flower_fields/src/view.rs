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
    placer_of, Cell, FieldIndex, Flower, Piece,
};
use crate::messages::{Event, Submission};
use crate::options::ScoringMapping;
use crate::state::{
    BreakPayment, GameResult, GarnetAccount, HandPiece, LastPiece, Phase, PointPenalty,
    RevealedPiece, RulingChange, State,
};

/// A planted cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FlowerFieldsPlantedCell)]
pub struct PlantedCell {
    pub cell: Cell,
    pub flower: Flower,
}

/// One seat as the viewer sees it. Secret parts are absent, not blanked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FlowerFieldsSeatView)]
pub struct SeatView {
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
    pub hand: Option<Vec<HandPiece>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub garnets: Option<GarnetAccount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission: Option<Submission>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missed_this_round: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub penalties: Option<Vec<PointPenalty>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub break_payments: Option<Vec<BreakPayment>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discarded: Option<Vec<Piece>>,
}

/// One field as the viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FlowerFieldsFieldView)]
pub struct FieldView {
    pub field: u8,
    pub managers: [SeatIndex; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placer_this_round: Option<SeatIndex>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<PlantedCell>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_piece: Option<LastPiece>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_must_break: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revealed_piece: Option<RevealedPiece>,
}

/// The game as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(as = FlowerFieldsView)]
pub struct View {
    pub round: u8,
    pub phase: Phase,
    /// True once round 12 resolved and every field is revealed.
    pub ended: bool,
    pub scoring: ScoringMapping,
    /// Whether the piece-replacement ruling is in force now (§6).
    pub piece_replacement: bool,
    /// Every switch of the ruling, for the audit.
    pub ruling_history: Vec<RulingChange>,
    pub seats: Vec<SeatView>,
    pub fields: Vec<FieldView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    /// Every bag in deal order (umpire only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bags: Option<Vec<Vec<Piece>>>,
}

fn sees_seat(state: &State, viewer: Viewer<SeatIndex>, seat: SeatIndex) -> bool {
    state.ended || viewer.sees_secrets_of(seat)
}

fn sees_field(state: &State, viewer: Viewer<SeatIndex>, field: FieldIndex) -> bool {
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

pub fn view(state: &State, viewer: Viewer<SeatIndex>) -> View {
    let in_play = state.phase == Phase::Submitting;
    let seats = all_seats()
        .filter_map(|seat| {
            let seat_state = state.seat(seat)?;
            let visible = sees_seat(state, viewer, seat);
            Some(SeatView {
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
            Some(FieldView {
                field,
                managers: managers(field),
                placer_this_round: only_if(in_play, || placer_of(field, state.round)),
                cells: only_if(visible, || {
                    Cell::all()
                        .filter_map(|cell| {
                            field_state
                                .flower_at(cell)
                                .map(|flower| PlantedCell { cell, flower })
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
    View {
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
pub fn redact_event(now: &State, event: &Event, viewer: Viewer<SeatIndex>) -> Option<Event> {
    let visible = match event {
        // The bag order stays the umpire's, even after the end.
        Event::BagsShuffled { .. } => viewer.is_umpire(),
        Event::GameSetUp { .. }
        | Event::RoundStarted { .. }
        | Event::RulingSet { .. }
        | Event::RoundResolved { .. }
        | Event::GameEnded
        | Event::ResultDeclared { .. }
        | Event::CandidateChosen { .. } => true,
        Event::PieceDealt { seat, .. }
        | Event::SubmissionMade { seat, .. }
        | Event::PieceReplaced { seat, .. }
        | Event::SubmissionMissed { seat, .. }
        | Event::BreakPenaltyTaken { seat, .. }
        | Event::GarnetsEarned { seat, .. } => sees_seat(now, viewer, *seat),
        Event::BreakNoticeGiven { field, .. }
        | Event::PiecePlaced { field, .. }
        | Event::PieceRevealed { field, .. } => sees_field(now, viewer, *field),
        Event::PieceDiscarded { owner, field, .. } => match field {
            Some(field) => sees_field(now, viewer, *field),
            None => sees_seat(now, viewer, *owner),
        },
    };
    only_if(visible, || event.clone())
}
