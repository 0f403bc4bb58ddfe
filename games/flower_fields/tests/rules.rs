//! Given/when/then tests: every rule of the rule book and every violation
//! code, refused and the neighbouring legal move accepted.

use crate::support;

use support::*;
use umpire_domain::testing::Table;
use umpire_domain::{Actor, Game, SeatIndex, Viewer};
use umpire_flower_fields::flowers::field_due;
use umpire_flower_fields::messages::FlowerFieldsDiscardReason;
use umpire_flower_fields::score::{flower_score, garnets_earned, result_for, seat_score};
use umpire_flower_fields::state::{FieldState, FlowerFieldsPenaltyReason, FlowerFieldsPhase};
use umpire_flower_fields::*;

const UMPIRE: Actor<SeatIndex> = Actor::Umpire;

fn with_revealed(
    action: FlowerFieldsAction,
    revealed: FlowerFieldsPlacement,
) -> FlowerFieldsAction {
    match action {
        FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken,
            penalties,
            replaces_previous,
            ..
        } => FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken,
            revealed: Some(revealed),
            penalties,
            replaces_previous,
        },
        other => other,
    }
}

fn with_penalties(
    action: FlowerFieldsAction,
    choices: FlowerFieldsPenaltyChoices,
) -> FlowerFieldsAction {
    match action {
        FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken,
            revealed,
            replaces_previous,
            ..
        } => FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken,
            revealed,
            penalties: choices,
            replaces_previous,
        },
        other => other,
    }
}

fn broken(field: u8, piece_text: &str, cells: [&str; 2]) -> FlowerFieldsAction {
    match submit(field, piece_text, cells) {
        FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            ..
        } => FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken: true,
            revealed: None,
            penalties: FlowerFieldsPenaltyChoices::default(),
            replaces_previous: false,
        },
        other => other,
    }
}

fn hand_of(table: &FlowerTable, seat_number: u8) -> Vec<String> {
    table
        .state
        .seat(SeatIndex(seat_number))
        .expect("a seat")
        .hand
        .iter()
        .map(|held| held.piece.to_string())
        .collect()
}

// §1, §2 — setup and turns

#[test]
fn setup_deals_rounds_zero_and_one_and_records_the_mapping_in_effect() {
    let options = FlowerFieldsOptions {
        scoring: FlowerFieldsScoringMapping {
            red: FlowerFieldsScoringRule::PerFlower { points: 4 },
            ..FlowerFieldsScoringMapping::default()
        },
        ..FlowerFieldsOptions::default()
    };
    let table = table_with(options);
    assert_eq!(table.state.round, 1);
    for number in 0..5 {
        assert_eq!(hand_of(&table, number), ["white-red", "white-yellow"]);
    }
    let FlowerFieldsEvent::GameSetUp { scoring, .. } = &table.events[0] else {
        panic!("the first event is the setup");
    };
    assert_eq!(
        scoring.red,
        FlowerFieldsScoringRule::PerFlower { points: 4 }
    );
    assert_eq!(FlowerFields::status(&table.state).to_act.len(), 5);
}

#[test]
fn random_setup_deals_thirteen_different_pieces_per_seat_over_the_game() {
    let mut table = Table::<FlowerFields>::new(FlowerFieldsOptions::default(), 42);
    play_until_round(&mut table, 12);
    finish_round(&mut table);
    for seat_number in 0..5u8 {
        let dealt: Vec<FlowerFieldsPiece> = table
            .events
            .iter()
            .filter_map(|event| match event {
                FlowerFieldsEvent::PieceDealt { seat, piece, .. } if seat.0 == seat_number => {
                    Some(*piece)
                }
                _ => None,
            })
            .collect();
        assert_eq!(dealt.len(), 13);
        for (index, piece) in dealt.iter().enumerate() {
            assert_ne!(piece.first, piece.second);
            assert!(dealt[index + 1..]
                .iter()
                .all(|other| !other.same_piece_as(piece)));
        }
    }
}

#[test]
fn a_submission_into_the_field_not_due_is_refused() {
    let mut table = table();
    // Round 1 is odd: seat 0 plays into its clockwise field 0, not field 4.
    table.refuses(
        seat(0),
        submit(4, "white-red", ["A1", "A2"]),
        codes::WRONG_FIELD.code,
    );
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
}

#[test]
fn even_rounds_play_into_the_counterclockwise_field() {
    let mut table = table();
    finish_round(&mut table);
    assert_eq!(table.state.round, 2);
    table.refuses(
        seat(2),
        submit(2, "white-blue", ["E4", "E5"]),
        codes::WRONG_FIELD.code,
    );
    table.accepts(seat(2), submit(1, "white-blue", ["E4", "E5"]));
}

#[test]
fn a_piece_not_held_is_refused() {
    let mut table = table();
    table.refuses(
        seat(0),
        submit(0, "red-blue", ["A1", "A2"]),
        codes::NOT_IN_HAND.code,
    );
    // The order of the flowers does not matter: yellow-white is white-yellow.
    table.accepts(seat(0), submit(0, "yellow-white", ["A1", "A2"]));
}

#[test]
fn the_round_resolves_when_all_five_are_in_and_places_every_piece() {
    let mut table = table();
    for number in 0..4 {
        table.accepts(seat(number), submit(number, "white-red", ["B2", "B3"]));
    }
    assert_eq!(table.state.round, 1, "the round waits for the fifth seat");
    let events = table.accepts(seat(4), submit(4, "red-white", ["B2", "C2"]));
    assert!(events
        .iter()
        .any(|event| matches!(event, FlowerFieldsEvent::RoundResolved { round: 1 })));
    assert_eq!(table.state.round, 2);
    let field_four = table.state.field(4).expect("field 4");
    assert_eq!(
        field_four.flower_at(cell("B2")),
        Some(FlowerFieldsFlower::Red)
    );
    assert_eq!(
        field_four.flower_at(cell("C2")),
        Some(FlowerFieldsFlower::White)
    );
    assert_eq!(hand_of(&table, 4), ["white-yellow", "white-blue"]);
}

// §2 — hold limit

