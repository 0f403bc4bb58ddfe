//! Cells of a 6×6 arboretum: column `A`–`F` then row `1`–`6`, written `D5` (§1).

use std::fmt;
use std::str::FromStr;

use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;

/// Width and height of an arboretum.
pub const ARBORETUM_SIZE: u8 = 6;

/// A cell such as `D5`. Ordered by column, then row (`A1 < A2 < … < B1`),
/// which is the order used to break ties between equal scoring paths.
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
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
pub struct ArboretumCell {
    column: u8,
    row: u8,
}

impl ArboretumCell {
    /// A cell from zero-based column and row, if both are on the board.
    pub fn new(column: u8, row: u8) -> Option<Self> {
        (column < ARBORETUM_SIZE && row < ARBORETUM_SIZE).then_some(ArboretumCell { column, row })
    }

    /// Parses `"D5"`; panics on anything else. For tests and examples only.
    #[track_caller]
    pub fn of(text: &str) -> Self {
        text.parse()
            .unwrap_or_else(|error| panic!("bad cell {text:?}: {error}"))
    }

    /// All 36 cells in order.
    pub fn all() -> impl Iterator<Item = ArboretumCell> {
        (0..ARBORETUM_SIZE)
            .flat_map(|column| (0..ARBORETUM_SIZE).map(move |row| ArboretumCell { column, row }))
    }

    /// The orthogonal neighbours that are on the board (2 to 4 of them).
    pub fn neighbours(self) -> impl Iterator<Item = ArboretumCell> {
        let ArboretumCell { column, row } = self;
        [
            column.checked_sub(1).map(|left| (left, row)),
            Some((column + 1, row)),
            row.checked_sub(1).map(|up| (column, up)),
            Some((column, row + 1)),
        ]
        .into_iter()
        .flatten()
        .filter_map(|(column, row)| ArboretumCell::new(column, row))
    }
}

impl fmt::Display for ArboretumCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'A' + self.column), self.row + 1)
    }
}

impl FromStr for ArboretumCell {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bytes = text.as_bytes();
        let [letter, digit] = bytes else {
            return Err(format!(
                "a cell is a column A-F and a row 1-6, not {text:?}"
            ));
        };
        let column = letter.wrapping_sub(b'A');
        let row = digit.wrapping_sub(b'1');
        ArboretumCell::new(column, row)
            .ok_or_else(|| format!("{text:?} is not a cell from A1 to F6"))
    }
}

impl utoipa::PartialSchema for ArboretumCell {
    fn schema() -> RefOr<Schema> {
        umpire_domain::text_schema::with_pattern(
            "An arboretum cell: column A-F then row 1-6.",
            "^[A-F][1-6]$",
            "D5",
        )
    }
}

impl utoipa::ToSchema for ArboretumCell {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_through_their_compact_text() {
        for cell in ArboretumCell::all() {
            assert_eq!(cell.to_string().parse::<ArboretumCell>(), Ok(cell));
        }
        assert_eq!(ArboretumCell::all().count(), 36);
        for text in ["", "A", "A0", "A7", "G1", "a1", "A11"] {
            assert!(text.parse::<ArboretumCell>().is_err(), "{text}");
        }
    }

    #[test]
    fn neighbours_share_a_side() {
        let mut neighbours: Vec<String> = ArboretumCell::of("C3")
            .neighbours()
            .map(|cell| cell.to_string())
            .collect();
        neighbours.sort();
        assert_eq!(neighbours, ["B3", "C2", "C4", "D3"]);
        assert_eq!(ArboretumCell::of("A1").neighbours().count(), 2);
        assert_eq!(ArboretumCell::of("F6").neighbours().count(), 2);
    }
}
