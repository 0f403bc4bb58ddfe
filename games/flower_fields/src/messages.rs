//! The JSON shapes of actions (what seats and the umpire send) and events
//! (the facts they become).

use serde::{Deserialize, Serialize};
use umpire_domain::SeatIndex;
use utoipa::ToSchema;

use crate::flowers::{FlowerFieldsCell, FlowerFieldsPiece};
use crate::options::FlowerFieldsScoringMapping;

/// How a manager pays for a break (§3).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FlowerFieldsPenalty {
    Garnets,
    Points,
}

/// What an event without an amount means: the amounts of rules version 1,
/// under which such events were recorded. These are part of the event
/// format, fixed forever — not rules: `decide` writes every amount that
/// differs from them (see [`amount_of`]), so a rules change can never
/// re-score a stored game, and events under today's rules (whose amounts
/// are these) keep the bytes, and so the hashes, they always had.
pub mod recorded_v1 {
    pub const REPLACEMENT_GARNETS: i64 = 3;
    pub const MISSED_SUBMISSION_POINTS: i64 = 10;
    pub const BREAK_GARNETS: i64 = 3;
    pub const BREAK_POINTS: i64 = 10;
}

impl FlowerFieldsPenalty {
    /// The amount a break penalty of this kind recorded without one means.
    pub fn recorded_v1_amount(self) -> i64 {
        match self {
            FlowerFieldsPenalty::Garnets => recorded_v1::BREAK_GARNETS,
            FlowerFieldsPenalty::Points => recorded_v1::BREAK_POINTS,
        }
    }
}

/// The amount field of an event that `decide` emits: absent when it is what
/// an absent field means (`recorded_v1`), else written out.
pub fn amount_of(amount: i64, recorded_v1: i64) -> Option<i64> {
    (amount != recorded_v1).then_some(amount)
}

/// A seat's penalty choice for breaks in each of its two fields this round
/// (§3). A missing choice means points.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct FlowerFieldsPenaltyChoices {
    /// For breaks in the seat's clockwise field (field `s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clockwise: Option<FlowerFieldsPenalty>,
    /// For breaks in the seat's counterclockwise field (field `s−1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counterclockwise: Option<FlowerFieldsPenalty>,
}

/// One piece put into a field: its flowers in the order written go on the
/// cells in the order named. Non-adjacent cells are a break (§3).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct FlowerFieldsPlacement {
    pub piece: FlowerFieldsPiece,
    pub cells: [FlowerFieldsCell; 2],
    /// True to break the piece: allowed only when the field has no two
    /// adjacent empty cells (§3).
    #[serde(default)]
    pub broken: bool,
}

/// A seat's secret submission for a round (§1, §3, §5).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct FlowerFieldsSubmission {
    /// The field due this round (odd rounds clockwise, even counterclockwise).
    pub field: u8,
    /// The piece from the hand and where it goes.
    pub piece: FlowerFieldsPiece,
    pub cells: [FlowerFieldsCell; 2],
    /// True to break the piece (§3).
    #[serde(default)]
    pub broken: bool,
    /// The piece revealed by the other manager's missed submission, placed
    /// first (§5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<FlowerFieldsPlacement>,
    #[serde(default)]
    pub penalties: FlowerFieldsPenaltyChoices,
}

/// A switchable ruling (§6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowerFieldsRuling {
    PieceReplacement,
}

/// What a seat or the umpire sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowerFieldsAction {
    /// A seat's secret submission for the round. A second submission in the
    /// same round is refused (`already_submitted`) unless
    /// `replaces_previous` is true; then it replaces the first.
    Submit {
        field: u8,
        piece: FlowerFieldsPiece,
        cells: [FlowerFieldsCell; 2],
        /// True to break the piece: only when no two adjacent cells are
        /// empty (§3).
        #[serde(default)]
        broken: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revealed: Option<FlowerFieldsPlacement>,
        #[serde(default)]
        penalties: FlowerFieldsPenaltyChoices,
        #[serde(default)]
        replaces_previous: bool,
    },
    /// For 3 garnets, swap a held piece dealt in rounds 0–3 for any
    /// two-flower piece, while the ruling is in force (§6).
    ReplacePiece {
        piece: FlowerFieldsPiece,
        with: FlowerFieldsPiece,
    },
    /// Umpire: the seat missed this round's submission (§5).
    Timeout { seat: SeatIndex },
    /// Umpire: every seat still pending misses; the round resolves (§1, §5).
    CloseRound,
    /// Umpire: switch a ruling from this event forward (§6).
    SetRuling {
        rule: FlowerFieldsRuling,
        enabled: bool,
    },
    /// Umpire: settle a tie for the Elimination Candidate (§7).
    ChooseCandidate { seat: SeatIndex },
}

