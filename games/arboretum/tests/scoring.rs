//! Final scoring (§5), with the seed's round-11 example replayed turn by
//! turn and its score sheet checked part by part.

use crate::support;

use std::collections::BTreeMap;

use support::*;
use umpire_arboretum::codes;
use umpire_arboretum::score::{ad_board_sum, best_path, score_sheet};
use umpire_arboretum::{
    Arboretum, ArboretumAction, ArboretumCard, ArboretumCell, ArboretumEvent, ArboretumOptions,
    ArboretumScore, ArboretumSeat, ArboretumSeatScore, ArboretumSkipReason, ArboretumState,
    ArboretumSuit, ArboretumTotals, PlayerArea,
};
use umpire_domain::testing::Table;
use umpire_domain::{Game, Viewer};

use ArboretumSeat::{Blue, Red};

/// Red's arboretum before round 11 (Q7 is planted on D5 during it).
const RED_ARBORETUM: [&str; 9] = [
    "B2:R1", "C2:R2", "C3:R3", "C4:R4", "D4:W6", "E4:R8", "E3:Q3", "D3:S4", "C5:Q8",
];
/// Blue's arboretum before round 11 (V1 is dug onto D1 during it).
const BLUE_ARBORETUM: [&str; 11] = [
    "E1:W1", "D2:V2", "D3:U3", "E3:P1", "C3:T5", "D4:U4", "C4:T6", "A4:P8", "B4:U7", "C5:T8",
    "B5:V8",
];

/// The position at the start of round 11 in the seed's example.
fn seed_round_eleven() -> Table<Arboretum> {
    Position::round(11, Red)
        .offering(&["P5", "Q6", "R5", "R6", "R7", "S1", "S3"])
        .refuse(&["V1", "W2"])
        .planted(Red, &RED_ARBORETUM)
        .planted(Blue, &BLUE_ARBORETUM)
        .ad_board(Red, &["Q7", "T4", "P7", "U1"])
        .ad_board(Blue, &["P2", "S6", "U8", "V7", "S2", "W5", "U6"])
        .parrots(Red, 9)
        .parrots(Blue, 10)
        .table()
}

fn cells(path: &[&str]) -> Vec<ArboretumCell> {
    path.iter().map(|text| cell(text)).collect()
}

fn suit_score(
    seat: &ArboretumSeatScore,
    suit: ArboretumSuit,
) -> &umpire_arboretum::ArboretumSuitScore {
    seat.suits
        .iter()
        .find(|entry| entry.suit == suit)
        .expect("every suit is listed")
}

/// Plays the seed's round 11 exactly as narrated and returns the table.
fn play_seed_round_eleven() -> (Table<Arboretum>, Vec<ArboretumEvent>) {
    let mut table = seed_round_eleven();
    bids(&mut table, "3b 2g 2g 1g 1g", "3b 3g 2b 1b 1g");
    assert_eq!(turn_letters(&table), "R B B R B R R B R");
    // 1: red hires with Q7 + T4 = 11 (no subset makes exactly 10).
    table.refuses(RED, hire(&["P7", "U1"]), codes::HIRE_TOTAL_TOO_LOW.code);
    table.accepts(RED, hire(&["Q7", "T4"]));
    assert_eq!(table.state.player(Red).parrots, 10);
    // 2: blue cannot hire any more; takes T4 and must discard.
    table.refuses(BLUE, hire(&["U8", "V7"]), codes::SPECIAL_ALREADY_TAKEN.code);
    table.refuses(BLUE, take("T4", None), codes::DISCARD_REQUIRED.code);
    table.accepts(BLUE, take("T4", Some("S2")));
    // 3: blue digs V1 onto D1.
    table.accepts(BLUE, dig("V1", "D1"));
    // 4: red cannot dig any more; plants the Q7 he discarded on D5.
    table.refuses(RED, dig("W2", "F4"), codes::SPECIAL_ALREADY_TAKEN.code);
    table.accepts(RED, plant("Q7", "D5"));
    // 5: blue takes P5, discarding W5.
    table.accepts(BLUE, take("P5", Some("W5")));
    // 6: red takes start; 7: red skips the rest of the round.
    table.accepts(RED, ArboretumAction::Start);
    table.accepts(RED, ArboretumAction::Skip);
    // 8: blue takes Q6, discarding U6; 9: red's last turn is forfeited.
    let last = table.accepts(BLUE, take("Q6", Some("U6")));
    (table, last)
}

