//! Given/when/then tests for every rule and every violation code of the rule book.

use crate::support;

use support::{card, cards, options, Position};
use umpire_domain::testing::Table;
use umpire_domain::{Actor, Game, SeatIndex, Viewer};
use umpire_draft_cider::codes;
use umpire_draft_cider::score::{score_sheet, winners, DraftCiderSeatScore};
use umpire_draft_cider::{
    DraftCider, DraftCiderAction, DraftCiderBatch, DraftCiderBrokenTree, DraftCiderDecidedBy,
    DraftCiderEvent, DraftCiderOptions, DraftCiderRoundPreset,
};

use DraftCiderBatch::*;

fn seat(index: u8) -> Actor<SeatIndex> {
    Actor::Seat(SeatIndex(index))
}

fn pick(text: &str, batch: DraftCiderBatch) -> DraftCiderAction {
    DraftCiderAction::Pick {
        card: card(text),
        batch,
    }
}

fn timeout(index: u8) -> DraftCiderAction {
    DraftCiderAction::Timeout {
        seat: SeatIndex(index),
    }
}

fn points_of(table: &Table<DraftCider>, seat_index: usize, batch: DraftCiderBatch) -> i64 {
    let sheet = score_sheet(&table.state);
    sheet.seats[seat_index]
        .batches
        .iter()
        .find(|line| line.batch == batch)
        .map(|line| line.points)
        .expect("every batch is on the sheet")
}

// ---------------------------------------------------------------- options (§2, §6)

#[test]
fn options_default_to_two_players_classic_rounds_seat_zero_first_and_normal_scoring() {
    let parsed: DraftCiderOptions = serde_json::from_str("{}").expect("empty options parse");
    assert_eq!(parsed, DraftCiderOptions::default());
    assert_eq!(parsed.players, 2);
    assert_eq!(parsed.rounds, DraftCiderRoundPreset::Classic);
    assert_eq!(parsed.first_picker, 0);
    assert!(!parsed.easy);
    assert_eq!(parsed.broken_tree, DraftCiderBrokenTree::Zero);
}