#[test]
fn a_piece_held_three_rounds_must_be_played_in_the_fourth() {
    // Worked case: the round-0 piece must be used by round 3.
    let mut table = table();
    for _ in 1..=2 {
        let round = table.state.round;
        let newest = FlowerFieldsPiece::full_bag()[usize::from(round)].to_string();
        for number in 0..5 {
            let action = submit_anywhere(&table, number, &newest);
            table.accepts(seat(number), action);
        }
    }
    assert_eq!(table.state.round, 3);
    assert_eq!(hand_of(&table, 0), ["white-red", "white-purple"]);
    let refused = submit_anywhere(&table, 0, "white-purple");
    table.refuses(seat(0), refused, codes::PIECE_OVERDUE.code);
    let accepted = submit_anywhere(&table, 0, "white-red");
    table.accepts(seat(0), accepted);
}

#[test]
fn legal_actions_offer_only_the_overdue_piece() {
    let mut table = table();
    for _ in 1..=2 {
        let round = table.state.round;
        let newest = FlowerFieldsPiece::full_bag()[usize::from(round)].to_string();
        for number in 0..5 {
            let action = submit_anywhere(&table, number, &newest);
            table.accepts(seat(number), action);
        }
    }
    let listed = FlowerFields::legal_actions(&table.state, seat(1));
    assert!(!listed.is_empty());
    assert!(listed
        .iter()
        .all(|action| matches!(action, FlowerFieldsAction::Submit { piece, .. } if piece.same_piece_as(&piece_of("white-red")))));
}

fn piece_of(text: &str) -> FlowerFieldsPiece {
    piece(text)
}

// §3 — placement

#[test]
fn cells_that_are_not_orthogonally_adjacent_are_refused() {
    let mut table = table();
    table.refuses(
        seat(0),
        submit(0, "white-red", ["A1", "B2"]),
        codes::CELLS_NOT_ADJACENT.code,
    );
    table.accepts(seat(0), submit(0, "white-red", ["A1", "B1"]));
}

#[test]
fn the_same_cell_twice_is_refused() {
    let mut table = table();
    table.refuses(
        seat(0),
        submit(0, "white-red", ["C3", "C3"]),
        codes::SAME_CELL.code,
    );
    table.accepts(seat(0), submit(0, "white-red", ["C3", "C4"]));
}

#[test]
fn an_occupied_cell_is_refused() {
    let mut table = table();
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
    finish_round(&mut table);
    // Round 2: seat 1 plays into its counterclockwise field 0.
    table.refuses(
        seat(1),
        submit(0, "white-blue", ["A2", "A3"]),
        codes::CELL_OCCUPIED.code,
    );
    table.accepts(seat(1), submit(0, "white-blue", ["A3", "A4"]));
}

#[test]
fn breaking_while_a_domino_placement_exists_is_refused() {
    let mut table = table();
    table.refuses(
        seat(0),
        broken(0, "white-red", ["A1", "C3"]),
        codes::BREAK_NOT_NEEDED.code,
    );
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
}

#[test]
fn breaking_is_allowed_when_no_two_adjacent_cells_are_empty() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.extend(plant(0, &fill_except("purple", &["A1", "C1", "E5"])));
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    assert!(table.view(Viewer::Seat(SeatIndex(0)))["fields"][0]["next_must_break"] == true);
    // Without `broken` the cells are not adjacent.
    table.refuses(
        seat(0),
        submit(0, "white-red", ["A1", "C1"]),
        codes::CELLS_NOT_ADJACENT.code,
    );
    table.refuses(
        seat(0),
        broken(0, "white-red", ["A1", "B1"]),
        codes::CELL_OCCUPIED.code,
    );
    table.accepts(seat(0), broken(0, "white-red", ["A1", "E5"]));
}

#[test]
fn both_managers_pay_for_a_break_by_their_own_choice() {
    let options = FlowerFieldsOptions {
        starting_garnets: 3,
        ..FlowerFieldsOptions::default()
    };
    let mut events = setup_with_bags(&options, ordered_bags());
    events.extend(plant(0, &fill_except("purple", &["A1", "C1", "E5"])));
    let mut table = Table::<FlowerFields>::from_events(options, events);
    // Seat 0 places into field 0 (its clockwise field) and pays garnets;
    // seat 1 manages field 0 as its counterclockwise field and chose points.
    table.accepts(
        seat(0),
        with_penalties(
            broken(0, "white-red", ["A1", "E5"]),
            FlowerFieldsPenaltyChoices {
                clockwise: Some(FlowerFieldsPenalty::Garnets),
                counterclockwise: None,
            },
        ),
    );
    let seat_one = with_penalties(
        first_legal(&table, 1),
        FlowerFieldsPenaltyChoices {
            clockwise: Some(FlowerFieldsPenalty::Garnets),
            counterclockwise: Some(FlowerFieldsPenalty::Points),
        },
    );
    table.accepts(seat(1), seat_one);
    finish_round(&mut table);
    let seat_zero = table.state.seat(SeatIndex(0)).expect("seat 0");
    assert_eq!(seat_zero.garnets.balance, 0);
    assert_eq!(seat_zero.garnets.spent_on_breaks, 3);
    assert!(seat_zero.penalties.is_empty());
    let seat_one = table.state.seat(SeatIndex(1)).expect("seat 1");
    assert_eq!(seat_one.garnets.balance, 3);
    assert_eq!(seat_one.penalties.len(), 1);
    assert_eq!(
        seat_one.penalties[0].reason,
        FlowerFieldsPenaltyReason::Break { break_field: 0 }
    );
}

#[test]
fn choosing_garnets_without_three_garnets_means_points() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.extend(plant(0, &fill_except("purple", &["A1", "C1", "E5"])));
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    table.accepts(
        seat(0),
        with_penalties(
            broken(0, "white-red", ["A1", "E5"]),
            FlowerFieldsPenaltyChoices {
                clockwise: Some(FlowerFieldsPenalty::Garnets),
                counterclockwise: None,
            },
        ),
    );
    finish_round(&mut table);
    for number in [0, 1] {
        let seat_state = table.state.seat(SeatIndex(number)).expect("a seat");
        assert_eq!(seat_state.garnets.balance, 0);
        assert_eq!(
            seat_state.penalties.len(),
            1,
            "seat {number} takes 10 points"
        );
        assert_eq!(
            seat_state.break_payments[0].penalty,
            FlowerFieldsPenalty::Points
        );
    }
}

