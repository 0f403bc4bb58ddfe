//! Flowers, pieces (dominoes of two flowers), cells `A1`..`E5`, and the ring
//! arithmetic of seats and fields (§1, §2).

use std::fmt;

use serde::{Deserialize, Serialize};
use umpire_domain::text_schema::with_pattern;
use umpire_domain::SeatIndex;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// Number of seats (and of fields) in the ring.
pub const SEAT_COUNT: u8 = 5;
/// Side length of a field.
pub const FIELD_SIZE: u8 = 5;
/// The last round; rounds run 0..=12.
pub const LAST_ROUND: u8 = 12;
/// A piece received in round `k` must be played by round `k + HOLD_LIMIT` (§2).
pub const HOLD_LIMIT: u8 = 3;
/// Garnets or points one break costs each manager (§3).
pub const BREAK_GARNETS: i64 = 3;
pub const BREAK_POINTS: i64 = 10;
/// Points a missed submission costs the absent seat (§5).
pub const MISSED_SUBMISSION_POINTS: i64 = 10;
/// Garnets a piece replacement costs (§6), and the last deal round it allows.
pub const REPLACEMENT_GARNETS: i64 = 3;
pub const LAST_REPLACEABLE_DEAL_ROUND: u8 = 3;

/// A flower type. `black` is only the end-of-game filler (§2, §7).
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
pub enum FlowerFieldsFlower {
    White,
    Red,
    Yellow,
    Blue,
    Purple,
    Orange,
    Black,
}

impl FlowerFieldsFlower {
    /// The six types a piece can carry, in a fixed order.
    pub const PLANTABLE: [FlowerFieldsFlower; 6] = [
        FlowerFieldsFlower::White,
        FlowerFieldsFlower::Red,
        FlowerFieldsFlower::Yellow,
        FlowerFieldsFlower::Blue,
        FlowerFieldsFlower::Purple,
        FlowerFieldsFlower::Orange,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FlowerFieldsFlower::White => "white",
            FlowerFieldsFlower::Red => "red",
            FlowerFieldsFlower::Yellow => "yellow",
            FlowerFieldsFlower::Blue => "blue",
            FlowerFieldsFlower::Purple => "purple",
            FlowerFieldsFlower::Orange => "orange",
            FlowerFieldsFlower::Black => "black",
        }
    }

    /// Parses a plantable flower name; `black` is not one.
    pub fn parse_plantable(name: &str) -> Option<FlowerFieldsFlower> {
        FlowerFieldsFlower::PLANTABLE
            .into_iter()
            .find(|flower| flower.name() == name)
    }
}

impl fmt::Display for FlowerFieldsFlower {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A domino of two flowers, written `"red-blue"`. Bag pieces have two
/// different flowers; a replacement piece (§6) may have two equal ones. The
/// order as written matters only for placement: the first flower goes on the
/// first cell named. Two pieces are the same piece whatever their order.
#[derive(
    get_size2::GetSize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
pub struct FlowerFieldsPiece {
    pub first: FlowerFieldsFlower,
    pub second: FlowerFieldsFlower,
}

impl FlowerFieldsPiece {
    pub fn new(first: FlowerFieldsFlower, second: FlowerFieldsFlower) -> Self {
        FlowerFieldsPiece { first, second }
    }

    /// The same piece, whatever the order its flowers are written in.
    pub fn same_piece_as(&self, other: &FlowerFieldsPiece) -> bool {
        (self.first == other.first && self.second == other.second)
            || (self.first == other.second && self.second == other.first)
    }

    pub fn flowers(&self) -> [FlowerFieldsFlower; 2] {
        [self.first, self.second]
    }

    /// The 15 pieces of a bag: every pair of two different types (§2).
    pub fn full_bag() -> Vec<FlowerFieldsPiece> {
        let mut bag = Vec::with_capacity(15);
        for (index, first) in FlowerFieldsFlower::PLANTABLE.iter().enumerate() {
            for second in FlowerFieldsFlower::PLANTABLE.iter().skip(index + 1) {
                bag.push(FlowerFieldsPiece::new(*first, *second));
            }
        }
        bag
    }
}

impl fmt::Display for FlowerFieldsPiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.second)
    }
}

impl std::str::FromStr for FlowerFieldsPiece {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (first, second) = text
            .split_once('-')
            .ok_or_else(|| format!("`{text}` is not a piece like `red-blue`"))?;
        let parse = |name: &str| {
            FlowerFieldsFlower::parse_plantable(name)
                .ok_or_else(|| format!("`{name}` is not a flower type of a piece"))
        };
        Ok(FlowerFieldsPiece::new(parse(first)?, parse(second)?))
    }
}

/// A cell of a field, `A1`..`E5`: column letter, row number (§1).
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
pub struct FlowerFieldsCell {
    /// 0..4 for A..E.
    pub column: u8,
    /// 0..4 for rows 1..5.
    pub row: u8,
}

impl FlowerFieldsCell {
    /// Every cell, row by row.
    pub fn all() -> impl Iterator<Item = FlowerFieldsCell> {
        (0..FIELD_SIZE)
            .flat_map(|row| (0..FIELD_SIZE).map(move |column| FlowerFieldsCell { column, row }))
    }

    pub fn index(self) -> usize {
        usize::from(self.row) * usize::from(FIELD_SIZE) + usize::from(self.column)
    }

    pub fn is_adjacent_to(self, other: FlowerFieldsCell) -> bool {
        self.column.abs_diff(other.column) + self.row.abs_diff(other.row) == 1
    }

