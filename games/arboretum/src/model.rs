//! The JSON shapes clients rely on: seats, options, actions and events.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cards::ArboretumCard;
use crate::cells::ArboretumCell;

/// The two seats: `red` (left) and `blue` (right).
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ArboretumSeat {
    Red,
    Blue,
}

impl ArboretumSeat {
    pub const BOTH: [ArboretumSeat; 2] = [ArboretumSeat::Red, ArboretumSeat::Blue];

    pub fn other(self) -> Self {
        match self {
            ArboretumSeat::Red => ArboretumSeat::Blue,
            ArboretumSeat::Blue => ArboretumSeat::Red,
        }
    }

    /// Index into per-seat arrays.
    pub fn index(self) -> usize {
        match self {
            ArboretumSeat::Red => 0,
            ArboretumSeat::Blue => 1,
        }
    }
}

impl umpire_domain::Seat for ArboretumSeat {
    fn name(&self) -> String {
        match self {
            ArboretumSeat::Red => "red".into(),
            ArboretumSeat::Blue => "blue".into(),
        }
    }

    fn parse(name: &str) -> Option<Self> {
        match name {
            "red" => Some(ArboretumSeat::Red),
            "blue" => Some(ArboretumSeat::Blue),
            _ => None,
        }
    }
}

/// Setup options (§2). The RNG seed is not an option: `setup` receives it.
#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ArboretumOptions {
    /// The seat holding the DM Advantage: it chooses the round-1 starting
    /// player and wins ties.
    #[serde(default = "default_dm_advantage")]
    #[schema(example = "red")]
    pub dm_advantage: ArboretumSeat,
}

fn default_dm_advantage() -> ArboretumSeat {
    ArboretumSeat::Red
}

impl Default for ArboretumOptions {
    fn default() -> Self {
        ArboretumOptions {
            dm_advantage: default_dm_advantage(),
        }
    }
}

/// What a parrot group plans to do on its turn (§3.2, §4).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ArboretumPlan {
    /// Plant, dig or start.
    Garden,
    /// Take, hire or start.
    Bulletin,
}

/// One parrot group of a bid.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ArboretumGroup {
    /// Parrots in the group, at least 1.
    #[schema(example = 3)]
    pub size: u8,
    pub plan: ArboretumPlan,
}

/// One turn of the round's turn order, taken by one parrot group.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct ArboretumTurn {
    pub seat: ArboretumSeat,
    /// Zero-based index of the group in the seat's bid.
    pub group: u8,
    pub size: u8,
    pub plan: ArboretumPlan,
}

/// An action, sent by a seat or (for `timeout`) by the umpire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ArboretumAction {
    /// The DM Advantage holder picks round 1's starting player (§2).
    ChooseStart { seat: ArboretumSeat },
    /// A secret bid: parrot groups, largest first (§3.2). Replaceable until
    /// both seats have bid.
    Bid { groups: Vec<ArboretumGroup> },
    /// Garden: a card from the offering area into the arboretum (§4).
    Plant {
        card: ArboretumCard,
        cell: ArboretumCell,
    },
    /// Garden, once per round: a card from the refuse pile into the arboretum.
    Dig {
        card: ArboretumCard,
        cell: ArboretumCell,
    },
    /// Bulletin: a card from the offering area onto the ad board; with an
    /// eighth card on the board, `discard` names the card to give back.
    Take {
        card: ArboretumCard,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        discard: Option<ArboretumCard>,
    },
    /// Bulletin, once per round: discard ad-board cards totalling at least
    /// parrots + 1 for one more parrot.
    Hire { cards: Vec<ArboretumCard> },
    /// Either plan, once per round: become next round's starting player.
    Start,
    /// Forfeit all of this seat's remaining turns this round.
    Skip,
    /// Umpire only: the seat ran out of time (bids nothing, or skips the
    /// rest of the round).
    Timeout { seat: ArboretumSeat },
}

/// Why a turn was not played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArboretumSkipReason {
    /// The seat sent `skip`: this and all its later turns this round are lost.
    Skipped,
    /// The seat had no legal action for the group's plan; as the seed says,
    /// it then skips the rest of the round.
    NoLegalAction,
    /// The umpire timed the seat out during play.
    TimedOut,
    /// An earlier skip this round already forfeited this turn.
    Forfeited,
}

/// Both seats' revealed bids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ArboretumRevealedBids {
    pub red: Vec<ArboretumGroup>,
    pub blue: Vec<ArboretumGroup>,
}

/// Final totals per seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ArboretumTotals {
    pub red: i64,
    pub blue: i64,
}

/// A fact that happened, tagged by `type` in snake_case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ArboretumEvent {
    /// The whole shuffled deck, dealt from in order. The order is
    /// umpire-only: `deck` is absent for everyone else.
    DeckShuffled {
        card_count: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deck: Option<Vec<ArboretumCard>>,
    },
    StartingPlayerChosen {
        seat: ArboretumSeat,
    },
    RoundStarted {
        round: u8,
        starting_player: ArboretumSeat,
    },
    /// Cards from the top of the recorded deck into the offering area.
    CardsDealt {
        round: u8,
        cards: Vec<ArboretumCard>,
    },
    /// A seat bid (or replaced its bid). `groups` is visible only to that
    /// seat and the umpire; everyone learns them from `bids_revealed`.
    BidSubmitted {
        round: u8,
        seat: ArboretumSeat,
        replaced: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        groups: Option<Vec<ArboretumGroup>>,
    },
    /// The umpire timed a seat out of bidding: it bids zero groups.
    BidTimedOut {
        round: u8,
        seat: ArboretumSeat,
    },
    /// Both bids are in: they are public now, and so is the turn order.
    BidsRevealed {
        round: u8,
        bids: ArboretumRevealedBids,
        turn_order: Vec<ArboretumTurn>,
        /// Turns past the ninth, which are not played.
        dropped_turns: Vec<ArboretumTurn>,
    },
    CardPlanted {
        seat: ArboretumSeat,
        card: ArboretumCard,
        cell: ArboretumCell,
    },
    CardDug {
        seat: ArboretumSeat,
        card: ArboretumCard,
        cell: ArboretumCell,
    },
    CardTaken {
        seat: ArboretumSeat,
        card: ArboretumCard,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        discard: Option<ArboretumCard>,
    },
    ParrotHired {
        seat: ArboretumSeat,
        cards: Vec<ArboretumCard>,
        /// The seat's parrot count after hiring.
        parrots: u8,
    },
    StartTaken {
        seat: ArboretumSeat,
    },
    TurnSkipped {
        seat: ArboretumSeat,
        /// One-based position in the round's turn order.
        turn: u8,
        reason: ArboretumSkipReason,
    },
    /// Refuse pile out of the game, offering area to the refuse pile (§3.5).
    RoundEnded {
        round: u8,
        removed_from_game: Vec<ArboretumCard>,
        moved_to_refuse: Vec<ArboretumCard>,
        next_starting_player: ArboretumSeat,
    },
    /// After round 11: the final totals and the winner (§5).
    GameEnded {
        totals: ArboretumTotals,
        winner: ArboretumSeat,
    },
}