#[test]
fn both_managers_are_told_when_the_next_piece_must_break() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.extend(plant(
        0,
        &fill_except("purple", &["A1", "C1", "E5", "E4", "E3"]),
    ));
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    table.accepts(seat(0), submit(0, "white-red", ["E4", "E5"]));
    finish_round(&mut table);
    let notices: Vec<(u8, bool)> = table
        .events
        .iter()
        .filter_map(|event| match event {
            FlowerFieldsEvent::BreakNoticeGiven {
                field,
                round: 2,
                must_break,
            } => Some((*field, *must_break)),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 5);
    assert!(notices.contains(&(0, true)));
    for manager in [0, 1] {
        let redacted = table
            .events
            .iter()
            .filter(|event| {
                matches!(
                    event,
                    FlowerFieldsEvent::BreakNoticeGiven {
                        field: 0,
                        round: 2,
                        ..
                    }
                )
            })
            .filter_map(|event| {
                FlowerFields::redact_event(&table.state, event, Viewer::Seat(SeatIndex(manager)))
            })
            .count();
        assert_eq!(redacted, 1);
    }
    let stranger = table
        .events
        .iter()
        .filter(|event| matches!(event, FlowerFieldsEvent::BreakNoticeGiven { field: 0, .. }))
        .filter_map(|event| {
            FlowerFields::redact_event(&table.state, event, Viewer::Seat(SeatIndex(3)))
        })
        .count();
    assert_eq!(stranger, 0);
}

// §1 — simultaneous submissions and their replacement

#[test]
fn a_second_submission_is_refused_unless_it_replaces_the_first() {
    let mut table = table();
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
    table.refuses(
        seat(0),
        submit(0, "white-red", ["B1", "B2"]),
        codes::ALREADY_SUBMITTED.code,
    );
    let replacement = match submit(0, "white-yellow", ["B1", "B2"]) {
        FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            ..
        } => FlowerFieldsAction::Submit {
            field,
            piece,
            cells,
            broken: false,
            revealed: None,
            penalties: FlowerFieldsPenaltyChoices::default(),
            replaces_previous: true,
        },
        other => other,
    };
    table.accepts(seat(0), replacement);
    finish_round(&mut table);
    let field_zero = table.state.field(0).expect("field 0");
    assert_eq!(
        field_zero.flower_at(cell("B1")),
        Some(FlowerFieldsFlower::White)
    );
    assert_eq!(field_zero.flower_at(cell("A1")), None);
    assert_eq!(hand_of(&table, 0), ["white-red", "white-blue"]);
}

// §5 — missed submissions

#[test]
fn a_timeout_reveals_the_oldest_piece_to_the_other_manager_who_must_place_it_first() {
    let mut table = table();
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(0) });
    assert_eq!(hand_of(&table, 0), ["white-yellow"]);
    table.refuses(
        seat(0),
        submit(0, "white-yellow", ["A1", "A2"]),
        codes::SUBMISSION_MISSED.code,
    );
    finish_round(&mut table);
    assert_eq!(table.state.round, 2);
    let revealed = table
        .events
        .iter()
        .find_map(|event| match event {
            FlowerFieldsEvent::PieceRevealed {
                field,
                to_seat,
                piece,
                ..
            } => Some((*field, *to_seat, *piece)),
            _ => None,
        })
        .expect("a revealed piece");
    assert_eq!(revealed, (0, SeatIndex(1), piece("white-red")));
    let penalties = &table.state.seat(SeatIndex(0)).expect("seat 0").penalties;
    assert_eq!(
        penalties[0].reason,
        FlowerFieldsPenaltyReason::MissedSubmission
    );
    assert_eq!(penalties[0].points, 10);
    // Round 2: seat 1 plays into field 0 and must place the revealed piece.
    let own = submit_anywhere(&table, 1, "white-blue");
    table.refuses(seat(1), own.clone(), codes::MISSING_REVEALED_PIECE.code);
    let wrong_revealed = FlowerFieldsPlacement {
        piece: piece("red-blue"),
        cells: [cell("E4"), cell("E5")],
        broken: false,
    };
    table.refuses(
        seat(1),
        with_revealed(own.clone(), wrong_revealed),
        codes::MISSING_REVEALED_PIECE.code,
    );
    let revealed_placement = FlowerFieldsPlacement {
        piece: piece("red-white"),
        cells: [cell("E4"), cell("E5")],
        broken: false,
    };
    table.accepts(seat(1), with_revealed(own, revealed_placement));
    finish_round(&mut table);
    let field_zero = table.state.field(0).expect("field 0");
    assert_eq!(
        field_zero.flower_at(cell("E4")),
        Some(FlowerFieldsFlower::Red)
    );
    assert_eq!(field_zero.revealed, None);
}

#[test]
fn the_revealed_piece_is_placed_before_the_own_piece_which_then_may_break() {
    // Worked case: with space for one piece only, the own piece is broken.
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.extend(plant(
        0,
        &fill_except("purple", &["A1", "C1", "E5", "E4", "C3", "A3"]),
    ));
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(0) });
    finish_round(&mut table);
    let revealed = FlowerFieldsPlacement {
        piece: piece("white-red"),
        cells: [cell("E4"), cell("E5")],
        broken: false,
    };
    // The own piece cannot pretend a domino fits; a broken revealed piece is refused.
    let broken_revealed = FlowerFieldsPlacement {
        broken: true,
        cells: [cell("A1"), cell("C1")],
        ..revealed
    };
    table.refuses(
        seat(1),
        with_revealed(broken(0, "white-blue", ["A1", "C1"]), broken_revealed),
        codes::BREAK_NOT_NEEDED.code,
    );
    table.accepts(
        seat(1),
        with_revealed(broken(0, "white-blue", ["A1", "C3"]), revealed),
    );
}

#[test]
fn a_revealed_piece_that_is_not_waiting_is_refused() {
    let mut table = table();
    let revealed = FlowerFieldsPlacement {
        piece: piece("red-blue"),
        cells: [cell("E4"), cell("E5")],
        broken: false,
    };
    table.refuses(
        seat(0),
        with_revealed(submit(0, "white-red", ["A1", "A2"]), revealed),
        codes::NO_REVEALED_PIECE.code,
    );
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
}

