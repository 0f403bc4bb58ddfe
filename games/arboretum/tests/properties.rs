//! Invariants over random games: play ends without panics, replay
//! reproduces the state, listed actions are accepted, secrets stay secret,
//! and `decide` refuses rather than panics on arbitrary actions.

mod support;

use proptest::prelude::*;
use support::*;
use umpire_arboretum::{
    Arboretum, ArboretumAction, ArboretumCard, ArboretumCell, ArboretumEvent, ArboretumGroup,
    ArboretumOptions, ArboretumPlan, ArboretumSeat,
};
use umpire_domain::testing::{fold, play_random, umpire_view_json, Table};
use umpire_domain::{Actor, Game, Viewer};

fn options(blue_holds_advantage: bool) -> ArboretumOptions {
    ArboretumOptions {
        dm_advantage: if blue_holds_advantage {
            ArboretumSeat::Blue
        } else {
            ArboretumSeat::Red
        },
    }
}

fn any_card() -> impl Strategy<Value = ArboretumCard> {
    proptest::sample::select(umpire_arboretum::cards::full_deck())
}

fn any_cell() -> impl Strategy<Value = ArboretumCell> {
    proptest::sample::select(ArboretumCell::all().collect::<Vec<_>>())
}

fn any_seat() -> impl Strategy<Value = ArboretumSeat> {
    prop_oneof![Just(ArboretumSeat::Red), Just(ArboretumSeat::Blue)]
}

fn any_group() -> impl Strategy<Value = ArboretumGroup> {
    (0u8..=12, any::<bool>()).prop_map(|(size, garden)| ArboretumGroup {
        size,
        plan: if garden {
            ArboretumPlan::Garden
        } else {
            ArboretumPlan::Bulletin
        },
    })
}

fn any_action() -> impl Strategy<Value = ArboretumAction> {
    prop_oneof![
        any_seat().prop_map(|seat| ArboretumAction::ChooseStart { seat }),
        proptest::collection::vec(any_group(), 0..6)
            .prop_map(|groups| ArboretumAction::Bid { groups }),
        (any_card(), any_cell()).prop_map(|(card, cell)| ArboretumAction::Plant { card, cell }),
        (any_card(), any_cell()).prop_map(|(card, cell)| ArboretumAction::Dig { card, cell }),
        (any_card(), proptest::option::of(any_card()))
            .prop_map(|(card, discard)| ArboretumAction::Take { card, discard }),
        proptest::collection::vec(any_card(), 0..9)
            .prop_map(|cards| ArboretumAction::Hire { cards }),
        Just(ArboretumAction::Start),
        Just(ArboretumAction::Skip),
        any_seat().prop_map(|seat| ArboretumAction::Timeout { seat }),
    ]
}

