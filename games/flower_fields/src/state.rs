//! The complete state of a game, as only the umpire sees it. Changed only by
//! `apply`; read by every other module.

use serde::{Deserialize, Serialize};
use umpire_domain::SeatIndex;
use utoipa::ToSchema;

use crate::flowers::{
    FieldIndex, FlowerFieldsCell, FlowerFieldsFlower, FlowerFieldsPiece, FIELD_SIZE, HOLD_LIMIT,
    SEAT_COUNT,
};
use crate::messages::{FlowerFieldsPenalty, FlowerFieldsSubmission};
use crate::options::{FlowerFieldsOptions, FlowerFieldsScoringMapping};

/// A piece in a seat's hand and the round it was dealt (§2).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsHandPiece {
    pub piece: FlowerFieldsPiece,
    pub dealt_round: u8,
    /// The last round it may be played in (§2 hold limit).
    pub play_by_round: u8,
}

impl FlowerFieldsHandPiece {
    pub fn new(piece: FlowerFieldsPiece, dealt_round: u8) -> Self {
        FlowerFieldsHandPiece {
            piece,
            dealt_round,
            play_by_round: dealt_round.saturating_add(HOLD_LIMIT),
        }
    }
}

/// Why a seat lost points.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FlowerFieldsPenaltyReason {
    /// A piece was broken in a field the seat manages and it took points (§3).
    Break { break_field: u8 },
    /// The seat missed its submission (§5).
    MissedSubmission,
}

/// One point penalty.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsPointPenalty {
    pub round: u8,
    // Nested rather than flattened: a flattened tagged enum becomes an
    // `allOf` over a `oneOf`, which client generators cannot model.
    pub reason: FlowerFieldsPenaltyReason,
    pub points: i64,
}

/// One break a seat paid for, and how (its private penalty choice, §8).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsBreakPayment {
    pub round: u8,
    pub break_field: u8,
    pub penalty: FlowerFieldsPenalty,
}

/// A seat's garnet account (§4, §6).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsGarnets {
    pub starting: i64,
    pub spent_on_breaks: i64,
    pub spent_on_replacements: i64,
    /// From white flowers (garnets rule), set at the end.
    pub earned: i64,
    pub balance: i64,
}

#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatState {
    pub hand: Vec<FlowerFieldsHandPiece>,
    pub garnets: FlowerFieldsGarnets,
    pub penalties: Vec<FlowerFieldsPointPenalty>,
    pub break_payments: Vec<FlowerFieldsBreakPayment>,
    /// This round's pending submission.
    pub submission: Option<FlowerFieldsSubmission>,
    /// True when the seat missed this round's submission.
    pub missed_this_round: bool,
    /// The oldest piece taken from the hand by this round's miss (§5).
    pub missed_piece: Option<FlowerFieldsPiece>,
    /// Pieces that left the game unplaced (missed in round 12, the 13th).
    pub discarded: Vec<FlowerFieldsPiece>,
    /// Replacements made (§6), for the audit.
    pub replacements: Vec<(u8, FlowerFieldsPiece, FlowerFieldsPiece)>,
}

impl SeatState {
    /// Index of the piece a seat plays when it names `piece`: the oldest
    /// held piece with those flowers, so a duplicate never dodges the hold
    /// limit.
    pub fn hand_position_of(&self, piece: &FlowerFieldsPiece) -> Option<usize> {
        self.hand
            .iter()
            .enumerate()
            .filter(|(_, held)| held.piece.same_piece_as(piece))
            .min_by_key(|(_, held)| held.dealt_round)
            .map(|(position, _)| position)
    }

    /// Index of the oldest held piece.
    pub fn oldest_position(&self) -> Option<usize> {
        self.hand
            .iter()
            .enumerate()
            .min_by_key(|(_, held)| held.dealt_round)
            .map(|(position, _)| position)
    }
}

/// A piece revealed by a missed submission, waiting in its field (§5).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsRevealedPiece {
    pub piece: FlowerFieldsPiece,
    pub from_seat: SeatIndex,
    /// The round it must be placed in.
    pub due_round: u8,
}

/// The last piece placed in a field (§8: its managers see it).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsLastPiece {
    pub round: u8,
    /// The manager who placed it (named so because the field, not this
    /// seat, decides who may see it).
    pub placed_by: SeatIndex,
    pub piece: FlowerFieldsPiece,
    pub cells: [FlowerFieldsCell; 2],
    pub broken: bool,
}

#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldState {
    /// Row by row, `None` for an empty cell.
    pub cells: Vec<Option<FlowerFieldsFlower>>,
    pub last_piece: Option<FlowerFieldsLastPiece>,
    pub revealed: Option<FlowerFieldsRevealedPiece>,
}