#[test]
fn the_rule_book_options_example_parses() {
    let parsed: DraftCiderOptions = serde_json::from_value(serde_json::json!({
        "players": 3, "rounds": "current", "first_picker": 2, "easy": true, "broken_tree": "minus_twenty"
    }))
    .expect("parses");
    assert_eq!(parsed.players, 3);
    assert_eq!(parsed.rounds, DraftCiderRoundPreset::Current);
    assert_eq!(parsed.broken_tree, DraftCiderBrokenTree::MinusTwenty);
    assert!(serde_json::from_str::<DraftCiderOptions>(r#"{"seats": 3}"#).is_err());
}

#[test]
fn a_player_count_outside_one_to_six_is_an_invalid_option() {
    for players in [0, 7, 200] {
        let violation = DraftCider::validate_options(options(players)).expect_err("refused");
        assert_eq!(violation.code, codes::INVALID_PLAYERS.code);
        assert!(violation.message.contains(&players.to_string()));
    }
    for players in 1..=6 {
        assert!(DraftCider::validate_options(options(players)).is_ok());
    }
}

#[test]
fn a_first_picker_who_is_not_a_seat_is_an_invalid_option() {
    let refused = DraftCiderOptions {
        first_picker: 3,
        ..options(3)
    };
    let violation = DraftCider::validate_options(refused).expect_err("refused");
    assert_eq!(violation.code, codes::INVALID_FIRST_PICKER.code);
    let accepted = DraftCiderOptions {
        first_picker: 2,
        ..options(3)
    };
    assert!(DraftCider::validate_options(accepted).is_ok());
    assert_eq!(
        DraftCider::seats(&options(3)),
        vec![SeatIndex(0), SeatIndex(1), SeatIndex(2)]
    );
}

// ---------------------------------------------------------------- setup (§1, §2)

fn setup_numbers(players: u8, rounds: DraftCiderRoundPreset) -> (u8, u8) {
    let options = DraftCiderOptions {
        rounds,
        ..options(players)
    };
    let table = Table::<DraftCider>::new(options, 7);
    match &table.events[0] {
        DraftCiderEvent::GameSetUp {
            rounds,
            cards_per_player,
            players: recorded_players,
            ..
        } => {
            assert_eq!(*recorded_players, players);
            (*rounds, *cards_per_player)
        }
        other => panic!("first event is not the setup record: {other:?}"),
    }
}

#[test]
fn the_classic_preset_is_four_rounds_of_three_cards_or_two_with_three_or_six_players() {
    for (players, expected) in [
        (1, (4, 3)),
        (2, (4, 3)),
        (3, (4, 2)),
        (4, (4, 3)),
        (5, (4, 3)),
        (6, (4, 2)),
    ] {
        assert_eq!(
            setup_numbers(players, DraftCiderRoundPreset::Classic),
            expected,
            "{players} players"
        );
    }
}

#[test]
fn the_current_preset_is_six_rounds_of_two_cards_except_four_of_three_with_two_players() {
    for (players, expected) in [
        (1, (6, 2)),
        (2, (4, 3)),
        (3, (6, 2)),
        (4, (6, 2)),
        (5, (6, 2)),
        (6, (6, 2)),
    ] {
        assert_eq!(
            setup_numbers(players, DraftCiderRoundPreset::Current),
            expected,
            "{players} players"
        );
    }
}

#[test]
fn setup_shuffles_all_seventy_five_cards_from_the_seed_and_deals_the_first_round_face_up() {
    let options = DraftCiderOptions {
        first_picker: 1,
        ..options(3)
    };
    let table = Table::<DraftCider>::new(options.clone(), 42);
    let DraftCiderEvent::DeckShuffled { deck } = &table.events[1] else {
        panic!("second event is not the shuffle");
    };
    let mut sorted = deck.clone();
    sorted.sort();
    assert_eq!(sorted, umpire_draft_cider::cards::full_deck());
    let DraftCiderEvent::RoundDealt {
        round,
        first_picker,
        cards,
    } = &table.events[2]
    else {
        panic!("third event is not the first deal");
    };
    assert_eq!((*round, *first_picker), (1, SeatIndex(1)));
    assert_eq!(cards.as_slice(), &deck[..6]);
    assert_eq!(table.state.communal_hand, deck[..6]);
    assert_eq!(DraftCider::status(&table.state).to_act, vec![SeatIndex(1)]);

    let same_seed = Table::<DraftCider>::new(options.clone(), 42);
    let other_seed = Table::<DraftCider>::new(options, 43);
    assert_eq!(same_seed.events, table.events);
    assert_ne!(other_seed.events[1], table.events[1]);
}

#[test]
fn the_deck_order_is_hidden_from_seats_and_spectators_but_shown_to_the_umpire() {
    let table = Table::<DraftCider>::new(options(2), 9);
    let shuffle = &table.events[1];
    assert!(DraftCider::redact_event(&table.state, shuffle, Viewer::Umpire).is_some());
    assert!(DraftCider::redact_event(&table.state, shuffle, Viewer::Seat(SeatIndex(0))).is_none());
    assert!(DraftCider::redact_event(&table.state, shuffle, Viewer::Spectator).is_none());
    assert!(table.view(Viewer::Umpire).get("deck").is_some());
    assert!(table.view(Viewer::Seat(SeatIndex(0))).get("deck").is_none());
    assert!(table.view(Viewer::Spectator).get("deck").is_none());
    // The communal hand and the deal are public.
    assert_eq!(
        table.view(Viewer::Spectator)["communal_hand"]
            .as_array()
            .map(Vec::len),
        Some(6)
    );
    assert!(DraftCider::redact_event(&table.state, &table.events[2], Viewer::Spectator).is_some());
}

// ---------------------------------------------------------------- the draft (§2)

#[test]
fn picking_out_of_turn_is_refused() {
    let mut table = Position::new(3, &["gold h3 s5", "red h1 s1", "green h2 s2"])
        .picking(1)
        .table();
    table.refuses(seat(0), pick("gold h3 s5", Bad), codes::NOT_YOUR_TURN.code);
    table.refuses(seat(2), pick("gold h3 s5", Bad), codes::NOT_YOUR_TURN.code);
    table.accepts(seat(1), pick("gold h3 s5", Bad));
}

#[test]
fn picking_a_card_that_is_not_in_the_communal_hand_is_refused() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1", "green h2 s2"]).table();
    let violation = table.refuses(
        seat(0),
        pick("gold h3 s4", Monochrome),
        codes::CARD_NOT_IN_HAND.code,
    );
    assert!(violation.message.contains("gold h3 s4"));
    table.accepts(seat(0), pick("gold h3 s5", Monochrome));
    // Once taken, it is gone from the hand.
    table.refuses(
        seat(1),
        pick("gold h3 s5", Bad),
        codes::CARD_NOT_IN_HAND.code,
    );
}

#[test]
fn a_seat_beyond_the_table_is_an_unknown_seat() {
    let mut table = Position::new(3, &["gold h3 s5", "red h1 s1"]).table();
    table.refuses(seat(3), pick("gold h3 s5", Bad), codes::UNKNOWN_SEAT.code);
    table.refuses(Actor::Umpire, timeout(5), codes::UNKNOWN_SEAT.code);
    table.accepts(seat(0), pick("gold h3 s5", Bad));
}

#[test]
fn picking_before_any_deal_is_refused_as_not_started() {
    let mut table = Table::<DraftCider>::from_events(options(2), Vec::new());
    table.refuses(seat(0), pick("gold h3 s5", Bad), codes::NOT_STARTED.code);
    table.refuses(Actor::Umpire, timeout(0), codes::NOT_STARTED.code);
    assert!(DraftCider::legal_actions(&table.state, seat(0)).is_empty());
    // After setup the same pick is possible.
    let mut table = Table::<DraftCider>::new(options(2), 1);
    let first = table.state.communal_hand[0];
    table.accepts(
        seat(0),
        DraftCiderAction::Pick {
            card: first,
            batch: Bad,
        },
    );
}

#[test]
fn picks_go_round_robin_clockwise_from_the_rounds_first_picker() {
    let mut table = Position::new(3, &["gold h1 s1", "gold h1 s2", "gold h1 s3", "gold h1 s4"])
        .picking(2)
        .table();
    table.accepts(seat(2), pick("gold h1 s1", Bad));
    table.refuses(seat(2), pick("gold h1 s2", Bad), codes::NOT_YOUR_TURN.code);
    table.accepts(seat(0), pick("gold h1 s2", Bad));
    table.accepts(seat(1), pick("gold h1 s3", Bad));
    assert_eq!(DraftCider::status(&table.state).to_act, vec![SeatIndex(2)]);
}

#[test]
fn each_pick_places_its_card_at_once_in_the_chosen_batch() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1"]).table();
    table.accepts(seat(0), pick("gold h3 s5", Feather));
    assert_eq!(table.state.orchards[0].feather, cards(&["gold h3 s5"]));
    assert_eq!(table.state.communal_hand, cards(&["red h1 s1"]));
    let view = table.view(Viewer::Seat(SeatIndex(1)));
    assert_eq!(view["orchards"][0]["batches"]["feather"][0], "gold h3 s5");
}

