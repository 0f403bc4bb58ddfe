//! The folded state of one game.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::board::Position;
use crate::model::{TreebloxEndReason, TreebloxLeafTally, TreebloxTurnKind};
use crate::seat::TreebloxSeat;

/// Where the game stands.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TreebloxPhase {
    /// Before the `game_set_up` event.
    SettingUp,
    FirstTurn,
    Main,
    FinalGrowth,
    Finished,
}

impl TreebloxPhase {
    pub fn name(self) -> &'static str {
        match self {
            TreebloxPhase::SettingUp => "setting_up",
            TreebloxPhase::FirstTurn => "first_turn",
            TreebloxPhase::Main => "main",
            TreebloxPhase::FinalGrowth => "final_growth",
            TreebloxPhase::Finished => "finished",
        }
    }

    pub fn of_turn(turn: TreebloxTurnKind) -> Self {
        match turn {
            TreebloxTurnKind::FirstTurn => TreebloxPhase::FirstTurn,
            TreebloxTurnKind::Main => TreebloxPhase::Main,
            TreebloxTurnKind::FinalGrowth => TreebloxPhase::FinalGrowth,
        }
    }
}

/// How a finished game ended.
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema,
)]
pub struct TreebloxOutcome {
    pub reason: TreebloxEndReason,
    /// `null` for a draw.
    pub winner: Option<TreebloxSeat>,
    pub active_leaves: TreebloxLeafTally,
}

/// Everything known about a game; changed only by `apply`.
#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreebloxState {
    pub position: Position,
    pub phase: TreebloxPhase,
    /// The seat whose turn it is; `None` before setup and after the end.
    pub to_act: Option<TreebloxSeat>,
    /// The acting seat's cap, fixed when its turn started; `None` in the
    /// final growth (no cap) and when nobody is to act.
    pub growth_rate: Option<u8>,
    /// Turns in a row in which nothing was placed.
    pub consecutive_passes: u8,
    pub outcome: Option<TreebloxOutcome>,
}

impl TreebloxState {
    pub fn new() -> Self {
        TreebloxState {
            position: Position::default(),
            phase: TreebloxPhase::SettingUp,
            to_act: None,
            growth_rate: None,
            consecutive_passes: 0,
            outcome: None,
        }
    }

    pub fn is_finished(&self) -> bool {
        self.phase == TreebloxPhase::Finished
    }
}

impl Default for TreebloxState {
    fn default() -> Self {
        Self::new()
    }
}