impl FieldState {
    pub fn empty() -> Self {
        FieldState {
            cells: vec![None; usize::from(FIELD_SIZE) * usize::from(FIELD_SIZE)],
            last_piece: None,
            revealed: None,
        }
    }

    pub fn flower_at(&self, cell: FlowerFieldsCell) -> Option<FlowerFieldsFlower> {
        self.cells.get(cell.index()).copied().flatten()
    }

    pub fn is_empty_at(&self, cell: FlowerFieldsCell) -> bool {
        self.flower_at(cell).is_none()
    }

    /// Every pair of orthogonally adjacent empty cells, each once (§3).
    pub fn adjacent_empty_pairs(&self) -> Vec<[FlowerFieldsCell; 2]> {
        let mut pairs = Vec::new();
        for cell in FlowerFieldsCell::all().filter(|cell| self.is_empty_at(*cell)) {
            for neighbour in cell.neighbours() {
                if neighbour > cell && self.is_empty_at(neighbour) {
                    pairs.push([cell, neighbour]);
                }
            }
        }
        pairs
    }

    /// §3: a piece must be broken only when no domino placement exists.
    pub fn must_break(&self) -> bool {
        self.adjacent_empty_pairs().is_empty()
    }

    pub fn empty_cells(&self) -> Vec<FlowerFieldsCell> {
        FlowerFieldsCell::all()
            .filter(|cell| self.is_empty_at(*cell))
            .collect()
    }

    pub fn set(&mut self, cell: FlowerFieldsCell, flower: FlowerFieldsFlower) {
        if let Some(slot) = self.cells.get_mut(cell.index()) {
            *slot = Some(flower);
        }
    }
}

/// Where the game is.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FlowerFieldsPhase {
    /// Before the setup events.
    Setup,
    /// Seats submit secretly for the current round.
    Submitting,
    /// The game ended with a tie for the Elimination Candidate; the umpire
    /// must choose (§7).
    ChoosingCandidate,
    Finished,
}

/// One switch of a ruling, for the audit (§6).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsRulingChange {
    /// The round in which it was switched (`0` with `at_setup`).
    pub round: u8,
    pub enabled: bool,
    /// True for the setting at setup.
    pub at_setup: bool,
}

/// The result once the game ended (§7).
#[derive(
    get_size2::GetSize, Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<SeatIndex>,
    /// The seats named as possible Elimination Candidate.
    pub candidates: Vec<SeatIndex>,
    /// The Elimination Candidate once settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elimination_candidate: Option<SeatIndex>,
}

#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowerFieldsState {
    pub options: FlowerFieldsOptions,
    /// The mapping in effect, as recorded by the setup event.
    pub scoring: FlowerFieldsScoringMapping,
    /// The piece-replacement ruling in force now (§6).
    pub piece_replacement: bool,
    pub ruling_history: Vec<FlowerFieldsRulingChange>,
    /// Each seat's bag in deal order (umpire only).
    pub bags: Vec<Vec<FlowerFieldsPiece>>,
    pub round: u8,
    pub phase: FlowerFieldsPhase,
    pub seats: Vec<SeatState>,
    pub fields: Vec<FieldState>,
    /// True after round 12 resolved: every field is revealed (§7, §8).
    pub ended: bool,
    pub result: Option<FlowerFieldsResult>,
}

impl FlowerFieldsState {
    pub fn new(options: &FlowerFieldsOptions) -> Self {
        FlowerFieldsState {
            options: options.clone(),
            scoring: options.scoring,
            piece_replacement: options.piece_replacement,
            ruling_history: Vec::new(),
            bags: Vec::new(),
            round: 0,
            phase: FlowerFieldsPhase::Setup,
            seats: (0..SEAT_COUNT).map(|_| SeatState::default()).collect(),
            fields: (0..SEAT_COUNT).map(|_| FieldState::empty()).collect(),
            ended: false,
            result: None,
        }
    }

    pub fn seat(&self, seat: SeatIndex) -> Option<&SeatState> {
        self.seats.get(usize::from(seat.0))
    }

    pub fn seat_mut(&mut self, seat: SeatIndex) -> Option<&mut SeatState> {
        self.seats.get_mut(usize::from(seat.0))
    }

    pub fn field(&self, field: FieldIndex) -> Option<&FieldState> {
        self.fields.get(usize::from(field))
    }

    pub fn field_mut(&mut self, field: FieldIndex) -> Option<&mut FieldState> {
        self.fields.get_mut(usize::from(field))
    }

    /// A seat still owes a submission this round.
    pub fn is_pending(&self, seat: SeatIndex) -> bool {
        self.phase == FlowerFieldsPhase::Submitting
            && self
                .seat(seat)
                .is_some_and(|state| state.submission.is_none() && !state.missed_this_round)
    }
}