#[test]
fn emptying_the_communal_hand_deals_the_next_round_with_the_first_picker_moved_clockwise() {
    let options = DraftCiderOptions {
        first_picker: 2,
        ..options(3)
    };
    let mut table = Table::<DraftCider>::new(options, 11);
    assert_eq!(table.state.round_first_picker, SeatIndex(2));
    let order = [2, 0, 1, 2, 0, 1];
    for (turn, seat_index) in order.iter().enumerate() {
        assert_eq!(table.state.picker, SeatIndex(*seat_index), "turn {turn}");
        let first = table.state.communal_hand[0];
        let events = table.accepts(
            seat(*seat_index),
            DraftCiderAction::Pick {
                card: first,
                batch: Bad,
            },
        );
        if turn < order.len() - 1 {
            assert_eq!(events.len(), 1);
        } else {
            let DraftCiderEvent::RoundDealt {
                round,
                first_picker,
                cards,
            } = &events[1]
            else {
                panic!("the last pick of a round deals the next: {events:?}");
            };
            assert_eq!((*round, *first_picker), (2, SeatIndex(0)));
            assert_eq!(cards.as_slice(), &table.state.deck[6..12]);
        }
    }
    // Every seat picked exactly cards_per_player = 2 cards.
    for orchard in &table.state.orchards {
        assert_eq!(orchard.bad.len(), 2);
    }
    assert_eq!(table.state.picker, SeatIndex(0));
}

#[test]
fn after_the_last_round_the_game_finishes_and_further_picks_are_refused_as_game_over() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1"])
        .last_round()
        .table();
    table.accepts(seat(0), pick("gold h3 s5", Monochrome));
    let events = table.accepts(seat(1), pick("red h1 s1", Steady));
    assert!(
        matches!(events.last(), Some(DraftCiderEvent::GameFinished { .. })),
        "{events:?}"
    );
    assert!(DraftCider::status(&table.state).finished);
    table.refuses(seat(0), pick("red h1 s1", Bad), codes::GAME_OVER.code);
    table.refuses(Actor::Umpire, timeout(0), codes::GAME_OVER.code);
    assert!(DraftCider::legal_actions(&table.state, seat(0)).is_empty());
    assert!(DraftCider::legal_actions(&table.state, Actor::Umpire).is_empty());
}