#[test]
fn the_seed_example_round_is_played_out_and_blue_wins_24_to_10() {
    let (table, last_events) = play_seed_round_eleven();
    assert!(last_events.contains(&ArboretumEvent::TurnSkipped {
        seat: Red,
        turn: 9,
        reason: ArboretumSkipReason::Forfeited
    }));
    assert!(last_events.contains(&ArboretumEvent::GameEnded {
        totals: ArboretumTotals { red: 10, blue: 24 },
        winner: Blue
    }));
    assert!(Arboretum::status(&table.state).finished);
    assert_eq!(
        table.state.player(Blue).ad_board,
        cards(&["P2", "S6", "U8", "V7", "T4", "P5", "Q6"])
    );

    let sheet = Arboretum::score(&table.state, Viewer::Spectator);
    assert!(sheet.is_final);
    assert_eq!(sheet.winners, [Blue]);
    assert_eq!((sheet.red.total, sheet.blue.total), (10, 24));
    assert_eq!((sheet.red.parrots, sheet.blue.parrots), (10, 10));
    assert_eq!((sheet.red.parrot_points, sheet.blue.parrot_points), (0, 0));
    assert_eq!(
        (
            sheet.red.starting_player_points,
            sheet.blue.starting_player_points
        ),
        (1, 0)
    );
    let summary = Arboretum::summary(&table.state);
    assert_eq!(summary.totals["red"], 10);
    assert_eq!(summary.totals["blue"], 24);
    assert_eq!(summary.winners, ["blue"]);
    assert!(summary.is_final);
}

fn seed_sheet() -> ArboretumScore {
    let (table, _) = play_seed_round_eleven();
    Arboretum::score(&table.state, Viewer::Umpire)
}

#[test]
fn seed_p_ties_at_seven_and_blue_scores_e3_to_a4_for_nine() {
    let sheet = seed_sheet();
    let red_p = suit_score(&sheet.red, ArboretumSuit::P);
    let blue_p = suit_score(&sheet.blue, ArboretumSuit::P);
    assert_eq!((red_p.ad_board_sum, blue_p.ad_board_sum), (7, 7));
    assert!(red_p.has_right && blue_p.has_right);
    assert_eq!((red_p.best_path.clone(), red_p.points), (None, 0));
    let path = blue_p.best_path.as_ref().unwrap();
    assert_eq!(path.cells, cells(&["E3", "D3", "C3", "C4", "B4", "A4"]));
    assert!(path.starts_with_one && path.ends_with_eight && !path.doubled);
    assert_eq!(blue_p.points, 9);
}

#[test]
fn seed_q_goes_to_blue_whose_empty_arboretum_blocks_reds_seven_point_path() {
    let sheet = seed_sheet();
    let red_q = suit_score(&sheet.red, ArboretumSuit::Q);
    let blue_q = suit_score(&sheet.blue, ArboretumSuit::Q);
    assert_eq!((red_q.ad_board_sum, blue_q.ad_board_sum), (0, 6));
    assert!(!red_q.has_right && blue_q.has_right);
    let would_be = red_q.best_path.as_ref().unwrap();
    assert_eq!(would_be.cells, cells(&["E3", "D3", "D4", "D5", "C5"]));
    assert_eq!(would_be.value, 7);
    assert_eq!(red_q.points, 0);
    assert_eq!(blue_q.points, 0);
}

#[test]
fn seed_r_scores_nine_for_red_whichever_path() {
    let sheet = seed_sheet();
    let red_r = suit_score(&sheet.red, ArboretumSuit::R);
    assert!(red_r.has_right && suit_score(&sheet.blue, ArboretumSuit::R).has_right);
    let path = red_r.best_path.as_ref().unwrap();
    // The all-R path and the 6-card path both score 9; the tie-break shows
    // the one whose cells sort first.
    assert_eq!(path.cells, cells(&["B2", "C2", "C3", "C4"]));
    assert!(path.doubled && path.starts_with_one && !path.ends_with_eight);
    assert_eq!(red_r.points, 9);

    let red = &seed_position_state().players[Red.index()];
    let mut longer = red.arboretum.clone();
    // Without C4's all-R route the 6-card path is the best: 6 + 1 + 2.
    longer.insert(cell("C4"), card("S4"));
    longer.insert(cell("D3"), card("S5"));
    longer.insert(cell("D4"), card("W6"));
    let path = best_path(&longer, ArboretumSuit::R).unwrap();
    assert_eq!(path.cells, cells(&["B2", "C2", "C3", "C4", "D4", "E4"]));
    assert_eq!(path.value, 9);
    assert!(!path.doubled);
}

