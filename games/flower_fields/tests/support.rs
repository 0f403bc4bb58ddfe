//! Helpers shared by the flower_fields test files: fixed bags, hand-made
//! positions and whole rounds played automatically.

use umpire_domain::testing::Table;
use umpire_domain::{Actor, Game, SeatIndex};
use umpire_flower_fields::flowers::{field_due, FieldIndex};
use umpire_flower_fields::{
    placements, setup_with_bags, FlowerFields, FlowerFieldsAction, FlowerFieldsCell,
    FlowerFieldsEvent, FlowerFieldsOptions, FlowerFieldsPenaltyChoices, FlowerFieldsPiece,
};

pub type FlowerTable = Table<FlowerFields>;

pub fn seat(number: u8) -> Actor<SeatIndex> {
    Actor::Seat(SeatIndex(number))
}

pub fn piece(text: &str) -> FlowerFieldsPiece {
    text.parse().expect("a test piece")
}

pub fn cell(text: &str) -> FlowerFieldsCell {
    text.parse().expect("a test cell")
}

/// Every bag in the fixed order of `FlowerFieldsPiece::full_bag`, so round `r` deals
/// piece `r` to every seat: 0 white-red, 1 white-yellow, 2 white-blue,
/// 3 white-purple, 4 white-orange, 5 red-yellow, …
pub fn ordered_bags() -> Vec<Vec<FlowerFieldsPiece>> {
    (0..5).map(|_| FlowerFieldsPiece::full_bag()).collect()
}

/// Given a game set up with the ordered bags: round 1, every seat holding
/// white-red (round 0) and white-yellow (round 1).
pub fn table_with(options: FlowerFieldsOptions) -> FlowerTable {
    let events = setup_with_bags(&options, ordered_bags());
    Table::from_events(options, events)
}

pub fn table() -> FlowerTable {
    table_with(FlowerFieldsOptions::default())
}

pub fn submit(field: FieldIndex, piece_text: &str, cells: [&str; 2]) -> FlowerFieldsAction {
    FlowerFieldsAction::Submit {
        field,
        piece: piece(piece_text),
        cells: [cell(cells[0]), cell(cells[1])],
        broken: false,
        revealed: None,
        penalties: FlowerFieldsPenaltyChoices::default(),
        replaces_previous: false,
    }
}

/// The seat's submission of `piece_text` on the first free placement of its
/// due field.
pub fn submit_anywhere(
    table: &FlowerTable,
    seat_number: u8,
    piece_text: &str,
) -> FlowerFieldsAction {
    let field = field_due(SeatIndex(seat_number), table.state.round);
    let field_state = table.state.field(field).expect("a field");
    let placement = placements(field_state, piece(piece_text))[0];
    FlowerFieldsAction::Submit {
        field,
        piece: placement.piece,
        cells: placement.cells,
        broken: placement.broken,
        revealed: None,
        penalties: FlowerFieldsPenaltyChoices::default(),
        replaces_previous: false,
    }
}

/// The first listed legal action of a seat.
pub fn first_legal(table: &FlowerTable, seat_number: u8) -> FlowerFieldsAction {
    FlowerFields::legal_actions(&table.state, seat(seat_number))
        .into_iter()
        .find(|action| matches!(action, FlowerFieldsAction::Submit { .. }))
        .expect("a legal submission")
}

/// Every seat still pending plays its first legal submission.
pub fn finish_round(table: &mut FlowerTable) {
    for number in 0..5 {
        if table.state.is_pending(SeatIndex(number)) {
            let action = first_legal(table, number);
            table.accepts(seat(number), action);
        }
    }
}

/// Plays whole rounds automatically until `round` has started.
pub fn play_until_round(table: &mut FlowerTable, round: u8) {
    while table.state.round < round && !table.state.ended {
        finish_round(table);
    }
}

/// Events planting flowers straight into a field (positions for tests):
/// `"A1 red, B1 blue"`. Pairs of cells become one placement each.
pub fn plant(field: FieldIndex, layout: &str) -> Vec<FlowerFieldsEvent> {
    let cells: Vec<(FlowerFieldsCell, umpire_flower_fields::FlowerFieldsFlower)> = layout
        .split(',')
        .map(|entry| {
            let mut parts = entry.split_whitespace();
            let cell = cell(parts.next().expect("a cell"));
            let flower = umpire_flower_fields::FlowerFieldsFlower::parse_plantable(
                parts.next().expect("a flower"),
            )
            .expect("a flower name");
            (cell, flower)
        })
        .collect();
    cells
        .chunks(2)
        .map(|pair| {
            let (first_cell, first_flower) = pair[0];
            let (second_cell, second_flower) = *pair.get(1).unwrap_or(&pair[0]);
            FlowerFieldsEvent::PiecePlaced {
                field,
                round: 0,
                seat: SeatIndex(field),
                piece: FlowerFieldsPiece::new(first_flower, second_flower),
                cells: [first_cell, second_cell],
                broken: false,
                // Marked as revealed so no hand loses a piece.
                revealed_from: Some(SeatIndex(field)),
            }
        })
        .collect()
}

/// A layout filling every cell but the ones listed, with `flower`.
pub fn fill_except(flower: &str, empty: &[&str]) -> String {
    FlowerFieldsCell::all()
        .map(|cell| cell.to_string())
        .filter(|name| !empty.contains(&name.as_str()))
        .map(|name| format!("{name} {flower}"))
        .collect::<Vec<_>>()
        .join(", ")
}