#[test]
fn a_whole_classic_solo_game_is_four_rounds_of_three_cards_picked_in_any_order() {
    let mut table = Table::<DraftCider>::new(options(1), 5);
    assert_eq!(table.state.communal_hand.len(), 3);
    let mut picks = 0;
    while !table.state.finished {
        // The last card of the hand first: the solo seat picks in any order.
        let last = *table.state.communal_hand.last().expect("a card");
        table.accepts(
            seat(0),
            DraftCiderAction::Pick {
                card: last,
                batch: Bad,
            },
        );
        picks += 1;
        if !table.state.finished {
            // Future rounds are unknown to the seat.
            let seat_view =
                serde_json::to_string(&table.view(Viewer::Seat(SeatIndex(0)))).expect("json");
            for unseen in &table.state.deck[table.state.cards_dealt..] {
                assert!(!seat_view.contains(&format!("\"{unseen}\"")));
            }
        }
    }
    assert_eq!(picks, 12);
    assert_eq!(table.state.orchards[0].bad.len(), 12);
    let sheet = score_sheet(&table.state);
    assert!(sheet.is_final);
    assert!(sheet.winners.is_empty());
    assert_eq!(sheet.decided_by, Some(DraftCiderDecidedBy::Solo));
    assert_eq!(sheet.seats[0].total, -12);
}

// ---------------------------------------------------------------- timeouts (§2)

#[test]
fn a_timeout_places_the_first_card_of_the_communal_hand_in_deal_order_in_the_bad_batch() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1", "green h2 s2"])
        .picking(1)
        .table();
    // A pick changes nothing about deal order: the first card stays first.
    table.refuses(Actor::Umpire, timeout(0), codes::NOT_YOUR_TURN.code);
    table.accepts(seat(1), pick("red h1 s1", Monochrome));
    let events = table.accepts(Actor::Umpire, timeout(0));
    assert_eq!(
        events[0],
        DraftCiderEvent::CardPicked {
            seat: SeatIndex(0),
            card: card("gold h3 s5"),
            batch: Bad,
            timed_out: true
        }
    );
    assert_eq!(table.state.orchards[0].bad, cards(&["gold h3 s5"]));
    assert_eq!(table.state.communal_hand, cards(&["green h2 s2"]));
    assert_eq!(table.state.picker, SeatIndex(1));
}

#[test]
fn a_seat_declaring_a_timeout_is_refused_as_umpire_only() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1"]).table();
    table.refuses(seat(1), timeout(0), codes::UMPIRE_ONLY.code);
    table.refuses(seat(0), timeout(0), codes::UMPIRE_ONLY.code);
    table.accepts(Actor::Umpire, timeout(0));
}

#[test]
fn the_umpire_sending_a_pick_is_refused_as_not_a_seat_action() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1"]).table();
    table.refuses(
        Actor::Umpire,
        pick("gold h3 s5", Bad),
        codes::NOT_A_SEAT_ACTION.code,
    );
    table.accepts(seat(0), pick("gold h3 s5", Bad));
}

#[test]
fn the_umpire_is_offered_exactly_the_timeout_of_the_seat_to_pick() {
    let table = Position::new(3, &["gold h3 s5", "red h1 s1"])
        .picking(2)
        .table();
    assert_eq!(
        DraftCider::legal_actions(&table.state, Actor::Umpire),
        vec![timeout(2)]
    );
    assert!(DraftCider::legal_actions(&table.state, seat(0)).is_empty());
    // Two cards, every one of them legal in all eight batches of an empty orchard.
    assert_eq!(DraftCider::legal_actions(&table.state, seat(2)).len(), 16);
}

// ---------------------------------------------------------------- Monochrome (§3)

#[test]
fn the_first_monochrome_card_fixes_the_colour_and_another_colour_is_refused() {
    let mut table = Position::new(2, &["red h1 s1", "gold h5 s5", "green h2 s2"])
        .with_placed(0, "gold h3 s5", Monochrome)
        .table();
    let violation = table.refuses(
        seat(0),
        pick("red h1 s1", Monochrome),
        codes::MONOCHROME_COLOUR.code,
    );
    assert!(violation.message.contains("red h1 s1"));
    table.refuses(
        seat(0),
        pick("green h2 s2", Monochrome),
        codes::MONOCHROME_COLOUR.code,
    );
    table.accepts(seat(0), pick("gold h5 s5", Monochrome));
    // Any colour may start an empty Monochrome batch.
    table.accepts(seat(1), pick("red h1 s1", Monochrome));
}

