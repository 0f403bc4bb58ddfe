//! The public shapes of Treeblox: options, actions, events and their parts.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::cell::TreebloxCell;
use crate::seat::TreebloxSeat;

/// Branches each seat starts with (treeblox §2).
pub const BRANCHES_PER_SEAT: u8 = 16;
/// Leaves each seat starts with (treeblox §2).
pub const LEAVES_PER_SEAT: u8 = 16;

/// Treeblox has no setup choices; the object exists so that future options
/// stay backwards compatible, and unknown fields are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TreebloxOptions {}

/// The two kinds of cube. A branch offers holes on five faces; a leaf none.
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
pub enum TreebloxCubeKind {
    Branch,
    Leaf,
}

impl TreebloxCubeKind {
    pub const ALL: [TreebloxCubeKind; 2] = [TreebloxCubeKind::Branch, TreebloxCubeKind::Leaf];

    pub fn name(self) -> &'static str {
        match self {
            TreebloxCubeKind::Branch => "branch",
            TreebloxCubeKind::Leaf => "leaf",
        }
    }
}

/// One cube put into one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "leaf", "cell": [0, 0, 0]}))]
pub struct TreebloxPlacement {
    pub kind: TreebloxCubeKind,
    pub cell: TreebloxCell,
}

impl TreebloxPlacement {
    pub const fn new(kind: TreebloxCubeKind, cell: TreebloxCell) -> Self {
        TreebloxPlacement { kind, cell }
    }
}

/// An action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TreebloxAction {
    /// A seat's turn: its placements in order (0 up to the growth rate; in
    /// the final growth as many as it can). An empty list is a pass.
    Grow { placements: Vec<TreebloxPlacement> },
    /// Umpire only: the seat to act ran out of time and passes.
    Timeout { seat: TreebloxSeat },
}

/// The kind of turn a seat is taking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TreebloxTurnKind {
    /// Exactly one leaf into a board hole.
    FirstTurn,
    /// Up to the growth rate of placements, or a pass.
    Main,
    /// The last turn after the opponent placed all 32 cubes: place every
    /// remaining cube while a cell is available.
    FinalGrowth,
}

/// Why the game ended.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TreebloxEndReason {
    /// A placement left the loser with no active leaf (treeblox §2).
    NoActiveLeaves,
    /// The loser started its turn with no active leaf (treeblox §2).
    NoActiveLeavesAtTurnStart,
    /// Both seats passed one after the other (treeblox §2).
    TwoConsecutivePasses,
    /// One seat placed all its cubes and the other finished its final growth
    /// (or had nothing it could place, or timed out during it).
    FinalGrowthCompleted,
}

impl TreebloxEndReason {
    pub fn describe(self) -> &'static str {
        match self {
            TreebloxEndReason::NoActiveLeaves => "a placement left a seat with no active leaf",
            TreebloxEndReason::NoActiveLeavesAtTurnStart => {
                "a seat started its turn with no active leaf"
            }
            TreebloxEndReason::TwoConsecutivePasses => "both seats passed in consecutive turns",
            TreebloxEndReason::FinalGrowthCompleted => "the final growth was completed",
        }
    }
}

/// Active leaves of both seats at one moment.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct TreebloxLeafTally {
    pub dark: u32,
    pub light: u32,
}

impl TreebloxLeafTally {
    pub fn of(&self, seat: TreebloxSeat) -> u32 {
        match seat {
            TreebloxSeat::Dark => self.dark,
            TreebloxSeat::Light => self.light,
        }
    }
}

/// An event: a past-tense fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TreebloxEvent {
    /// The empty board is ready; each seat holds its cubes; `first_to_act`
    /// takes the first turn.
    GameSetUp {
        branches_per_seat: u8,
        leaves_per_seat: u8,
        first_to_act: TreebloxSeat,
    },
    /// One cube of `seat`'s colour was put into `cell`.
    CubePlaced {
        seat: TreebloxSeat,
        kind: TreebloxCubeKind,
        cell: TreebloxCell,
    },
    /// `seat` placed nothing this turn; `timed_out` when the umpire passed
    /// for it.
    TurnPassed {
        seat: TreebloxSeat,
        #[serde(default)]
        timed_out: bool,
    },
    /// `seat` must now act. `growth_rate` is the most it may place, fixed at
    /// the start of the turn; `null` in the final growth, where the cap does
    /// not apply.
    TurnStarted {
        seat: TreebloxSeat,
        turn: TreebloxTurnKind,
        growth_rate: Option<u8>,
    },
    /// The game is over. `winner` is `null` for a draw.
    GameEnded {
        reason: TreebloxEndReason,
        winner: Option<TreebloxSeat>,
        active_leaves: TreebloxLeafTally,
    },
}