    /// The orthogonal neighbours inside the field.
    pub fn neighbours(self) -> Vec<FlowerFieldsCell> {
        let mut neighbours = Vec::with_capacity(4);
        if self.column > 0 {
            neighbours.push(FlowerFieldsCell {
                column: self.column - 1,
                row: self.row,
            });
        }
        if self.column + 1 < FIELD_SIZE {
            neighbours.push(FlowerFieldsCell {
                column: self.column + 1,
                row: self.row,
            });
        }
        if self.row > 0 {
            neighbours.push(FlowerFieldsCell {
                column: self.column,
                row: self.row - 1,
            });
        }
        if self.row + 1 < FIELD_SIZE {
            neighbours.push(FlowerFieldsCell {
                column: self.column,
                row: self.row + 1,
            });
        }
        neighbours
    }

    /// How many sides of the field this cell touches: 0 inside, 1 on an
    /// edge, 2 in a corner.
    pub fn border_sides(self) -> u8 {
        let last = FIELD_SIZE - 1;
        u8::from(self.column == 0 || self.column == last)
            + u8::from(self.row == 0 || self.row == last)
    }
}

impl fmt::Display for FlowerFieldsCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'A' + self.column), self.row + 1)
    }
}

impl std::str::FromStr for FlowerFieldsCell {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bytes = text.as_bytes();
        let error = || format!("`{text}` is not a cell A1..E5");
        if bytes.len() != 2 {
            return Err(error());
        }
        let column = bytes[0].wrapping_sub(b'A');
        let row = bytes[1].wrapping_sub(b'1');
        if column >= FIELD_SIZE || row >= FIELD_SIZE {
            return Err(error());
        }
        Ok(FlowerFieldsCell { column, row })
    }
}

impl PartialSchema for FlowerFieldsPiece {
    fn schema() -> RefOr<Schema> {
        with_pattern(
            "A domino of two flowers, `first-second`; the first goes on the first cell named.",
            "^(white|red|yellow|blue|purple|orange)-(white|red|yellow|blue|purple|orange)$",
            "red-blue",
        )
    }
}

impl ToSchema for FlowerFieldsPiece {}

impl PartialSchema for FlowerFieldsCell {
    fn schema() -> RefOr<Schema> {
        with_pattern(
            "A cell of a field: column letter A-E, row 1-5.",
            "^[A-E][1-5]$",
            "C3",
        )
    }
}

impl ToSchema for FlowerFieldsCell {}

/// A field number 0..4; field `i` lies between seats `i` and `i+1` (§1).
pub type FieldIndex = u8;

/// The clockwise field of a seat: its own number (§1).
pub fn clockwise_field(seat: SeatIndex) -> FieldIndex {
    seat.0 % SEAT_COUNT
}

/// The counterclockwise field of a seat: `s − 1 (mod 5)` (§1).
pub fn counterclockwise_field(seat: SeatIndex) -> FieldIndex {
    (seat.0 % SEAT_COUNT + SEAT_COUNT - 1) % SEAT_COUNT
}

/// The two seats that manage a field: `i` and `i+1 (mod 5)` (§1).
pub fn managers(field: FieldIndex) -> [SeatIndex; 2] {
    [
        SeatIndex(field % SEAT_COUNT),
        SeatIndex((field + 1) % SEAT_COUNT),
    ]
}

pub fn manages(seat: SeatIndex, field: FieldIndex) -> bool {
    managers(field).contains(&seat)
}

/// The field a seat plays into in `round`: odd rounds clockwise, even rounds
/// counterclockwise (§1).
pub fn field_due(seat: SeatIndex, round: u8) -> FieldIndex {
    if round % 2 == 1 {
        clockwise_field(seat)
    } else {
        counterclockwise_field(seat)
    }
}

/// The seat that plays into `field` in `round`.
pub fn placer_of(field: FieldIndex, round: u8) -> SeatIndex {
    if round % 2 == 1 {
        SeatIndex(field % SEAT_COUNT)
    } else {
        SeatIndex((field + 1) % SEAT_COUNT)
    }
}

/// The manager of `field` that is not `seat`.
pub fn other_manager(field: FieldIndex, seat: SeatIndex) -> SeatIndex {
    let [first, second] = managers(field);
    if first == seat {
        second
    } else {
        first
    }
}

pub fn all_seats() -> impl Iterator<Item = SeatIndex> {
    (0..SEAT_COUNT).map(SeatIndex)
}

pub fn all_fields() -> impl Iterator<Item = FieldIndex> {
    0..SEAT_COUNT
}

/// Cells of `placement` paired with the flowers they receive.
pub fn planted_cells(
    piece: FlowerFieldsPiece,
    cells: [FlowerFieldsCell; 2],
) -> [(FlowerFieldsCell, FlowerFieldsFlower); 2] {
    [(cells[0], piece.first), (cells[1], piece.second)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_pieces_round_trip_through_their_names() {
        for cell in FlowerFieldsCell::all() {
            assert_eq!(cell.to_string().parse::<FlowerFieldsCell>(), Ok(cell));
        }
        assert!("F1".parse::<FlowerFieldsCell>().is_err());
        assert!("A0".parse::<FlowerFieldsCell>().is_err());
        assert_eq!(FlowerFieldsPiece::full_bag().len(), 15);
        let piece: FlowerFieldsPiece = "blue-red".parse().expect("a piece");
        assert!(piece.same_piece_as(&FlowerFieldsPiece::new(
            FlowerFieldsFlower::Red,
            FlowerFieldsFlower::Blue
        )));
        assert!("black-red".parse::<FlowerFieldsPiece>().is_err());
    }

    #[test]
    fn each_field_receives_one_placer_per_round_alternating_managers() {
        for round in 1..=LAST_ROUND {
            for field in all_fields() {
                let placer = placer_of(field, round);
                assert_eq!(field_due(placer, round), field);
                assert!(manages(placer, field));
            }
        }
        assert_eq!(counterclockwise_field(SeatIndex(0)), 4);
    }
}