// ---------------------------------------------------------------- Feather (§3)

#[test]
fn the_rule_book_feather_chain_locks_sweetness_after_s3_h2_then_s3_h4() {
    let mut table = Position::new(1, &["green h1 s3", "red h4 s5", "red h2 s4"])
        .with_placed(0, "gold h2 s3", Feather)
        .with_placed(0, "gold h4 s3", Feather)
        .table();
    table.refuses(
        seat(0),
        pick("red h4 s5", Feather),
        codes::FEATHER_MISMATCH.code,
    );
    // Height 2 was live after the first card, but the lock dropped it.
    table.refuses(
        seat(0),
        pick("red h2 s4", Feather),
        codes::FEATHER_MISMATCH.code,
    );
    table.accepts(seat(0), pick("green h1 s3", Feather));
}

#[test]
fn the_second_feather_card_must_match_the_first_cards_sweetness_or_height() {
    let mut table = Position::new(1, &["red h5 s4", "red h2 s5", "red h5 s3"])
        .with_placed(0, "gold h2 s3", Feather)
        .table();
    table.refuses(
        seat(0),
        pick("red h5 s4", Feather),
        codes::FEATHER_MISMATCH.code,
    );
    table.accepts(seat(0), pick("red h2 s5", Feather));
    // That locked height 2: sweetness 3 is no longer live.
    table.refuses(
        seat(0),
        pick("red h5 s3", Feather),
        codes::FEATHER_MISMATCH.code,
    );
}

#[test]
fn a_feather_card_matching_both_attributes_keeps_both_live() {
    let mut table = Position::new(1, &["red h2 s5", "red h4 s3"])
        .with_placed(0, "gold h2 s3", Feather)
        .with_placed(0, "green h2 s3", Feather)
        .table();
    let view = table.view(Viewer::Spectator);
    assert_eq!(
        view["orchards"][0]["feather_chain"],
        serde_json::json!({"sweetness": 3, "height": 2})
    );
    table.accepts(seat(0), pick("red h4 s3", Feather));
    table.refuses(
        seat(0),
        pick("red h2 s5", Feather),
        codes::FEATHER_MISMATCH.code,
    );
}

// ---------------------------------------------------------------- Special Colour Tree (§3)

#[test]
fn a_second_card_in_the_special_colour_tree_is_refused() {
    let mut table = Position::new(2, &["gold h1 s1", "red h2 s2"])
        .with_placed(0, "green h3 s3", SpecialTree)
        .table();
    table.refuses(
        seat(0),
        pick("red h2 s2", SpecialTree),
        codes::SPECIAL_TREE_OCCUPIED.code,
    );
    table.accepts(seat(0), pick("red h2 s2", Monochrome));
    table.accepts(seat(1), pick("gold h1 s1", SpecialTree));
}

#[test]
fn a_special_colour_tree_of_a_colour_already_outside_the_bad_batch_is_refused() {
    let mut table = Position::new(2, &["gold h1 s1", "red h2 s2", "green h4 s4"])
        .with_placed(0, "gold h3 s3", Steady)
        .with_placed(0, "green h3 s2", Bad)
        .table();
    let violation = table.refuses(
        seat(0),
        pick("gold h1 s1", SpecialTree),
        codes::SPECIAL_TREE_COLOUR_USED.code,
    );
    assert!(violation.message.contains("gold h1 s1"));
    // A card of that colour in the Bad batch does not count.
    table.accepts(seat(0), pick("green h4 s4", SpecialTree));
}

#[test]
fn a_special_colour_tree_scores_twenty_when_no_other_card_of_its_colour_is_outside_bad() {
    let table = Position::new(2, &["red h1 s1"])
        .with_placed(0, "gold h3 s3", SpecialTree)
        .with_placed(0, "gold h4 s4", Bad)
        .with_placed(0, "red h4 s4", Monochrome)
        .table();
    assert_eq!(points_of(&table, 0, SpecialTree), 20);
    assert_eq!(points_of(&table, 1, SpecialTree), 0);
}

#[test]
fn a_broken_special_colour_tree_scores_zero_or_minus_twenty_by_the_broken_tree_option() {
    for (broken_tree, expected) in [
        (DraftCiderBrokenTree::Zero, 0),
        (DraftCiderBrokenTree::MinusTwenty, -20),
    ] {
        let mut position = Position::new(2, &["gold h1 s1", "red h2 s2"]).with_placed(
            0,
            "gold h3 s3",
            SpecialTree,
        );
        position.options.broken_tree = broken_tree;
        let mut table = position.table();
        assert_eq!(points_of(&table, 0, SpecialTree), 20);
        // A card of the tree's colour may still be placed elsewhere, at the cost of the tree.
        table.accepts(seat(0), pick("gold h1 s1", Unlucky));
        assert_eq!(
            points_of(&table, 0, SpecialTree),
            expected,
            "{broken_tree:?}"
        );
    }
}