#[test]
fn the_umpire_closing_the_round_times_out_every_pending_seat() {
    let mut table = table();
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
    table.accepts(seat(3), submit(3, "white-red", ["A1", "A2"]));
    let events = table.accepts(UMPIRE, FlowerFieldsAction::CloseRound);
    let missed: Vec<u8> = events
        .iter()
        .filter_map(|event| match event {
            FlowerFieldsEvent::SubmissionMissed { seat, .. } => Some(seat.0),
            _ => None,
        })
        .collect();
    assert_eq!(missed, [1, 2, 4]);
    assert_eq!(table.state.round, 2);
}

#[test]
fn a_timeout_of_a_seat_that_already_submitted_is_refused() {
    let mut table = table();
    table.accepts(seat(2), submit(2, "white-red", ["A1", "A2"]));
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::Timeout { seat: SeatIndex(2) },
        codes::ALREADY_SUBMITTED.code,
    );
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::Timeout { seat: SeatIndex(7) },
        codes::NO_SUCH_SEAT.code,
    );
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(3) });
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::Timeout { seat: SeatIndex(3) },
        codes::SUBMISSION_MISSED.code,
    );
}

#[test]
fn a_revealed_piece_is_discarded_when_its_receiver_misses_too() {
    let mut table = table();
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(0) });
    finish_round(&mut table);
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(1) });
    let events = {
        finish_round(&mut table);
        table.events.clone()
    };
    assert!(events.iter().any(|event| matches!(
        event,
        FlowerFieldsEvent::PieceDiscarded {
            owner: SeatIndex(0),
            reason: FlowerFieldsDiscardReason::ReceiverMissed,
            field: Some(0),
            ..
        }
    )));
    // Seat 1's own missed piece now waits in field 0 for seat 0 in round 3.
    let waiting = table
        .state
        .field(0)
        .and_then(|field| field.revealed)
        .expect("a revealed piece");
    assert_eq!(waiting.from_seat, SeatIndex(1));
}

#[test]
fn a_piece_missed_in_round_twelve_is_discarded() {
    let mut table = table();
    play_until_round(&mut table, 12);
    let events = table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(4) });
    assert!(events
        .iter()
        .any(|event| matches!(event, FlowerFieldsEvent::SubmissionMissed { .. })));
    finish_round(&mut table);
    assert!(table.events.iter().any(|event| matches!(
        event,
        FlowerFieldsEvent::PieceDiscarded {
            owner: SeatIndex(4),
            reason: FlowerFieldsDiscardReason::MissedInLastRound,
            ..
        }
    )));
    assert!(!table
        .events
        .iter()
        .any(|event| matches!(event, FlowerFieldsEvent::PieceRevealed { round: 12, .. })));
    assert!(table.state.ended);
    // Its cells end black: field 3 (seat 4's counterclockwise field) has 3.
    let field_three = table.state.field(3).expect("field 3");
    let black = FlowerFieldsCell::all()
        .filter(|cell| field_three.flower_at(*cell) == Some(FlowerFieldsFlower::Black))
        .count();
    assert_eq!(black, 3);
}

// Actor checks

#[test]
fn a_seat_sending_an_umpire_action_is_refused() {
    let mut table = table();
    table.refuses(
        seat(1),
        FlowerFieldsAction::Timeout { seat: SeatIndex(2) },
        codes::UMPIRE_ONLY.code,
    );
    table.refuses(
        seat(1),
        FlowerFieldsAction::CloseRound,
        codes::UMPIRE_ONLY.code,
    );
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(2) });
}

#[test]
fn the_umpire_sending_a_seat_action_is_refused() {
    let mut table = table();
    table.refuses(
        UMPIRE,
        submit(0, "white-red", ["A1", "A2"]),
        codes::NOT_A_SEAT_ACTION.code,
    );
    table.refuses(
        seat(9),
        submit(0, "white-red", ["A1", "A2"]),
        codes::NO_SUCH_SEAT.code,
    );
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
}

// §6 — piece replacement

fn replace(piece_text: &str, with_text: &str) -> FlowerFieldsAction {
    FlowerFieldsAction::ReplacePiece {
        piece: piece(piece_text),
        with: piece(with_text),
    }
}

fn ruling(enabled: bool) -> FlowerFieldsAction {
    FlowerFieldsAction::SetRuling {
        rule: FlowerFieldsRuling::PieceReplacement,
        enabled,
    }
}

#[test]
fn replacement_is_refused_while_the_ruling_is_off_and_allowed_once_on() {
    let options = FlowerFieldsOptions {
        starting_garnets: 6,
        ..FlowerFieldsOptions::default()
    };
    let mut table = table_with(options);
    table.refuses(
        seat(0),
        replace("white-red", "red-red"),
        codes::REPLACEMENT_NOT_ALLOWED.code,
    );
    table.accepts(UMPIRE, ruling(true));
    table.accepts(seat(0), replace("white-red", "red-red"));
    assert_eq!(hand_of(&table, 0), ["red-red", "white-yellow"]);
    assert_eq!(
        table
            .state
            .seat(SeatIndex(0))
            .expect("seat")
            .garnets
            .balance,
        3
    );
    // A piece of two equal flowers is placed like any other.
    table.accepts(seat(0), submit(0, "red-red", ["A1", "A2"]));
    table.refuses(
        seat(0),
        replace("white-yellow", "blue-blue"),
        codes::ALREADY_SUBMITTED.code,
    );
    // Switched off again: from that event forward replacement is refused.
    table.accepts(UMPIRE, ruling(false));
    table.refuses(
        seat(1),
        replace("white-red", "red-red"),
        codes::REPLACEMENT_NOT_ALLOWED.code,
    );
    let history: Vec<bool> = table
        .state
        .ruling_history
        .iter()
        .map(|change| change.enabled)
        .collect();
    assert_eq!(history, [false, true, false]);
}

#[test]
fn replacement_needs_three_garnets() {
    let options = FlowerFieldsOptions {
        starting_garnets: 2,
        piece_replacement: true,
        ..FlowerFieldsOptions::default()
    };
    let mut table = table_with(options);
    table.refuses(
        seat(0),
        replace("white-red", "red-red"),
        codes::REPLACEMENT_NOT_ALLOWED.code,
    );
    let options = FlowerFieldsOptions {
        starting_garnets: 3,
        piece_replacement: true,
        ..FlowerFieldsOptions::default()
    };
    let mut table = table_with(options);
    table.accepts(seat(0), replace("white-red", "red-red"));
}

