//! Given/when/then tests: every rule and every violation code of the rule
//! book, with the neighbouring legal move accepted.

use crate::support;

use support::*;
use umpire_arboretum::codes;
use umpire_arboretum::turn_order::turn_order;
use umpire_arboretum::{
    Arboretum, ArboretumAction, ArboretumEvent, ArboretumOptions, ArboretumPhase, ArboretumSeat,
    ArboretumSkipReason,
};
use umpire_domain::testing::Table;
use umpire_domain::{Game, Viewer};

use ArboretumSeat::{Blue, Red};

fn new_game() -> Table<Arboretum> {
    Table::new(ArboretumOptions::default(), 11)
}

fn round_one(starting_player: ArboretumSeat) -> Table<Arboretum> {
    let mut table = new_game();
    table.accepts(
        RED,
        ArboretumAction::ChooseStart {
            seat: starting_player,
        },
    );
    table
}

/// Round 3, red starts, offering Q7 T4 S2, refuse V1 W2, both seats empty.
fn simple_position() -> Position {
    Position::round(3, Red)
        .offering(&["Q7", "T4", "S2"])
        .refuse(&["V1", "W2"])
}

// §2 Setup --------------------------------------------------------------

#[test]
fn options_default_to_red_holding_the_dm_advantage_and_refuse_unknown_fields() {
    let options: ArboretumOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(options.dm_advantage, Red);
    let options: ArboretumOptions = serde_json::from_str(r#"{"dm_advantage": "blue"}"#).unwrap();
    assert_eq!(options.dm_advantage, Blue);
    assert!(serde_json::from_str::<ArboretumOptions>(r#"{"seed": 3}"#).is_err());
    assert!(serde_json::from_str::<ArboretumOptions>(r#"{"dm_advantage": "green"}"#).is_err());
}

#[test]
fn only_the_dm_advantage_holder_chooses_the_starting_player() {
    let mut table = new_game();
    table.refuses(
        BLUE,
        ArboretumAction::ChooseStart { seat: Blue },
        codes::NOT_YOUR_TURN_TO_CHOOSE_START.code,
    );
    let events = table.accepts(RED, ArboretumAction::ChooseStart { seat: Blue });
    assert!(events.contains(&ArboretumEvent::StartingPlayerChosen { seat: Blue }));
    assert_eq!(table.state.round, 1);
    assert_eq!(table.state.starting_player, Some(Blue));
    assert_eq!(table.state.phase, ArboretumPhase::Bidding);

    let mut table = Table::<Arboretum>::new(ArboretumOptions { dm_advantage: Blue }, 11);
    table.refuses(
        RED,
        ArboretumAction::ChooseStart { seat: Red },
        codes::NOT_YOUR_TURN_TO_CHOOSE_START.code,
    );
    table.accepts(BLUE, ArboretumAction::ChooseStart { seat: Red });
}

#[test]
fn choosing_the_start_twice_is_refused_as_the_wrong_phase() {
    let mut table = round_one(Red);
    table.refuses(
        RED,
        ArboretumAction::ChooseStart { seat: Blue },
        codes::WRONG_PHASE.code,
    );
    table.accepts(RED, bid("2g"));
}

#[test]
fn the_shuffled_deck_is_recorded_and_seen_only_by_the_umpire() {
    let table = new_game();
    let ArboretumEvent::DeckShuffled {
        deck: Some(deck), ..
    } = &table.events[0]
    else {
        panic!("first event records the deck");
    };
    assert_eq!(deck.len(), 64);
    for viewer in [Viewer::Spectator, Viewer::Seat(Red), Viewer::Seat(Blue)] {
        let redacted = Arboretum::redact_event(&table.state, &table.events[0], viewer).unwrap();
        assert_eq!(
            redacted,
            ArboretumEvent::DeckShuffled {
                card_count: 64,
                deck: None
            }
        );
        assert!(table.view(viewer).get("deck").is_none());
    }
    assert_eq!(
        table.view(Viewer::Umpire)["deck"].as_array().unwrap().len(),
        64
    );
}

// §3.1 Dealing ------------------------------------------------------------

#[test]
fn rounds_deal_five_six_then_seven_cards_from_the_recorded_deck_until_it_is_used_up() {
    let mut table = round_one(Red);
    let ArboretumEvent::DeckShuffled {
        deck: Some(deck), ..
    } = table.events[0].clone()
    else {
        panic!("deck recorded");
    };
    for _ in 1..=11 {
        table.accepts(UMPIRE, ArboretumAction::Timeout { seat: Red });
        table.accepts(UMPIRE, ArboretumAction::Timeout { seat: Blue });
    }
    let deals: Vec<(u8, Vec<_>)> = table
        .events
        .iter()
        .filter_map(|event| match event {
            ArboretumEvent::CardsDealt { round, cards } => Some((*round, cards.clone())),
            _ => None,
        })
        .collect();
    let sizes: Vec<usize> = deals.iter().map(|(_, cards)| cards.len()).collect();
    assert_eq!(sizes, [5, 5, 5, 5, 5, 6, 6, 6, 7, 7, 7]);
    let dealt: Vec<_> = deals.into_iter().flat_map(|(_, cards)| cards).collect();
    assert_eq!(dealt, deck);
    assert_eq!(table.state.phase, ArboretumPhase::Finished);
    assert_eq!(table.view(Viewer::Umpire)["cards_left_in_deck"], 0);
}

// §3.2 Bidding ------------------------------------------------------------

#[test]
fn a_group_without_parrots_is_refused() {
    let mut table = round_one(Red);
    table.refuses(RED, bid("2g 0b"), codes::BID_GROUP_EMPTY.code);
    table.accepts(RED, bid("2g 1b"));
}

#[test]
fn increasing_group_sizes_are_refused() {
    let mut table = round_one(Red);
    table.refuses(BLUE, bid("1g 2b"), codes::BID_NOT_NON_INCREASING.code);
    table.accepts(BLUE, bid("2b 2g 1g"));
}

#[test]
fn the_round_one_starting_player_may_bid_only_five_parrots() {
    let mut table = round_one(Red);
    table.refuses(RED, bid("3g 3b"), codes::BID_TOO_MANY_PARROTS.code);
    table.accepts(RED, bid("3g 2b"));
    table.refuses(BLUE, bid("4g 3b"), codes::BID_TOO_MANY_PARROTS.code);
    table.accepts(BLUE, bid("3g 3b"));
}

#[test]
fn after_round_one_every_parrot_may_be_bid() {
    let mut table = Position::round(2, Red).offering(&["P1"]).table();
    table.refuses(RED, bid("4g 3g"), codes::BID_TOO_MANY_PARROTS.code);
    table.accepts(RED, bid("3g 3g"));
}

#[test]
fn a_bid_of_zero_groups_takes_no_turns() {
    let mut table = Position::round(2, Red).offering(&["P1"]).table();
    table.accepts(RED, bid(""));
    table.accepts(BLUE, bid("1g"));
    assert_eq!(turn_letters(&table), "B");
}

#[test]
fn a_bid_may_be_replaced_until_both_seats_have_bid() {
    let mut table = Position::round(2, Red).offering(&["P1"]).table();
    table.accepts(RED, bid("1g"));
    let events = table.accepts(RED, bid("2b 2g"));
    assert!(matches!(
        events[0],
        ArboretumEvent::BidSubmitted { replaced: true, .. }
    ));
    table.accepts(BLUE, bid("1g"));
    assert_eq!(turn_letters(&table), "R R B");
    table.refuses(RED, bid("1g"), codes::WRONG_PHASE.code);
}

#[test]
fn a_bid_is_hidden_from_the_other_seat_and_spectators_until_the_reveal() {
    let mut table = Position::round(2, Red).offering(&["P1"]).table();
    let events = table.accepts(RED, bid("3b 2g"));
    for viewer in [Viewer::Seat(Blue), Viewer::Spectator] {
        let view = table.view(viewer);
        assert!(view["red"].get("bid").is_none());
        assert_eq!(view["red"]["has_bid"], true);
        let redacted = Arboretum::redact_event(&table.state, &events[0], viewer).unwrap();
        let text = serde_json::to_string(&redacted).unwrap();
        assert!(!text.contains("groups") && !text.contains("plan"), "{text}");
    }
    assert_eq!(table.view(Viewer::Seat(Red))["red"]["bid"][0]["size"], 3);
    assert_eq!(
        table.view(Viewer::Umpire)["red"]["bid"][1]["plan"],
        "garden"
    );
    let revealed = table.accepts(BLUE, bid("1b"));
    assert!(has_event(&revealed, |event| matches!(
        event,
        ArboretumEvent::BidsRevealed { .. }
    )));
    assert_eq!(table.view(Viewer::Spectator)["red"]["bid"][0]["size"], 3);
}

#[test]
fn bidding_outside_the_bidding_phase_is_refused() {
    let mut table = new_game();
    table.refuses(RED, bid("1g"), codes::WRONG_PHASE.code);
    table.accepts(RED, ArboretumAction::ChooseStart { seat: Red });
    table.accepts(RED, bid("1g"));
}

#[test]
fn an_umpire_timeout_in_bidding_bids_zero_groups() {
    let mut table = Position::round(2, Red).offering(&["P1"]).table();
    table.accepts(RED, bid("2g"));
    table.refuses(
        UMPIRE,
        ArboretumAction::Timeout { seat: Red },
        codes::TIMEOUT_AFTER_BID.code,
    );
    let events = table.accepts(UMPIRE, ArboretumAction::Timeout { seat: Blue });
    assert!(events.contains(&ArboretumEvent::BidTimedOut {
        round: 2,
        seat: Blue
    }));
    assert_eq!(table.state.bids[Blue.index()], Some(Vec::new()));
    assert_eq!(turn_letters(&table), "R");
}

#[test]
fn only_the_umpire_may_send_a_timeout_and_the_umpire_sends_no_seat_actions() {
    let mut table = Position::round(2, Red).offering(&["P1"]).table();
    table.refuses(
        RED,
        ArboretumAction::Timeout { seat: Blue },
        codes::UMPIRE_ONLY.code,
    );
    table.refuses(UMPIRE, bid("1g"), codes::NOT_A_SEAT_ACTION.code);
    table.accepts(UMPIRE, ArboretumAction::Timeout { seat: Blue });
}

#[test]
fn a_timeout_while_the_start_is_being_chosen_is_the_wrong_phase() {
    let mut table = new_game();
    table.refuses(
        UMPIRE,
        ArboretumAction::Timeout { seat: Red },
        codes::WRONG_PHASE.code,
    );
}

// §3.3 Turn order -----------------------------------------------------------

#[test]
fn the_seed_worked_case_gives_r_b_b_r_b_r_r_b_r() {
    let order = turn_order(Red, &groups("3b 2g 2g 1g 1g"), &groups("3b 3g 2b 1b 1g"));
    let letters: Vec<&str> = order
        .played
        .iter()
        .map(|turn| if turn.seat == Red { "R" } else { "B" })
        .collect();
    assert_eq!(letters.join(" "), "R B B R B R R B R");
    assert_eq!(order.dropped.len(), 1);
    assert_eq!(order.dropped[0].seat, Blue);
    assert_eq!(order.dropped[0].group, 4);

    // The same through the game, with red at 9 parrots and blue at 10.
    let mut table = Position::round(11, Red)
        .parrots(Red, 9)
        .parrots(Blue, 10)
        .offering(&["P5"])
        .table();
    bids(&mut table, "3b 2g 2g 1g 1g", "3b 3g 2b 1b 1g");
    assert_eq!(turn_letters(&table), "R B B R B R R B R");
    assert_eq!(table.state.dropped_turns.len(), 1);
}

#[test]
fn equal_sizes_alternate_from_the_starting_player() {
    let order = turn_order(Blue, &groups("1g 1g 1g"), &groups("2g 1g"));
    let seats: Vec<_> = order.played.iter().map(|turn| turn.seat).collect();
    assert_eq!(seats, [Blue, Blue, Red, Red, Red]);
}

// §3.4 Playing ---------------------------------------------------------------

#[test]
fn acting_out_of_turn_is_refused() {
    let mut table = simple_position().table();
    bids(&mut table, "2g", "1g");
    table.refuses(BLUE, plant("Q7", "C3"), codes::NOT_YOUR_TURN.code);
    table.accepts(RED, plant("Q7", "C3"));
    table.accepts(BLUE, plant("T4", "A1"));
}

#[test]
fn a_turn_action_during_bidding_is_refused_as_the_wrong_phase() {
    let mut table = simple_position().table();
    table.refuses(RED, plant("Q7", "C3"), codes::WRONG_PHASE.code);
    table.refuses(RED, ArboretumAction::Skip, codes::WRONG_PHASE.code);
    table.accepts(RED, bid("1g"));
}

#[test]
fn an_action_outside_the_groups_plan_is_refused() {
    let mut table = simple_position().table();
    bids(&mut table, "2g", "1b");
    table.refuses(RED, take("Q7", None), codes::PLAN_MISMATCH.code);
    table.refuses(RED, hire(&["Q7"]), codes::PLAN_MISMATCH.code);
    table.accepts(RED, plant("Q7", "C3"));
    table.refuses(BLUE, plant("T4", "C3"), codes::PLAN_MISMATCH.code);
    table.refuses(BLUE, dig("V1", "C3"), codes::PLAN_MISMATCH.code);
    table.accepts(BLUE, take("T4", None));
}

#[test]
fn skipping_forfeits_all_remaining_turns_of_the_round() {
    let mut table = simple_position().table();
    bids(&mut table, "2g 1g 1g", "2b 1b");
    assert_eq!(turn_letters(&table), "R B R B R");
    let events = table.accepts(RED, ArboretumAction::Skip);
    assert_eq!(
        events[0],
        ArboretumEvent::TurnSkipped {
            seat: Red,
            turn: 1,
            reason: ArboretumSkipReason::Skipped
        }
    );
    table.accepts(BLUE, take("Q7", None));
    // Red's next turn is passed over at once, and so is the one after it.
    assert_eq!(table.state.current_turn().map(|turn| turn.seat), Some(Blue));
    table.refuses(RED, plant("T4", "A1"), codes::NOT_YOUR_TURN.code);
    let events = table.accepts(BLUE, take("T4", None));
    assert!(events.contains(&ArboretumEvent::TurnSkipped {
        seat: Red,
        turn: 5,
        reason: ArboretumSkipReason::Forfeited
    }));
    assert!(has_event(&events, |event| matches!(
        event,
        ArboretumEvent::RoundEnded { .. }
    )));
}

#[test]
fn a_seat_with_no_legal_action_is_skipped_automatically_for_the_rest_of_the_round() {
    // Nothing on offer and nothing to dig: once start is taken, a garden
    // turn has nothing to do.
    let mut table = Position::round(4, Red).table();
    bids(&mut table, "2g", "1g 1b");
    let events = table.accepts(RED, ArboretumAction::Start);
    assert!(events.contains(&ArboretumEvent::TurnSkipped {
        seat: Blue,
        turn: 2,
        reason: ArboretumSkipReason::NoLegalAction
    }));
    assert!(events.contains(&ArboretumEvent::TurnSkipped {
        seat: Blue,
        turn: 3,
        reason: ArboretumSkipReason::Forfeited
    }));
    assert_eq!(table.state.round, 5);
    assert_eq!(table.state.starting_player, Some(Red));
}

#[test]
fn a_seat_with_a_legal_action_is_not_skipped() {
    let mut table = Position::round(4, Red).offering(&["P3"]).table();
    bids(&mut table, "2g", "1g");
    table.accepts(RED, ArboretumAction::Start);
    assert_eq!(table.state.current_turn().map(|turn| turn.seat), Some(Blue));
    table.accepts(BLUE, plant("P3", "B2"));
}

#[test]
fn an_umpire_timeout_in_play_skips_the_rest_of_the_round() {
    let mut table = simple_position().table();
    bids(&mut table, "2g 1g", "1g");
    table.refuses(
        UMPIRE,
        ArboretumAction::Timeout { seat: Blue },
        codes::TIMEOUT_NOT_THEIR_TURN.code,
    );
    let events = table.accepts(UMPIRE, ArboretumAction::Timeout { seat: Red });
    assert_eq!(
        events[0],
        ArboretumEvent::TurnSkipped {
            seat: Red,
            turn: 1,
            reason: ArboretumSkipReason::TimedOut
        }
    );
    table.accepts(BLUE, plant("Q7", "A1"));
    assert_eq!(
        table.state.round, 4,
        "red's last turn was forfeited and the round ended"
    );
}

// §4 Garden: plant and dig ----------------------------------------------------

#[test]
fn planting_a_card_not_on_offer_is_refused() {
    let mut table = simple_position().table();
    bids(&mut table, "1g", "");
    table.refuses(RED, plant("V1", "C3"), codes::CARD_NOT_IN_OFFERING.code);
    table.accepts(RED, plant("Q7", "F6"));
}

#[test]
fn planting_away_from_the_arboretum_is_refused() {
    let mut table = simple_position().planted(Red, &["C3:P1"]).table();
    bids(&mut table, "1g", "");
    table.refuses(RED, plant("Q7", "D4"), codes::CELL_NOT_ADJACENT.code);
    table.accepts(RED, plant("Q7", "D3"));
}

#[test]
fn planting_on_an_occupied_cell_is_refused() {
    let mut table = simple_position().planted(Red, &["C3:P1"]).table();
    bids(&mut table, "1g", "");
    table.refuses(RED, plant("Q7", "C3"), codes::CELL_OCCUPIED.code);
    table.accepts(RED, plant("Q7", "C4"));
}

fn full_arboretum() -> Vec<String> {
    // 36 distinct cards: P1..W4 fill A1..F6.
    umpire_arboretum::cards::full_deck()
        .into_iter()
        .zip(umpire_arboretum::ArboretumCell::all())
        .map(|(card, cell)| format!("{cell}:{card}"))
        .collect()
}

#[test]
fn a_full_arboretum_allows_no_plant_or_dig() {
    let pairs = full_arboretum();
    let pairs: Vec<&str> = pairs.iter().map(String::as_str).collect();
    let mut table = Position::round(6, Red)
        .offering(&["W8"])
        .refuse(&["W7"])
        .planted(Red, &pairs)
        .table();
    bids(&mut table, "1g", "1g");
    table.refuses(RED, plant("W8", "A1"), codes::ARBORETUM_FULL.code);
    table.refuses(RED, dig("W7", "A1"), codes::ARBORETUM_FULL.code);
    table.accepts(RED, ArboretumAction::Start);
    table.accepts(BLUE, dig("W7", "A1"));
}

#[test]
fn digging_a_card_not_in_the_refuse_pile_is_refused() {
    let mut table = simple_position().table();
    bids(&mut table, "1g", "");
    table.refuses(RED, dig("Q7", "C3"), codes::CARD_NOT_IN_REFUSE.code);
    let events = table.accepts(RED, dig("V1", "C3"));
    assert!(events.contains(&ArboretumEvent::CardDug {
        seat: Red,
        card: card("V1"),
        cell: cell("C3")
    }));
    assert_eq!(
        table.state.player(Red).arboretum.get(&cell("C3")),
        Some(&card("V1"))
    );
    assert!(!table.state.refuse_pile.contains(&card("V1")));
}

#[test]
fn digging_follows_the_planting_rules() {
    let mut table = simple_position().planted(Red, &["C3:P1"]).table();
    bids(&mut table, "1g", "");
    table.refuses(RED, dig("V1", "C3"), codes::CELL_OCCUPIED.code);
    table.refuses(RED, dig("V1", "A1"), codes::CELL_NOT_ADJACENT.code);
    table.accepts(RED, dig("V1", "B3"));
}

#[test]
fn dig_hire_and_start_are_each_available_once_per_round_across_both_seats() {
    let mut table = simple_position()
        .ad_board(Red, &["P4", "P5"])
        .ad_board(Blue, &["Q4", "Q5"])
        .table();
    bids(&mut table, "1g 1b 1g", "1g 1b 1g");
    table.accepts(RED, dig("V1", "C3"));
    table.refuses(BLUE, dig("W2", "C3"), codes::SPECIAL_ALREADY_TAKEN.code);
    table.accepts(BLUE, plant("Q7", "C3"));
    table.accepts(RED, hire(&["P4", "P5"]));
    table.refuses(BLUE, hire(&["Q4", "Q5"]), codes::SPECIAL_ALREADY_TAKEN.code);
    table.accepts(BLUE, take("T4", None));
    table.accepts(RED, ArboretumAction::Start);
    table.refuses(
        BLUE,
        ArboretumAction::Start,
        codes::SPECIAL_ALREADY_TAKEN.code,
    );
    table.accepts(BLUE, plant("S2", "C4"));
}

#[test]
fn specials_become_available_again_next_round() {
    let mut table = simple_position().table();
    bids(&mut table, "1g", "");
    table.accepts(RED, dig("V1", "C3"));
    assert_eq!(table.state.round, 4);
    bids(&mut table, "1g", "");
    table.accepts(RED, dig("Q7", "C4"));
}

// §4 Bulletin: take and hire ----------------------------------------------------

const FULL_BOARD: [&str; 7] = ["P1", "P2", "P3", "P4", "P5", "P6", "P7"];

#[test]
fn taking_an_eighth_card_requires_a_discard() {
    let mut table = simple_position().ad_board(Red, &FULL_BOARD).table();
    bids(&mut table, "1b", "");
    table.refuses(RED, take("Q7", None), codes::DISCARD_REQUIRED.code);
    let events = table.accepts(RED, take("Q7", Some("P3")));
    assert_eq!(
        events[0],
        ArboretumEvent::CardTaken {
            seat: Red,
            card: card("Q7"),
            discard: Some(card("P3"))
        }
    );
    let board = &table.state.player(Red).ad_board;
    assert_eq!(board.len(), 7);
    assert!(board.contains(&card("Q7")) && !board.contains(&card("P3")));
    // The discard went to the offering area, which went to the refuse pile
    // at the end of the round.
    assert!(table.state.refuse_pile.contains(&card("P3")));
}

#[test]
fn the_discard_cannot_be_the_card_just_taken() {
    let mut table = simple_position().ad_board(Red, &FULL_BOARD).table();
    bids(&mut table, "1b", "");
    table.refuses(
        RED,
        take("Q7", Some("Q7")),
        codes::DISCARD_IS_TAKEN_CARD.code,
    );
    table.accepts(RED, take("Q7", Some("P7")));
}

#[test]
fn the_discard_must_be_on_the_ad_board() {
    let mut table = simple_position().ad_board(Red, &FULL_BOARD).table();
    bids(&mut table, "1b", "");
    table.refuses(
        RED,
        take("Q7", Some("T4")),
        codes::CARD_NOT_ON_AD_BOARD.code,
    );
    table.accepts(RED, take("Q7", Some("P1")));
}

#[test]
fn a_discard_with_seven_or_fewer_cards_is_refused() {
    let mut table = simple_position().ad_board(Red, &FULL_BOARD[..6]).table();
    bids(&mut table, "1b", "");
    table.refuses(RED, take("Q7", Some("P1")), codes::DISCARD_NOT_ALLOWED.code);
    table.accepts(RED, take("Q7", None));
    assert_eq!(table.state.player(Red).ad_board.len(), 7);
}

#[test]
fn taking_a_card_not_on_offer_is_refused() {
    let mut table = simple_position().table();
    bids(&mut table, "1b", "");
    table.refuses(RED, take("V1", None), codes::CARD_NOT_IN_OFFERING.code);
    table.accepts(RED, take("T4", None));
}

#[test]
fn hiring_needs_a_total_of_at_least_parrots_plus_one() {
    let mut table = simple_position()
        .ad_board(Red, &["P3", "Q3", "R1", "S6"])
        .table();
    bids(&mut table, "1b", "");
    table.refuses(RED, hire(&["P3", "Q3"]), codes::HIRE_TOTAL_TOO_LOW.code);
    table.refuses(RED, hire(&[]), codes::HIRE_TOTAL_TOO_LOW.code);
    table.accepts(RED, hire(&["P3", "Q3", "R1"]));
    assert_eq!(table.state.player(Red).parrots, 7);
    assert_eq!(table.state.player(Red).ad_board, cards(&["S6"]));
}

#[test]
fn hiring_may_overpay_and_returns_the_cards_to_the_offering_area() {
    let mut table = simple_position().ad_board(Red, &["P3", "Q7", "R1"]).table();
    bids(&mut table, "1b 1g", "");
    let events = table.accepts(RED, hire(&["P3", "Q7"]));
    assert_eq!(
        events[0],
        ArboretumEvent::ParrotHired {
            seat: Red,
            cards: cards(&["P3", "Q7"]),
            parrots: 7
        }
    );
    assert!(table.state.offering_area.contains(&card("P3")));
    table.accepts(RED, plant("P3", "A1"));
}

#[test]
fn hiring_cards_not_on_the_ad_board_is_refused() {
    let mut table = simple_position().ad_board(Red, &["P3", "Q7"]).table();
    bids(&mut table, "1b", "");
    table.refuses(RED, hire(&["P3", "T4"]), codes::CARD_NOT_ON_AD_BOARD.code);
    table.refuses(RED, hire(&["Q7", "Q7"]), codes::CARD_NOT_ON_AD_BOARD.code);
    table.accepts(RED, hire(&["P3", "Q7"]));
}

// §3.5 End of round --------------------------------------------------------------

#[test]
fn the_round_end_removes_the_refuse_pile_and_moves_the_offering_area_to_it() {
    let mut table = simple_position().table();
    bids(&mut table, "1g", "");
    let events = table.accepts(RED, plant("Q7", "C3"));
    assert!(events.contains(&ArboretumEvent::RoundEnded {
        round: 3,
        removed_from_game: cards(&["V1", "W2"]),
        moved_to_refuse: cards(&["T4", "S2"]),
        next_starting_player: Red,
    }));
    assert_eq!(table.state.out_of_game, cards(&["V1", "W2"]));
    assert_eq!(table.state.refuse_pile, cards(&["T4", "S2"]));
    assert_eq!(table.state.round, 4);
    assert_eq!(
        table.state.offering_area.len(),
        5,
        "round 4 deals five cards"
    );
}

#[test]
fn whoever_takes_start_starts_the_next_round() {
    let mut table = simple_position().table();
    bids(&mut table, "1g", "1b");
    table.accepts(RED, plant("Q7", "C3"));
    table.accepts(BLUE, ArboretumAction::Start);
    assert_eq!(table.state.starting_player, Some(Blue));
    assert_eq!(table.state.round, 4);
}

#[test]
fn without_a_start_action_the_starting_player_stays() {
    let mut table = Position::round(3, Blue).offering(&["Q7"]).table();
    bids(&mut table, "1g", "");
    table.accepts(RED, plant("Q7", "C3"));
    assert_eq!(table.state.starting_player, Some(Blue));
}

#[test]
fn the_game_is_over_after_round_eleven() {
    let mut table = Position::round(11, Red).offering(&["Q7"]).table();
    table.accepts(RED, bid(""));
    let events = table.accepts(BLUE, bid(""));
    assert!(has_event(&events, |event| matches!(
        event,
        ArboretumEvent::GameEnded { .. }
    )));
    assert!(Arboretum::status(&table.state).finished);
    table.refuses(RED, bid("1g"), codes::GAME_OVER.code);
    table.refuses(
        UMPIRE,
        ArboretumAction::Timeout { seat: Red },
        codes::GAME_OVER.code,
    );
    table.refuses(BLUE, plant("Q7", "A1"), codes::GAME_OVER.code);
}

#[test]
fn a_round_before_the_eleventh_is_followed_by_another() {
    let mut table = Position::round(10, Red).offering(&["Q7"]).table();
    table.accepts(RED, bid(""));
    table.accepts(BLUE, bid(""));
    assert_eq!(table.state.round, 11);
    assert!(!Arboretum::status(&table.state).finished);
}

#[test]
fn status_names_who_must_act() {
    let mut table = new_game();
    assert_eq!(Arboretum::status(&table.state).to_act, [Red]);
    table.accepts(RED, ArboretumAction::ChooseStart { seat: Red });
    let status = Arboretum::status(&table.state);
    assert_eq!((status.phase, status.to_act), ("bidding", vec![Red, Blue]));
    bids(&mut table, "1g", "2g");
    let status = Arboretum::status(&table.state);
    assert_eq!((status.phase, status.to_act), ("playing", vec![Blue]));
}
