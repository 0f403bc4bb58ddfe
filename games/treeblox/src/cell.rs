//! Cells of the three-dimensional grid the cubes occupy, written `[x, y, z]`.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::schema::{ArrayBuilder, KnownFormat, ObjectBuilder, SchemaFormat, Type};
use utoipa::openapi::{RefOr, Schema};

/// The side of the board's square of holes (treeblox §1: a 4×4 board).
pub const BOARD_SIDE: i32 = 4;

/// One cell of the grid (treeblox §1). `z = 0` is the board's level; the
/// board's 16 holes are the cells `(x, y, 0)` with `0 ≤ x, y ≤ 3`.
/// Coordinates are `i32`: anything a client can send is representable, and
/// every neighbour computation is checked so absurd values never overflow.
#[derive(get_size2::GetSize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TreebloxCell {
    pub x: i32,
    pub y: i32,
    pub z: i32,
}

impl TreebloxCell {
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        TreebloxCell { x, y, z }
    }

    /// True for the 16 holes of the board: `z = 0` inside the 4×4 footprint.
    pub fn is_board_hole(&self) -> bool {
        self.z == 0 && (0..BOARD_SIDE).contains(&self.x) && (0..BOARD_SIDE).contains(&self.y)
    }

    /// Nothing is below the board (treeblox §1).
    pub fn is_below_ground(&self) -> bool {
        self.z < 0
    }

    /// The column a cell stands in, for deciding which leaf is active.
    pub fn column(&self) -> (i32, i32) {
        (self.x, self.y)
    }

    /// The up to six face neighbours (±x, ±y, ±z). A neighbour whose
    /// coordinate would overflow `i32` does not exist; neighbours below the
    /// ground are included and filtered by the callers that care.
    pub fn face_neighbours(&self) -> impl Iterator<Item = TreebloxCell> + '_ {
        const STEPS: [(i32, i32, i32); 6] = [
            (1, 0, 0),
            (-1, 0, 0),
            (0, 1, 0),
            (0, -1, 0),
            (0, 0, 1),
            (0, 0, -1),
        ];
        STEPS.iter().filter_map(move |(dx, dy, dz)| {
            Some(TreebloxCell {
                x: self.x.checked_add(*dx)?,
                y: self.y.checked_add(*dy)?,
                z: self.z.checked_add(*dz)?,
            })
        })
    }

    /// Every board hole, in a fixed order.
    pub fn board_holes() -> impl Iterator<Item = TreebloxCell> {
        (0..BOARD_SIDE).flat_map(|x| (0..BOARD_SIDE).map(move |y| TreebloxCell::new(x, y, 0)))
    }
}

impl std::fmt::Display for TreebloxCell {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "[{}, {}, {}]", self.x, self.y, self.z)
    }
}

impl Serialize for TreebloxCell {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [self.x, self.y, self.z].serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for TreebloxCell {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Exactly three integers that fit an i32; anything else is malformed
        // input, reported by serde rather than by a rule.
        let [x, y, z] = <[i32; 3]>::deserialize(deserializer)?;
        Ok(TreebloxCell { x, y, z })
    }
}

impl utoipa::PartialSchema for TreebloxCell {
    fn schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .items(
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int32))),
            )
            .min_items(Some(3))
            .max_items(Some(3))
            .description(Some(
                "A cell `[x, y, z]`; the board holes are `[0..3, 0..3, 0]`, nothing is below z = 0.",
            ))
            .examples([serde_json::json!([1, 0, 0])])
            .into()
    }
}

impl utoipa::ToSchema for TreebloxCell {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TreebloxCell")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_written_as_an_array_of_three_integers() {
        let cell = TreebloxCell::new(1, -1, 2);
        assert_eq!(serde_json::to_string(&cell).unwrap(), "[1,-1,2]");
        let parsed: TreebloxCell = serde_json::from_str("[1,-1,2]").unwrap();
        assert_eq!(parsed, cell);
    }

    #[test]
    fn absurd_cells_are_malformed_input_not_a_panic() {
        assert!(serde_json::from_str::<TreebloxCell>("[1e20, 0, 0]").is_err());
        assert!(serde_json::from_str::<TreebloxCell>("[99999999999, 0, 0]").is_err());
        assert!(serde_json::from_str::<TreebloxCell>("[1, 2]").is_err());
        assert!(serde_json::from_str::<TreebloxCell>("\"A1\"").is_err());
    }

    #[test]
    fn neighbours_at_the_edge_of_i32_do_not_overflow() {
        let corner = TreebloxCell::new(i32::MAX, i32::MIN, i32::MAX);
        assert_eq!(corner.face_neighbours().count(), 3);
    }

    #[test]
    fn the_board_has_sixteen_holes() {
        assert_eq!(TreebloxCell::board_holes().count(), 16);
        assert!(TreebloxCell::board_holes().all(|cell| cell.is_board_hole()));
        assert!(!TreebloxCell::new(4, 0, 0).is_board_hole());
        assert!(!TreebloxCell::new(0, 0, 1).is_board_hole());
    }
}