#[test]
fn replacement_of_a_piece_dealt_after_round_three_is_refused() {
    let options = FlowerFieldsOptions {
        starting_garnets: 9,
        piece_replacement: true,
        ..FlowerFieldsOptions::default()
    };
    let mut table = table_with(options);
    play_until_round(&mut table, 4);
    // Every seat now holds its round-4 piece white-orange and one older one.
    let older = table
        .state
        .seat(SeatIndex(0))
        .expect("seat")
        .hand
        .iter()
        .find(|held| held.dealt_round <= 3)
        .expect("an older piece")
        .piece
        .to_string();
    table.refuses(
        seat(0),
        replace("white-orange", "red-red"),
        codes::REPLACEMENT_NOT_ALLOWED.code,
    );
    table.refuses(
        seat(0),
        replace("blue-orange", "red-red"),
        codes::NOT_IN_HAND.code,
    );
    table.accepts(seat(0), replace(&older, "red-red"));
}

#[test]
fn replay_honours_the_ruling_in_force_at_each_event() {
    let options = FlowerFieldsOptions {
        starting_garnets: 9,
        ..FlowerFieldsOptions::default()
    };
    let mut table = table_with(options.clone());
    table.accepts(UMPIRE, ruling(true));
    table.accepts(seat(2), replace("white-red", "blue-blue"));
    table.accepts(UMPIRE, ruling(false));
    let replayed = umpire_domain::testing::fold::<FlowerFields>(&options, &table.events);
    assert_eq!(replayed, table.state);
    assert!(!replayed.piece_replacement);
    assert_eq!(
        replayed.seat(SeatIndex(2)).expect("seat").hand[0].piece,
        piece("blue-blue")
    );
}

// §7 — end, result and Elimination Candidate

#[test]
fn after_round_twelve_empty_cells_turn_black_and_the_game_is_over() {
    let mut table = table();
    play_until_round(&mut table, 12);
    finish_round(&mut table);
    assert!(table.state.ended);
    for field in 0..5 {
        let state = table.state.field(field).expect("a field");
        let black = FlowerFieldsCell::all()
            .filter(|cell| state.flower_at(*cell) == Some(FlowerFieldsFlower::Black))
            .count();
        assert_eq!(black, 1, "12 pieces fill 24 of 25 cells");
    }
    assert!(table
        .events
        .iter()
        .any(|event| matches!(event, FlowerFieldsEvent::GameEnded)));
    let status = FlowerFields::status(&table.state);
    assert!(status.to_act.is_empty());
    if table.state.phase == FlowerFieldsPhase::Finished {
        table.refuses(
            seat(0),
            submit(0, "white-red", ["A1", "A2"]),
            codes::GAME_OVER.code,
        );
        table.refuses(UMPIRE, ruling(true), codes::GAME_OVER.code);
    }
}

#[test]
fn a_finished_game_refuses_every_action() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.push(FlowerFieldsEvent::GameEnded);
    events.push(FlowerFieldsEvent::ResultDeclared {
        winner: Some(SeatIndex(0)),
        candidates: vec![SeatIndex(2)],
    });
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    table.refuses(
        seat(0),
        submit(0, "white-red", ["A1", "A2"]),
        codes::GAME_OVER.code,
    );
    table.refuses(
        seat(0),
        replace("white-red", "red-red"),
        codes::GAME_OVER.code,
    );
    table.refuses(UMPIRE, ruling(true), codes::GAME_OVER.code);
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::CloseRound,
        codes::GAME_OVER.code,
    );
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::ChooseCandidate { seat: SeatIndex(2) },
        codes::GAME_OVER.code,
    );
}

#[test]
fn a_tie_for_the_elimination_candidate_waits_for_the_umpire() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.push(FlowerFieldsEvent::GameEnded);
    events.push(FlowerFieldsEvent::ResultDeclared {
        winner: Some(SeatIndex(0)),
        candidates: vec![SeatIndex(2), SeatIndex(3)],
    });
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    assert_eq!(
        FlowerFields::status(&table.state).phase,
        "choosing_candidate"
    );
    table.refuses(
        seat(0),
        submit(0, "white-red", ["A1", "A2"]),
        codes::GAME_OVER.code,
    );
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::ChooseCandidate { seat: SeatIndex(1) },
        codes::NOT_A_CANDIDATE.code,
    );
    table.accepts(
        UMPIRE,
        FlowerFieldsAction::ChooseCandidate { seat: SeatIndex(3) },
    );
    assert!(FlowerFields::status(&table.state).finished);
    let score =
        serde_json::to_value(FlowerFields::score(&table.state, Viewer::Spectator)).expect("json");
    assert_eq!(score["result"]["elimination_candidate"], 3);
}

#[test]
fn choosing_a_candidate_without_a_tie_is_refused() {
    let mut table = table();
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::ChooseCandidate { seat: SeatIndex(1) },
        codes::NO_CANDIDATE_TIE.code,
    );
    table.accepts(UMPIRE, FlowerFieldsAction::Timeout { seat: SeatIndex(1) });
}

#[test]
fn the_winner_is_the_single_highest_and_the_candidate_the_lower_opposite_seat() {
    let result = result_for(&[30, 10, 5, 7, 20]);
    assert_eq!(result.winner, Some(SeatIndex(0)));
    // Opposite seat 0: seats 2 and 3; seat 2 is lower. Seat 1 (lowest) is a
    // neighbour of the winner and cannot be the candidate.
    assert_eq!(result.candidates, [SeatIndex(2)]);
    assert_eq!(result.elimination_candidate, Some(SeatIndex(2)));
}

#[test]
fn equal_opposite_seats_are_both_listed() {
    let result = result_for(&[1, 40, 3, 9, 9]);
    assert_eq!(result.winner, Some(SeatIndex(1)));
    assert_eq!(result.candidates, [SeatIndex(3), SeatIndex(4)]);
    assert_eq!(result.elimination_candidate, None);
}