// ---------------------------------------------------------------- Unlucky (§3)

#[test]
fn an_unlucky_card_spreading_sweetness_more_than_one_apart_is_refused() {
    let mut table = Position::new(1, &["red h1 s5", "red h1 s2", "red h1 s4", "gold h2 s3"])
        .with_placed(0, "gold h3 s3", Unlucky)
        .table();
    let violation = table.refuses(
        seat(0),
        pick("red h1 s5", Unlucky),
        codes::UNLUCKY_SPREAD.code,
    );
    assert!(violation.message.contains("red h1 s5"));
    table.accepts(seat(0), pick("red h1 s4", Unlucky));
    // Now 3 and 4 are in: 2 would make the spread 2.
    table.refuses(
        seat(0),
        pick("red h1 s2", Unlucky),
        codes::UNLUCKY_SPREAD.code,
    );
    table.accepts(seat(0), pick("gold h2 s3", Unlucky));
}

#[test]
fn the_rule_book_unlucky_example_two_fours_and_a_five_scores_nine() {
    let table = Position::new(1, &["red h1 s1"])
        .with_placed(0, "gold h1 s4", Unlucky)
        .with_placed(0, "gold h2 s4", Unlucky)
        .with_placed(0, "gold h3 s5", Unlucky)
        .table();
    assert_eq!(points_of(&table, 0, Unlucky), 9);
}

#[test]
fn an_unlucky_batch_not_totalling_exactly_thirteen_scores_nothing() {
    let table = Position::new(1, &["red h1 s1"])
        .with_placed(0, "gold h1 s4", Unlucky)
        .with_placed(0, "gold h2 s4", Unlucky)
        .with_placed(0, "gold h3 s4", Unlucky)
        .table();
    assert_eq!(points_of(&table, 0, Unlucky), 0);
}

// ---------------------------------------------------------------- Fortepiano (§3)

#[test]
fn a_fortepiano_pair_of_the_same_height_is_refused() {
    let mut table = Position::new(1, &["red h2 s1", "red h5 s1", "green h5 s2"])
        .with_placed(0, "gold h2 s3", Fortepiano)
        .table();
    let violation = table.refuses(
        seat(0),
        pick("red h2 s1", Fortepiano),
        codes::FORTEPIANO_SAME_HEIGHT.code,
    );
    assert!(violation.message.contains("gold h2 s3"));
    table.accepts(seat(0), pick("red h5 s1", Fortepiano));
    // A new pair starts: its first card may repeat the previous height.
    table.accepts(seat(0), pick("green h5 s2", Fortepiano));
}

#[test]
fn the_rule_book_fortepiano_examples_score_eight_for_heights_one_and_five_and_two_for_two_and_three(
) {
    let table = Position::new(1, &["red h1 s1"])
        .with_placed(0, "gold h1 s1", Fortepiano)
        .with_placed(0, "gold h5 s1", Fortepiano)
        .with_placed(0, "gold h2 s1", Fortepiano)
        .with_placed(0, "gold h3 s1", Fortepiano)
        .with_placed(0, "green h3 s1", Fortepiano)
        .table();
    // 8 + 2, and the unpaired fifth card scores nothing.
    assert_eq!(points_of(&table, 0, Fortepiano), 10);
}

// ---------------------------------------------------------------- Sweet Couple (§3)

#[test]
fn a_sweet_couple_of_different_sweetness_is_refused() {
    let mut table = Position::new(1, &["red h1 s4", "red h2 s3", "green h2 s1"])
        .with_placed(0, "gold h2 s3", SweetCouple)
        .table();
    table.refuses(
        seat(0),
        pick("red h1 s4", SweetCouple),
        codes::SWEET_COUPLE_MISMATCH.code,
    );
    table.accepts(seat(0), pick("red h2 s3", SweetCouple));
    assert_eq!(points_of(&table, 0, SweetCouple), 7);
    // A new pair may start with any sweetness.
    table.accepts(seat(0), pick("green h2 s1", SweetCouple));
}

// ---------------------------------------------------------------- Steady Height (§3)

