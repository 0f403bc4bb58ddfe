//! The position: which cube is in which cell, what each seat still holds,
//! and the geometry questions asked of it (reachability, active leaves).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use umpire_domain::memory::btree_map_bytes;

use crate::cell::TreebloxCell;
use crate::model::TreebloxCubeKind;
use crate::seat::TreebloxSeat;

/// A cube on the board: its colour (the seat that owns it) and kind.
#[derive(get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacedCube {
    pub owner: TreebloxSeat,
    pub kind: TreebloxCubeKind,
}

/// The cubes a seat has not yet placed ("available cubes", public).
#[derive(
    get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct Supply {
    pub branches: u8,
    pub leaves: u8,
}

impl Supply {
    pub fn of(&self, kind: TreebloxCubeKind) -> u8 {
        match kind {
            TreebloxCubeKind::Branch => self.branches,
            TreebloxCubeKind::Leaf => self.leaves,
        }
    }

    pub fn total(&self) -> u32 {
        u32::from(self.branches) + u32::from(self.leaves)
    }

    /// Takes one cube of `kind`; saturating, so `apply` can never underflow.
    pub fn take(&mut self, kind: TreebloxCubeKind) {
        match kind {
            TreebloxCubeKind::Branch => self.branches = self.branches.saturating_sub(1),
            TreebloxCubeKind::Leaf => self.leaves = self.leaves.saturating_sub(1),
        }
    }
}

/// Cubes on the board plus each seat's supply: everything a placement
/// changes, so a turn can be tried out on a copy.
#[derive(get_size2::GetSize, Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// Kept as a list of `[cell, cube]` pairs: JSON keys are strings only.
    #[serde(with = "cells_as_pairs")]
    #[get_size(size_fn = btree_map_bytes)]
    pub cubes: BTreeMap<TreebloxCell, PlacedCube>,
    pub supplies: [Supply; 2],
}

/// The board's cubes as a list of `[cell, cube]` pairs, for a snapshot's
/// JSON, whose object keys must be strings.
mod cells_as_pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serializer};

    use super::PlacedCube;
    use crate::cell::TreebloxCell;

    pub fn serialize<S: Serializer>(
        cubes: &BTreeMap<TreebloxCell, PlacedCube>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(cubes.iter())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<TreebloxCell, PlacedCube>, D::Error> {
        let pairs = Vec::<(TreebloxCell, PlacedCube)>::deserialize(deserializer)?;
        Ok(pairs.into_iter().collect())
    }
}

impl Position {
    pub fn supply(&self, seat: TreebloxSeat) -> Supply {
        self.supplies[seat.index()]
    }

    pub fn cube_at(&self, cell: TreebloxCell) -> Option<PlacedCube> {
        self.cubes.get(&cell).copied()
    }

    pub fn is_occupied(&self, cell: TreebloxCell) -> bool {
        self.cubes.contains_key(&cell)
    }

    /// Puts a cube into a cell and takes it from the owner's supply. Holds no
    /// rule: callers have checked the placement.
    pub fn place(&mut self, seat: TreebloxSeat, kind: TreebloxCubeKind, cell: TreebloxCell) {
        self.cubes.insert(cell, PlacedCube { owner: seat, kind });
        self.supplies[seat.index()].take(kind);
    }

    /// True when one of `seat`'s branches touches `cell` on a face
    /// (treeblox §1: a branch offers a hole on every face but its peg face,
    /// and the peg face always touches an occupied cell).
    pub fn touches_own_branch(&self, seat: TreebloxSeat, cell: TreebloxCell) -> bool {
        cell.face_neighbours().any(|neighbour| {
            self.cube_at(neighbour)
                == Some(PlacedCube {
                    owner: seat,
                    kind: TreebloxCubeKind::Branch,
                })
        })
    }

    /// An empty cell at or above the ground that is a board hole or touches
    /// one of `seat`'s branches (treeblox §1, "available cells").
    pub fn is_available_to(&self, seat: TreebloxSeat, cell: TreebloxCell) -> bool {
        !cell.is_below_ground()
            && !self.is_occupied(cell)
            && (cell.is_board_hole() || self.touches_own_branch(seat, cell))
    }

    /// Every cell available to `seat`, in a fixed order.
    pub fn available_cells(&self, seat: TreebloxSeat) -> BTreeSet<TreebloxCell> {
        let mut cells: BTreeSet<TreebloxCell> = TreebloxCell::board_holes()
            .filter(|hole| !self.is_occupied(*hole))
            .collect();
        for (cell, cube) in &self.cubes {
            if cube.owner == seat && cube.kind == TreebloxCubeKind::Branch {
                cells.extend(cell.face_neighbours().filter(|neighbour| {
                    !neighbour.is_below_ground() && !self.is_occupied(*neighbour)
                }));
            }
        }
        cells
    }

    /// True when `seat` could place any cube now: it holds one and some cell
    /// is available to it.
    pub fn can_place_any(&self, seat: TreebloxSeat) -> bool {
        self.supply(seat).total() > 0 && !self.available_cells(seat).is_empty()
    }

    /// The active leaves of both seats: in each column, the topmost cube when
    /// it is a leaf (treeblox §1). Sorted by cell.
    pub fn active_leaves(&self) -> Vec<(TreebloxCell, TreebloxSeat)> {
        // Cells order by column, then height: a column's cubes are one run
        // of `cubes`, its topmost cube the run's last, and the leaves come
        // out sorted. One pass, no map (this runs several times a decision).
        let mut leaves = Vec::new();
        let mut cubes = self.cubes.iter().peekable();
        while let Some((cell, cube)) = cubes.next() {
            let topmost = cubes
                .peek()
                .is_none_or(|(next, _)| next.column() != cell.column());
            if topmost && cube.kind == TreebloxCubeKind::Leaf {
                leaves.push((*cell, cube.owner));
            }
        }
        leaves
    }

    pub fn active_leaf_cells(&self, seat: TreebloxSeat) -> Vec<TreebloxCell> {
        self.active_leaves()
            .into_iter()
            .filter(|(_, owner)| *owner == seat)
            .map(|(cell, _)| cell)
            .collect()
    }

    pub fn active_leaf_count(&self, seat: TreebloxSeat) -> u32 {
        // At most 64 cubes are ever placed, so the count always fits.
        u32::try_from(self.active_leaf_cells(seat).len()).unwrap_or(u32::MAX)
    }

    /// Growth rate at the start of a turn (treeblox §2): 2 with three or
    /// more active leaves, else 1.
    pub fn growth_rate(&self, seat: TreebloxSeat) -> u8 {
        if self.active_leaf_count(seat) >= 3 {
            2
        } else {
            1
        }
    }
}
