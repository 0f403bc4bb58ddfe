//! Invariants over random legal play for every player count and both presets.

use proptest::prelude::*;
use umpire_domain::testing::{fold, play_random, umpire_view_json, RandomGame};
use umpire_domain::{Actor, Game, SeatIndex, Viewer};
use umpire_draft_cider::{
    DraftCider, DraftCiderAction, DraftCiderBatch, DraftCiderEvent, DraftCiderOptions,
    DraftCiderRoundPreset,
};

fn options_strategy() -> impl Strategy<Value = DraftCiderOptions> {
    (
        1..=6_u8,
        any::<bool>(),
        any::<u8>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(players, current, first_picker, easy, minus_twenty)| DraftCiderOptions {
                players,
                rounds: if current {
                    DraftCiderRoundPreset::Current
                } else {
                    DraftCiderRoundPreset::Classic
                },
                first_picker: first_picker % players,
                easy,
                broken_tree: if minus_twenty {
                    umpire_draft_cider::DraftCiderBrokenTree::MinusTwenty
                } else {
                    umpire_draft_cider::DraftCiderBrokenTree::Zero
                },
            },
        )
}

fn play(options: DraftCiderOptions, seed: u64) -> RandomGame<DraftCider> {
    play_random::<DraftCider>(options, seed, 1_000)
}

/// Cards of the deck not dealt yet at `state`: the secret part of the order.
fn undealt(state: &umpire_draft_cider::DraftCiderState) -> Vec<String> {
    state
        .deck
        .get(state.cards_dealt..)
        .unwrap_or_default()
        .iter()
        .map(|card| format!("\"{card}\""))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn random_legal_play_ends_with_every_dealt_card_placed(options in options_strategy(), seed in any::<u64>()) {
        let game = play(options.clone(), seed);
        prop_assert!(game.finished);
        let state = &game.state;
        let dealt = usize::from(state.rounds_total) * usize::from(state.cards_per_player) * usize::from(options.players);
        prop_assert_eq!(state.cards_dealt, dealt);
        prop_assert!(state.communal_hand.is_empty());
        for orchard in &state.orchards {
            prop_assert_eq!(orchard.card_count(), usize::from(state.rounds_total) * usize::from(state.cards_per_player));
        }
        let mut placed: Vec<_> = state.orchards.iter().flat_map(|orchard| {
            DraftCiderBatch::ALL.iter().flat_map(|batch| orchard.cards(*batch).to_vec()).collect::<Vec<_>>()
        }).collect();
        placed.sort();
        let mut expected = state.deck[..dealt].to_vec();
        expected.sort();
        prop_assert_eq!(placed, expected);
        let ended = matches!(game.events.last(), Some(DraftCiderEvent::GameFinished { .. }));
        prop_assert!(ended);
    }

    #[test]
    fn folding_the_events_reproduces_the_state(options in options_strategy(), seed in any::<u64>()) {
        let game = play(options, seed);
        let folded = fold::<DraftCider>(&game.options, &game.events);
        prop_assert_eq!(&folded, &game.state);
        prop_assert_eq!(umpire_view_json::<DraftCider>(&folded), umpire_view_json::<DraftCider>(&game.state));
        // Events survive a JSON round trip, as they are stored.
        let stored = serde_json::to_string(&game.events).expect("json");
        let reread: Vec<DraftCiderEvent> = serde_json::from_str(&stored).expect("events parse");
        prop_assert_eq!(reread, game.events.clone());
    }

    #[test]
    fn replaying_the_actions_reproduces_the_events_and_the_score(options in options_strategy(), seed in any::<u64>()) {
        let game = play(options.clone(), seed);
        let mut table = umpire_domain::testing::Table::<DraftCider>::new(options, seed);
        for (actor, action) in &game.actions {
            table.accepts(*actor, action.clone());
        }
        prop_assert_eq!(&table.events, &game.events);
        prop_assert_eq!(DraftCider::summary(&table.state), DraftCider::summary(&game.state));
        let first = serde_json::to_string(&DraftCider::score(&table.state, Viewer::Umpire)).expect("json");
        let second = serde_json::to_string(&DraftCider::score(&game.state, Viewer::Umpire)).expect("json");
        prop_assert_eq!(first, second);
    }

    #[test]
    fn every_listed_legal_action_is_accepted_along_a_game(options in options_strategy(), seed in any::<u64>()) {
        let game = play(options, seed);
        let mut state = DraftCider::initial_state(&game.options);
        let mut checked = 0;
        for event in &game.events {
            DraftCider::apply(&mut state, event);
            if !matches!(event, DraftCiderEvent::CardPicked { .. } | DraftCiderEvent::RoundDealt { .. }) {
                continue;
            }
            for seat in state.seats() {
                for action in DraftCider::legal_actions(&state, Actor::Seat(seat)) {
                    prop_assert!(DraftCider::decide(&state, Actor::Seat(seat), &action).is_ok(), "{action:?}");
                    checked += 1;
                }
            }
            for action in DraftCider::legal_actions(&state, Actor::Umpire) {
                prop_assert!(DraftCider::decide(&state, Actor::Umpire, &action).is_ok());
            }
            // Every accepted pick is listed: try every card of the hand in every batch.
            let picker = state.picker;
            let listed = DraftCider::legal_actions(&state, Actor::Seat(picker));
            for card in state.communal_hand.clone() {
                for batch in DraftCiderBatch::ALL {
                    let action = DraftCiderAction::Pick { card, batch };
                    let accepted = DraftCider::decide(&state, Actor::Seat(picker), &action).is_ok();
                    prop_assert_eq!(accepted, listed.contains(&action), "{:?}", action);
                }
            }
        }
        prop_assert!(checked > 0);
    }

    #[test]
    fn the_deck_order_never_reaches_a_seat_or_a_spectator(options in options_strategy(), seed in any::<u64>()) {
        let game = play(options.clone(), seed);
        let mut state = DraftCider::initial_state(&game.options);
        let viewers: Vec<Viewer<SeatIndex>> = std::iter::once(Viewer::Spectator)
            .chain((0..options.players).map(|seat| Viewer::Seat(SeatIndex(seat))))
            .collect();
        for (position, event) in game.events.iter().enumerate() {
            DraftCider::apply(&mut state, event);
            // Check at every deal and at the end, where the secrets change.
            let checkpoint = matches!(event, DraftCiderEvent::RoundDealt { .. } | DraftCiderEvent::GameFinished { .. });
            if !checkpoint {
                continue;
            }
            let secrets = undealt(&state);
            prop_assert!(!secrets.is_empty());
            for viewer in &viewers {
                let seen_events: Vec<_> = game.events[..=position]
                    .iter()
                    .filter_map(|event| DraftCider::redact_event(&state, event, *viewer))
                    .collect();
                let seen = format!(
                    "{}{}{}",
                    serde_json::to_string(&DraftCider::view(&state, *viewer)).expect("json"),
                    serde_json::to_string(&seen_events).expect("json"),
                    serde_json::to_string(&DraftCider::score(&state, *viewer)).expect("json"),
                );
                for secret in &secrets {
                    prop_assert!(!seen.contains(secret.as_str()), "{:?} sees {}", viewer, secret);
                }
                prop_assert!(!seen.contains("deck_shuffled"));
            }
            // The umpire does see them.
            let umpire = serde_json::to_string(&DraftCider::view(&state, Viewer::Umpire)).expect("json");
            prop_assert!(secrets.iter().all(|secret| umpire.contains(secret.as_str())));
        }
    }

    #[test]
    fn the_summary_and_score_are_deterministic(options in options_strategy(), seed in any::<u64>()) {
        let first = play(options.clone(), seed);
        let second = play(options, seed);
        prop_assert_eq!(DraftCider::summary(&first.state), DraftCider::summary(&second.state));
        prop_assert_eq!(
            serde_json::to_string(&DraftCider::score(&first.state, Viewer::Spectator)).expect("json"),
            serde_json::to_string(&DraftCider::score(&second.state, Viewer::Spectator)).expect("json")
        );
        let summary = DraftCider::summary(&first.state);
        prop_assert!(summary.is_final);
        prop_assert_eq!(summary.totals.len(), first.state.orchards.len());
    }

    #[test]
    fn decide_never_panics_on_arbitrary_actions(
        options in options_strategy(),
        seed in any::<u64>(),
        steps in 0..40_usize,
        probes in proptest::collection::vec((0..8_u8, any::<bool>(), 0..75_usize, 0..8_usize), 1..20),
    ) {
        let game = play(options.clone(), seed);
        let cut = steps.min(game.events.len());
        let state = {
            let mut table = umpire_domain::testing::Table::<DraftCider>::new(options, seed);
            for (actor, action) in game.actions.iter().take(cut) {
                table.accepts(*actor, action.clone());
            }
            table.state
        };
        let deck = umpire_draft_cider::cards::full_deck();
        for (seat, umpire, card, batch) in probes {
            let actor = if umpire { Actor::Umpire } else { Actor::Seat(SeatIndex(seat)) };
            let pick = DraftCiderAction::Pick { card: deck[card], batch: DraftCiderBatch::ALL[batch] };
            let timeout = DraftCiderAction::Timeout { seat: SeatIndex(seat) };
            for action in [pick, timeout] {
                if let Err(violation) = DraftCider::decide(&state, actor, &action) {
                    prop_assert!(violation.code.starts_with("draft_cider."));
                    prop_assert!(!violation.message.is_empty());
                }
            }
        }
    }
}