#[test]
fn seed_s_goes_to_blue_who_has_nothing_to_score() {
    let sheet = seed_sheet();
    let blue_s = suit_score(&sheet.blue, ArboretumSuit::S);
    assert_eq!(blue_s.ad_board_sum, 6);
    assert!(blue_s.has_right && !suit_score(&sheet.red, ArboretumSuit::S).has_right);
    assert_eq!(blue_s.points, 0);
}

#[test]
fn seed_t_scores_five_for_blue_and_three_cards_are_not_doubled() {
    let sheet = seed_sheet();
    let blue_t = suit_score(&sheet.blue, ArboretumSuit::T);
    assert!(blue_t.has_right);
    let path = blue_t.best_path.as_ref().unwrap();
    assert_eq!(path.cells, cells(&["C3", "C4", "C5"]));
    assert!(!path.doubled && path.ends_with_eight);
    assert_eq!(blue_t.points, 5);
}

#[test]
fn seed_u_blues_eight_is_cancelled_by_reds_one() {
    let sheet = seed_sheet();
    let red_u = suit_score(&sheet.red, ArboretumSuit::U);
    let blue_u = suit_score(&sheet.blue, ArboretumSuit::U);
    assert!(blue_u.eight_cancelled && !red_u.eight_cancelled);
    assert_eq!((red_u.ad_board_sum, blue_u.ad_board_sum), (1, 0));
    assert!(red_u.has_right && !blue_u.has_right);
    assert_eq!((red_u.points, blue_u.points), (0, 0));
}

#[test]
fn seed_v_scores_ten_for_blue_from_d1_to_b5() {
    let sheet = seed_sheet();
    let blue_v = suit_score(&sheet.blue, ArboretumSuit::V);
    let path = blue_v.best_path.as_ref().unwrap();
    assert_eq!(path.length, 7);
    assert_eq!(path.cells.first(), Some(&cell("D1")));
    assert_eq!(path.cells.last(), Some(&cell("B5")));
    // Both 7-card routes (through D4 as the seed shows, or through C3) are
    // worth 7 + 1 + 2; the one whose cells sort first is shown.
    assert_eq!(
        path.cells,
        cells(&["D1", "D2", "D3", "C3", "C4", "B4", "B5"])
    );
    assert_eq!(blue_v.points, 10);
    let mut only_seed_route = seed_position_state().players[Blue.index()]
        .arboretum
        .clone();
    only_seed_route.insert(cell("D1"), card("V1"));
    only_seed_route.remove(&cell("C3"));
    let path = best_path(&only_seed_route, ArboretumSuit::V).unwrap();
    assert_eq!(
        path.cells,
        cells(&["D1", "D2", "D3", "D4", "C4", "B4", "B5"])
    );
    assert_eq!(path.value, 10);
}

#[test]
fn seed_w_is_open_to_both_but_a_lone_w1_is_no_path() {
    let sheet = seed_sheet();
    let red_w = suit_score(&sheet.red, ArboretumSuit::W);
    let blue_w = suit_score(&sheet.blue, ArboretumSuit::W);
    assert!(red_w.has_right && blue_w.has_right);
    assert!(red_w.best_path.is_none() && blue_w.best_path.is_none());
}

fn seed_position_state() -> ArboretumState {
    seed_round_eleven().state
}

// Direct grids -----------------------------------------------------------------

fn grid(pairs: &[&str]) -> BTreeMap<ArboretumCell, ArboretumCard> {
    pairs
        .iter()
        .map(|pair| {
            let (cell_text, card_text) = pair.split_once(':').unwrap();
            (cell(cell_text), card(card_text))
        })
        .collect()
}

#[test]
fn a_path_needs_strictly_increasing_numbers_and_the_suit_at_both_ends() {
    // P2 → Q2 is not increasing; P2 → Q3 → R4 ends on another suit.
    let arboretum = grid(&["A1:P2", "B1:Q2", "A2:Q3", "A3:R4"]);
    assert!(best_path(&arboretum, ArboretumSuit::P).is_none());
    let arboretum = grid(&["A1:P2", "A2:Q3", "A3:P4"]);
    let path = best_path(&arboretum, ArboretumSuit::P).unwrap();
    assert_eq!(path.cells, cells(&["A1", "A2", "A3"]));
    assert_eq!(path.value, 3);
}

#[test]
fn a_path_moves_only_between_orthogonal_neighbours() {
    let arboretum = grid(&["A1:P2", "B2:P3"]);
    assert!(best_path(&arboretum, ArboretumSuit::P).is_none());
}

