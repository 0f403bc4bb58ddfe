//! The score sheet: active leaves per seat with their cells, the result and
//! why the game ended (treeblox §2, "Result").

use std::collections::BTreeMap;

use serde::Serialize;
use umpire_domain::{ScoreSummary, Seat};
use utoipa::ToSchema;

use crate::cell::TreebloxCell;
use crate::model::TreebloxEndReason;
use crate::seat::TreebloxSeat;
use crate::state::TreebloxState;

/// One seat's line on the score sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TreebloxSeatScore {
    pub seat: TreebloxSeat,
    pub active_leaves: u32,
    pub active_leaf_cells: Vec<TreebloxCell>,
}

/// The score sheet, final or provisional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TreebloxScore {
    /// True once the game is over.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Dark first, then light.
    pub seats: Vec<TreebloxSeatScore>,
    /// The winner of a finished game; `null` for a draw or while playing.
    pub winner: Option<TreebloxSeat>,
    /// True when a finished game is drawn.
    pub draw: bool,
    /// Why the game ended; `null` while it is being played.
    pub end_reason: Option<TreebloxEndReason>,
    /// One sentence explaining the result.
    pub explanation: String,
}

pub fn score(state: &TreebloxState) -> TreebloxScore {
    let seats: Vec<TreebloxSeatScore> = TreebloxSeat::ALL
        .into_iter()
        .map(|seat| {
            let active_leaf_cells = state.position.active_leaf_cells(seat);
            TreebloxSeatScore {
                seat,
                active_leaves: u32::try_from(active_leaf_cells.len()).unwrap_or(u32::MAX),
                active_leaf_cells,
            }
        })
        .collect();
    let leaves = |seat: TreebloxSeat| {
        seats
            .iter()
            .find(|line| line.seat == seat)
            .map_or(0, |line| line.active_leaves)
    };
    let (dark, light) = (leaves(TreebloxSeat::Dark), leaves(TreebloxSeat::Light));
    match state.outcome {
        Some(outcome) => {
            let explanation = match (outcome.reason, outcome.winner) {
                (
                    TreebloxEndReason::NoActiveLeaves
                    | TreebloxEndReason::NoActiveLeavesAtTurnStart,
                    Some(winner),
                ) => format!(
                    "{winner} wins: {} ({} has no active leaf).",
                    outcome.reason.describe(),
                    winner.opponent()
                ),
                (reason, Some(winner)) => format!(
                    "{winner} wins with more active leaves ({dark} dark, {light} light): {}.",
                    reason.describe()
                ),
                (reason, None) => format!(
                    "Draw on equal active leaves ({dark} dark, {light} light): {}.",
                    reason.describe()
                ),
            };
            TreebloxScore {
                is_final: true,
                seats,
                winner: outcome.winner,
                draw: outcome.winner.is_none(),
                end_reason: Some(outcome.reason),
                explanation,
            }
        }
        None => TreebloxScore {
            is_final: false,
            seats,
            winner: None,
            draw: false,
            end_reason: None,
            explanation: format!(
                "Provisional: {dark} active leaves for dark, {light} for light; the game goes on."
            ),
        },
    }
}

pub fn summary(state: &TreebloxState) -> ScoreSummary {
    let sheet = score(state);
    let totals: BTreeMap<String, i64> = sheet
        .seats
        .iter()
        .map(|line| (line.seat.name(), i64::from(line.active_leaves)))
        .collect();
    ScoreSummary {
        totals,
        winners: sheet.winner.iter().map(Seat::name).collect(),
        is_final: sheet.is_final,
    }
}