#[test]
fn arbitrary_json_actions_are_either_malformed_or_decided_without_panicking() {
    let registry = umpire_domain::Registry::new().register::<DraftCider>();
    let game = registry.get("draft_cider").expect("registered");
    let options = game
        .validate_options(&serde_json::json!({"players": 3}))
        .expect("valid");
    let mut state = game.new_match(&options).expect("match");
    for event in game.setup(&options, 3).expect("setup") {
        state.apply_json(&event).expect("applies");
    }
    for action in [
        serde_json::json!({"type": "pick"}),
        serde_json::json!({"type": "pick", "card": "gold h9 s1", "batch": "bad"}),
        serde_json::json!({"type": "pick", "card": "gold h1 s1", "batch": "orchard"}),
        serde_json::json!({"type": "pick", "card": 7, "batch": "bad"}),
        serde_json::json!({"type": "timeout", "seat": -1}),
        serde_json::json!({"type": "timeout", "seat": 255}),
        serde_json::json!({"type": "plant"}),
        serde_json::json!([]),
        serde_json::json!(null),
    ] {
        for actor in [
            umpire_domain::Actor::Umpire,
            umpire_domain::Actor::Seat("0".to_string()),
        ] {
            let _ = state.decide(&actor, &action);
        }
    }
    let schemas = game.schemas();
    assert!(schemas
        .components
        .iter()
        .all(|(name, _)| name.starts_with("DraftCider") || name == "SeatIndex"));
    assert_eq!(schemas.action_examples.len(), 2);
}