#[test]
fn a_steady_height_step_of_more_than_one_is_refused() {
    let mut table = Position::new(1, &["red h5 s1", "red h4 s1", "green h5 s2", "green h1 s1"])
        .with_placed(0, "gold h3 s3", Steady)
        .table();
    table.refuses(seat(0), pick("red h5 s1", Steady), codes::STEADY_STEP.code);
    table.refuses(
        seat(0),
        pick("green h1 s1", Steady),
        codes::STEADY_STEP.code,
    );
    table.accepts(seat(0), pick("red h4 s1", Steady));
    // Compared with the previous card (h4), not the first (h3).
    table.accepts(seat(0), pick("green h5 s2", Steady));
    assert_eq!(points_of(&table, 0, Steady), 7);
}

// ---------------------------------------------------------------- Bad (§3)

#[test]
fn the_bad_batch_always_accepts_and_costs_one_point_per_card_or_none_in_easy_mode() {
    let mut table = Position::new(1, &["red h5 s1", "red h4 s1"]).table();
    table.accepts(seat(0), pick("red h5 s1", Bad));
    table.accepts(seat(0), pick("red h4 s1", Bad));
    assert_eq!(points_of(&table, 0, Bad), -2);
    let mut easy = Position::new(1, &["red h5 s1"])
        .with_placed(0, "gold h1 s1", Bad)
        .with_placed(0, "gold h2 s1", Bad);
    easy.options.easy = true;
    assert_eq!(points_of(&easy.table(), 0, Bad), 0);
}

#[test]
fn every_card_always_has_a_legal_placement_because_bad_accepts() {
    let table = Position::new(1, &["red h5 s5"])
        .with_placed(0, "gold h1 s1", Monochrome)
        .with_placed(0, "gold h1 s1", Feather)
        .with_placed(0, "red h1 s1", SpecialTree)
        .with_placed(0, "gold h1 s1", Unlucky)
        .with_placed(0, "gold h5 s1", Fortepiano)
        .with_placed(0, "gold h1 s1", SweetCouple)
        .with_placed(0, "gold h1 s1", Steady)
        .table();
    assert_eq!(
        DraftCider::legal_actions(&table.state, seat(0)),
        vec![pick("red h5 s5", Bad)]
    );
}

// ---------------------------------------------------------------- end and winners (§4)

fn seat_score(index: u8, total: i64, non_empty_batches: u8) -> DraftCiderSeatScore {
    DraftCiderSeatScore {
        seat: SeatIndex(index),
        batches: Vec::new(),
        total,
        non_empty_batches,
    }
}

#[test]
fn the_highest_total_wins() {
    let (won, decided_by) = winners(&[
        seat_score(0, 10, 1),
        seat_score(1, 12, 1),
        seat_score(2, 3, 8),
    ]);
    assert_eq!(won, vec![SeatIndex(1)]);
    assert_eq!(decided_by, DraftCiderDecidedBy::HighestTotal);
}

#[test]
fn tied_totals_are_broken_by_the_most_non_empty_batches() {
    let (won, decided_by) = winners(&[
        seat_score(0, 12, 3),
        seat_score(1, 12, 4),
        seat_score(2, 3, 8),
    ]);
    assert_eq!(won, vec![SeatIndex(1)]);
    assert_eq!(decided_by, DraftCiderDecidedBy::MostNonEmptyBatches);
}

#[test]
fn a_tie_after_the_tie_breaker_is_a_shared_win() {
    let (won, decided_by) = winners(&[
        seat_score(0, 12, 4),
        seat_score(1, 12, 4),
        seat_score(2, 12, 3),
    ]);
    assert_eq!(won, vec![SeatIndex(0), SeatIndex(1)]);
    assert_eq!(decided_by, DraftCiderDecidedBy::SharedWin);
}

#[test]
fn the_end_of_the_game_names_the_winners_and_the_tie_breaker_on_the_score_sheet() {
    // Both seats end on 1 point; seat 1 has two non-empty batches.
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1"])
        .with_placed(1, "green h1 s1", Bad)
        .with_placed(1, "green h2 s1", Monochrome)
        .last_round()
        .table();
    table.accepts(seat(0), pick("gold h3 s5", Monochrome));
    let events = table.accepts(seat(1), pick("red h1 s1", Steady));
    assert_eq!(
        events.last(),
        Some(&DraftCiderEvent::GameFinished {
            totals: vec![1, 3],
            winners: vec![SeatIndex(1)],
            decided_by: DraftCiderDecidedBy::HighestTotal,
        })
    );
    let sheet = DraftCider::score(&table.state, Viewer::Spectator);
    assert!(sheet.is_final);
    assert_eq!(sheet.winners, vec![SeatIndex(1)]);
    let summary = DraftCider::summary(&table.state);
    assert_eq!(summary.totals.get("1"), Some(&3));
    assert_eq!(summary.winners, vec!["1".to_string()]);
    assert!(summary.is_final);
    let json = serde_json::to_value(&sheet).expect("json");
    assert_eq!(json["decided_by"], "highest_total");
    assert_eq!(
        json["seats"][1]["batches"].as_array().map(Vec::len),
        Some(8)
    );
}

