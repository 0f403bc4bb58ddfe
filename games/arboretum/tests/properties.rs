//! Invariants over random games: play ends without panics, replay
//! reproduces the state, listed actions are accepted, secrets stay secret
//! (in views, events, scores and the violations that refuse a seat's
//! actions), and `decide` refuses rather than panics on arbitrary actions.

use crate::support;

use proptest::prelude::*;
use support::*;
use umpire_arboretum::{
    Arboretum, ArboretumAction, ArboretumCard, ArboretumCell, ArboretumEvent, ArboretumGroup,
    ArboretumOptions, ArboretumPhase, ArboretumPlan, ArboretumSeat, ArboretumState,
};
use umpire_domain::testing::{
    self, fold, other_orders, play_random, spread, umpire_view_json, Decide, Table,
};
use umpire_domain::{Actor, Game, Viewer, Violation};

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

/// The cards not dealt yet: their order is the umpire's secret (§6).
fn undealt_cards(state: &ArboretumState) -> Vec<ArboretumCard> {
    state.deck.get(state.dealt..).unwrap_or_default().to_vec()
}

/// The other seat's bid while it is still secret from `seat` (§3.2: until
/// both bids are in, as `view` hides it).
fn hidden_bid_of_other(
    state: &ArboretumState,
    seat: ArboretumSeat,
) -> Option<&Vec<ArboretumGroup>> {
    let hidden = matches!(
        state.phase,
        ArboretumPhase::Bidding | ArboretumPhase::ChoosingStart
    );
    state.bids[seat.other().index()].as_ref().filter(|_| hidden)
}

/// The state with every secret of `seat`'s opponent and of the umpire
/// changed, in two ways: the undealt deck rotated by one (every card moves
/// one place) and reversed (most cards move to another round's deal), and
/// in both the other seat's hidden bid swapped for one with another number
/// of groups. Whether the other seat has bid is public and stays as it was.
fn with_other_secrets_changed(state: &ArboretumState, seat: ArboretumSeat) -> [ArboretumState; 2] {
    let dealt = state.dealt.min(state.deck.len());
    let mut changed = other_orders(&state.deck[dealt..]).map(|undealt| {
        let mut changed = state.clone();
        changed.deck.truncate(dealt);
        changed.deck.extend(undealt);
        changed
    });
    if let Some(bid) = hidden_bid_of_other(state, seat) {
        let other_bid = if bid.is_empty() {
            vec![ArboretumGroup {
                size: 1,
                plan: ArboretumPlan::Garden,
            }]
        } else {
            Vec::new()
        };
        for state in &mut changed {
            state.bids[seat.other().index()] = Some(other_bid.clone());
        }
    }
    changed
}

/// A card everyone can see outside the offering area and the refuse pile:
/// out of the game, in an arboretum or on an ad board.
fn a_public_card_elsewhere(state: &ArboretumState) -> Option<ArboretumCard> {
    state.out_of_game.first().copied().or_else(|| {
        state.players.iter().find_map(|player| {
            player
                .arboretum
                .values()
                .next()
                .or(player.ad_board.first())
                .copied()
        })
    })
}

/// Planting, digging or taking a card still in the deck must be refused in
/// the same words (the card's name aside) as a card in plain sight
/// elsewhere: "that card is still in the deck" would say where it is.
fn assert_cards_in_the_deck_are_refused_alike(
    state: &ArboretumState,
    seat: ArboretumSeat,
    decide: Decide<Arboretum>,
    context: &str,
) {
    let Some(public) = a_public_card_elsewhere(state) else {
        return;
    };
    let cell = ArboretumCell::of("A1");
    let shapes: [fn(ArboretumCard, ArboretumCell) -> ArboretumAction; 3] = [
        |card, cell| ArboretumAction::Plant { card, cell },
        |card, cell| ArboretumAction::Dig { card, cell },
        |card, _| ArboretumAction::Take {
            card,
            discard: None,
        },
    ];
    let anonymous_refusal = |shape: fn(ArboretumCard, ArboretumCell) -> ArboretumAction,
                             card: ArboretumCard| {
        decide(state, Actor::Seat(seat), &shape(card, cell))
            .err()
            .map(|mut violation| {
                violation.message = violation.message.replace(&card.to_string(), "<card>");
                violation
            })
    };
    for shape in shapes {
        let expected = anonymous_refusal(shape, public);
        for undealt in spread(&undealt_cards(state), 6) {
            assert_eq!(
                anonymous_refusal(shape, undealt),
                expected,
                "{context}: {seat:?} sending {:?} (a card still in the deck) is told something else than for {public}",
                shape(undealt, cell)
            );
        }
    }
}