#[test]
fn a_tie_for_highest_means_no_winner_and_the_lowest_is_candidate() {
    let result = result_for(&[30, 30, 5, 7, 20]);
    assert_eq!(result.winner, None);
    assert_eq!(result.candidates, [SeatIndex(2)]);
    let result = result_for(&[30, 30, 5, 5, 20]);
    assert_eq!(result.candidates, [SeatIndex(2), SeatIndex(3)]);
}

// §7 — the scoring library

fn field_of(layout: &str) -> FieldState {
    let mut field = FieldState::empty();
    for entry in layout.split(',') {
        let mut parts = entry.split_whitespace();
        let cell = cell(parts.next().expect("cell"));
        let flower = match parts.next().expect("flower") {
            "black" => FlowerFieldsFlower::Black,
            name => FlowerFieldsFlower::parse_plantable(name).expect("flower"),
        };
        field.set(cell, flower);
    }
    field
}

#[test]
fn largest_group_scores_only_the_biggest_connected_group() {
    let field = field_of("A1 red, A2 red, B2 red, D4 red, D5 red");
    let line = flower_score(
        &field,
        &FieldState::empty(),
        1,
        FlowerFieldsFlower::Red,
        FlowerFieldsScoringRule::LargestGroup { per_flower: 2 },
    );
    assert_eq!((line.count, line.points), (5, 6));
}

#[test]
fn neighbour_variety_counts_distinct_non_black_types_around_each_flower() {
    // B2 yellow sees red, blue, yellow and black: 3 types. A1 yellow sees
    // white (A2) and nothing else: 1 type... plus B1 red: 2.
    let field =
        field_of("B2 yellow, B1 red, A2 white, C2 blue, B3 yellow, A1 yellow, D5 black, B4 black");
    let line = flower_score(
        &field,
        &FieldState::empty(),
        1,
        FlowerFieldsFlower::Yellow,
        FlowerFieldsScoringRule::NeighbourVariety { per_type: 1 },
    );
    // B2: red, white, blue, yellow = 4; B3: yellow = 1 (B4 black, A3/C3 empty); A1: red, white = 2.
    assert_eq!(line.points, 7);
}

#[test]
fn the_same_field_scores_differently_for_its_two_managers() {
    // Worked case: mirror compares with each manager's other field.
    let shared = field_of("A1 blue, B1 blue, C1 blue");
    let mirror = FlowerFieldsScoringRule::Mirror { points: 3 };
    let against_one = flower_score(
        &shared,
        &field_of("A1 blue"),
        4,
        FlowerFieldsFlower::Blue,
        mirror,
    );
    let against_other = flower_score(
        &shared,
        &field_of("A1 blue, B1 blue, C1 red"),
        1,
        FlowerFieldsFlower::Blue,
        mirror,
    );
    assert_eq!(against_one.points, 3);
    assert_eq!(against_other.points, 6);
}

#[test]
fn majority_scores_each_flower_by_the_comparison_with_the_other_field() {
    let rule = FlowerFieldsScoringRule::Majority {
        more: 2,
        equal: 1,
        fewer: 0,
    };
    let here = field_of("A1 purple, A2 purple, A3 purple");
    assert_eq!(
        flower_score(
            &here,
            &field_of("E5 purple"),
            1,
            FlowerFieldsFlower::Purple,
            rule
        )
        .points,
        6
    );
    assert_eq!(
        flower_score(
            &here,
            &field_of("E5 purple, E4 purple, E3 purple"),
            1,
            FlowerFieldsFlower::Purple,
            rule
        )
        .points,
        3
    );
    assert_eq!(
        flower_score(
            &here,
            &field_of(&fill_except("purple", &[])),
            1,
            FlowerFieldsFlower::Purple,
            rule
        )
        .points,
        0
    );
}

#[test]
fn edges_score_border_flowers_and_corners_once() {
    let field = field_of("A1 orange, C1 orange, C3 orange, E5 orange, E3 orange");
    let line = flower_score(
        &field,
        &FieldState::empty(),
        1,
        FlowerFieldsFlower::Orange,
        FlowerFieldsScoringRule::Edges { edge: 1, corner: 3 },
    );
    assert_eq!(line.points, 3 + 1 + 3 + 1);
}

#[test]
fn per_flower_and_garnets_rules_score_as_described() {
    let field = field_of("A1 white, C1 white, C3 red");
    let per_flower = flower_score(
        &field,
        &FieldState::empty(),
        1,
        FlowerFieldsFlower::White,
        FlowerFieldsScoringRule::PerFlower { points: 5 },
    );
    assert_eq!(per_flower.points, 10);
    let garnets = flower_score(
        &field,
        &FieldState::empty(),
        1,
        FlowerFieldsFlower::White,
        FlowerFieldsScoringRule::Garnets,
    );
    assert_eq!(garnets.points, 0);
}

#[test]
fn the_field_with_most_white_flowers_gives_three_garnets_per_flower_to_each_manager() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.extend(plant(0, "A1 white, A2 white, A3 white"));
    events.extend(plant(2, "A1 white"));
    let table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    let earned = garnets_earned(&table.state);
    // Field 0 (seats 0, 1): 3 × 3 = 9 each; field 2 (seats 2, 3): 1 each.
    assert_eq!(earned, [9, 9, 1, 1, 0]);
}

#[test]
fn a_seat_scores_both_its_fields_against_each_other_minus_penalties() {
    let mut events = setup_with_bags(&FlowerFieldsOptions::default(), ordered_bags());
    events.extend(plant(0, "A1 red, A2 red, C3 blue"));
    events.extend(plant(4, "C3 blue, E5 orange"));
    events.push(FlowerFieldsEvent::SubmissionMissed {
        seat: SeatIndex(0),
        round: 1,
        due_field: 0,
        piece: Some(piece("white-red")),
        points: None,
    });
    let table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), events);
    let line = seat_score(&table.state, SeatIndex(0));
    // Field 0: red group 2 × 2 = 4, blue mirrored 3. Field 4: blue 3, orange corner 3.
    assert_eq!(line.clockwise.points, 7);
    assert_eq!(line.counterclockwise.points, 6);
    assert_eq!(line.penalty_points, 10);
    assert_eq!(line.total, 3);
}

// Options