#[test]
fn a_tie_on_totals_at_the_end_is_decided_by_non_empty_batches_or_shared() {
    // Easy mode, so the Bad batch costs nothing: both seats end on 3 points.
    let mut position = Position::new(2, &["gold h3 s5", "red h1 s1"])
        .with_placed(1, "green h1 s1", Steady)
        .last_round();
    position.options.easy = true;
    let mut table = position.table();
    table.accepts(seat(0), pick("gold h3 s5", Steady));
    let events = table.accepts(seat(1), pick("red h1 s1", Bad));
    assert_eq!(
        events.last(),
        Some(&DraftCiderEvent::GameFinished {
            totals: vec![3, 3],
            winners: vec![SeatIndex(1)],
            decided_by: DraftCiderDecidedBy::MostNonEmptyBatches,
        })
    );

    // Same, but seat 1 also uses just one batch: a shared win.
    let mut position = Position::new(2, &["gold h3 s5", "red h1 s1"]).last_round();
    position.options.easy = true;
    let mut table = position.table();
    table.accepts(seat(0), pick("gold h3 s5", Steady));
    table.accepts(seat(1), pick("red h1 s1", Steady));
    let sheet = score_sheet(&table.state);
    assert_eq!(sheet.winners, vec![SeatIndex(0), SeatIndex(1)]);
    assert_eq!(sheet.decided_by, Some(DraftCiderDecidedBy::SharedWin));
}

#[test]
fn the_score_is_provisional_without_winners_before_the_end() {
    let mut table = Position::new(2, &["gold h3 s5", "red h1 s1"]).table();
    table.accepts(seat(0), pick("gold h3 s5", Steady));
    let sheet = score_sheet(&table.state);
    assert!(!sheet.is_final);
    assert!(sheet.winners.is_empty());
    assert_eq!(sheet.decided_by, None);
    assert_eq!(sheet.seats[0].total, 3);
    let summary = DraftCider::summary(&table.state);
    assert!(!summary.is_final);
    assert!(summary.winners.is_empty());
}

// ---------------------------------------------------------------- JSON (§6)

#[test]
fn the_rule_book_pick_json_parses_and_unknown_shapes_are_refused() {
    let action: DraftCiderAction =
        serde_json::from_str(r#"{"type": "pick", "card": "gold h3 s5", "batch": "feather"}"#)
            .expect("parses");
    assert_eq!(action, pick("gold h3 s5", Feather));
    let action: DraftCiderAction =
        serde_json::from_str(r#"{"type": "timeout", "seat": 2}"#).expect("parses");
    assert_eq!(action, timeout(2));
    for refused in [
        r#"{"type": "pick", "card": "gold h3 s5", "batch": "feather", "extra": 1}"#,
        r#"{"type": "pick", "card": "gold h3 s6", "batch": "feather"}"#,
        r#"{"type": "pick", "card": "gold h3 s5", "batch": "orchard"}"#,
        r#"{"type": "pick", "card": "gold h3 s5"}"#,
    ] {
        assert!(
            serde_json::from_str::<DraftCiderAction>(refused).is_err(),
            "{refused}"
        );
    }
    let every_batch: Vec<String> = DraftCiderBatch::ALL
        .iter()
        .map(|batch| {
            serde_json::to_value(batch)
                .expect("json")
                .as_str()
                .expect("a string")
                .to_string()
        })
        .collect();
    assert_eq!(
        every_batch,
        [
            "monochrome",
            "feather",
            "special_tree",
            "unlucky",
            "fortepiano",
            "sweet_couple",
            "steady",
            "bad"
        ]
    );
}

#[test]
fn events_are_tagged_with_past_tense_types() {
    let table = Position::new(2, &["gold h3 s5"]).table();
    let types: Vec<String> = table
        .events
        .iter()
        .map(|event| {
            serde_json::to_value(event).expect("json")["type"]
                .as_str()
                .expect("tag")
                .to_string()
        })
        .collect();
    assert_eq!(types, ["game_set_up", "deck_shuffled", "round_dealt"]);
}
