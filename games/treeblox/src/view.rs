//! What a viewer sees. Everything in Treeblox is public (treeblox §2:
//! available cubes are visible to both players), so every viewer gets the
//! same view.

use serde::Serialize;
use utoipa::ToSchema;

use crate::cell::TreebloxCell;
use crate::model::TreebloxCubeKind;
use crate::seat::TreebloxSeat;
use crate::state::{TreebloxOutcome, TreebloxPhase, TreebloxState};

/// One cube on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TreebloxCubeView {
    pub cell: TreebloxCell,
    pub kind: TreebloxCubeKind,
    /// The seat whose colour the cube has.
    pub colour: TreebloxSeat,
}

/// One seat's side of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TreebloxSeatView {
    pub seat: TreebloxSeat,
    /// Branches not yet placed.
    pub remaining_branches: u8,
    /// Leaves not yet placed.
    pub remaining_leaves: u8,
    /// Leaves with no cube anywhere above them in their column.
    pub active_leaves: u32,
    pub active_leaf_cells: Vec<TreebloxCell>,
}

/// The whole game as anyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct TreebloxView {
    pub phase: TreebloxPhase,
    /// The seat that must act; `null` before setup and once finished.
    pub to_act: Option<TreebloxSeat>,
    /// The acting seat's growth rate, fixed at the start of its turn;
    /// `null` in the final growth (no cap) and when nobody is to act.
    pub growth_rate: Option<u8>,
    /// Turns in a row in which nothing was placed (two end the game).
    pub consecutive_passes: u8,
    /// Every cube on the board, ordered by cell.
    pub cubes: Vec<TreebloxCubeView>,
    /// Dark first, then light.
    pub seats: Vec<TreebloxSeatView>,
    /// How the game ended, once it has.
    pub outcome: Option<TreebloxOutcome>,
}

pub fn view(state: &TreebloxState) -> TreebloxView {
    let position = &state.position;
    TreebloxView {
        phase: state.phase,
        to_act: state.to_act,
        growth_rate: state.growth_rate,
        consecutive_passes: state.consecutive_passes,
        cubes: position
            .cubes
            .iter()
            .map(|(cell, cube)| TreebloxCubeView {
                cell: *cell,
                kind: cube.kind,
                colour: cube.owner,
            })
            .collect(),
        seats: TreebloxSeat::ALL
            .into_iter()
            .map(|seat| {
                let supply = position.supply(seat);
                let active_leaf_cells = position.active_leaf_cells(seat);
                TreebloxSeatView {
                    seat,
                    remaining_branches: supply.branches,
                    remaining_leaves: supply.leaves,
                    active_leaves: u32::try_from(active_leaf_cells.len()).unwrap_or(u32::MAX),
                    active_leaf_cells,
                }
            })
            .collect(),
        outcome: state.outcome,
    }
}