/// Why a piece left the game unplaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowerFieldsDiscardReason {
    /// Missed in round 12: there is no next round to place it (§5).
    MissedInLastRound,
    /// A revealed piece whose receiver missed its own submission too.
    ReceiverMissed,
}

/// Facts, in past tense.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FlowerFieldsEvent {
    /// The setup in effect, with every default filled in (public).
    GameSetUp {
        starting_garnets: i64,
        scoring: FlowerFieldsScoringMapping,
        piece_replacement: bool,
    },
    /// Every seat's bag in deal order (umpire only).
    BagsShuffled { bags: Vec<Vec<FlowerFieldsPiece>> },
    /// A round began (public).
    RoundStarted { round: u8 },
    /// A seat received a piece (that seat only).
    PieceDealt {
        seat: SeatIndex,
        round: u8,
        piece: FlowerFieldsPiece,
    },
    /// Whether the next piece in a field must be broken (its managers).
    BreakNoticeGiven {
        field: u8,
        round: u8,
        must_break: bool,
    },
    /// A seat's secret submission (that seat only).
    SubmissionMade {
        seat: SeatIndex,
        round: u8,
        submission: FlowerFieldsSubmission,
        replaced_previous: bool,
    },
    /// A seat swapped a piece for garnets (that seat only).
    PieceReplaced {
        seat: SeatIndex,
        round: u8,
        piece: FlowerFieldsPiece,
        with: FlowerFieldsPiece,
        dealt_round: u8,
        /// The garnets paid; absent: 3, as under rules version 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        garnets: Option<i64>,
    },
    /// The umpire switched a ruling (public).
    RulingSet {
        rule: FlowerFieldsRuling,
        enabled: bool,
        round: u8,
    },
    /// A seat missed its submission: its oldest piece left its hand and it
    /// takes penalty points (that seat only; the piece reaches the other
    /// manager through `piece_revealed`).
    SubmissionMissed {
        seat: SeatIndex,
        round: u8,
        due_field: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        piece: Option<FlowerFieldsPiece>,
        /// The penalty points; absent: 10, as under rules version 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        points: Option<i64>,
    },
    /// A piece went into a field (its managers).
    PiecePlaced {
        field: u8,
        round: u8,
        seat: SeatIndex,
        piece: FlowerFieldsPiece,
        cells: [FlowerFieldsCell; 2],
        broken: bool,
        /// Set when this is a revealed piece of the absent seat (§5).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        revealed_from: Option<SeatIndex>,
    },
    /// A manager paid for a break (that seat only).
    BreakPenaltyTaken {
        seat: SeatIndex,
        round: u8,
        break_field: u8,
        penalty: FlowerFieldsPenalty,
        /// The garnets or points paid; absent: 3 garnets or 10 points, as
        /// under rules version 1.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        amount: Option<i64>,
    },
    /// A missed piece was shown to the other manager, who places it next
    /// round (both managers of the field).
    PieceRevealed {
        field: u8,
        round: u8,
        from_seat: SeatIndex,
        to_seat: SeatIndex,
        piece: FlowerFieldsPiece,
    },
    /// A piece left the game unplaced (the owner; a revealed piece: both
    /// managers of its field).
    PieceDiscarded {
        owner: SeatIndex,
        round: u8,
        piece: FlowerFieldsPiece,
        reason: FlowerFieldsDiscardReason,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        field: Option<u8>,
    },
    /// Every submission of the round is in or missed (public).
    RoundResolved { round: u8 },
    /// After round 12: empty cells became black, fields are revealed (public).
    GameEnded,
    /// White-flower (garnets-rule) garnets of one seat at the end (§4).
    GarnetsEarned { seat: SeatIndex, garnets: i64 },
    /// The result (§7): the winner, if any, and the candidate list. With one
    /// candidate the game is finished; with several the umpire chooses.
    ResultDeclared {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        winner: Option<SeatIndex>,
        candidates: Vec<SeatIndex>,
    },
    /// The umpire settled the Elimination Candidate (public).
    CandidateChosen { seat: SeatIndex },
}
