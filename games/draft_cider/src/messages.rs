//! The JSON vocabulary of the game: actions sent by seats and the umpire, and
//! the events that record what happened (rule book §2, §6).

use serde::{Deserialize, Serialize};
use umpire_domain::SeatIndex;

use crate::batches::DraftCiderBatch;
use crate::cards::DraftCiderCard;
use crate::options::DraftCiderOptions;

/// An action, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum DraftCiderAction {
    /// A seat takes `card` from the communal hand and places it in `batch` (§2, §3).
    Pick {
        card: DraftCiderCard,
        batch: DraftCiderBatch,
    },
    /// Umpire only: `seat` ran out of time; its pick is the first card of the
    /// communal hand in deal order, placed in the Bad batch (§2).
    Timeout { seat: SeatIndex },
}

/// How the winners were decided (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DraftCiderDecidedBy {
    /// One seat had the highest total.
    HighestTotal,
    /// Tied totals; the tie-breaker "most non-empty batches" decided.
    MostNonEmptyBatches,
    /// Still tied after the tie-breaker: every tied seat shares the win.
    SharedWin,
    /// A solo game: the result is the total and nobody wins or loses.
    Solo,
}

/// An event, a past-tense fact tagged by `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DraftCiderEvent {
    /// The game was set up: the options and the numbers they imply (§2).
    GameSetUp {
        options: DraftCiderOptions,
        players: u8,
        rounds: u8,
        cards_per_player: u8,
    },
    /// The 75 cards were shuffled into this order. Umpire-only (§5).
    DeckShuffled { deck: Vec<DraftCiderCard> },
    /// A round began: these cards went face up into the communal hand, in
    /// deal order, and `first_picker` picks first (§2).
    RoundDealt {
        round: u8,
        first_picker: SeatIndex,
        cards: Vec<DraftCiderCard>,
    },
    /// `seat` took `card` from the communal hand and placed it in `batch`;
    /// `timed_out` when the umpire picked for it (§2).
    CardPicked {
        seat: SeatIndex,
        card: DraftCiderCard,
        batch: DraftCiderBatch,
        #[serde(default)]
        timed_out: bool,
    },
    /// The last round ended: final totals by seat index and the winners (§4).
    GameFinished {
        totals: Vec<i64>,
        winners: Vec<SeatIndex>,
        decided_by: DraftCiderDecidedBy,
    },
}