/// Fails when the refusal shown to `seat` (code, message and rule) gives
/// away a secret by name: an undealt card, or while the other seat's bid is
/// hidden, a plan (`garden`/`bulletin`) or the `"plan"`/`"groups"` keys the
/// view and event checks look for. A card or plan the seat named itself in
/// the action (`sent`) may be echoed back: any card can be named in an
/// action, so echoing it tells the seat nothing. A message that depends on
/// a secret without naming it is caught by the changed-secrets comparison
/// in `assert_refusals_keep_secrets` instead.
fn assert_refusal_names_no_secret(
    state: &ArboretumState,
    seat: ArboretumSeat,
    violation: &Violation,
    sent: &str,
    context: &str,
) {
    let shown = serde_json::to_string(violation).expect("violation");
    let undealt = undealt_cards(state);
    for word in shown.split(|character: char| !character.is_ascii_alphanumeric()) {
        let Ok(named) = word.parse::<ArboretumCard>() else {
            continue;
        };
        assert!(
            !undealt.contains(&named) || sent.contains(&format!("\"{named}\"")),
            "{context}: the refusal {shown} names the undealt card {named}"
        );
    }
    if hidden_bid_of_other(state, seat).is_some() {
        let lowered = shown.to_lowercase();
        for key in ["\"plan\"", "\"groups\""] {
            assert!(
                !lowered.contains(key),
                "{context}: the refusal {shown} shows a bid"
            );
        }
        for plan in ["garden", "bulletin"] {
            assert!(
                !lowered.contains(plan) || sent.contains(plan),
                "{context}: the refusal {shown} names a plan while {:?}'s bid is hidden",
                seat.other()
            );
        }
    }
}

/// Feeds `actions` to `decide` as `seat` and checks every refusal: it names
/// no secret, and the same action meets exactly the same answer (refusal or
/// not) when the opponent's hidden bid and the deck order are different.
/// Then checks that a card still in the deck is refused like a visible one.
fn assert_refusals_keep_secrets(
    state: &ArboretumState,
    seat: ArboretumSeat,
    actions: &[ArboretumAction],
    decide: Decide<Arboretum>,
    context: &str,
) {
    testing::assert_refusals_keep_secrets::<Arboretum>(
        decide,
        state,
        &with_other_secrets_changed(state, seat),
        Actor::Seat(seat),
        actions,
        context,
        |violation, sent, context| {
            assert_refusal_names_no_secret(state, seat, violation, sent, context)
        },
    );
    assert_cards_in_the_deck_are_refused_alike(state, seat, decide, context);
}