fn any_actor() -> impl Strategy<Value = Actor<ArboretumSeat>> {
    prop_oneof![Just(RED), Just(BLUE), Just(UMPIRE)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_play_ends_and_folding_its_events_reproduces_the_state(
        seed in any::<u64>(), blue_holds_advantage in any::<bool>()
    ) {
        let game = play_random::<Arboretum>(options(blue_holds_advantage), seed, 3_000);
        prop_assert!(game.finished, "the game did not end");
        let refolded = fold::<Arboretum>(&game.options, &game.events);
        prop_assert_eq!(umpire_view_json::<Arboretum>(&refolded), umpire_view_json::<Arboretum>(&game.state));
        prop_assert_eq!(Arboretum::summary(&refolded), Arboretum::summary(&game.state));
        let summary = Arboretum::summary(&game.state);
        prop_assert!(summary.is_final);
        prop_assert_eq!(summary.winners.len(), 1);
        // No card is lost or duplicated: 64 across all areas.
        let state = &game.state;
        let placed: usize = state.players.iter().map(|p| p.arboretum.len() + p.ad_board.len()).sum();
        prop_assert_eq!(
            placed + state.offering_area.len() + state.refuse_pile.len() + state.out_of_game.len(),
            64
        );
    }

    #[test]
    fn every_listed_legal_action_is_accepted_along_a_random_game(seed in any::<u64>(), stop in 0usize..120) {
        let game = play_random::<Arboretum>(options(false), seed, stop);
        for actor in [RED, BLUE, UMPIRE] {
            for action in Arboretum::legal_actions(&game.state, actor) {
                if let Err(violation) = Arboretum::decide(&game.state, actor, &action) {
                    prop_assert!(false, "{:?} {:?} refused: {}", actor, action, violation);
                }
            }
        }
    }

    #[test]
    fn decide_refuses_rather_than_panics_on_any_action(
        seed in any::<u64>(), stop in 0usize..150,
        attempts in proptest::collection::vec((any_actor(), any_action()), 1..20)
    ) {
        let game = play_random::<Arboretum>(options(false), seed, stop);
        for (actor, action) in attempts {
            if let Ok(events) = Arboretum::decide(&game.state, actor, &action) {
                let mut state = game.state.clone();
                for event in &events {
                    Arboretum::apply(&mut state, event);
                }
                // Round-trips through JSON like the service does.
                let json = serde_json::to_value(&events).unwrap();
                let back: Vec<ArboretumEvent> = serde_json::from_value(json).unwrap();
                prop_assert_eq!(back, events);
            }
        }
    }

    #[test]
    fn a_bid_never_reaches_the_other_seat_or_spectators_before_the_reveal(
        seed in any::<u64>(), stop in 0usize..150, bidder in any_seat(), choice in any::<usize>()
    ) {
        let game = play_random::<Arboretum>(options(false), seed, stop);
        let mut table = Table::<Arboretum>::from_events(options(false), game.events.clone());
        // Move on to a fresh bidding phase.
        let mut guard = 0;
        while Arboretum::status(&table.state).phase != "bidding" && guard < 200 {
            guard += 1;
            if Arboretum::status(&table.state).finished { return Ok(()); }
            let actor = Arboretum::status(&table.state).to_act.first().copied().map(Actor::Seat).unwrap_or(UMPIRE);
            let legal = Arboretum::legal_actions(&table.state, actor);
            let Some(action) = legal.last().cloned() else { break };
            table.accepts(actor, action);
        }
        prop_assume!(Arboretum::status(&table.state).phase == "bidding");
        prop_assume!(table.state.bids.iter().all(Option::is_none));
        let legal = Arboretum::legal_actions(&table.state, Actor::Seat(bidder));
        let action = legal[choice % legal.len()].clone();
        let ArboretumAction::Bid { groups } = &action else { unreachable!("bidding offers bids") };
        let events = table.accepts(Actor::Seat(bidder), action.clone());
        for viewer in [Viewer::Seat(bidder.other()), Viewer::Spectator] {
            let view = serde_json::to_string(&Arboretum::view(&table.state, viewer)).unwrap();
            prop_assert!(!view.contains("\"plan\""), "plans leaked into {:?}'s view: {}", viewer, view);
            let score = serde_json::to_string(&Arboretum::score(&table.state, viewer)).unwrap();
            prop_assert!(!score.contains("\"plan\""));
            for event in &events {
                let shown = serde_json::to_string(&Arboretum::redact_event(&table.state, event, viewer)).unwrap();
                prop_assert!(!shown.contains("\"plan\"") && !shown.contains("\"groups\""),
                    "bid leaked to {:?}: {}", viewer, shown);
            }
        }
        // The bidder and the umpire do see it.
        for viewer in [Viewer::Seat(bidder), Viewer::Umpire] {
            let view = serde_json::to_value(Arboretum::view(&table.state, viewer)).unwrap();
            let seat_name = if bidder == ArboretumSeat::Red { "red" } else { "blue" };
            prop_assert_eq!(&view[seat_name]["bid"], &serde_json::to_value(groups).unwrap());
        }
    }

    #[test]
    fn the_deck_order_never_reaches_a_seat_or_spectator(seed in any::<u64>(), stop in 0usize..200) {
        let game = play_random::<Arboretum>(options(false), seed, stop);
        for viewer in [Viewer::Seat(ArboretumSeat::Red), Viewer::Seat(ArboretumSeat::Blue), Viewer::Spectator] {
            let view = serde_json::to_value(Arboretum::view(&game.state, viewer)).unwrap();
            prop_assert!(view.get("deck").is_none());
            for event in &game.events {
                if let Some(ArboretumEvent::DeckShuffled { deck, .. }) = Arboretum::redact_event(&game.state, event, viewer) {
                    prop_assert!(deck.is_none());
                }
            }
        }
    }

    #[test]
    fn the_summary_is_deterministic(seed in any::<u64>()) {
        let first = play_random::<Arboretum>(options(false), seed, 3_000);
        let second = play_random::<Arboretum>(options(false), seed, 3_000);
        prop_assert_eq!(Arboretum::summary(&first.state), Arboretum::summary(&second.state));
        prop_assert_eq!(
            serde_json::to_value(Arboretum::score(&first.state, Viewer::Spectator)).unwrap(),
            serde_json::to_value(Arboretum::score(&second.state, Viewer::Umpire)).unwrap()
        );
    }
}