#[test]
fn negative_starting_garnets_are_refused() {
    let violation = FlowerFields::validate_options(FlowerFieldsOptions {
        starting_garnets: -1,
        ..FlowerFieldsOptions::default()
    })
    .expect_err("refused");
    assert_eq!(violation.code, codes::INVALID_STARTING_GARNETS.code);
    assert!(FlowerFields::validate_options(FlowerFieldsOptions::default()).is_ok());
    let options: FlowerFieldsOptions = serde_json::from_value(serde_json::json!({
        "starting_garnets": 4,
        "scoring": {"red": {"rule": "per_flower", "points": 2}}
    }))
    .expect("options parse");
    assert_eq!(
        options.scoring.red,
        FlowerFieldsScoringRule::PerFlower { points: 2 }
    );
    assert_eq!(
        options.scoring.blue,
        FlowerFieldsScoringMapping::default().blue
    );
    assert!(
        serde_json::from_value::<FlowerFieldsOptions>(serde_json::json!({"bogus": 1})).is_err()
    );
}

// §8 — information

#[test]
fn a_seat_sees_its_own_hand_and_its_two_fields_only() {
    let mut table = table();
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
    finish_round(&mut table);
    let view = table.view(Viewer::Seat(SeatIndex(1)));
    assert!(view["seats"][1]["hand"].is_array());
    assert!(view["seats"][0].get("hand").is_none());
    assert!(view["seats"][2].get("garnets").is_none());
    // Seat 1 manages fields 1 and 0.
    assert!(view["fields"][0]["cells"].is_array());
    assert!(view["fields"][1]["cells"].is_array());
    for hidden in [2, 3, 4] {
        assert!(view["fields"][hidden].get("cells").is_none());
        assert!(view["fields"][hidden].get("last_piece").is_none());
        assert!(view["fields"][hidden].get("next_must_break").is_none());
    }
    assert!(view.get("bags").is_none());
    let spectator = table.view(Viewer::Spectator);
    assert!(spectator["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .all(|field| field.get("cells").is_none()));
    assert!(spectator["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .all(|seat| seat.get("hand").is_none()));
    assert!(table.view(Viewer::Umpire)["bags"].is_array());
}

#[test]
fn before_the_end_a_seat_score_sheet_holds_only_its_own_line() {
    let table = table();
    let seat_score = FlowerFields::score(&table.state, Viewer::Seat(SeatIndex(3)));
    assert_eq!(seat_score.seats.len(), 1);
    assert_eq!(seat_score.seats[0].seat, SeatIndex(3));
    assert!(!seat_score.is_final);
    assert!(FlowerFields::score(&table.state, Viewer::Spectator)
        .seats
        .is_empty());
    assert_eq!(
        FlowerFields::score(&table.state, Viewer::Umpire)
            .seats
            .len(),
        5
    );
}

#[test]
fn after_the_end_everything_but_the_bag_order_is_public() {
    let mut table = table();
    play_until_round(&mut table, 12);
    finish_round(&mut table);
    let spectator = table.view(Viewer::Spectator);
    assert!(spectator["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .all(|field| field["cells"].is_array()));
    assert!(spectator["seats"][3]["garnets"].is_object());
    assert!(spectator.get("bags").is_none());
    assert_eq!(
        FlowerFields::score(&table.state, Viewer::Spectator)
            .seats
            .len(),
        5
    );
    let hidden = table
        .events
        .iter()
        .filter(|event| {
            FlowerFields::redact_event(&table.state, event, Viewer::Spectator).is_none()
        })
        .count();
    assert_eq!(hidden, 1, "only the bag order stays hidden");
}

#[test]
fn a_submission_is_seen_only_by_its_seat_and_a_deal_only_by_the_dealt_seat() {
    let mut table = table();
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
    let submission = table.events.last().expect("an event").clone();
    assert!(
        FlowerFields::redact_event(&table.state, &submission, Viewer::Seat(SeatIndex(0))).is_some()
    );
    assert!(
        FlowerFields::redact_event(&table.state, &submission, Viewer::Seat(SeatIndex(1))).is_none()
    );
    let deal = table
        .events
        .iter()
        .find(|event| {
            matches!(
                event,
                FlowerFieldsEvent::PieceDealt {
                    seat: SeatIndex(2),
                    ..
                }
            )
        })
        .expect("a deal")
        .clone();
    assert!(FlowerFields::redact_event(&table.state, &deal, Viewer::Seat(SeatIndex(2))).is_some());
    assert!(FlowerFields::redact_event(&table.state, &deal, Viewer::Seat(SeatIndex(3))).is_none());
    assert!(FlowerFields::redact_event(&table.state, &deal, Viewer::Spectator).is_none());
    assert!(FlowerFields::redact_event(&table.state, &deal, Viewer::Umpire).is_some());
}

#[test]
fn the_due_field_follows_the_round() {
    assert_eq!(field_due(SeatIndex(0), 1), 0);
    assert_eq!(field_due(SeatIndex(0), 2), 4);
    assert_eq!(field_due(SeatIndex(3), 12), 2);
}

#[test]
fn a_submission_before_setup_is_refused() {
    let mut table = Table::<FlowerFields>::from_events(FlowerFieldsOptions::default(), Vec::new());
    table.refuses(
        seat(0),
        submit(0, "white-red", ["A1", "A2"]),
        codes::NOT_STARTED.code,
    );
    table.refuses(
        UMPIRE,
        FlowerFieldsAction::CloseRound,
        codes::NOT_STARTED.code,
    );
    let mut table = table_with(FlowerFieldsOptions::default());
    table.accepts(seat(0), submit(0, "white-red", ["A1", "A2"]));
}

// --- Amounts live in the events, not in `apply` ---------------------------

/// A stored game is folded from what its events say: an event carrying an
/// amount is folded with that amount, and one recorded without (rules
/// version 1) with what that meant then, whatever today's rule constants.
#[test]
fn garnets_and_points_are_folded_from_the_events_not_from_todays_rules() {
    let options = FlowerFieldsOptions::default();
    let setup = FlowerFieldsEvent::GameSetUp {
        starting_garnets: 10,
        scoring: FlowerFieldsScoringMapping::default(),
        piece_replacement: true,
    };
    let seat0 = SeatIndex(0);
    let dealt = FlowerFieldsEvent::PieceDealt {
        seat: seat0,
        round: 0,
        piece: piece("white-red"),
    };
    let replaced = |garnets| FlowerFieldsEvent::PieceReplaced {
        seat: seat0,
        round: 1,
        piece: piece("white-red"),
        with: piece("blue-blue"),
        dealt_round: 0,
        garnets,
    };
    let missed = |points| FlowerFieldsEvent::SubmissionMissed {
        seat: seat0,
        round: 1,
        due_field: 0,
        piece: None,
        points,
    };
    let broke = |penalty, amount| FlowerFieldsEvent::BreakPenaltyTaken {
        seat: seat0,
        round: 1,
        break_field: 0,
        penalty,
        amount,
    };
    let garnets_after = |events: Vec<FlowerFieldsEvent>| {
        let mut all = vec![setup.clone(), dealt.clone()];
        all.extend(events);
        umpire_domain::testing::fold::<FlowerFields>(&options, &all).seats[0]
            .garnets
            .balance
    };
    assert_eq!(garnets_after(vec![replaced(Some(5))]), 5);
    assert_eq!(garnets_after(vec![replaced(None)]), 7, "v1: 3 garnets");
    assert_eq!(
        garnets_after(vec![broke(FlowerFieldsPenalty::Garnets, Some(4))]),
        6
    );
    assert_eq!(
        garnets_after(vec![broke(FlowerFieldsPenalty::Garnets, None)]),
        7
    );
    let points_after = |event: FlowerFieldsEvent| {
        let state = umpire_domain::testing::fold::<FlowerFields>(&options, &[setup.clone(), event]);
        state.seats[0]
            .penalties
            .iter()
            .map(|penalty| penalty.points)
            .collect::<Vec<_>>()
    };
    assert_eq!(points_after(missed(Some(12))), [12]);
    assert_eq!(points_after(missed(None)), [10], "v1: 10 points");
    assert_eq!(
        points_after(broke(FlowerFieldsPenalty::Points, Some(7))),
        [7]
    );
    assert_eq!(points_after(broke(FlowerFieldsPenalty::Points, None)), [10]);
}

/// Events under today's rules, whose amounts are those of rules version 1,
/// keep the bytes (and so the hashes) such events always had.
#[test]
fn todays_amounts_are_written_only_when_they_differ_from_version_1() {
    let json = serde_json::to_value(FlowerFieldsEvent::PieceReplaced {
        seat: SeatIndex(0),
        round: 1,
        piece: piece("white-red"),
        with: piece("blue-blue"),
        dealt_round: 0,
        garnets: messages::amount_of(3, messages::recorded_v1::REPLACEMENT_GARNETS),
    })
    .unwrap();
    assert!(json.get("garnets").is_none(), "{json}");
    assert_eq!(messages::amount_of(4, 3), Some(4));
}

// --- Which of two identical pieces a replacement takes ---------------------

/// A seat comes to hold two identical pieces by replacing one piece with
/// the kind of another: the one dealt in rounds 0–3 (replaceable) and one
/// dealt later. Replacing "that piece" again takes the earliest-dealt one —
/// the replaceable one. Across random games, every such attempt is accepted
/// (and takes it) or refused for a reason the state shows: too few garnets
/// left after the first replacement, already submitted, missed, the game
/// over; never because the piece was dealt too late or is not held.
#[test]
fn a_replacement_of_one_of_two_identical_pieces_takes_the_replaceable_one() {
    let mut outcomes: std::collections::BTreeMap<String, usize> = Default::default();
    for seed in 0..40 {
        // Enough garnets for both replacements, or for the first only.
        let options = FlowerFieldsOptions {
            piece_replacement: true,
            starting_garnets: if seed % 2 == 0 { 6 } else { 3 },
            ..FlowerFieldsOptions::default()
        };
        let game = umpire_domain::testing::play_random::<FlowerFields>(options.clone(), seed, 400);
        let mut state = FlowerFields::initial_state(&options);
        for event in &game.events {
            FlowerFields::apply(&mut state, event);
            for index in 0..5u8 {
                let seat = SeatIndex(index);
                let hand = &state.seats[index as usize].hand;
                let Some((early, late)) = hand.iter().find_map(|a| {
                    hand.iter()
                        .find(|b| {
                            a.dealt_round <= 3
                                && b.dealt_round > 3
                                && !a.piece.same_piece_as(&b.piece)
                        })
                        .map(|b| (*a, *b))
                }) else {
                    continue;
                };
                // Make the two identical: the early piece becomes the late one's kind.
                let first = FlowerFieldsAction::ReplacePiece {
                    piece: early.piece,
                    with: late.piece,
                };
                let Ok(events) = FlowerFields::decide(&state, Actor::Seat(seat), &first) else {
                    continue;
                };
                let mut twins = state.clone();
                for event in &events {
                    FlowerFields::apply(&mut twins, event);
                }
                let seat_state = &twins.seats[index as usize];
                let again = FlowerFieldsAction::ReplacePiece {
                    piece: late.piece,
                    with: early.piece,
                };
                match FlowerFields::decide(&twins, Actor::Seat(seat), &again) {
                    Ok(events) => {
                        let [FlowerFieldsEvent::PieceReplaced { dealt_round, .. }] =
                            events.as_slice()
                        else {
                            panic!("one replacement: {events:?}");
                        };
                        assert_eq!(*dealt_round, early.dealt_round, "the replaceable one");
                        *outcomes.entry("accepted".into()).or_default() += 1;
                    }
                    Err(violation) => {
                        let explained = violation.code == codes::REPLACEMENT_NOT_ALLOWED.code
                            && seat_state.garnets.balance < 3
                            && violation.message.contains("costs 3 garnets");
                        assert!(
                            explained,
                            "seed {seed}, seat {index}: {} — {}",
                            violation.code, violation.message
                        );
                        *outcomes.entry(violation.code.to_string()).or_default() += 1;
                    }
                }
            }
        }
    }
    let accepted = outcomes.get("accepted").copied().unwrap_or(0);
    assert!(accepted >= 10, "{outcomes:?}");
    assert!(
        outcomes.contains_key(codes::REPLACEMENT_NOT_ALLOWED.code),
        "the garnet refusal arose too: {outcomes:?}"
    );
}
