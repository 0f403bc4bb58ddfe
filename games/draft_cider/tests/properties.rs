//! Invariants over random legal play for every player count and both presets,
//! including that the deck order reaches no seat, not even through the
//! violation refusing one of its actions.

use proptest::prelude::*;
use umpire_domain::testing::{
    self, fold, other_orders, play_random, spread, umpire_view_json, Decide, RandomGame,
};
use umpire_domain::{Actor, Game, SeatIndex, Viewer, Violation};
use umpire_draft_cider::{
    DraftCider, DraftCiderAction, DraftCiderBatch, DraftCiderCard, DraftCiderEvent,
    DraftCiderOptions, DraftCiderRoundPreset, DraftCiderState,
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

fn undealt_cards(state: &DraftCiderState) -> Vec<DraftCiderCard> {
    state
        .deck
        .get(state.cards_dealt..)
        .unwrap_or_default()
        .to_vec()
}

/// The state with its secret, the order of the undealt cards, changed in
/// two ways: rotated by one (moves every card one place) and reversed
/// (moves most cards to another round's deal).
fn with_deck_order_changed(state: &DraftCiderState) -> [DraftCiderState; 2] {
    let dealt = state.cards_dealt.min(state.deck.len());
    other_orders(&state.deck[dealt..]).map(|undealt| {
        let mut changed = state.clone();
        changed.deck.truncate(dealt);
        changed.deck.extend(undealt);
        changed
    })
}

/// The refusal of picking `card` into the Bad batch (which takes any card),
/// with the card's name blanked out.
fn anonymous_refusal(
    state: &DraftCiderState,
    seat: SeatIndex,
    card: DraftCiderCard,
    decide: Decide<DraftCider>,
) -> Option<Violation> {
    let pick = DraftCiderAction::Pick {
        card,
        batch: DraftCiderBatch::Bad,
    };
    decide(state, Actor::Seat(seat), &pick)
        .err()
        .map(|mut violation| {
            violation.message = violation.message.replace(&card.to_string(), "<card>");
            violation
        })
}

/// A pick of a card still in the deck must be refused in the same words
/// (the card's name aside) as a pick of a card already in an orchard:
/// "that card is still in the deck" would say where it is.
fn assert_cards_outside_the_hand_are_refused_alike(
    state: &DraftCiderState,
    seat: SeatIndex,
    decide: Decide<DraftCider>,
    context: &str,
) {
    let placed = state.orchards.iter().find_map(|orchard| {
        DraftCiderBatch::ALL
            .iter()
            .find_map(|batch| orchard.cards(*batch).first().copied())
    });
    let Some(placed) = placed else {
        return;
    };
    let expected = anonymous_refusal(state, seat, placed, decide);
    assert!(expected.is_some(), "{context}: {placed} was picked twice");
    for undealt in spread(&undealt_cards(state), 6) {
        assert_eq!(
            anonymous_refusal(state, seat, undealt, decide),
            expected,
            "{context}: seat {} picking {undealt} (still in the deck) is told something else than for {placed} (placed)",
            seat.0
        );
    }
}

/// Fails when the refusal (code, message and rule, serialised as the seat
/// receives it) names an undealt card, as the view and event check does
/// with `undealt`. A card the seat named itself (`sent`) may be echoed back:
/// every card can be named in a pick, so "gold h3 s5 is not in the
/// communal hand" tells the seat nothing about the deck. That wording must
/// be the same for a card still in the deck and one already placed, which
/// the changed-order comparison in `assert_refusals_keep_secrets` checks.
fn assert_refusal_names_no_secret(
    state: &DraftCiderState,
    violation: &Violation,
    sent: &str,
    context: &str,
) {
    let shown = serde_json::to_string(violation).expect("violation");
    for card in undealt_cards(state) {
        let name = card.to_string();
        assert!(
            !shown.contains(name.as_str()) || sent.contains(&format!("\"{name}\"")),
            "{context}: the refusal {shown} names the undealt card {name}"
        );
    }
}

/// Feeds `actions` to `decide` as `seat` and checks every refusal: it names
/// no undealt card, and the same action meets exactly the same answer
/// (refusal or not) with the undealt cards in another order. Then checks
/// that picking a card still in the deck reads like picking a placed one.
fn assert_refusals_keep_secrets(
    state: &DraftCiderState,
    seat: SeatIndex,
    actions: &[DraftCiderAction],
    decide: Decide<DraftCider>,
    context: &str,
) {
    testing::assert_refusals_keep_secrets::<DraftCider>(
        decide,
        state,
        &with_deck_order_changed(state),
        Actor::Seat(seat),
        actions,
        context,
        |violation, sent, context| assert_refusal_names_no_secret(state, violation, sent, context),
    );
    assert_cards_outside_the_hand_are_refused_alike(state, seat, decide, context);
}

/// The actions to try as `seat`: (a) the other seats' listed picks and the
/// umpire's timeout, (b) the seat's own picks (or, off turn, picks from the
/// communal hand) with a card still in the deck, one already in an orchard,
/// or into every batch, and (c) the arbitrary ones.
fn probe_actions(
    state: &DraftCiderState,
    seat: SeatIndex,
    arbitrary: &[DraftCiderAction],
) -> Vec<DraftCiderAction> {
    let mut probes = Vec::new();
    for other in state.seats().filter(|other| *other != seat) {
        probes.extend(spread(
            &DraftCider::legal_actions(state, Actor::Seat(other)),
            6,
        ));
    }
    probes.extend(DraftCider::legal_actions(state, Actor::Umpire));
    let mut own = spread(&DraftCider::legal_actions(state, Actor::Seat(seat)), 3);
    if own.is_empty() {
        own.extend(
            state
                .communal_hand
                .first()
                .map(|card| DraftCiderAction::Pick {
                    card: *card,
                    batch: DraftCiderBatch::Bad,
                }),
        );
    }
    let mut strange_cards = spread(&undealt_cards(state), 4);
    strange_cards.extend(state.orchards.iter().filter_map(|orchard| {
        DraftCiderBatch::ALL
            .iter()
            .find_map(|batch| orchard.cards(*batch).first().copied())
    }));
    for action in own {
        if let DraftCiderAction::Pick { card, batch } = action {
            for strange in &strange_cards {
                probes.push(DraftCiderAction::Pick {
                    card: *strange,
                    batch,
                });
            }
            for other_batch in DraftCiderBatch::ALL {
                probes.push(DraftCiderAction::Pick {
                    card,
                    batch: other_batch,
                });
            }
        }
    }
    probes.extend(arbitrary.iter().cloned());
    probes
}

/// Arbitrary picks (any of the 75 cards, any batch) and timeouts, as seats
/// might send them.
fn arbitrary_actions() -> impl Strategy<Value = Vec<DraftCiderAction>> {
    let deck = umpire_draft_cider::cards::full_deck();
    proptest::collection::vec((0..75_usize, 0..8_usize, 0..8_u8, any::<bool>()), 0..6).prop_map(
        move |probes| {
            probes
                .into_iter()
                .map(|(card, batch, seat, pick)| {
                    if pick {
                        DraftCiderAction::Pick {
                            card: deck[card],
                            batch: DraftCiderBatch::ALL[batch],
                        }
                    } else {
                        DraftCiderAction::Timeout {
                            seat: SeatIndex(seat),
                        }
                    }
                })
                .collect()
        },
    )
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
    fn the_deck_order_never_reaches_a_seat_or_a_spectator(
        options in options_strategy(), seed in any::<u64>(), arbitrary in arbitrary_actions()
    ) {
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
                // Nor through a refusal of one of the seat's actions.
                if let Viewer::Seat(seat) = viewer {
                    let probes = probe_actions(&state, *seat, &arbitrary);
                    assert_refusals_keep_secrets(&state, *seat, &probes, DraftCider::decide, &format!("event {position}"));
                }
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

/// A three-player game just after the first deal.
fn a_game_in_its_first_round() -> DraftCiderState {
    let options = DraftCiderOptions {
        players: 3,
        ..DraftCiderOptions::default()
    };
    umpire_domain::testing::Table::<DraftCider>::new(options, 11).state
}

#[test]
fn the_refusal_check_catches_a_message_naming_an_undealt_card() {
    let state = a_game_in_its_first_round();
    let hand_card = state.communal_hand[0];
    let next = undealt_cards(&state)[0];
    let sent = serde_json::to_string(&DraftCiderAction::Pick {
        card: hand_card,
        batch: DraftCiderBatch::Bad,
    })
    .expect("action");
    let leaky: Violation = umpire_draft_cider::codes::NOT_YOUR_TURN
        .with(format!("Not your turn; {next} is dealt next round."));
    let caught = std::panic::catch_unwind(|| {
        assert_refusal_names_no_secret(&state, &leaky, &sent, "fabricated")
    });
    assert!(
        caught.is_err(),
        "an undealt card in a message went unnoticed"
    );
}

/// Refuses like `decide`, then tells the seat where in the standard deck
/// the next undealt card sits: a leak of the order that names no card.
fn decide_revealing_the_next_card(
    state: &DraftCiderState,
    actor: Actor<SeatIndex>,
    action: &DraftCiderAction,
) -> Result<Vec<DraftCiderEvent>, Violation> {
    DraftCider::decide(state, actor, action).map_err(|mut violation| {
        let full = umpire_draft_cider::cards::full_deck();
        let next = undealt_cards(state)
            .first()
            .and_then(|card| full.iter().position(|known| known == card));
        violation.message = format!("{} (next: #{next:?})", violation.message);
        violation
    })
}

#[test]
fn the_refusal_check_catches_a_message_that_depends_on_the_deck_order() {
    let state = a_game_in_its_first_round();
    let seat = SeatIndex((state.picker.0 + 1) % state.players);
    let probes = probe_actions(&state, seat, &[]);
    // The honest rules pass the same probes.
    assert_refusals_keep_secrets(&state, seat, &probes, DraftCider::decide, "honest");
    let caught = std::panic::catch_unwind(|| {
        assert_refusals_keep_secrets(
            &state,
            seat,
            &probes,
            decide_revealing_the_next_card,
            "leaky",
        )
    });
    assert!(
        caught.is_err(),
        "a refusal revealing the deck order went unnoticed"
    );
}

/// Refuses like `decide`, but says so when the card is still in the deck.
fn decide_saying_the_card_is_in_the_deck(
    state: &DraftCiderState,
    actor: Actor<SeatIndex>,
    action: &DraftCiderAction,
) -> Result<Vec<DraftCiderEvent>, Violation> {
    DraftCider::decide(state, actor, action).map_err(|mut violation| {
        if let DraftCiderAction::Pick { card, .. } = action {
            if undealt_cards(state).contains(card) {
                violation.message = format!("{card} is still in the deck.");
            }
        }
        violation
    })
}

#[test]
fn the_refusal_check_catches_a_message_saying_a_card_is_still_in_the_deck() {
    let options = DraftCiderOptions {
        players: 3,
        ..DraftCiderOptions::default()
    };
    // A few picks in, so some cards are placed and others still undealt.
    let state = play_random::<DraftCider>(options, 5, 4).state;
    let seat = state.picker;
    assert!(!undealt_cards(&state).is_empty());
    let probes = probe_actions(&state, seat, &[]);
    assert_refusals_keep_secrets(&state, seat, &probes, DraftCider::decide, "honest");
    let caught = std::panic::catch_unwind(|| {
        assert_refusals_keep_secrets(
            &state,
            seat,
            &probes,
            decide_saying_the_card_is_in_the_deck,
            "leaky",
        )
    });
    assert!(caught.is_err(), "\"still in the deck\" went unnoticed");
}

/// The umpire is shown every event whole, and every viewer the events of
/// `PUBLIC_EVENTS`, judged at any version (`Game::redact_event`'s contract,
/// on which the service relies instead of redacting them).
#[test]
fn the_umpire_sees_every_event_and_everyone_the_public_ones_whole() {
    for seed in 0..6 {
        let options = DraftCiderOptions {
            players: 1 + (seed % 6) as u8,
            ..DraftCiderOptions::default()
        };
        let game = play(options, seed);
        umpire_domain::testing::assert_unredacted_events_are_whole(&game);
    }
}

/// What the service keeps of a fold between folds (a snapshot of the
/// state) resumes the same match at every version of random games, and
/// folds on to the same end.
#[test]
fn a_snapshot_resumes_the_same_match_at_every_version() {
    for seed in 0..3 {
        let options = DraftCiderOptions {
            players: 1 + (seed % 6) as u8,
            ..DraftCiderOptions::default()
        };
        let game = play(options, seed);
        umpire_domain::testing::assert_snapshots_resume_every_state(&game);
    }
}