/// The actions to try as `seat`: (a) what the other seat and the umpire may
/// do now, (b) the seat's own listed actions with an undealt card or one of
/// the opponent's, an occupied or far cell, and the opponent's hidden bid
/// sent as its own, and (c) the arbitrary ones.
fn probe_actions(
    state: &ArboretumState,
    seat: ArboretumSeat,
    arbitrary: &[ArboretumAction],
) -> Vec<ArboretumAction> {
    let mut probes = spread(
        &Arboretum::legal_actions(state, Actor::Seat(seat.other())),
        8,
    );
    probes.extend(Arboretum::legal_actions(state, UMPIRE));
    let mut strange_cards = spread(&undealt_cards(state), 3);
    strange_cards.extend(state.player(seat.other()).ad_board.first().copied());
    strange_cards.extend(
        state
            .player(seat.other())
            .arboretum
            .values()
            .next()
            .copied(),
    );
    let mut strange_cells = vec![ArboretumCell::of("A1"), ArboretumCell::of("F6")];
    strange_cells.extend(state.player(seat).arboretum.keys().next().copied());
    let own = spread(&Arboretum::legal_actions(state, Actor::Seat(seat)), 3);
    // With no listed action (not its turn, bidding over) the same shapes
    // are still worth sending.
    let shapes = if own.is_empty() {
        vec![
            ArboretumAction::Plant {
                card: ArboretumCard::of("P1"),
                cell: ArboretumCell::of("A1"),
            },
            ArboretumAction::Take {
                card: ArboretumCard::of("P1"),
                discard: None,
            },
            ArboretumAction::Hire { cards: Vec::new() },
            ArboretumAction::Bid { groups: Vec::new() },
        ]
    } else {
        own.clone()
    };
    for shape in &shapes {
        for card in &strange_cards {
            probes.push(match shape.clone() {
                ArboretumAction::Plant { cell, .. } => ArboretumAction::Plant { card: *card, cell },
                ArboretumAction::Dig { cell, .. } => ArboretumAction::Dig { card: *card, cell },
                ArboretumAction::Take { card: taken, .. } => ArboretumAction::Take {
                    card: taken,
                    discard: Some(*card),
                },
                ArboretumAction::Hire { mut cards } => {
                    cards.push(*card);
                    ArboretumAction::Hire { cards }
                }
                other => other,
            });
            if let ArboretumAction::Take { .. } = shape {
                probes.push(ArboretumAction::Take {
                    card: *card,
                    discard: None,
                });
            }
        }
        if let ArboretumAction::Plant { card, .. } | ArboretumAction::Dig { card, .. } = shape {
            for cell in &strange_cells {
                probes.push(ArboretumAction::Plant {
                    card: *card,
                    cell: *cell,
                });
                probes.push(ArboretumAction::Dig {
                    card: *card,
                    cell: *cell,
                });
            }
        }
        if let ArboretumAction::Bid { groups } = shape {
            let mut growing = groups.clone();
            growing.push(ArboretumGroup {
                size: 12,
                plan: ArboretumPlan::Garden,
            });
            probes.push(ArboretumAction::Bid { groups: growing });
            if let Some(secret) = hidden_bid_of_other(state, seat) {
                probes.push(ArboretumAction::Bid {
                    groups: secret.clone(),
                });
            }
        }
    }
    probes.extend(own);
    probes.extend([ArboretumAction::Start, ArboretumAction::Skip]);
    probes.extend(arbitrary.iter().cloned());
    probes
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
        seed in any::<u64>(), stop in 0usize..150, bidder in any_seat(), choice in any::<usize>(),
        arbitrary in proptest::collection::vec(any_action(), 0..6)
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
        // Nor does it reach the other seat through a refusal.
        for seat in ArboretumSeat::BOTH {
            let probes = probe_actions(&table.state, seat, &arbitrary);
            assert_refusals_keep_secrets(&table.state, seat, &probes, Arboretum::decide, "after a bid");
        }
    }

    #[test]
    fn the_deck_order_never_reaches_a_seat_or_spectator(
        seed in any::<u64>(), stop in 0usize..200,
        arbitrary in proptest::collection::vec(any_action(), 0..6)
    ) {
        let game = play_random::<Arboretum>(options(false), seed, stop);
        for seat in ArboretumSeat::BOTH {
            let probes = probe_actions(&game.state, seat, &arbitrary);
            assert_refusals_keep_secrets(&game.state, seat, &probes, Arboretum::decide, &format!("after {stop} steps"));
        }
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

/// Round 2's bidding with Red's bid in and secret from Blue.
fn a_table_with_a_hidden_bid() -> Table<Arboretum> {
    let mut table = Position::round(2, ArboretumSeat::Red)
        .offering(&["P1", "Q2", "R3", "S4", "T5"])
        .table();
    table.accepts(RED, bid("3g 2b"));
    table
}

#[test]
fn the_refusal_check_catches_a_message_naming_an_undealt_card() {
    let table = a_table_with_a_hidden_bid();
    let next = undealt_cards(&table.state)
        .into_iter()
        .find(|card| *card != ArboretumCard::of("P1"))
        .expect("an undealt card");
    let leaky = umpire_arboretum::codes::CARD_NOT_IN_OFFERING.with(format!(
        "P1 is not in the offering area; {next} comes next."
    ));
    let caught = std::panic::catch_unwind(|| {
        assert_refusal_names_no_secret(
            &table.state,
            ArboretumSeat::Blue,
            &leaky,
            r#"{"type":"take","card":"P1"}"#,
            "fabricated",
        )
    });
    assert!(
        caught.is_err(),
        "an undealt card in a message went unnoticed"
    );
}

#[test]
fn the_refusal_check_catches_a_message_naming_a_hidden_plan() {
    let table = a_table_with_a_hidden_bid();
    let leaky = umpire_arboretum::codes::WRONG_PHASE.with("Red leads with a Garden group.");
    let caught = std::panic::catch_unwind(|| {
        assert_refusal_names_no_secret(
            &table.state,
            ArboretumSeat::Blue,
            &leaky,
            r#"{"type":"start"}"#,
            "fabricated",
        )
    });
    assert!(caught.is_err(), "a hidden plan in a message went unnoticed");
}

/// Refuses like `decide`, then tells the seat how many groups the other
/// seat bid: a leak that names neither a card nor a plan.
fn decide_revealing_the_other_group_count(
    state: &ArboretumState,
    actor: Actor<ArboretumSeat>,
    action: &ArboretumAction,
) -> Result<Vec<ArboretumEvent>, Violation> {
    Arboretum::decide(state, actor, action).map_err(|mut violation| {
        if let Actor::Seat(seat) = actor {
            let groups = state.bids[seat.other().index()]
                .as_ref()
                .map_or(0, Vec::len);
            violation.message = format!("{} ({groups} groups against you)", violation.message);
        }
        violation
    })
}

#[test]
fn the_refusal_check_catches_a_message_that_depends_on_a_hidden_bid() {
    let table = a_table_with_a_hidden_bid();
    let probes = probe_actions(&table.state, ArboretumSeat::Blue, &[]);
    // The honest rules pass the same probes.
    assert_refusals_keep_secrets(
        &table.state,
        ArboretumSeat::Blue,
        &probes,
        Arboretum::decide,
        "honest",
    );
    let caught = std::panic::catch_unwind(|| {
        assert_refusals_keep_secrets(
            &table.state,
            ArboretumSeat::Blue,
            &probes,
            decide_revealing_the_other_group_count,
            "leaky",
        )
    });
    assert!(
        caught.is_err(),
        "a refusal revealing the bid went unnoticed"
    );
}

/// Refuses like `decide`, but says so when the card is still in the deck.
fn decide_saying_the_card_is_in_the_deck(
    state: &ArboretumState,
    actor: Actor<ArboretumSeat>,
    action: &ArboretumAction,
) -> Result<Vec<ArboretumEvent>, Violation> {
    Arboretum::decide(state, actor, action).map_err(|mut violation| {
        if let ArboretumAction::Plant { card, .. } | ArboretumAction::Take { card, .. } = action {
            if undealt_cards(state).contains(card) {
                violation.message = format!("{card} is still in the deck.");
            }
        }
        violation
    })
}

#[test]
fn the_refusal_check_catches_a_message_saying_a_card_is_still_in_the_deck() {
    // A garden turn of a random game, with a card in plain sight outside
    // the offering area and the refuse pile.
    let state = (0..40u64)
        .flat_map(|seed| (20..200usize).step_by(7).map(move |stop| (seed, stop)))
        .map(|(seed, stop)| play_random::<Arboretum>(options(false), seed, stop).state)
        .find(|state| {
            state.current_turn().map(|turn| turn.plan) == Some(ArboretumPlan::Garden)
                && a_public_card_elsewhere(state).is_some()
                && !undealt_cards(state).is_empty()
        })
        .expect("a garden turn");
    let seat = state.current_turn().expect("a turn").seat;
    let probes = probe_actions(&state, seat, &[]);
    assert_refusals_keep_secrets(&state, seat, &probes, Arboretum::decide, "honest");
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
        let game = play_random::<Arboretum>(options(seed % 2 == 0), seed, 3_000);
        umpire_domain::testing::assert_unredacted_events_are_whole(&game);
    }
}

/// What the service keeps of a fold between folds (a snapshot of the
/// state) resumes the same match at every version of random games, and
/// folds on to the same end.
#[test]
fn a_snapshot_resumes_the_same_match_at_every_version() {
    for seed in 0..3 {
        let game = play_random::<Arboretum>(options(seed % 2 == 0), seed, 3_000);
        umpire_domain::testing::assert_snapshots_resume_every_state(&game);
    }
}