#[test]
fn four_cards_of_the_suit_double_but_the_bonuses_do_not() {
    let arboretum = grid(&["A1:P1", "A2:P2", "A3:P5", "A4:P8"]);
    let path = best_path(&arboretum, ArboretumSuit::P).unwrap();
    assert!(path.doubled && path.starts_with_one && path.ends_with_eight);
    assert_eq!(path.value, 4 * 2 + 1 + 2);
}

#[test]
fn the_best_path_is_the_highest_value_not_the_longest() {
    // The long mixed path is worth 5; the short all-P path of four is 8.
    let arboretum = grid(&[
        "A1:P2", "A2:P3", "A3:P4", "A4:P5", "B1:Q3", "C1:R4", "D1:S5", "E1:P6",
    ]);
    let path = best_path(&arboretum, ArboretumSuit::P).unwrap();
    assert_eq!(path.value, 8);
    assert_eq!(path.cells, cells(&["A1", "A2", "A3", "A4"]));
}

#[test]
fn equal_paths_are_broken_deterministically() {
    // Two mirror-image paths worth 3 + 1 each: B2-A2-A3 and B2-C2-C3.
    let arboretum = grid(&["B2:P1", "A2:Q4", "C2:Q4", "A3:P5", "C3:P5"]);
    let first = best_path(&arboretum, ArboretumSuit::P).unwrap();
    for _ in 0..3 {
        assert_eq!(best_path(&arboretum, ArboretumSuit::P).unwrap(), first);
    }
    assert_eq!(first.cells, cells(&["B2", "A2", "A3"]));
}

fn area(board: &[&str]) -> PlayerArea {
    PlayerArea {
        ad_board: cards(board),
        ..PlayerArea::default()
    }
}

#[test]
fn an_eight_counts_zero_only_when_the_opponent_holds_the_one() {
    assert_eq!(
        ad_board_sum(&area(&["U8", "U2"]), &area(&["U1"]), ArboretumSuit::U),
        (2, true)
    );
    assert_eq!(
        ad_board_sum(&area(&["U8", "U2"]), &area(&["U3"]), ArboretumSuit::U),
        (10, false)
    );
    // Holding the 1 oneself does not cancel one's own 8.
    assert_eq!(
        ad_board_sum(&area(&["U8", "U1"]), &area(&[]), ArboretumSuit::U),
        (9, false)
    );
}

fn finished_state(
    red: PlayerArea,
    blue: PlayerArea,
    starting: ArboretumSeat,
    dm: ArboretumSeat,
) -> ArboretumState {
    let mut state = Arboretum::initial_state(&ArboretumOptions { dm_advantage: dm });
    state.players = [red, blue];
    state.starting_player = Some(starting);
    state.phase = umpire_arboretum::ArboretumPhase::Finished;
    state
}

#[test]
fn more_parrots_score_twice_the_difference() {
    let red = PlayerArea {
        parrots: 9,
        ..PlayerArea::default()
    };
    let blue = PlayerArea {
        parrots: 6,
        ..PlayerArea::default()
    };
    let sheet = score_sheet(&finished_state(red, blue, Blue, Red));
    assert_eq!((sheet.red.parrot_points, sheet.blue.parrot_points), (6, 0));
    assert_eq!((sheet.red.total, sheet.blue.total), (6, 1));
    assert_eq!(sheet.winners, [Red]);
}

#[test]
fn equal_totals_go_to_the_dm_advantage_holder() {
    let sheet = score_sheet(&finished_state(
        PlayerArea::default(),
        PlayerArea::default(),
        Red,
        Blue,
    ));
    assert_eq!((sheet.red.total, sheet.blue.total), (1, 0));
    // Blue: P path 2 + 1 = 3; red: starting player 1 + Q path 2 = 3.
    let blue = PlayerArea {
        arboretum: grid(&["A1:P1", "A2:P2"]),
        ..PlayerArea::default()
    };
    let red = PlayerArea {
        arboretum: grid(&["A1:Q2", "A2:Q3"]),
        ..PlayerArea::default()
    };
    let mut state = finished_state(red, blue, Red, Blue);
    let sheet = score_sheet(&state);
    assert_eq!((sheet.red.total, sheet.blue.total), (3, 3));
    assert_eq!(sheet.winners, [Blue]);
    state.options.dm_advantage = Red;
    assert_eq!(score_sheet(&state).winners, [Red]);
}

#[test]
fn the_score_is_provisional_until_the_game_ends() {
    let table = seed_round_eleven();
    let sheet = Arboretum::score(&table.state, Viewer::Spectator);
    assert!(!sheet.is_final);
    assert!(sheet.winners.is_empty());
    assert!(!Arboretum::summary(&table.state).is_final);
}
